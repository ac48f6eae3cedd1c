//! Query plans of WITHOUT ROWID tables: the PRIMARY KEY read as an index
//! (searched with equalities, an IN list and a range on its columns, or
//! walked whole, forwards or backwards) serves ORDER BY, GROUP BY,
//! DISTINCT and min()/max() without a sorter where SQLite's does, and
//! secondary indexes, whose entries end with the key, order by the key
//! columns after their equalities. EXPLAIN QUERY PLAN and the rows (in
//! order) match SQLite's.
use crate::sql_common;
use sql_common::check_plans;

const SETUP: &str = "CREATE TABLE x(a,b,c,PRIMARY KEY(a,b)) WITHOUT ROWID;
CREATE TABLE y(a,b DESC,c,d,PRIMARY KEY(a,b DESC)) WITHOUT ROWID;
CREATE TABLE z(p TEXT PRIMARY KEY, q, r) WITHOUT ROWID;
CREATE INDEX zq ON z(q);
CREATE TABLE w(a,b,c,d,PRIMARY KEY(a,b)) WITHOUT ROWID;
CREATE INDEX wc ON w(c);
CREATE TABLE r(id INTEGER PRIMARY KEY, a, v);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<40)
INSERT INTO x SELECT i%5, i, i*2 FROM n;
INSERT INTO y SELECT a,b,c,c FROM x;
INSERT INTO z SELECT 'k'||b, a, c FROM x;
INSERT INTO w SELECT a,b,c%3,c FROM x;
INSERT INTO r SELECT b, a, c FROM x;
CREATE TABLE n(k TEXT COLLATE NOCASE, v, PRIMARY KEY(k)) WITHOUT ROWID;
INSERT INTO n VALUES('a',1),('B',2),('c',3),('D',4);
CREATE TABLE m(k TEXT, v, PRIMARY KEY(k COLLATE NOCASE)) WITHOUT ROWID;
INSERT INTO m VALUES('a',1),('B',2),('c',3),('D',4);
CREATE TABLE v3(a INT, b INT, c INT, d, PRIMARY KEY(a, b DESC, c)) WITHOUT ROWID;
INSERT INTO v3 SELECT a%2, b%3, b, c FROM x;
CREATE INDEX v3d ON v3(d);";

#[test]
fn without_rowid_key_serves_orders() {
    check_plans(
        SETUP,
        &[
            "SELECT c FROM x WHERE a=1 ORDER BY b",
            "SELECT c FROM x WHERE a=1 ORDER BY b DESC",
            "SELECT * FROM x ORDER BY a, b",
            "SELECT * FROM x ORDER BY a DESC, b DESC",
            "SELECT * FROM x ORDER BY a",
            "SELECT * FROM x ORDER BY a DESC",
            "SELECT a, count(*) FROM x GROUP BY a",
            "SELECT a, b, count(*) FROM x GROUP BY b, a",
            "SELECT b, count(*) FROM x WHERE a=2 GROUP BY b",
            "SELECT min(a) FROM x",
            "SELECT max(a) FROM x",
            "SELECT max(b) FROM x WHERE a=3",
            "SELECT min(b) FROM x WHERE a=3",
            "SELECT DISTINCT a FROM x",
            "SELECT DISTINCT a, b FROM x",
            "SELECT c FROM y WHERE a=1 ORDER BY b",
            "SELECT c FROM y WHERE a=1 ORDER BY b DESC",
            "SELECT * FROM y ORDER BY a, b DESC",
            "SELECT * FROM y ORDER BY a DESC, b",
            "SELECT max(b) FROM y WHERE a=3",
            "SELECT * FROM z ORDER BY p",
            "SELECT * FROM z WHERE q=1 ORDER BY p",
            "SELECT * FROM z WHERE q=1 ORDER BY p DESC",
            "SELECT * FROM w WHERE c=1 ORDER BY a, b",
            "SELECT * FROM w WHERE c=1 ORDER BY a",
            "SELECT * FROM w WHERE c=1 ORDER BY b",
            "SELECT * FROM x JOIN r ON r.id=x.b ORDER BY x.a, x.b",
            "SELECT * FROM x LEFT JOIN r ON r.id=x.b ORDER BY x.a, x.b",
            "SELECT * FROM r LEFT JOIN x ON x.a=r.a AND x.b=r.id ORDER BY r.id",
            "SELECT * FROM x WHERE a IN (1,2) AND b=6",
            "SELECT * FROM x WHERE a IN (1,2) AND b>6",
            "SELECT * FROM x WHERE a=1 AND b IN (6,11,16)",
            "SELECT * FROM x WHERE a>2 ORDER BY a",
            "SELECT * FROM x WHERE a>2 ORDER BY a, b",
            "SELECT * FROM x WHERE a=1 AND b>10 ORDER BY b",
            "SELECT * FROM x WHERE a=1 AND b>10 ORDER BY b DESC",
            "SELECT a FROM x GROUP BY a ORDER BY a DESC",
            "SELECT * FROM r WHERE a IS NULL",
            "SELECT * FROM n ORDER BY k",
            "SELECT * FROM n ORDER BY k DESC",
            "SELECT * FROM n WHERE k > 'b' ORDER BY k",
            "SELECT * FROM m ORDER BY k",
            "SELECT * FROM m ORDER BY k COLLATE NOCASE",
            "SELECT * FROM m WHERE k='b'",
            "SELECT * FROM v3 ORDER BY a, b DESC, c",
            "SELECT * FROM v3 ORDER BY a DESC, b, c DESC",
            "SELECT * FROM v3 WHERE a=1 ORDER BY b DESC, c",
            "SELECT * FROM v3 WHERE a=1 AND b=2 ORDER BY c DESC",
            "SELECT * FROM v3 WHERE a=1 AND b>0 ORDER BY b",
            "SELECT * FROM v3 WHERE a=1 AND b<2 ORDER BY b DESC",
            "SELECT a, b, count(*) FROM v3 GROUP BY a, b",
            "SELECT a, b, count(*) FROM v3 GROUP BY b, a",
            "SELECT DISTINCT b FROM v3 WHERE a=1",
            "SELECT max(c) FROM v3 WHERE a=1 AND b=2",
            "SELECT min(a) FROM v3",
            "SELECT max(a) FROM v3",
            "SELECT * FROM v3 ORDER BY a, b DESC, c, d",
            "SELECT a, count(*) FROM x GROUP BY a ORDER BY a DESC",
            "SELECT x.a, count(*) FROM x JOIN r ON r.id=x.b GROUP BY x.a",
            "SELECT * FROM x JOIN y ON y.a=x.a AND y.b=x.b ORDER BY x.a, x.b",
            "SELECT * FROM x JOIN y ON y.a=x.a AND y.b=x.b ORDER BY y.a, y.b DESC",
            "SELECT * FROM x, y WHERE x.a=1 AND y.a=x.b ORDER BY x.b",
            "SELECT count(*) FROM x WHERE a=1 AND b BETWEEN 5 AND 30",
            "SELECT * FROM x WHERE b=6",
            "SELECT * FROM x WHERE a=2 ORDER BY a, b",
            "SELECT * FROM z WHERE p > 'k3' ORDER BY p DESC",
            "SELECT * FROM z WHERE p > 'k3' AND q=2",
            "SELECT * FROM z WHERE q>2 ORDER BY p",
            "SELECT * FROM w WHERE c=1 ORDER BY a DESC, b DESC",
            "SELECT * FROM w ORDER BY c, a, b",
            "SELECT a FROM w WHERE a BETWEEN 1 AND 3 ORDER BY a DESC",
            "SELECT * FROM x LEFT JOIN y ON y.a=x.a AND y.b=x.b WHERE x.a=3 ORDER BY x.b DESC",
            "SELECT * FROM x WHERE a=1 ORDER BY b LIMIT 3",
            "SELECT * FROM x WHERE a=1 ORDER BY b DESC LIMIT 3 OFFSET 1",
            "SELECT * FROM x ORDER BY a DESC, b DESC LIMIT 5",
            "SELECT a, max(b) FROM x GROUP BY a",
            "SELECT a, min(b) FROM x GROUP BY a ORDER BY a DESC",
            "SELECT * FROM x WHERE a IN (1,2)",
            "SELECT * FROM x WHERE a IN (1,2,NULL) AND b=6",
            "SELECT * FROM x WHERE a IN (1,'2') AND b>6 AND b<=21",
            "SELECT * FROM y WHERE a IN (1,2) AND b>6",
            "SELECT * FROM y WHERE a IN (1,2) AND b<20 AND b>=6",
            "SELECT * FROM y WHERE a=1 AND b IN (6,11,16)",
            "SELECT * FROM v3 WHERE a=1 AND b IN (0,2) AND c>10",
            "SELECT * FROM v3 WHERE a IN (0,1) AND b=2 AND c=8",
            "SELECT * FROM x WHERE a IN (1,2) AND b=6 ORDER BY b",
            "SELECT * FROM r JOIN x ON x.a IN (1,2) AND x.b=r.id",
            "SELECT * FROM z WHERE p IN ('k3','k4')",
        ],
    );
}
