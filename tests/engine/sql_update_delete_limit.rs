//! DELETE and UPDATE with ORDER BY and LIMIT, as SQLite built with
//! `SQLITE_ENABLE_UPDATE_DELETE_LIMIT` runs them (Debian's libsqlite3,
//! which ringlite replaces, is built so; the bundled reference SQLite is
//! not, and refuses them). The expected outcomes were recorded from
//! Debian's system SQLite 3.40.1 (python3's `sqlite3` module), the
//! statement after the setup, one row per line (`a|b`, `NULL`) or
//! `error: message`: errors (ORDER BY without LIMIT, OFFSET without
//! LIMIT, views, triggers), rowid and WITHOUT ROWID tables, columns named
//! rowid/oid/_rowid_, INDEXED BY, RETURNING, views with INSTEAD OF
//! triggers and UPDATE ... FROM.

use crate::sql_common::*;

const SETUP: &str = "CREATE TABLE t1(x int, y int);
INSERT INTO t1 VALUES(1,1),(1,2),(1,3),(2,1),(2,2),(2,3),(3,1),(3,2),(3,3);
CREATE TABLE w(a, b, c, PRIMARY KEY(a, b)) WITHOUT ROWID;
INSERT INTO w VALUES(1,1,'h'),(1,2,'g'),(2,1,'f'),(2,2,'e'),(3,1,'d'),(3,2,'c');
CREATE TABLE w1(a INTEGER PRIMARY KEY, b) WITHOUT ROWID;
INSERT INTO w1 VALUES(1,'z'),(2,'y'),(3,'x'),(4,'w');
CREATE TABLE r(rowid, oid, _rowid_, v);
INSERT INTO r VALUES(30,20,10,'a'),(20,10,30,'b'),(10,30,20,'c');
CREATE TABLE ix(a INTEGER PRIMARY KEY, b, c);
CREATE INDEX ixb ON ix(b);
INSERT INTO ix VALUES(1,3,'p'),(2,2,'q'),(3,1,'r'),(4,3,'s');
CREATE VIEW v AS SELECT x, y FROM t1;
CREATE TABLE log(op, a, b);
CREATE TRIGGER vd INSTEAD OF DELETE ON v BEGIN INSERT INTO log VALUES('d', old.x, old.y); END;
CREATE TRIGGER vu INSTEAD OF UPDATE ON v BEGIN INSERT INTO log VALUES('u', old.x, new.y); END;
CREATE VIEW nv AS SELECT * FROM t1;
CREATE TABLE u(k, z); INSERT INTO u VALUES(1,100),(2,200),(3,300);
";

fn render(outcomes: &[Outcome]) -> Vec<String> {
    let mut out = Vec::new();
    for o in outcomes {
        match o {
            Outcome::Rows { rows, .. } => {
                for r in rows {
                    let cells: Vec<String> = r
                        .iter()
                        .map(|v| match v {
                            V::Null => "NULL".to_string(),
                            V::Int(i) => i.to_string(),
                            V::Real(bits) => f64::from_bits(*bits).to_string(),
                            V::Text(t) | V::Blob(t) => String::from_utf8_lossy(t).into_owned(),
                        })
                        .collect();
                    out.push(cells.join("|"));
                }
            }
            Outcome::Error { message, .. } => out.push(format!("error: {message}")),
        }
    }
    out
}

#[test]
fn update_delete_limit_as_debian_sqlite() {
    let cases: &[(&str, &[&str])] = &[
        ("DELETE FROM t1 ORDER BY x", &["error: ORDER BY without LIMIT on DELETE"]),
        ("DELETE FROM t1 WHERE x=1 ORDER BY y", &["error: ORDER BY without LIMIT on DELETE"]),
        ("UPDATE t1 SET y=1 WHERE x=1 ORDER BY x", &["error: ORDER BY without LIMIT on UPDATE"]),
        ("DELETE FROM t1 WHERE x=1 OFFSET 2", &["error: near \"OFFSET\": syntax error"]),
        ("UPDATE t1 SET y=1 OFFSET 2", &["error: near \"OFFSET\": syntax error"]),
        ("DELETE FROM nosuch ORDER BY x", &["error: no such table: nosuch"]),
        ("DELETE FROM nosuch LIMIT 1", &["error: no such table: nosuch"]),
        ("DELETE FROM nv ORDER BY x LIMIT 1", &["error: cannot modify nv because it is a view"]),
        ("DELETE FROM nv ORDER BY x", &["error: cannot modify nv because it is a view"]),
        ("UPDATE nv SET y = 0 LIMIT 1", &["error: cannot modify nv because it is a view"]),
        ("DELETE FROM sqlite_master LIMIT 1", &["error: table sqlite_master may not be modified"]),
        ("DELETE FROM sqlite_master ORDER BY 1", &["error: table sqlite_master may not be modified"]),
        ("DELETE FROM t1 LIMIT", &["error: incomplete input"]),
        ("DELETE FROM t1 LIMIT 1 ORDER BY x", &["error: near \"ORDER\": syntax error"]),
        ("CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM t1 ORDER BY x LIMIT 1; END", &["error: near \"ORDER\": syntax error"]),
        ("CREATE TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t1 SET y = 0 LIMIT 1; END", &["error: near \"LIMIT\": syntax error"]),
        ("BEGIN; DELETE FROM t1 LIMIT 2; SELECT * FROM t1; ROLLBACK", &["1|3", "2|1", "2|2", "2|3", "3|1", "3|2", "3|3"]),
        ("BEGIN; DELETE FROM t1 ORDER BY y DESC, x LIMIT 4; SELECT * FROM t1; ROLLBACK", &["1|1", "2|1", "2|2", "3|1", "3|2"]),
        ("BEGIN; DELETE FROM t1 ORDER BY y, x LIMIT 2 OFFSET 3; SELECT * FROM t1; ROLLBACK", &["1|1", "1|3", "2|1", "2|3", "3|1", "3|2", "3|3"]),
        ("BEGIN; DELETE FROM t1 ORDER BY x LIMIT 2, 3; SELECT * FROM t1; ROLLBACK", &["1|1", "1|2", "2|3", "3|1", "3|2", "3|3"]),
        ("BEGIN; DELETE FROM t1 ORDER BY x LIMIT -1 OFFSET 7; SELECT * FROM t1; ROLLBACK", &["1|1", "1|2", "1|3", "2|1", "2|2", "2|3", "3|1"]),
        ("BEGIN; DELETE FROM t1 ORDER BY x LIMIT 0; SELECT count(*) FROM t1; ROLLBACK", &["9"]),
        ("BEGIN; DELETE FROM t1 WHERE y = 2 ORDER BY x DESC LIMIT 2; SELECT * FROM t1; ROLLBACK", &["1|1", "1|2", "1|3", "2|1", "2|3", "3|1", "3|3"]),
        ("BEGIN; DELETE FROM t1 AS q WHERE q.y > 1 ORDER BY q.x DESC, y LIMIT 3; SELECT * FROM t1; ROLLBACK", &["1|1", "1|2", "1|3", "2|1", "2|3", "3|1"]),
        (
            "BEGIN; DELETE FROM t1 RETURNING x, y * 10 ORDER BY x DESC, y DESC LIMIT 3; SELECT * FROM t1; ROLLBACK",
            &["3|10", "3|20", "3|30", "1|1", "1|2", "1|3", "2|1", "2|2", "2|3"],
        ),
        (
            "BEGIN; DELETE FROM t1 WHERE x IN (SELECT k FROM u) ORDER BY (SELECT z FROM u WHERE k = y) DESC LIMIT 2; SELECT * FROM t1; ROLLBACK",
            &["1|1", "1|2", "2|1", "2|2", "3|1", "3|2", "3|3"],
        ),
        (
            "BEGIN; WITH c(n) AS (SELECT 2) DELETE FROM t1 WHERE x = (SELECT n FROM c) LIMIT 2; SELECT * FROM t1; ROLLBACK",
            &["1|1", "1|2", "1|3", "2|3", "3|1", "3|2", "3|3"],
        ),
        (
            "BEGIN; UPDATE t1 SET y = y + 10 ORDER BY y DESC, x LIMIT 3; SELECT * FROM t1; ROLLBACK",
            &["1|1", "1|2", "1|13", "2|1", "2|2", "2|13", "3|1", "3|2", "3|13"],
        ),
        (
            "BEGIN; UPDATE t1 SET y = -1 WHERE x = 2 LIMIT 2 OFFSET 1; SELECT * FROM t1; ROLLBACK",
            &["1|1", "1|2", "1|3", "2|1", "2|-1", "2|-1", "3|1", "3|2", "3|3"],
        ),
        (
            "BEGIN; UPDATE OR REPLACE t1 SET y = 0 ORDER BY x DESC LIMIT 1; SELECT * FROM t1; ROLLBACK",
            &["1|1", "1|2", "1|3", "2|1", "2|2", "2|3", "3|0", "3|2", "3|3"],
        ),
        ("BEGIN; UPDATE t1 SET y = 7 RETURNING rowid, x, y ORDER BY rowid DESC LIMIT 2; ROLLBACK", &["8|3|7", "9|3|7"]),
        (
            "BEGIN; UPDATE t1 AS q SET y = q.x * 100 WHERE q.x > 1 ORDER BY q.y LIMIT 2; SELECT * FROM t1; ROLLBACK",
            &["1|1", "1|2", "1|3", "2|200", "2|2", "2|3", "3|300", "3|2", "3|3"],
        ),
        ("BEGIN; DELETE FROM w WHERE b = 1 ORDER BY c LIMIT 2; SELECT * FROM w; ROLLBACK", &["1|1|h", "1|2|g", "2|2|e", "3|2|c"]),
        (
            "BEGIN; UPDATE w SET c = NULL ORDER BY a, b DESC LIMIT 3 OFFSET 1; SELECT * FROM w; ROLLBACK",
            &["1|1|NULL", "1|2|g", "2|1|NULL", "2|2|NULL", "3|1|d", "3|2|c"],
        ),
        ("BEGIN; DELETE FROM w1 ORDER BY b LIMIT 2; SELECT * FROM w1; ROLLBACK", &["1|z", "2|y"]),
        ("BEGIN; UPDATE w1 SET b = b || '!' ORDER BY a DESC LIMIT 3 OFFSET 1; SELECT * FROM w1; ROLLBACK", &["1|z!", "2|y!", "3|x!", "4|w"]),
        ("BEGIN; DELETE FROM r ORDER BY v DESC LIMIT 1; SELECT * FROM r; ROLLBACK", &["30|20|10|a", "20|10|30|b"]),
        ("BEGIN; UPDATE r SET v = 'z' ORDER BY oid LIMIT 1; SELECT * FROM r; ROLLBACK", &["30|20|10|a", "20|10|30|z", "10|30|20|c"]),
        ("BEGIN; DELETE FROM ix INDEXED BY ixb WHERE b = 3 LIMIT 1; SELECT * FROM ix; ROLLBACK", &["2|2|q", "3|1|r", "4|3|s"]),
        ("BEGIN; UPDATE ix INDEXED BY ixb SET c = 'X' WHERE b > 1 ORDER BY b LIMIT 2; SELECT * FROM ix; ROLLBACK", &["1|3|X", "2|2|X", "3|1|r", "4|3|s"]),
        ("BEGIN; DELETE FROM ix NOT INDEXED WHERE b = 3 ORDER BY a DESC LIMIT 1; SELECT * FROM ix; ROLLBACK", &["1|3|p", "2|2|q", "3|1|r"]),
        ("DELETE FROM ix INDEXED BY nosuch WHERE b = 3 LIMIT 1", &["error: no such index: nosuch"]),
        ("BEGIN; DELETE FROM v ORDER BY x DESC, y LIMIT 3; SELECT * FROM log; ROLLBACK", &["d|3|1", "d|3|2", "d|3|3"]),
        ("BEGIN; DELETE FROM v ORDER BY y; SELECT * FROM log; ROLLBACK", &["d|1|1", "d|2|1", "d|3|1", "d|1|2", "d|2|2", "d|3|2", "d|1|3", "d|2|3", "d|3|3"]),
        ("BEGIN; DELETE FROM v WHERE x = 2 ORDER BY y DESC LIMIT 2; SELECT * FROM log; ROLLBACK", &["d|2|3", "d|2|2"]),
        ("BEGIN; UPDATE v SET y = 0 ORDER BY y, x DESC LIMIT 2 OFFSET 1; SELECT * FROM log; ROLLBACK", &["u|2|0", "u|1|0"]),
        (
            "BEGIN; UPDATE v SET y = 5 ORDER BY x DESC, y DESC; SELECT * FROM log; ROLLBACK",
            &["u|3|5", "u|3|5", "u|3|5", "u|2|5", "u|2|5", "u|2|5", "u|1|5", "u|1|5", "u|1|5"],
        ),
        (
            "BEGIN; UPDATE t1 SET y = u.z FROM u WHERE u.k = t1.x ORDER BY u.z DESC, t1.y LIMIT 2; SELECT * FROM t1; ROLLBACK",
            &["1|1", "1|2", "1|3", "2|1", "2|2", "2|3", "3|300", "3|300", "3|3"],
        ),
        ("UPDATE t1 SET y = u.z FROM u WHERE u.k = t1.x ORDER BY u.z", &["error: ORDER BY without LIMIT on UPDATE"]),
        ("BEGIN; UPDATE v SET y = u.z FROM u WHERE u.k = v.x ORDER BY u.z DESC, v.y LIMIT 2; SELECT * FROM log; ROLLBACK", &["u|3|300", "u|3|300"]),
        ("UPDATE v SET y = u.z FROM u WHERE u.k = v.x ORDER BY u.z", &["error: ORDER BY without LIMIT on UPDATE"]),
        ("SELECT sqlite_compileoption_used('ENABLE_UPDATE_DELETE_LIMIT')", &["1"]),
    ];
    let mut failures = Vec::new();
    for (sql, expected) in cases {
        let mut ours = ours_open();
        let setup = run_ours(&mut ours, SETUP);
        assert!(setup.iter().all(|o| matches!(o, Outcome::Rows { .. })), "{setup:?}");
        let got = render(&run_ours(&mut ours, sql));
        if got != *expected {
            failures.push(format!("{sql}\n  got:      {got:?}\n  expected: {expected:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// UPDATE ... FROM with a LIMIT counts target rows, not join rows: the
/// join's rows are grouped by the target's rowid or key, each target row
/// taking its values from the first join row that matched it, and only
/// then ordered and limited (without a LIMIT the last join row wins).
/// Expected outcomes recorded from Debian's SQLite 3.40.1 as above.
#[test]
fn update_from_limit_counts_target_rows() {
    const FROM_SETUP: &str = "CREATE TABLE x1(a INTEGER PRIMARY KEY, b);
INSERT INTO x1 VALUES (1,'one'),(2,'two'),(3,'three'),(4,'four'),(5,'five');
CREATE TABLE xw(a INT PRIMARY KEY, b) WITHOUT ROWID;
INSERT INTO xw SELECT * FROM x1;
CREATE TABLE xp(u, v, b, PRIMARY KEY(u, v)) WITHOUT ROWID;
INSERT INTO xp VALUES (0,1,'one'),(1,0,'two'),(1,1,'three'),(2,0,'four');
CREATE TABLE d(x, y);
INSERT INTO d VALUES (1,'eleven'),(1,'twenty-one'),(2,'twelve'),(2,'twenty-two'),(3,'thirteen'),(3,'twenty-three'),(4,'fourteen'),(4,'twenty-four');
CREATE TABLE e(k, x);
INSERT INTO e VALUES (10,1),(20,1),(30,3);
";
    let cases: &[(&str, &[&str])] = &[
        (
            "BEGIN; UPDATE x1 SET b=y FROM d WHERE a=x ORDER BY a LIMIT 3; SELECT * FROM x1; ROLLBACK",
            &["1|eleven", "2|twelve", "3|thirteen", "4|four", "5|five"],
        ),
        (
            "BEGIN; UPDATE x1 SET b=b||y FROM d WHERE a=x ORDER BY b LIMIT 3; SELECT * FROM x1; ROLLBACK",
            &["1|oneeleven", "2|two", "3|threethirteen", "4|fourfourteen", "5|five"],
        ),
        (
            "BEGIN; UPDATE x1 SET b=y FROM d WHERE a=x ORDER BY y DESC LIMIT 2; SELECT * FROM x1; ROLLBACK",
            &["1|one", "2|twelve", "3|thirteen", "4|four", "5|five"],
        ),
        ("BEGIN; UPDATE x1 SET b=y FROM d WHERE a=x LIMIT 2 OFFSET 1; SELECT * FROM x1; ROLLBACK", &["1|one", "2|twelve", "3|thirteen", "4|four", "5|five"]),
        (
            "BEGIN; UPDATE x1 SET b=y||k FROM d, e WHERE a=d.x AND e.x=d.x ORDER BY a DESC LIMIT 5; SELECT * FROM x1; ROLLBACK",
            &["1|eleven10", "2|two", "3|thirteen30", "4|four", "5|five"],
        ),
        (
            "BEGIN; UPDATE xw SET b=y FROM d WHERE a=x ORDER BY a LIMIT 3; SELECT * FROM xw; ROLLBACK",
            &["1|eleven", "2|twelve", "3|thirteen", "4|four", "5|five"],
        ),
        (
            "BEGIN; UPDATE xw SET b=b||y FROM d WHERE a=x ORDER BY b LIMIT 3; SELECT * FROM xw; ROLLBACK",
            &["1|oneeleven", "2|two", "3|threethirteen", "4|fourfourteen", "5|five"],
        ),
        (
            "BEGIN; UPDATE xp SET b=y FROM d WHERE (u*2+v)=x ORDER BY u, v LIMIT 3; SELECT * FROM xp; ROLLBACK",
            &["0|1|eleven", "1|0|twelve", "1|1|thirteen", "2|0|four"],
        ),
        (
            "BEGIN; UPDATE xp SET b=b||y FROM d WHERE (u*2+v)=x ORDER BY b LIMIT 3; SELECT * FROM xp; ROLLBACK",
            &["0|1|oneeleven", "1|0|two", "1|1|threethirteen", "2|0|fourfourteen"],
        ),
        ("BEGIN; UPDATE x1 SET b=y FROM d WHERE a=x RETURNING a, b ORDER BY a LIMIT 3; ROLLBACK", &["1|eleven", "2|twelve", "3|thirteen"]),
        ("BEGIN; UPDATE x1 SET b=y FROM d WHERE a=x ORDER BY a LIMIT 3; SELECT changes(); ROLLBACK", &["3"]),
        (
            "BEGIN; UPDATE x1 SET b=y FROM d WHERE a=x; SELECT * FROM x1; ROLLBACK",
            &["1|twenty-one", "2|twenty-two", "3|twenty-three", "4|twenty-four", "5|five"],
        ),
    ];
    let mut failures = Vec::new();
    for (sql, expected) in cases {
        let mut ours = ours_open();
        let setup = run_ours(&mut ours, FROM_SETUP);
        assert!(setup.iter().all(|o| matches!(o, Outcome::Rows { .. })), "{setup:?}");
        let got = render(&run_ours(&mut ours, sql));
        if got != *expected {
            failures.push(format!("{sql}\n  got:      {got:?}\n  expected: {expected:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
