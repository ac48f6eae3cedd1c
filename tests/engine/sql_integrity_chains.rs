//! `PRAGMA integrity_check` / `quick_check` on files whose page references
//! are damaged: overflow chains (ended early, too long, looping, leaving
//! the file, reaching page 1), child pointers (out of range, 0, to a page
//! used elsewhere, to page 1, to a page that is not a B-tree page), and
//! the order in which trees are walked (which decides where a page used
//! twice is reported); plus SQLite 3.54's column-affinity report and the
//! columns the row checks read. Each file is written by the reference
//! SQLite, damaged, and checked by both engines on one connection: the
//! structure report (the first row) and the verdict of every check must
//! agree. (Found by `fuzz --mode corrupt`.)
#![allow(unsafe_code)]

use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags, StepResult};
use std::ffi::{CStr, CString};

use crate::sql_common::{run_ref, Outcome, RefDb};

/// The rows a statement gave before it ended, and its error code (0 when
/// it completed): SQLite sometimes stops the check with SQLITE_CORRUPT
/// after the structure report, which must still be compared.
pub(crate) type Run = (Vec<String>, i32);

pub(crate) fn ref_runs(path: &str, sqls: &[&str]) -> Vec<Run> {
    let db = RefDb::open_path(path);
    let mut out = Vec::new();
    for sql in sqls {
        let c = CString::new(*sql).unwrap();
        let mut rows = Vec::new();
        let mut code = 0;
        unsafe {
            let mut st = std::ptr::null_mut();
            assert_eq!(ffi::sqlite3_prepare_v2(db.0, c.as_ptr(), -1, &mut st, std::ptr::null_mut()), 0);
            loop {
                let rc = ffi::sqlite3_step(st);
                if rc == ffi::SQLITE_ROW {
                    let p = ffi::sqlite3_column_text(st, 0);
                    rows.push(if p.is_null() { String::new() } else { CStr::from_ptr(p as *const _).to_string_lossy().into_owned() });
                } else {
                    if rc != ffi::SQLITE_DONE {
                        code = rc & 0xff;
                    }
                    break;
                }
            }
            ffi::sqlite3_finalize(st);
        }
        out.push((rows, code));
    }
    out
}

pub(crate) fn our_runs(path: &str, sqls: &[&str]) -> Vec<Run> {
    let mut conn = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).unwrap();
    let mut out = Vec::new();
    for sql in sqls {
        let (st, _) = conn.prepare(sql.as_bytes()).unwrap();
        let mut st = st.unwrap();
        let mut rows = Vec::new();
        let mut code = 0;
        loop {
            match st.step(&mut conn) {
                Ok(StepResult::Row) => rows.push(match st.column(0) {
                    ringlite::value::Value::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    v => format!("{v:?}"),
                }),
                Ok(StepResult::Done) => break,
                Ok(StepResult::Io) => continue,
                Err(e) => {
                    code = e.primary();
                    break;
                }
            }
        }
        st.reset(&mut conn);
        out.push((rows, code));
    }
    out
}

/// "ok", or a report / an error.
pub(crate) fn sound(r: &Run) -> bool {
    r.1 == 0 && r.0 == ["ok"]
}

const CHECKS: &[&str] = &["PRAGMA integrity_check", "PRAGMA quick_check", "PRAGMA integrity_check"];

/// Build a file with the reference, damage it, and compare both engines'
/// checks: verdicts always, the structure report when `report` (it is
/// the first row; past it SQLite stops with SQLITE_CORRUPT where ours
/// reports the row it failed to read as a row).
fn compare(name: &str, sql: &str, damage: impl FnOnce(&mut Vec<u8>, usize)) -> Vec<Run> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db").to_str().unwrap().to_string();
    for o in run_ref(&RefDb::open_path(&path), sql) {
        assert!(!matches!(o, Outcome::Error { .. }), "{name}: {o:?}");
    }
    let mut bytes = std::fs::read(&path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    damage(&mut bytes, page);
    std::fs::write(&path, &bytes).unwrap();
    let want = ref_runs(&path, CHECKS);
    let ours = our_runs(&path, CHECKS);
    for (i, (o, w)) in ours.iter().zip(&want).enumerate() {
        assert_eq!(sound(o), sound(w), "{name}: {}: verdict\nours: {o:?}\nref:  {w:?}", CHECKS[i]);
        assert_eq!(o.0.first(), w.0.first(), "{name}: {}: report\nours: {o:?}\nref:  {w:?}", CHECKS[i]);
    }
    want
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// One row of 5,000 bytes on 1 KiB pages: its cell on page 2, its
/// overflow chain pages 3, 4, 5, 6.
const ONE_BIG_ROW: &str =
    "PRAGMA page_size=1024; CREATE TABLE t(a INTEGER PRIMARY KEY, b); INSERT INTO t VALUES(1, randomblob(5000)); INSERT INTO t VALUES(2, 'x');";

/// Where the cell of row 1 keeps its first overflow page number.
fn overflow_pointer(b: &[u8], page: usize) -> usize {
    let p = &b[page..2 * page];
    let cell = u16::from_be_bytes([p[8], p[9]]) as usize;
    // (Payload size 5,004 and rowid 1: a 2-byte and a 1-byte varint;
    // local part 924 bytes on a 1 KiB page.)
    page + cell + 3 + 924
}

#[test]
fn overflow_chains_are_followed_to_their_end() {
    let cases: Vec<(&str, Box<dyn Fn(&mut Vec<u8>, usize)>)> = vec![
        (
            "first page 0",
            Box::new(|b, p| {
                let at = overflow_pointer(b, p);
                set_u32(b, at, 0)
            }),
        ),
        (
            "first page out of range",
            Box::new(|b, p| {
                let at = overflow_pointer(b, p);
                set_u32(b, at, 999)
            }),
        ),
        ("second page 0", Box::new(|b, p| set_u32(b, 2 * p, 0))),
        ("third page 0", Box::new(|b, p| set_u32(b, 3 * p, 0))),
        ("next out of range", Box::new(|b, p| set_u32(b, 2 * p, 999))),
        ("loop", Box::new(|b, p| set_u32(b, 2 * p, 3))),
        ("into the tree", Box::new(|b, p| set_u32(b, 2 * p, 2))),
        ("into page 1", Box::new(|b, p| set_u32(b, 2 * p, 1))),
        ("past the end into the tree", Box::new(|b, p| set_u32(b, 5 * p, 2))),
        ("past the end out of range", Box::new(|b, p| set_u32(b, 5 * p, 999))),
        (
            "one page too long",
            Box::new(|b, p| {
                b.extend(std::iter::repeat_n(0, p));
                let n = (b.len() / p) as u32;
                set_u32(b, 28, n);
                set_u32(b, 5 * p, n);
            }),
        ),
    ];
    for (name, damage) in cases {
        let want = compare(name, ONE_BIG_ROW, damage);
        assert!(!sound(&want[1]), "{name}: the reference calls it sound");
    }
}

/// Rows 1-60 on 512-byte pages: root page 2 is interior, leaves 3-8
/// (page 8 its right child).
const SIXTY_ROWS: &str = "PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, b); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<60) INSERT INTO t SELECT i, printf('%040d', i) FROM c;";

fn child_pointer(b: &[u8], page: usize, cell: usize) -> usize {
    let at = page + 12 + 2 * cell;
    page + u16::from_be_bytes([b[at], b[at + 1]]) as usize
}

#[test]
fn child_pointers_as_sqlite_reports_them() {
    let cases: Vec<(&str, Box<dyn Fn(&mut Vec<u8>, usize)>)> = vec![
        (
            "cell 0 out of range",
            Box::new(|b, p| {
                let at = child_pointer(b, p, 0);
                set_u32(b, at, 999)
            }),
        ),
        (
            "cell 1 zero",
            Box::new(|b, p| {
                let at = child_pointer(b, p, 1);
                set_u32(b, at, 0)
            }),
        ),
        (
            "cell 0 to a sibling",
            Box::new(|b, p| {
                let at = child_pointer(b, p, 0);
                set_u32(b, at, 4)
            }),
        ),
        (
            "cell 1 to page 1",
            Box::new(|b, p| {
                let at = child_pointer(b, p, 1);
                set_u32(b, at, 1)
            }),
        ),
        ("right child out of range", Box::new(|b, p| set_u32(b, p + 8, 999))),
        ("right child zero", Box::new(|b, p| set_u32(b, p + 8, 0))),
        ("right child to a sibling", Box::new(|b, p| set_u32(b, p + 8, 3))),
        (
            "two out of range",
            Box::new(|b, p| {
                {
                    let at = child_pointer(b, p, 3);
                    set_u32(b, at, 999)
                };
                set_u32(b, p + 8, 998);
            }),
        ),
        // A leaf whose type byte is no page type, and one made interior.
        ("a child that is no B-tree page", Box::new(|b, p| b[3 * p] = 0)),
        ("a leaf read as an interior page", Box::new(|b, p| b[7 * p] = 2)),
    ];
    for (name, damage) in cases {
        let want = compare(name, SIXTY_ROWS, damage);
        assert!(!sound(&want[0]), "{name}: the reference calls it sound");
    }
}

#[test]
fn trees_are_walked_in_sqlites_order() {
    // Tables in reverse schema order, each followed by its indexes, the
    // schema table last: the tree that meets a shared page second reports it.
    let sql = format!("{SIXTY_ROWS} CREATE TABLE u(a INTEGER PRIMARY KEY, b); INSERT INTO u SELECT * FROM t; CREATE INDEX ub ON u(b);");
    // (Root pages: t 2, u 9, ub 16; ub's first leaf is page 17.)
    let cases: Vec<(&str, Box<dyn Fn(&mut Vec<u8>, usize)>)> = vec![
        (
            "t to a leaf of ub",
            Box::new(|b, p| {
                let at = child_pointer(b, p, 1);
                set_u32(b, at, 17)
            }),
        ),
        (
            "u to a leaf of ub",
            Box::new(|b, p| {
                let at = child_pointer(b, 8 * p, 1);
                set_u32(b, at, 17)
            }),
        ),
        (
            "ub to a leaf of t",
            Box::new(|b, p| {
                let at = child_pointer(b, 15 * p, 1);
                set_u32(b, at, 3)
            }),
        ),
        (
            "u to a leaf of t",
            Box::new(|b, p| {
                let at = child_pointer(b, 8 * p, 1);
                set_u32(b, at, 3)
            }),
        ),
    ];
    for (name, damage) in cases {
        compare(name, &sql, damage);
    }
    // From four tables on, SQLite checks the schema table first: a page 1
    // reached from a tree is then a second reference there.
    let more = "CREATE TABLE x1(q); CREATE TABLE x2(q); CREATE TABLE x3(q);";
    compare("four tables, a child to page 1", &format!("{SIXTY_ROWS} {more}"), |b, p| {
        let at = child_pointer(b, p, 1);
        set_u32(b, at, 1)
    });
    compare("four tables, an overflow page to page 1", &format!("{ONE_BIG_ROW} {more}"), |b, p| set_u32(b, 2 * p, 1));
}

#[test]
fn values_not_stored_through_their_columns_affinity() {
    // Values written into untyped columns, then the declared types put in
    // the schema: each check reports them as SQLite 3.54 does.
    for (decl, value) in [
        ("TEXT", "12"),
        ("TEXT", "1.5"),
        ("TEXT", "x'01'"),
        ("VARCHAR(3)", "7"),
        ("INTEGER", "'12'"),
        ("INTEGER", "' 12'"),
        ("INTEGER", "'abc'"),
        ("INTEGER", "'0x10'"),
        ("REAL", "'1e3'"),
        ("NUMERIC", "'1.5'"),
        ("NUMERIC", "3"),
        ("BLOB", "'12'"),
        ("", "'12'"),
    ] {
        let sql = format!(
            "CREATE TABLE t1(a INTEGER PRIMARY KEY, b, c NOT NULL); INSERT INTO t1 VALUES(1, {value}, 1), (2, {value}, 2); \
             PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql='CREATE TABLE t1(a INTEGER PRIMARY KEY, b {decl}, c NOT NULL)' WHERE name='t1';"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db").to_str().unwrap().to_string();
        for o in run_ref(&RefDb::open_path(&path), &sql) {
            assert!(!matches!(o, Outcome::Error { .. }), "{o:?}");
        }
        let want = ref_runs(&path, CHECKS);
        let ours = our_runs(&path, CHECKS);
        assert_eq!(ours, want, "{decl} {value}");
    }
}

#[test]
fn row_checks_read_only_the_columns_they_check() {
    // A reserved serial type (10, 11) in a column no check reads (untyped,
    // not indexed) is not seen; in a checked column it is.
    for (column, serial) in [("d", 10u8), ("d", 11), ("b", 10), ("c", 11)] {
        let sql = "PRAGMA page_size=512; CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c NOT NULL, d); CREATE INDEX t1c ON t1(c); \
                   INSERT INTO t1 VALUES(1, 'abcdefgh', 5, NULL);";
        compare(&format!("{column} = serial type {serial}"), sql, |b, p| {
            // The record header: size 5, rowid alias NULL, b text of 8, c 1, d NULL.
            let h = b[p..2 * p].windows(5).position(|w| w == [5, 0, 29, 1, 0]).unwrap() + p;
            let at = h + match column {
                "b" => 2,
                "c" => 3,
                _ => 4,
            };
            b[at] = serial;
        });
    }
}

/// Rows 1-8 of 3,000 bytes each on 1 KiB pages, under an index of their
/// own and with a small row between them: eight overflow chains of three
/// pages in a table with an index.
const BIG_ROWS_INDEXED: &str = "PRAGMA page_size=1024; CREATE TABLE t(a INTEGER PRIMARY KEY, b, c); CREATE INDEX tc ON t(c); \
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<8) INSERT INTO t SELECT i, randomblob(3000), 'c' || i FROM n; \
     INSERT INTO t VALUES(100, 'x', 'c100');";

/// Where the cells of every table leaf (past page 1) keep their first
/// overflow page number, leaf by leaf, cells in pointer order.
fn all_overflow_pointers(b: &[u8], p: usize) -> Vec<usize> {
    (2..=b.len() / p).filter(|&n| b[(n - 1) * p] == 0x0d).flat_map(|n| overflow_pointers(b, p, n)).collect()
}

/// Where the cells of table leaf `leaf` keep their first overflow page
/// number (the last four bytes of a payload's local part).
fn overflow_pointers(b: &[u8], p: usize, leaf: usize) -> Vec<usize> {
    let page = &b[(leaf - 1) * p..leaf * p];
    let n = u16::from_be_bytes([page[3], page[4]]) as usize;
    let usable = p;
    let max_local = usable - 35;
    let min_local = (usable - 12) * 32 / 255 - 23;
    (0..n)
        .filter_map(|i| {
            let cell = u16::from_be_bytes([page[8 + 2 * i], page[9 + 2 * i]]) as usize;
            // Payload-size varint, rowid varint.
            let (size, a) = varint(&page[cell..]);
            let (_, r) = varint(&page[cell + a..]);
            if size as usize <= max_local {
                return None;
            }
            let mut local = min_local + (size as usize - min_local) % (usable - 4);
            if local > max_local {
                local = min_local;
            }
            Some((leaf - 1) * p + cell + a + r + local)
        })
        .collect()
}

fn varint(b: &[u8]) -> (u64, usize) {
    let mut v = 0u64;
    for (i, &x) in b.iter().enumerate().take(9) {
        if i == 8 {
            return ((v << 8) | x as u64, 9);
        }
        v = (v << 7) | (x & 0x7f) as u64;
        if x & 0x80 == 0 {
            return (v, i + 1);
        }
    }
    (v, 9)
}

/// Every row of every check, in order, on one connection: integrity_check
/// then quick_check (and the reverse, and each alone on a fresh
/// connection) over files whose overflow chains are broken in a table
/// with an index. Ours must give SQLite's rows and result code exactly,
/// not only its verdict (issue #18: quick_check after an integrity_check
/// of such a file once said "ok").
#[test]
fn quick_check_after_integrity_check_on_broken_overflow_chains() {
    let orders: &[&[&str]] = &[
        &["PRAGMA integrity_check", "PRAGMA quick_check"],
        &["PRAGMA quick_check", "PRAGMA integrity_check", "PRAGMA quick_check"],
        &["PRAGMA quick_check"],
        &["PRAGMA integrity_check(3)", "PRAGMA quick_check(2)", "PRAGMA quick_check(t)"],
    ];
    type Damage = Box<dyn Fn(&mut Vec<u8>, usize)>;
    let first = |b: &Vec<u8>, p: usize| all_overflow_pointers(b, p);
    let cases: Vec<(&str, Damage)> = vec![
        (
            "first pointer 0",
            Box::new(move |b, p| {
                let at = first(b, p)[0];
                set_u32(b, at, 0)
            }),
        ),
        (
            "first pointer past the end",
            Box::new(move |b, p| {
                let at = first(b, p)[1];
                set_u32(b, at, 9999)
            }),
        ),
        (
            "two chains share a page",
            Box::new(move |b, p| {
                let ptrs = first(b, p);
                let other = u32::from_be_bytes(b[ptrs[0]..ptrs[0] + 4].try_into().unwrap());
                set_u32(b, ptrs[1], other)
            }),
        ),
        (
            "a chain ended early",
            Box::new(move |b, p| {
                let at = first(b, p)[0];
                let page = u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
                set_u32(b, (page - 1) * p, 0)
            }),
        ),
        (
            "a chain into page 1",
            Box::new(move |b, p| {
                let at = first(b, p)[0];
                let page = u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
                set_u32(b, (page - 1) * p, 1)
            }),
        ),
    ];
    for (name, damage) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db").to_str().unwrap().to_string();
        for o in run_ref(&RefDb::open_path(&path), BIG_ROWS_INDEXED) {
            assert!(!matches!(o, Outcome::Error { .. }), "{name}: {o:?}");
        }
        let mut bytes = std::fs::read(&path).unwrap();
        let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
        assert!(all_overflow_pointers(&bytes, page).len() >= 8, "eight chains");
        damage(&mut bytes, page);
        std::fs::write(&path, &bytes).unwrap();
        for checks in orders {
            let want = ref_runs(&path, checks);
            let ours = our_runs(&path, checks);
            assert!(!sound(&want[0]), "{name}: the reference calls it sound");
            assert_eq!(ours, want, "{name}: {checks:?}");
        }
    }
}
