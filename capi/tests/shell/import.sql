.import --csv IMPORT_CSV people
.schema people
SELECT * FROM people ORDER BY 1;
CREATE TABLE typed(n INTEGER, label TEXT);
.import --csv --skip 1 IMPORT_CSV typed
SELECT n, typeof(n), label FROM typed ORDER BY n;
.mode csv
.headers on
SELECT * FROM typed ORDER BY n;
