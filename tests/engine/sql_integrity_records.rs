//! `PRAGMA integrity_check` / `quick_check` and reads on files whose
//! record headers or text encoding field are damaged, as fuzz run D
//! (`compat-tests/fuzz-runs.md`) left them: a record with overflow pages
//! whose header sizes no longer add up (in a column no check reads), a
//! record header size of 0 or 1 spelled in one or two bytes, and an
//! encoding field whose low bits say nothing (4, 256, ...) read again
//! after VACUUM or by ATTACH. Each file is written by the reference
//! SQLite, damaged, and run on both engines.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
use crate::sql_integrity_chains::{our_runs, ref_runs, sound};
use ringlite::{Connection, OpenFlags};

/// Write `sql` with the reference into a new file, damage it, and return
/// the directory (kept alive by the caller) and the path.
fn build(sql: &str, damage: impl FnOnce(&mut Vec<u8>)) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db").to_str().unwrap().to_string();
    for o in run_ref(&RefDb::open_path(&path), sql) {
        assert!(!matches!(o, Outcome::Error { .. }), "{o:?}");
    }
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    (dir, path)
}

/// A copy of the file at `path` for the other engine.
fn copy_of(path: &str) -> String {
    let other = format!("{path}.ours");
    std::fs::copy(path, &other).unwrap();
    other
}

fn compare_checks(name: &str, path: &str, sqls: &[&str], whole_report: bool) {
    let want = ref_runs(path, sqls);
    let ours = our_runs(&copy_of(path), sqls);
    for (i, (o, w)) in ours.iter().zip(&want).enumerate() {
        assert_eq!(sound(o), sound(w), "{name}: {}: verdict\nours: {o:?}\nref:  {w:?}", sqls[i]);
        assert_eq!(o.0.first(), w.0.first(), "{name}: {}: first row\nours: {o:?}\nref:  {w:?}", sqls[i]);
        if whole_report {
            assert_eq!(o, w, "{name}: {}", sqls[i]);
        }
    }
}

fn ours_file(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE)).unwrap()
}

/// The error class of each statement of `sql` (0: it ran).
fn classes(outcomes: &[Outcome]) -> Vec<i32> {
    outcomes
        .iter()
        .map(|o| match o {
            Outcome::Error { code, .. } => *code,
            Outcome::Rows { .. } => 0,
        })
        .collect()
}

#[test]
fn record_sizes_that_do_not_add_up_behind_overflow_pages() {
    // Row 2 spills to overflow pages; its blob column c (no check reads
    // it: BLOB affinity, not indexed) gets another length, or NULL, in
    // the header: the last header entry read by the row check then ends
    // the values elsewhere than the record does.
    let sql = "PRAGMA page_size=512; CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c BLOB, d); CREATE INDEX t1b ON t1(b); \
               INSERT INTO t1 VALUES(1, 'abc', x'0102030405', 7), (2, printf('%.*c', 1500, 'x'), x'0102030405', 8);";
    for serial in [0x14u8, 0x18, 0x00, 0x0c, 0x01] {
        let (_dir, path) = build(sql, |b| {
            // Row 2's header: 05 00 <b, 2 bytes> 16 (c: blob of 5) 01 (d).
            let at = b[512..].windows(2).position(|w| w == [0x16, 0x01]).unwrap() + 512;
            b[at] = serial;
        });
        let name = format!("c's serial type {serial:#x}");
        compare_checks(&name, &path, &["PRAGMA integrity_check", "PRAGMA quick_check", "PRAGMA integrity_check"], false);
        let reads = "SELECT a, length(b) FROM t1; SELECT typeof(d) FROM t1; SELECT length(d) FROM t1; SELECT count(*) FROM t1;";
        let want = run_ref(&RefDb::open_path(&path), reads);
        let ours = run_ours(&mut ours_file(&copy_of(&path)), reads);
        assert_eq!(classes(&ours), classes(&want), "{name}\nours: {ours:?}\nref:  {want:?}");
    }
}

#[test]
fn record_header_sizes_of_zero_and_one_in_one_or_two_bytes() {
    // One row whose record header is 04 00 1d 01 (size 4; rowid alias
    // NULL, b text of 8, c 1); its first two bytes rewritten. A size of 0
    // is a record of no columns; "Bad cell header size" looks at the
    // first byte only.
    let sql = "PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, b, c); INSERT INTO t VALUES(1, 'abcdefgh', 5);";
    for first2 in [[0x80u8, 0x04], [0x80, 0x02], [0x80, 0x01], [0x80, 0x00], [0x00, 0x00], [0x01, 0x00], [0x00, 0x1d], [0x81, 0x00]] {
        let (_dir, path) = build(sql, |b| {
            let at = b[512..1024].windows(4).position(|w| w == [4, 0, 29, 1]).unwrap() + 512;
            b[at..at + 2].copy_from_slice(&first2);
        });
        let name = format!("header starting {first2:02x?}");
        let structural_only = first2[0] == 0 || first2 == [0x80, 0x00] || first2 == [0x80, 0x04];
        compare_checks(&name, &path, &["PRAGMA integrity_check", "PRAGMA quick_check"], structural_only);
        let reads = "SELECT * FROM t; SELECT typeof(b), typeof(c) FROM t; SELECT count(*) FROM t;";
        let want = run_ref(&RefDb::open_path(&path), reads);
        let ours = run_ours(&mut ours_file(&copy_of(&path)), reads);
        if structural_only {
            assert_eq!(ours, want, "{name}");
        } else {
            assert_eq!(classes(&ours), classes(&want), "{name}\nours: {ours:?}\nref:  {want:?}");
        }
    }
}

#[test]
fn an_encoding_field_read_again_must_agree_with_the_connection() {
    // Low bits 0 read as UTF-8 when the file is opened; read again on the
    // same connection (after VACUUM, which keeps the field as it is) they
    // are another encoding than the connection's.
    let sql = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c); CREATE INDEX tb ON t(b); INSERT INTO t VALUES(1, 'abcdefgh', 5), (2, 'xyz', 6);";
    let script = "PRAGMA integrity_check; PRAGMA encoding; SELECT b FROM t; VACUUM; PRAGMA integrity_check; PRAGMA encoding; SELECT b FROM t;";
    for field in [4u32, 5, 256, 65536, 286_795_684, 0] {
        let (_dir, path) = build(sql, |b| b[56..60].copy_from_slice(&field.to_be_bytes()));
        let ours_path = copy_of(&path);
        let want = run_ref(&RefDb::open_path(&path), script);
        let ours = run_ours(&mut ours_file(&ours_path), script);
        assert_eq!(ours, want, "encoding field {field}");
        // A new connection reads the file VACUUM wrote, as at first.
        let again = "PRAGMA integrity_check; SELECT b FROM t;";
        let want = run_ref(&RefDb::open_path(&path), again);
        let ours = run_ours(&mut ours_file(&ours_path), again);
        assert_eq!(ours, want, "encoding field {field}, reopened");
        assert_eq!(std::fs::read(&ours_path).unwrap()[56..60], std::fs::read(&path).unwrap()[56..60], "field {field} after VACUUM");
    }
}

#[test]
fn attach_compares_the_encoding_fields_low_bits() {
    let sql = "CREATE TABLE t(b TEXT); INSERT INTO t VALUES('x');";
    for field in [4u32, 5, 256, 65536, 0, 1] {
        let (_dir, path) = build(sql, |b| b[56..60].copy_from_slice(&field.to_be_bytes()));
        let ours_path = copy_of(&path);
        let script = |p: &str| format!("ATTACH '{p}' AS aux; SELECT b FROM aux.t;");
        let want = run_ref(&RefDb::open(), &script(&path));
        let ours = run_ours(&mut crate::sql_common::ours_open(), &script(&ours_path));
        assert_eq!(ours, want, "encoding field {field}");
    }
}

#[test]
fn a_page_of_the_other_kind_met_by_a_seek_is_corrupt() {
    // An emptied index's root given a table page type: a seek refuses
    // it, as SQLite's does. (Roots met by a scan or a count:
    // `a_root_of_the_other_kind_is_corrupt_to_every_cursor`.)
    let sql = "PRAGMA page_size=512; CREATE TABLE t1(a INTEGER PRIMARY KEY, b); CREATE INDEX t1b ON t1(b); CREATE TABLE t4(z); \
               INSERT INTO t1 VALUES(1, 'x'); INSERT INTO t4 VALUES(1); DELETE FROM t4; DELETE FROM t1;";
    // Root pages: t1 2, t1b 3, t4 4.
    for (page, kind) in [(3usize, 13u8), (3, 5)] {
        let (_dir, path) = build(sql, |b| b[(page - 1) * 512] = kind);
        let name = format!("page {page} type {kind}");
        compare_checks(&name, &path, &["PRAGMA integrity_check", "PRAGMA quick_check"], false);
        let reads = "SELECT b FROM t1 INDEXED BY t1b WHERE b > ''; SELECT * FROM t1 WHERE a = 1;";
        let want = run_ref(&RefDb::open_path(&path), reads);
        let ours = run_ours(&mut ours_file(&copy_of(&path)), reads);
        assert_eq!(classes(&ours), classes(&want), "{name}\nours: {ours:?}\nref:  {want:?}");
    }
}

#[test]
fn a_root_of_the_other_kind_is_corrupt_to_every_cursor() {
    // Fuzz run E, seeds 90037 and 90519: an emptied table's root leaf
    // given an index page type. SQLite's cursors check their root's kind
    // each time they move to it (a scan, a count, the last entry, a
    // seek), so its checks end with SQLITE_CORRUPT after a clean
    // structure pass; the same for an index root or a WITHOUT ROWID
    // table's root given a table page type. (A WITHOUT ROWID table's
    // tree is of the index kind: every statement opens it as a key
    // cursor, so a sound one still reads and alters as before.)
    let sql = "PRAGMA page_size=512; CREATE TABLE t1(a INTEGER PRIMARY KEY, b); CREATE INDEX t1b ON t1(b); CREATE TABLE t4(z); \
               CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID; INSERT INTO t1 VALUES(1, 'x'); INSERT INTO t4 VALUES(1); \
               INSERT INTO w VALUES('a', 1); DELETE FROM t4; DELETE FROM t1; DELETE FROM w;";
    // Root pages: t1 2, t1b 3, t4 4, w 5.
    let reads = "SELECT count(*) FROM t4; SELECT * FROM t4; SELECT max(rowid) FROM t4; SELECT * FROM t4 ORDER BY rowid DESC; \
                 INSERT INTO t4 VALUES(2); SELECT count(*) FROM t1; SELECT b FROM t1 INDEXED BY t1b; SELECT count(*) FROM w; \
                 SELECT * FROM w; SELECT * FROM w ORDER BY k DESC; INSERT INTO w VALUES('b', 2); ALTER TABLE w ADD COLUMN c CHECK (c IS NULL);";
    for (page, kind) in [(4usize, 10u8), (4, 2), (2, 10), (3, 13), (5, 13), (5, 5), (4, 13)] {
        let (_dir, path) = build(sql, |b| b[(page - 1) * 512] = kind);
        let name = format!("page {page} type {kind}");
        compare_checks(&name, &path, &["PRAGMA integrity_check", "PRAGMA quick_check"], false);
        for read in reads.split("; ") {
            // (Each statement on fresh copies: a write must not carry over.)
            let fresh = format!("{path}.each");
            std::fs::copy(&path, &fresh).unwrap();
            let ours = run_ours(&mut ours_file(&copy_of(&fresh)), read);
            let want = run_ref(&RefDb::open_path(&fresh), read);
            assert_eq!(classes(&ours), classes(&want), "{name}: {read}\nours: {ours:?}\nref:  {want:?}");
        }
    }
    // Sound: a WITHOUT ROWID table with rows through the statements that
    // scan its tree on their own (ADD COLUMN's row checks, SET NOT NULL).
    let script = "CREATE TABLE w(k TEXT PRIMARY KEY, v, u) WITHOUT ROWID; INSERT INTO w VALUES('a', 1, 2), ('b', NULL, 3); \
                  ALTER TABLE w ADD COLUMN c CHECK (c IS NULL); ALTER TABLE w ADD COLUMN d AS (v + 1) STORED; \
                  ALTER TABLE w ALTER COLUMN u SET NOT NULL; ALTER TABLE w ALTER COLUMN v SET NOT NULL; \
                  SELECT * FROM w; PRAGMA integrity_check;";
    let want = run_ref(&RefDb::open(), script);
    let ours = run_ours(&mut crate::sql_common::ours_open(), script);
    assert_eq!(ours, want);
}

/// An index entry whose first serial type byte became 0x80 (the two-byte
/// varint 80 09 still reads as type 9, but the header now holds one field
/// fewer): SQLite compares a field with a number by its one header byte,
/// so the entry sorts as a text or blob would, its seek misses, and the
/// integrity check reports a row missing from the index (fuzz seeds 90385
/// and 150379).
#[test]
fn an_index_serial_type_byte_of_0x80_compares_as_a_text_or_blob() {
    let mut sql = String::from("PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, d); CREATE INDEX td ON t(d, a);");
    for i in 1..=40 {
        sql.push_str(&format!("INSERT INTO t VALUES({i}, {});", i % 13));
    }
    for cell in [3usize, 10, 20] {
        let (_dir, path) = build(&sql, |b| {
            // The index's root (page 3, a leaf of 512 bytes): the cell's
            // first serial type byte, after its payload size and header
            // size bytes.
            let page = &b[1024..1536];
            assert_eq!(page[0], 10);
            let ptr = u16::from_be_bytes([page[8 + 2 * cell], page[9 + 2 * cell]]) as usize;
            b[1024 + ptr + 2] = 0x80;
        });
        // (The verdicts: SQLite's binary search meets the damaged entry at
        // other steps than ours, so which rows it misses may differ.)
        let sqls = ["PRAGMA integrity_check", "PRAGMA quick_check"];
        let want = ref_runs(&path, &sqls);
        let ours = our_runs(&copy_of(&path), &sqls);
        for (i, (o, w)) in ours.iter().zip(&want).enumerate() {
            assert_eq!(sound(o), sound(w), "cell {cell}: {}\nours: {o:?}\nref:  {w:?}", sqls[i]);
        }
    }
}
