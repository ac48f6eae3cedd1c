//! WHERE terms an index search decides exactly are not tested again in
//! its loop (SQLite's `disableTerm`): `column = value` on the search
//! prefix and the bounds of a range kept clear of NULL entries. The rows
//! must stay SQLite's where the search alone decides: NULL values and
//! NULL entries, mixed types and affinities, collations, DESC columns,
//! joins (the value from an outer row), LEFT JOIN and OR branches.
use crate::sql_common::check_each;

const SETUP: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT, c REAL, d, e TEXT COLLATE NOCASE);
CREATE INDEX ta ON t(a); CREATE INDEX tab ON t(a, b); CREATE INDEX tc ON t(c DESC); CREATE INDEX td ON t(d); CREATE INDEX te ON t(e);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 60)
INSERT INTO t SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN '0' || (i % 3) ELSE '' || (i % 3) END,
  CASE WHEN i % 6 = 0 THEN NULL ELSE (i % 9) / 2.0 END,
  CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN i % 4 WHEN 2 THEN '' || (i % 4) WHEN 3 THEN (i % 4) * 1.0 ELSE x'32' END,
  CASE i % 3 WHEN 0 THEN 'ab' WHEN 1 THEN 'AB' ELSE NULL END FROM k;
CREATE TABLE o(x, y TEXT);
INSERT INTO o VALUES (1, '1'), (NULL, NULL), ('2', '02'), (3.0, '2'), (2.5, 'x');";

const QUERIES: &[&str] = &[
    "SELECT id FROM t WHERE a = 2 ORDER BY id",
    "SELECT id FROM t WHERE a = '2' ORDER BY id",
    "SELECT id FROM t WHERE a = NULL ORDER BY id",
    "SELECT id FROM t WHERE a = (SELECT NULL) ORDER BY id",
    "SELECT id FROM t WHERE a = 2 AND b = '1' ORDER BY id",
    "SELECT id FROM t WHERE a = 2 AND b = 1 ORDER BY id",
    "SELECT id FROM t WHERE a = 2 AND b = '01' ORDER BY id",
    "SELECT id FROM t WHERE a = 2 AND b > '0' ORDER BY id",
    "SELECT id FROM t WHERE a = 2 AND b < '1' ORDER BY id",
    "SELECT id FROM t WHERE a = 2 AND b BETWEEN '0' AND '1' ORDER BY id",
    "SELECT id FROM t WHERE a > 1 ORDER BY id",
    "SELECT id FROM t WHERE a < 3 ORDER BY id",
    "SELECT id FROM t WHERE a BETWEEN 1 AND 3 ORDER BY id",
    "SELECT id FROM t WHERE a BETWEEN '1' AND 3.5 ORDER BY id",
    "SELECT id FROM t WHERE a > 1 AND a <= 3 ORDER BY id",
    "SELECT id FROM t WHERE a >= NULL ORDER BY id",
    "SELECT id FROM t WHERE a BETWEEN NULL AND 3 ORDER BY id",
    "SELECT id FROM t WHERE c > 1 ORDER BY id",
    "SELECT id FROM t WHERE c BETWEEN 1 AND 3 ORDER BY id",
    "SELECT id FROM t WHERE c < 2 ORDER BY id",
    "SELECT id FROM t WHERE c = 1.5 ORDER BY id",
    "SELECT id FROM t WHERE d = 2 ORDER BY id",
    "SELECT id FROM t WHERE d = '2' ORDER BY id",
    "SELECT id FROM t WHERE d > 1 ORDER BY id",
    "SELECT id FROM t WHERE d BETWEEN 1 AND '3' ORDER BY id",
    "SELECT id FROM t WHERE e = 'ab' ORDER BY id",
    "SELECT id FROM t WHERE e = 'ab' COLLATE BINARY ORDER BY id",
    "SELECT id FROM t WHERE e > 'AA' ORDER BY id",
    "SELECT t.id, o.x FROM o, t WHERE t.a = o.x ORDER BY 1, 2",
    "SELECT t.id, o.y FROM o, t WHERE t.a = 2 AND t.b = o.y ORDER BY 1, 2",
    "SELECT t.id, o.x FROM o, t WHERE t.d = o.x ORDER BY 1, 2",
    "SELECT t.id, o.x FROM o, t WHERE t.a > o.x AND t.a <= o.x + 1 ORDER BY 1, 2",
    "SELECT t.id, o.x FROM o LEFT JOIN t ON t.a = o.x ORDER BY 1, 2",
    "SELECT t.id, o.x FROM o LEFT JOIN t ON t.a = o.x WHERE t.a = 1 OR t.a IS NULL ORDER BY 1, 2",
    "SELECT t.id, o.x FROM o LEFT JOIN t ON t.a BETWEEN o.x AND 3 ORDER BY 1, 2",
    "SELECT id FROM t WHERE a = 2 OR b = '1' ORDER BY id",
    "SELECT t.id, o.x FROM t RIGHT JOIN o ON t.a = o.x WHERE t.a = 2 OR o.x IS NULL ORDER BY 1, 2",
    "SELECT t.id, o.x FROM t RIGHT JOIN o ON t.b = o.y WHERE t.a = 1 ORDER BY 1, 2",
    "SELECT t.id, o.x FROM t FULL JOIN o ON t.a = o.x AND t.b = o.y WHERE t.a BETWEEN 1 AND 2 ORDER BY 1, 2",
    "SELECT count(*) FROM t WHERE a = 1 AND c > 0",
    "SELECT id FROM t WHERE a = 3 AND id > 10 ORDER BY id",
    "SELECT id FROM t WHERE (a = 3) AND (b = '0') ORDER BY id",
    "SELECT id, a FROM t WHERE a = 4 ORDER BY a DESC, id",
    "SELECT (SELECT count(*) FROM t WHERE t.a = o.x) FROM o",
    "SELECT (SELECT group_concat(id) FROM t WHERE t.c BETWEEN o.x AND o.x + 1) FROM o",
];

#[test]
fn terms_an_index_search_decides_give_sqlites_rows() {
    check_each(SETUP, QUERIES);
}

#[test]
fn writes_through_index_searches_as_sqlite() {
    let mut queries: Vec<&str> = vec![
        "UPDATE t SET c = c + 100 WHERE a BETWEEN 1 AND 2",
        "DELETE FROM t WHERE a = 3 AND b = '0'",
        "DELETE FROM t WHERE d > 2",
        "UPDATE t SET a = a + 10 WHERE a = 4",
    ];
    queries.push("SELECT * FROM t ORDER BY id");
    queries.push("PRAGMA integrity_check");
    check_each(SETUP, &queries);
}
