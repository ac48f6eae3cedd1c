-- statements spanning lines, several on a line, comments, go and / terminators
SELECT 1; SELECT 2;
SELECT
  3
  ;
-- a comment line
/* a block comment */
SELECT 'a;b', "x;y" FROM (SELECT 1 AS "x;y");
CREATE TABLE t(x);
CREATE TRIGGER tr AFTER INSERT ON t BEGIN
  INSERT INTO t VALUES (new.x + 100);
END;
INSERT INTO t VALUES (1);
SELECT * FROM t
go
SELECT count(*) FROM t
/
  SELECT 'leading spaces';
SELECT 'no semicolon at end'
