//! Database headers SQLite refuses, or that ringlite cannot read yet, give
//! an error at the first statement instead of wrong results.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
use ringlite::{Connection, OpenFlags};

fn file_with(setup: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.db").to_str().unwrap().to_string();
    let r = RefDb::open_path(&path);
    for o in run_ref(&r, setup) {
        assert!(!matches!(o, Outcome::Error { .. }), "{setup}: {o:?}");
    }
    drop(r);
    (dir, path)
}

fn ours(path: &str, sql: &str) -> Vec<Outcome> {
    let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).unwrap();
    run_ours(&mut c, sql)
}

#[test]
fn a_schema_format_past_four_is_refused_as_sqlite_does() {
    let (_d, path) = file_with("CREATE TABLE t(a); INSERT INTO t VALUES(1);");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[44..48].copy_from_slice(&7u32.to_be_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let want = run_ref(&RefDb::open_path(&path), "SELECT * FROM t");
    assert!(matches!(&want[0], Outcome::Error { message, .. } if message == "unsupported file format"), "{want:?}");
    assert_eq!(ours(&path, "SELECT * FROM t"), want);
}

/// SQLite reads the schema format's low byte only: 256 or 65536 open as
/// format 0, 260 as 4, 261 is refused. (Found by `fuzz --mode corrupt`.)
#[test]
fn the_schema_format_is_read_by_its_low_byte() {
    for v in [256u32, 65536, 1 << 24, 260, 261, u32::MAX] {
        let (_d, path) = file_with("CREATE TABLE t(a); INSERT INTO t VALUES(1);");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[44..48].copy_from_slice(&v.to_be_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let sql = "SELECT * FROM t; PRAGMA quick_check";
        assert_eq!(ours(&path, sql), run_ref(&RefDb::open_path(&path), sql), "schema format {v}");
    }
}

#[test]
fn a_utf16_file_is_read_as_sqlite_reads_it() {
    for enc in ["UTF-16le", "UTF-16be"] {
        let (_d, path) = file_with(&format!("PRAGMA encoding = '{enc}'; CREATE TABLE t(a); INSERT INTO t VALUES('héllo');"));
        let want = run_ref(&RefDb::open_path(&path), "SELECT a, hex(a) FROM t");
        assert_eq!(ours(&path, "SELECT a, hex(a) FROM t"), want, "{enc}");
    }
}

/// The text encoding field is read by its low two bits, as SQLite reads
/// it: 255 means UTF-16be (SQLite then cannot read the UTF-8 schema,
/// nor can ours), 256 means UTF-8. (Found by `fuzz --mode
/// corrupt`: ours read the 255 file as sound.)
#[test]
fn the_text_encoding_field_is_read_by_its_low_bits() {
    for (value, readable) in [(255u32, false), (256, true), (0, true)] {
        let (_d, path) = file_with("CREATE TABLE t(a); INSERT INTO t VALUES('x');");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[56..60].copy_from_slice(&value.to_be_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let want = run_ref(&RefDb::open_path(&path), "SELECT a FROM t");
        let got = ours(&path, "SELECT a FROM t");
        assert_eq!(matches!(want[0], Outcome::Rows { .. }), readable, "{value}: {want:?}");
        if readable {
            assert_eq!(got, want, "{value}");
        } else {
            assert!(matches!(&got[0], Outcome::Error { .. }), "{value}: {got:?}");
        }
    }
}

/// Header bytes SQLite checks when it opens a file: a read version past 2
/// or payload fractions other than 64/32/32 make it "not a database"; a
/// write version past 2 leaves it readable but not writable. (Found by
/// `fuzz --mode corrupt`: ours refused the one and read the others.)
#[test]
fn header_versions_and_payload_fractions_as_sqlite_checks_them() {
    for (at, value) in [(18usize, 3u8), (18, 255), (19, 3), (19, 255), (21, 65), (21, 255), (22, 31), (23, 2)] {
        let (_d, path) = file_with("CREATE TABLE t(a); INSERT INTO t VALUES('x');");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[at] = value;
        std::fs::write(&path, &bytes).unwrap();
        for sql in ["SELECT a FROM t", "INSERT INTO t VALUES('y')", "PRAGMA integrity_check"] {
            let want = run_ref(&RefDb::open_path(&path), sql);
            assert_eq!(ours(&path, sql), want, "byte {at} = {value}: {sql}");
        }
    }
}

/// The auto_vacuum header fields against the trees, as SQLite checks
/// them: the largest root page must be the largest tree's root, and
/// incremental vacuum needs auto_vacuum. (Found by `fuzz --mode corrupt`:
/// ours called such files sound.)
#[test]
fn auto_vacuum_header_fields_are_checked() {
    for (auto_vacuum, at, value) in [(0, 64usize, 1u32), (0, 52, 5), (1, 52, 9), (1, 52, 0), (2, 64, 0), (1, 52, 2)] {
        let (_d, path) = file_with(&format!("PRAGMA auto_vacuum = {auto_vacuum}; CREATE TABLE t(a); CREATE INDEX i ON t(a); INSERT INTO t VALUES(1);"));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[at..at + 4].copy_from_slice(&value.to_be_bytes());
        std::fs::write(&path, &bytes).unwrap();
        for sql in ["PRAGMA integrity_check", "PRAGMA quick_check"] {
            // (The message; past it, the pointer-map reports of a file made
            // to look auto_vacuum differ in wording.)
            let head = |o: Vec<Outcome>| match &o[0] {
                Outcome::Rows { rows, .. } => match &rows[0][0] {
                    crate::sql_common::V::Text(t) => String::from_utf8_lossy(t).lines().take(2).collect::<Vec<_>>().join("\n"),
                    v => format!("{v:?}"),
                },
                other => format!("{other:?}"),
            };
            let want = head(run_ref(&RefDb::open_path(&path), sql));
            assert_eq!(head(ours(&path, sql)), want, "auto_vacuum {auto_vacuum}, u32 at {at} = {value}: {sql}");
        }
    }
}
