-- errors as SQLite's shell reports them: parse and runtime, line numbers, carets
SELEC 1;
CREATE TABLE t(a UNIQUE NOT NULL);
INSERT INTO t VALUES (1);
INSERT INTO t VALUES (1);
INSERT INTO t VALUES (NULL);
SELECT 1,
  2 +
  ;
SELECT abs(-9223372036854775808);
SELECT 'after errors';
SELECT 1 FROM t WHERE a = 1 AND b = 2 AND c = 3 AND something_rather_long_here = 4 AND more_text_to_push = 5 +;
.bogus
.headers
.headers maybe
SELECT count(*) FROM t;
