//! Query plans: EXPLAIN QUERY PLAN's detail lines match SQLite's for joins
//! where the join order and the lookup on each inner table matter (the
//! ids differ: SQLite's are instruction addresses).
use crate::sql_common;
use sql_common::{check_plans, ours_open, run_ours, run_ref, RefDb};

const SHOP: &str = "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL);
CREATE TABLE items(id INTEGER PRIMARY KEY, order_id INTEGER, sku TEXT);
INSERT INTO customers VALUES(1,'ann'),(2,'bob'),(3,'cy');
INSERT INTO orders VALUES(10,1,5.0),(11,2,7.5),(12,1,1.0);
INSERT INTO items VALUES(100,10,'a'),(101,10,'b'),(102,11,'a'),(103,12,'c'),(104,99,'z');";

#[test]
fn three_way_join_uses_rowid_lookups() {
    check_plans(
        SHOP,
        &[
            "SELECT c.name, i.sku FROM orders o JOIN items i ON i.order_id = o.id JOIN customers c ON c.id = o.customer_id ORDER BY 1, 2",
            "SELECT c.name, i.sku FROM orders o JOIN items i ON i.order_id = o.id JOIN customers c ON c.id = o.customer_id WHERE c.name = 'ann' ORDER BY 2",
            "SELECT * FROM items i, orders o, customers c WHERE o.id = i.order_id AND c.id = o.customer_id AND i.sku = 'a' ORDER BY o.total",
            "SELECT * FROM customers c, orders o WHERE o.customer_id = c.id ORDER BY o.total",
        ],
    );
}

#[test]
fn joins_use_indexes_on_inner_tables() {
    let setup = format!("{SHOP}\nCREATE INDEX items_order ON items(order_id); CREATE INDEX orders_cust ON orders(customer_id);");
    check_plans(
        &setup,
        &[
            "SELECT c.name, i.sku FROM orders o JOIN items i ON i.order_id = o.id JOIN customers c ON c.id = o.customer_id ORDER BY 1, 2",
            "SELECT * FROM orders o, customers c WHERE o.customer_id = c.id AND c.name = 'bob'",
            "SELECT * FROM customers c JOIN orders o ON o.customer_id = c.id JOIN items i ON i.order_id = o.id WHERE c.id = 1 ORDER BY i.sku",
        ],
    );
}

const RANGES: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT, d);
CREATE UNIQUE INDEX tb ON t(b);
CREATE INDEX tc ON t(c);
CREATE TABLE u(x INTEGER UNIQUE, y);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<60)
INSERT INTO t SELECT i, i*3, 'v'||i, i%7 FROM n;
INSERT INTO t VALUES(-5, -15, 'neg', 0), (9223372036854775807, 1000, 'max', 1);
INSERT INTO u SELECT a, c FROM t;";

#[test]
fn rowid_ranges_seek() {
    check_plans(
        RANGES,
        &[
            "SELECT a, c FROM t WHERE a BETWEEN 10 AND 14",
            "SELECT a, c FROM t WHERE rowid > 55",
            "SELECT a FROM t WHERE a >= 57",
            "SELECT a FROM t WHERE a < 3",
            "SELECT a FROM t WHERE a <= 3 AND a > -10",
            "SELECT a FROM t WHERE 10 < a AND 12 >= a",
            "SELECT a FROM t WHERE a > 4.5 AND a < 7.5",
            "SELECT a FROM t WHERE a >= 4.0 AND a <= 6.0",
            "SELECT a FROM t WHERE a > -4.5 AND a < 2",
            "SELECT a FROM t WHERE a BETWEEN '5' AND '8'",
            "SELECT a FROM t WHERE a > 'abc'",
            "SELECT a FROM t WHERE a < 'abc' AND a > 58",
            "SELECT a FROM t WHERE a > x'00'",
            "SELECT a FROM t WHERE a BETWEEN NULL AND 5",
            "SELECT a FROM t WHERE a BETWEEN 5 AND NULL",
            "SELECT a FROM t WHERE a > 9223372036854775806",
            "SELECT a FROM t WHERE a >= 9223372036854775807.0",
            "SELECT a FROM t WHERE a > 1e300",
            "SELECT a FROM t WHERE a < -1e300",
            "SELECT a FROM t WHERE a > -1e300 AND a < 0",
            "SELECT a, d FROM t WHERE a NOT BETWEEN 2 AND 59",
            "SELECT count(*), sum(b) FROM t WHERE a BETWEEN 20 AND 29",
        ],
    );
}

#[test]
fn between_drives_index_ranges() {
    check_plans(
        RANGES,
        &[
            "SELECT a, d FROM t WHERE b BETWEEN 30 AND 45",
            "SELECT count(*), avg(b), sum(length(c)), group_concat(a) FROM t WHERE b BETWEEN 30 AND 45",
            "SELECT d FROM t WHERE b >= 30 AND b <= 45",
            "SELECT d FROM t WHERE b BETWEEN '30' AND '45'",
            "SELECT y FROM u WHERE x BETWEEN 7 AND 9",
            "SELECT a, d FROM t WHERE d BETWEEN 2 AND 3 AND b BETWEEN 10 AND 40",
            "SELECT t.d, u.y FROM t, u WHERE t.b BETWEEN 3 AND 30 AND u.x = t.a",
        ],
    );
}

const ORDERED: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c, d TEXT COLLATE NOCASE, e REAL);
CREATE INDEX tb ON t(b);
CREATE INDEX tcb ON t(c, b DESC);
CREATE INDEX td ON t(d);
CREATE INDEX te ON t(e DESC);
INSERT INTO t VALUES(1,5,1,'b',1.0),(2,NULL,1,'A',2.5),(3,3,2,'a',NULL),(4,5,2,'C',4.0),(5,1,NULL,'c',-1.0),
 (6,NULL,NULL,NULL,3.0),(7,3,1,'B',3.0),(8,9,2,'b',0.0),(9,5,1,NULL,7.0),(10,-2,3,'d',1.0);
CREATE TABLE u(x INTEGER PRIMARY KEY, y, z);
CREATE INDEX uy ON u(y);
INSERT INTO u VALUES(1,10,'p'),(2,20,'q'),(3,10,'r'),(4,NULL,'s'),(5,30,'t');
CREATE TABLE s(a INTEGER PRIMARY KEY, b, c);
CREATE INDEX sb ON s(b);
INSERT INTO s VALUES(1,2,3),(2,NULL,1),(3,2,0);";

#[test]
fn order_by_uses_rowid_and_index_order() {
    check_plans(
        ORDERED,
        &[
            "SELECT * FROM t ORDER BY a",
            "SELECT * FROM t ORDER BY a DESC",
            "SELECT * FROM t ORDER BY rowid DESC LIMIT 1",
            "SELECT * FROM s ORDER BY b",
            "SELECT * FROM s ORDER BY b DESC",
            "SELECT * FROM s ORDER BY b, a",
            "SELECT * FROM s ORDER BY b DESC, a DESC",
            "SELECT * FROM s ORDER BY b COLLATE NOCASE",
            "SELECT * FROM s ORDER BY +b",
            "SELECT * FROM s WHERE b>1 ORDER BY b LIMIT 3",
            "SELECT * FROM s WHERE b>1 ORDER BY b DESC",
            "SELECT * FROM s WHERE b>=1 AND b<3 ORDER BY b DESC",
            "SELECT * FROM s WHERE c=1 ORDER BY b",
            "SELECT * FROM s WHERE c>1 ORDER BY b",
            "SELECT * FROM s WHERE a>1 ORDER BY b",
            "SELECT * FROM s WHERE a>1 ORDER BY a",
            "SELECT * FROM s WHERE a>1 ORDER BY a DESC",
            "SELECT * FROM s WHERE a<3 ORDER BY a DESC LIMIT 1",
            "SELECT * FROM s WHERE a BETWEEN 1 AND 2 ORDER BY a DESC",
            "SELECT max(a) FROM s WHERE a<3",
            "SELECT * FROM s WHERE a IN (3,1) ORDER BY a",
            "SELECT * FROM s WHERE a IN (3,1,2) ORDER BY a DESC",
            "SELECT * FROM s WHERE a=2 ORDER BY b",
            "SELECT * FROM t WHERE c=1 ORDER BY b DESC",
            "SELECT * FROM t WHERE c=2 ORDER BY c, b DESC",
            "SELECT * FROM t WHERE c=1 AND b>3 ORDER BY b DESC",
            "SELECT * FROM t ORDER BY c, b DESC",
            "SELECT * FROM t ORDER BY c DESC, b",
            "SELECT * FROM t ORDER BY d",
            "SELECT * FROM t ORDER BY d COLLATE BINARY",
            "SELECT * FROM t ORDER BY e",
            "SELECT * FROM t ORDER BY e DESC",
            "SELECT b AS q, a FROM t ORDER BY q DESC",
            "SELECT DISTINCT b FROM t ORDER BY b",
        ],
    );
}

#[test]
fn covering_indexes_and_joins_in_order() {
    check_plans(
        ORDERED,
        &[
            "SELECT b FROM t",
            "SELECT b FROM s",
            "SELECT b, a FROM t WHERE b>2",
            "SELECT c, b FROM t WHERE c=1",
            "SELECT t.b, u.z FROM t, u WHERE u.y=10 ORDER BY t.b",
            "SELECT t.a, u.z FROM t JOIN u ON u.x=t.c ORDER BY t.a DESC",
            "SELECT u.*, t.a FROM u LEFT JOIN t ON t.c=u.x ORDER BY u.x DESC",
            "SELECT * FROM u LEFT JOIN t ON t.b=u.y",
            "SELECT * FROM t NOT INDEXED ORDER BY b",
            "SELECT * FROM t INDEXED BY tb WHERE b>2",
        ],
    );
}

#[test]
fn group_by_and_min_max_use_index_order() {
    check_plans(
        ORDERED,
        &[
            "SELECT b, count(*) FROM t GROUP BY b",
            "SELECT b, count(*) FROM t GROUP BY b ORDER BY b",
            "SELECT c, count(*), max(a) FROM t GROUP BY c ORDER BY c DESC",
            "SELECT c, b, count(*) FROM t GROUP BY b, c",
            "SELECT d, count(*) FROM t GROUP BY d",
            "SELECT b, count(*) FROM t WHERE b>1 GROUP BY b",
            "SELECT b FROM t WHERE c=1 GROUP BY b",
            "SELECT min(b) FROM t",
            "SELECT max(b) FROM t",
            "SELECT max(a) FROM t",
            "SELECT min(a) FROM t WHERE b=3",
            "SELECT max(b) FROM t WHERE b<5",
            "SELECT max(b) FROM t WHERE c=1",
            "SELECT max(b) FROM t WHERE c>1",
            "SELECT max(a) FROM t WHERE c>1",
            "SELECT max(b)+1 FROM t",
            "SELECT max(b), a FROM t",
            "SELECT min(e), a FROM t",
            "SELECT min(a), max(a) FROM t",
            "SELECT count(*) FROM t",
            "SELECT count(*) FROM u",
            "SELECT max(x) FROM u",
            "SELECT y, count(*) FROM u GROUP BY y",
            "SELECT x, count(*) FROM u GROUP BY x",
        ],
    );
}

#[test]
fn left_and_full_joins_are_marked() {
    check_plans(
        ORDERED,
        &[
            "SELECT * FROM u LEFT JOIN t ON t.a=u.x",
            "SELECT * FROM u LEFT JOIN t ON t.b=u.y",
            "SELECT * FROM u LEFT JOIN t ON t.e>u.y",
            "SELECT u.x, t.a FROM u LEFT JOIN t ON t.c=u.x ORDER BY u.x",
        ],
    );
}

#[test]
fn common_application_queries() {
    let setup = "CREATE TABLE posts(id INTEGER PRIMARY KEY, user_id INTEGER, created_at TEXT, title TEXT, body TEXT);
CREATE INDEX posts_user ON posts(user_id);
CREATE INDEX posts_user_created ON posts(user_id, created_at);
CREATE INDEX posts_created ON posts(created_at);
CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT UNIQUE, email TEXT);
INSERT INTO users VALUES(1,'ann','a@x'),(2,'bob','b@x'),(3,'cy',NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<40)
INSERT INTO posts SELECT i, i%4, '2024-0' || (i%9+1) || '-' || (10+i%17), 't'||i, 'b'||i FROM n;";
    check_plans(
        setup,
        &[
            "SELECT * FROM posts WHERE user_id=1 ORDER BY created_at DESC LIMIT 5",
            "SELECT * FROM posts ORDER BY created_at DESC LIMIT 7",
            "SELECT * FROM posts ORDER BY id DESC LIMIT 5 OFFSET 10",
            "SELECT count(*) FROM posts",
            "SELECT DISTINCT user_id FROM posts",
            "SELECT user_id, count(*) FROM posts GROUP BY user_id ORDER BY count(*) DESC",
            "SELECT * FROM users ORDER BY name",
            "SELECT name FROM users ORDER BY name DESC",
            "SELECT max(created_at) FROM posts WHERE user_id=3",
            "SELECT p.title, u.name FROM posts p JOIN users u ON u.id=p.user_id ORDER BY p.created_at DESC LIMIT 5",
            "SELECT u.name, count(p.id) FROM users u LEFT JOIN posts p ON p.user_id=u.id GROUP BY u.id",
            "SELECT * FROM posts WHERE created_at > '2024-05' ORDER BY created_at",
            "SELECT * FROM posts WHERE user_id IN (1,3,2) ORDER BY user_id",
            "SELECT id FROM posts WHERE user_id=2",
            "SELECT min(id) FROM posts WHERE user_id=2",
            "SELECT * FROM posts WHERE user_id=1 AND id<30 ORDER BY id DESC LIMIT 3",
            "SELECT id FROM posts WHERE user_id=1 AND id>10 AND id<=33",
            "SELECT id FROM posts WHERE user_id=2 AND id>'5' ORDER BY id DESC",
        ],
    );
}

/// Partial indexes drive a loop only where the query's terms imply their
/// WHERE clause (the same expression, an OR side, or `x IS NOT NULL`
/// implied by a comparison on `x`); a partial index the terms imply is
/// scanned rather than the table; INDEXED BY one they do not imply has no
/// plan.
#[test]
fn partial_indexes_where_their_condition_is_implied() {
    let setup = "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c, d);
CREATE INDEX tb ON t(b) WHERE c IS NOT NULL;
CREATE INDEX tc ON t(c) WHERE d > 10;
CREATE INDEX td ON t(d) WHERE b = 'x' OR b = 'y';
CREATE INDEX te ON t(c, d) WHERE b > 0 AND c < 100;
CREATE TABLE u(x, y);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<200) INSERT INTO t SELECT i, i%7, CASE WHEN i%3 THEN i END, i%20 FROM n;
INSERT INTO u SELECT a, b FROM t WHERE a < 30;";
    check_plans(
        setup,
        &[
            "SELECT * FROM t WHERE b = 3 AND c IS NOT NULL",
            "SELECT * FROM t WHERE b = 3 AND c > 5",
            "SELECT * FROM t WHERE b = 3",
            "SELECT * FROM t WHERE c = 4 AND d > 10",
            "SELECT * FROM t WHERE c = 4 AND d > 11",
            "SELECT * FROM t WHERE d = 4 AND b = 'x'",
            "SELECT * FROM t WHERE c = 4 AND b > 0 AND c < 100",
            "SELECT * FROM t INDEXED BY tb WHERE b = 3 AND c > 0",
            "SELECT * FROM t INDEXED BY tc WHERE c = 4 AND d > 10",
            "SELECT * FROM u, t WHERE t.b = u.y AND t.c IS NOT NULL",
            "SELECT * FROM u LEFT JOIN t ON t.b = u.y AND t.c IS NOT NULL",
            "SELECT * FROM t AS z WHERE z.b = 2 AND z.c+1 > 3",
            "SELECT count(*) FROM t WHERE c IS NOT NULL AND b BETWEEN 1 AND 2",
            "SELECT b FROM t WHERE c IS NOT NULL AND b IN (1,2)",
        ],
    );
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, setup);
    run_ref(&reference, setup);
    for q in [
        "SELECT * FROM t INDEXED BY tb WHERE b = 3",
        "SELECT * FROM t INDEXED BY tc WHERE c = 4",
        "DELETE FROM t INDEXED BY tb WHERE b = 3",
        "UPDATE t INDEXED BY tb SET d = 1 WHERE b = 3",
        "UPDATE t INDEXED BY tb SET d = 1 WHERE b = 3 AND c = 5",
    ] {
        assert_eq!(run_ours(&mut ours, q), run_ref(&reference, q), "{q}");
    }
}

/// A GROUP BY that reading the table in rowid order serves (the rowid
/// among its terms, as Django groups by every selected column) is served
/// as well by an index holding the other terms; a covering one narrower
/// than the table's rows is the cheaper scan and SQLite reads it, so the
/// groups come out in that index's order. DISTINCT likewise; not without
/// a covering index, nor one narrower, nor when the index leaves a term
/// out, nor for ORDER BY the rowid.
#[test]
fn group_by_with_the_rowid_reads_a_narrower_covering_index() {
    let setup = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT, c VARCHAR(100), d REAL);
CREATE INDEX ta ON t(a); CREATE INDEX tb ON t(b); CREATE INDEX tcd ON t(c, d);
CREATE TABLE x(id INTEGER PRIMARY KEY, tid INT, v INT);
CREATE INDEX xt ON x(tid);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
INSERT INTO t SELECT i, (i * 7) % 11, 'b' || (i % 6), 'c' || (i % 4), i % 3 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80)
INSERT INTO x SELECT i, (i * 13) % 60, i % 5 FROM n;";
    check_plans(
        setup,
        &[
            "SELECT id, a FROM t GROUP BY id, a",
            "SELECT id, a, count(*) FROM t GROUP BY id, a",
            "SELECT id, count(*) FROM t GROUP BY id",
            "SELECT id, a FROM t GROUP BY a, id",
            "SELECT id, b FROM t GROUP BY id, b",
            "SELECT id, c, d FROM t GROUP BY id, c, d",
            "SELECT id, c FROM t GROUP BY id, c",
            "SELECT id, a, b FROM t GROUP BY id, a, b",
            "SELECT t.id, t.a, count(x.id) FROM t LEFT JOIN x ON x.tid = t.id GROUP BY t.id, t.a",
            "SELECT id, a FROM t ORDER BY id",
            "SELECT id FROM t GROUP BY id",
            "SELECT DISTINCT id, a FROM t",
            "SELECT id, a FROM t WHERE a > 5 GROUP BY id, a",
            "SELECT id, a FROM t WHERE id > 5 GROUP BY id, a",
            "SELECT max(id) FROM t GROUP BY id, a",
            "SELECT id, a FROM t GROUP BY id, a ORDER BY id",
            "SELECT id, a FROM t GROUP BY id, a ORDER BY a",
            "SELECT id, a, group_concat(b) FROM t GROUP BY id, a",
        ],
    );
}
