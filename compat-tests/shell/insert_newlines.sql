-- text with newlines and carriage returns in insert mode and .dump (3.40's replace() form; README says 3.50+ writes unistr())
.mode insert
SELECT 'x'||char(13,10)||'y' AS a, 'a\nb'||char(10) AS b;
CREATE TABLE t(v);
INSERT INTO t VALUES ('line1'||char(10)||'line2');
.dump
