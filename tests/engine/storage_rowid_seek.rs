//! Rowid lookups against real SQLite where the descent's shortcuts
//! (`btree/rowid_seek.rs`: the cell's rowid read from a fixed window, the
//! usual row copied from its cell without a full parse) meet the forms
//! they hand to the general path: rowids of every varint width (and
//! negative ones, nine bytes), payload sizes of one, two and three bytes
//! and rows that spill to overflow pages, cells at the very end of a page,
//! on small pages so that the tree has interior levels.

use crate::sql_common::check_each;

#[test]
fn rowid_lookups_of_every_key_and_row_width_match_sqlite() {
    // Rowids whose varints take 1 to 9 bytes, both signs.
    let mut rowids: Vec<i64> = vec![i64::MIN, i64::MIN + 1, -1, 0, i64::MAX, i64::MAX - 1];
    for shift in [6u32, 7, 13, 14, 20, 21, 27, 28, 34, 35, 41, 42, 48, 49, 55, 56, 62] {
        let v = 1i64 << shift;
        rowids.extend([v - 1, v, v + 1, -v]);
    }
    rowids.sort_unstable();
    rowids.dedup();
    let mut setup = String::from("PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, b); BEGIN;");
    for (i, r) in rowids.iter().enumerate() {
        // Payloads of a few bytes, of 2-byte and 3-byte sizes, and ones
        // that spill (past 512 - 35 bytes).
        let len = [1, 5, 100, 200, 470, 480, 2000, 20_000][i % 8];
        setup += &format!("INSERT INTO t VALUES({r}, zeroblob({len}) || {i});");
    }
    // Many small rows between them, for interior levels.
    setup += "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT OR IGNORE INTO t SELECT i * 3, i FROM n; COMMIT;";
    let mut queries = Vec::new();
    for r in rowids.iter().copied().chain([2, 3, 4, 2999, 9000, 9001, 9003]) {
        queries.push(format!("SELECT a, length(b), typeof(b), substr(b, -4) FROM t WHERE a = {r}"));
        queries.push(format!("SELECT a, length(b) FROM t WHERE a >= {r} ORDER BY a LIMIT 2"));
        queries.push(format!("SELECT a, length(b) FROM t WHERE a <= {r} ORDER BY a DESC LIMIT 2"));
        queries.push(format!("SELECT count(*) FROM t WHERE a = {r} + 1"));
    }
    queries.push("SELECT count(*), sum(length(b)) FROM t".into());
    queries.push("PRAGMA integrity_check".into());
    let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
    check_each(&setup, &refs);
}
