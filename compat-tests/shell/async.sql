-- .async (ringlite only): the same results on an async connection, with
-- each statement's waits counted (the counts depend on the page cache, so
-- the runner masks the numbers)
.open --new async.db
CREATE TABLE big(id INTEGER PRIMARY KEY, v TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO big SELECT i, printf('%0100d', i) FROM n;
.async on
.async stats on
SELECT count(*), sum(id), max(length(v)) FROM big;
UPDATE big SET v = 'x' WHERE id % 1000 = 0;
SELECT id, v FROM big WHERE v = 'x' ORDER BY id;
.async stats off
.async off
SELECT count(*) FROM big WHERE v = 'x';
