-- .output and .once send results to a file; .read shows what they wrote
CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);
.output out1.txt
SELECT x FROM t;
SELECT 'second';
.output
SELECT 'back on stdout';
.once once.txt
SELECT x * 10 FROM t;
SELECT 'after once';
.mode csv
.once out1.csv
SELECT 'a,b', 3;
.mode list
.import --csv out1.csv fromcsv
SELECT * FROM fromcsv;
.read out1.txt
.output /nonexistent/dir/f.txt
SELECT 'stdout again';
