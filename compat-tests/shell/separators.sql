-- .separator, .nullvalue, .headers in list and csv modes
CREATE TABLE s(x, y);
INSERT INTO s VALUES ('a', NULL), ('b,c', 'd|e'), ('', 'f');
.separator :
SELECT * FROM s;
.separator " :: " "\n--\n"
SELECT * FROM s;
.separator | \n
.nullvalue (null)
.headers on
SELECT * FROM s;
.mode csv
SELECT * FROM s;
.separator |
SELECT * FROM s;
