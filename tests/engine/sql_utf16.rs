//! UTF-16 database files against real SQLite: files SQLite (libsqlite3-sys)
//! creates in UTF-16le and UTF-16be, with indexes over text whose order
//! differs from UTF-8's (characters above U+FFFF, U+E000..U+FFFF, the
//! low-byte-first order of UTF-16le), NOCASE and RTRIM columns, empty
//! strings, NUL characters and text long enough to overflow, are read and
//! modified by ringlite and by SQLite alike (same results statement by
//! statement); SQLite then finds our file intact and holding what its own
//! holds. Files ringlite creates under `PRAGMA encoding` are read by
//! SQLite; an attached file of another encoding is refused with SQLite's
//! error; the value functions whose result depends on the encoding
//! (`hex()`, casts, `length()`, `octet_length()`) answer alike.
use crate::sql_common::*;
use ringlite::{Connection, OpenFlags};

fn open(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap()
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ringlite-utf16-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Texts whose orders differ between the encodings: SQL literals.
const TEXTS: &[&str] = &[
    "'a'",
    "'A'",
    "'ab'",
    "'ab '",
    "'ab  '",
    "'B'",
    "'b'",
    "''",
    "'é'",
    "'É'",
    "'ÿ'",
    "'Ā'",
    "'ſ'",
    "char(57344)",
    "char(65535)",
    "char(65536)",
    "char(128512) || 'z'",
    "char(1114111)",
    "'x' || char(0) || 'y'",
    "'日本語'",
    "'Z'",
    "'z'",
    "char(55295)",
    "'a' || char(65536)",
    "'a' || char(65535)",
];

/// What SQLite puts into the file (after its `PRAGMA encoding`).
fn setup() -> String {
    let mut s = String::from(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT COLLATE NOCASE, c TEXT COLLATE RTRIM, n);
CREATE INDEX ta ON t(a);
CREATE INDEX tb ON t(b, a);
CREATE INDEX tc ON t(c DESC);
CREATE UNIQUE INDEX tu ON t(a, id);
CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE big(x TEXT);
CREATE INDEX big_x ON big(x);
",
    );
    for (i, t) in TEXTS.iter().enumerate() {
        s.push_str(&format!("INSERT INTO t VALUES({i}, {t}, {t}, {t}, {i});\n"));
        s.push_str(&format!("INSERT INTO w VALUES({t} || '{i}', {i});\n"));
    }
    s.push_str(
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<40)
INSERT INTO big SELECT printf('%d', i) || char(65536 + i) || replace(hex(zeroblob(300 + i * 5)), '00', 'aé') FROM k;
",
    );
    s
}

/// Run on both engines, on copies of the same file.
const SCRIPT: &str = "PRAGMA encoding;
SELECT id, a, hex(a), length(a), octet_length(a) FROM t ORDER BY a, id;
SELECT id FROM t ORDER BY b, id;
SELECT id FROM t ORDER BY c DESC, id;
SELECT id FROM t INDEXED BY ta WHERE a > 'a' ORDER BY a;
SELECT id FROM t INDEXED BY ta WHERE a BETWEEN char(57344) AND char(65536) ORDER BY a;
SELECT id FROM t WHERE a = char(65536);
SELECT id FROM t WHERE b = 'AB';
SELECT id FROM t WHERE c = 'ab' ORDER BY id;
SELECT id FROM t WHERE a = 'x' || char(0) || 'y';
SELECT min(a), max(a) FROM t;
SELECT b FROM t ORDER BY b DESC, id LIMIT 3;
SELECT k, v FROM w ORDER BY k;
SELECT v FROM w WHERE k = char(65536) || '15';
SELECT count(*), min(x), max(x) FROM big;
SELECT substr(x, 1, 4), length(x) FROM big WHERE x > '3' ORDER BY x LIMIT 5;
SELECT DISTINCT upper(a) FROM t ORDER BY 1;
SELECT group_concat(a, '|') FROM (SELECT a FROM t ORDER BY a);
SELECT a < char(65536), a > char(57344) FROM t ORDER BY id;
INSERT INTO t(id, a, b, c) VALUES(100, char(65537), 'AĀ', 'q  ');
INSERT INTO t(id, a, b, c) SELECT id + 200, a || 'x', b || 'Y', c || ' ' FROM t WHERE id < 25;
UPDATE t SET a = a || char(66000) WHERE id % 3 = 0;
DELETE FROM t WHERE id % 5 = 1;
INSERT INTO w VALUES(char(70000), 'new'), ('', 'empty');
UPDATE w SET v = v || k WHERE k > char(57344);
DELETE FROM w WHERE k < 'b';
INSERT INTO big SELECT x || 'tail' FROM big WHERE rowid % 4 = 0;
DELETE FROM big WHERE rowid % 6 = 0;
CREATE INDEX later ON t(c, b);
SELECT id, hex(a) FROM t ORDER BY a, id;
SELECT id FROM t INDEXED BY later ORDER BY c, b, id;
SELECT k, v FROM w ORDER BY k;
SELECT count(*), sum(length(x)) FROM big;
PRAGMA integrity_check;";

/// A query of everything, to compare the two files.
const DUMP: &str = "SELECT id, hex(a), hex(b), hex(c), n FROM t ORDER BY id;
SELECT hex(k), v FROM w ORDER BY k;
SELECT hex(x) FROM big ORDER BY rowid;
SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name;";

fn ref_run(path: &std::path::Path, sql: &str) -> Vec<Outcome> {
    let db = RefDb::open_path(path.to_str().unwrap());
    run_ref(&db, sql)
}

fn no_errors(out: &[Outcome]) {
    assert!(!out.iter().any(|o| matches!(o, Outcome::Error { .. })), "{out:?}");
}

fn ok_integrity() -> Vec<Outcome> {
    vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }]
}

#[test]
fn files_sqlite_writes_are_read_and_changed_alike() {
    for enc in ["UTF-16le", "UTF-16be"] {
        let dir = tmp(enc);
        let (theirs, ours) = (dir.join("theirs.db"), dir.join("ours.db"));
        no_errors(&ref_run(&theirs, &format!("PRAGMA encoding = '{enc}';\n{}", setup())));
        std::fs::copy(&theirs, &ours).unwrap();
        let mut conn = open(ours.to_str().unwrap());
        let reference = RefDb::open_path(theirs.to_str().unwrap());
        let mut rest = SCRIPT;
        while let Some((stmt, tail)) = rest.split_once(";\n").or(if rest.is_empty() { None } else { Some((rest, "")) }) {
            let a = run_ours(&mut conn, stmt);
            let b = run_ref(&reference, stmt);
            assert_eq!(a, b, "\n{enc}: {stmt}\nours: {a:?}\nref:  {b:?}");
            rest = tail;
        }
        drop(conn);
        drop(reference);
        let bytes = std::fs::read(&ours).unwrap();
        assert_eq!(&bytes[56..60], &[0, 0, 0, if enc == "UTF-16le" { 2 } else { 3 }]);
        assert_eq!(ref_run(&ours, "PRAGMA integrity_check"), ok_integrity(), "{enc}");
        assert_eq!(ref_run(&ours, DUMP), ref_run(&theirs, DUMP), "{enc}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn files_ringlite_creates_are_read_by_sqlite() {
    for enc in ["UTF-16le", "UTF-16be", "utf-16", "UTF-8"] {
        let dir = tmp(&format!("new-{enc}"));
        let (theirs, ours) = (dir.join("theirs.db"), dir.join("ours.db"));
        let script = format!("PRAGMA encoding = '{enc}';\nPRAGMA encoding;\n{}PRAGMA encoding = 'UTF-8';\nPRAGMA encoding;", setup());
        let b = ref_run(&theirs, &script);
        let mut conn = open(ours.to_str().unwrap());
        let a = run_ours(&mut conn, &script);
        assert_eq!(a, b, "{enc}");
        // A VACUUM keeps the encoding.
        assert_eq!(run_ours(&mut conn, "VACUUM; PRAGMA encoding"), ref_run(&theirs, "VACUUM; PRAGMA encoding"), "{enc}");
        drop(conn);
        assert_eq!(std::fs::read(&ours).unwrap()[56..60], std::fs::read(&theirs).unwrap()[56..60], "{enc}");
        assert_eq!(ref_run(&ours, "PRAGMA integrity_check"), ok_integrity(), "{enc}");
        assert_eq!(ref_run(&ours, DUMP), ref_run(&theirs, DUMP), "{enc}");
        // And the other way round on the file made by SQLite.
        let mut conn = open(theirs.to_str().unwrap());
        let reference = RefDb::open_path(ours.to_str().unwrap());
        for q in DUMP.split(";\n") {
            assert_eq!(run_ours(&mut conn, q), run_ref(&reference, q), "{enc}: {q}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn attached_files_must_share_the_encoding() {
    let dir = tmp("attach");
    let le = dir.join("le.db");
    let be = dir.join("be.db");
    let u8 = dir.join("u8.db");
    no_errors(&ref_run(&le, "PRAGMA encoding='UTF-16le'; CREATE TABLE x(a); INSERT INTO x VALUES('le');"));
    no_errors(&ref_run(&be, "PRAGMA encoding='UTF-16be'; CREATE TABLE x(a); INSERT INTO x VALUES('be');"));
    no_errors(&ref_run(&u8, "CREATE TABLE x(a); INSERT INTO x VALUES('u8');"));
    let q = |p: &std::path::Path| p.to_str().unwrap().replace('\'', "''");
    let script = format!(
        "ATTACH '{be}' AS b; ATTACH '{u8}' AS u; ATTACH '{le2}' AS l2; SELECT a FROM l2.x; ATTACH ':memory:' AS m; PRAGMA m.encoding; \
         CREATE TABLE m.y(a); INSERT INTO m.y VALUES(char(65536)); SELECT hex(a) FROM m.y; CREATE TEMP TABLE tt(a); INSERT INTO tt VALUES('t'); SELECT hex(a) FROM tt; \
         SELECT * FROM x",
        be = q(&be),
        u8 = q(&u8),
        le2 = q(&le)
    );
    let mut conn = open(le.to_str().unwrap());
    let reference = RefDb::open_path(le.to_str().unwrap());
    for stmt in script.split("; ") {
        assert_eq!(run_ours(&mut conn, stmt), run_ref(&reference, stmt), "{stmt}");
    }
    // A new main database in UTF-8 refuses a UTF-16 file too.
    let fresh = dir.join("fresh.db");
    let stmt = format!("ATTACH '{}' AS l", q(&le));
    let mut conn = open(fresh.to_str().unwrap());
    let reference = RefDb::open_path(dir.join("fresh-ref.db").to_str().unwrap());
    assert_eq!(run_ours(&mut conn, &stmt), run_ref(&reference, &stmt));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn encoding_pragma_and_value_functions() {
    let setup_of =
        |enc: &str| format!("PRAGMA encoding = '{enc}'; CREATE TABLE v(x); INSERT INTO v VALUES('é'), (char(65536)), (x'41004200'), (5), (1.5), ('');");
    let queries = [
        "PRAGMA encoding",
        "SELECT * FROM pragma_encoding",
        "PRAGMA encoding = 'UTF-16be'",
        "PRAGMA encoding",
        "PRAGMA encoding = 'bogus'",
        "SELECT hex(x), length(x), octet_length(x), typeof(x), hex(CAST(x AS BLOB)), CAST(x AS TEXT), quote(x) FROM v",
        "SELECT CAST(x'4100420043' AS TEXT), hex(CAST(x'41004200' AS TEXT)), hex(CAST(5 AS BLOB)), hex(5), octet_length(5), 'a' || x'4200'",
        // Unpaired surrogates are kept as they are (not their length(),
        // nor upper(): see `value::encoding`).
        "SELECT hex(CAST(x'00D84100' AS TEXT)), hex(CAST(x'00D8' AS TEXT) || ''), hex(CAST(x'00DC00D8' AS TEXT)), length(CAST(x'00D8' AS TEXT))",
        "SELECT char(65535) < char(65536), 'a' < 'Ā', 'ÿ' < 'Ā', min(x), max(x) FROM v WHERE typeof(x) = 'text'",
        "SELECT x FROM v WHERE typeof(x) = 'text' ORDER BY x",
        "SELECT substr('a' || char(65536) || 'b', 2, 1) = char(65536), instr('ab' || char(65536) || 'c', 'c'), unicode(char(65536)), replace('aĀa', 'Ā', 'b')",
    ];
    for enc in ["UTF-16le", "UTF-16be", "UTF-8"] {
        let dir = tmp(&format!("fn-{enc}"));
        let mut conn = open(dir.join("ours.db").to_str().unwrap());
        let reference = RefDb::open_path(dir.join("theirs.db").to_str().unwrap());
        let s = setup_of(enc);
        assert_eq!(run_ours(&mut conn, &s), run_ref(&reference, &s), "{enc}");
        for q in queries {
            assert_eq!(run_ours(&mut conn, q), run_ref(&reference, q), "{enc}: {q}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    // In memory, before anything is created, and after.
    check("PRAGMA encoding='UTF-16le'; PRAGMA encoding; CREATE TABLE a(b); PRAGMA encoding='UTF-16be'; PRAGMA encoding; INSERT INTO a VALUES('xy'); SELECT hex(b) FROM a;");
    check("CREATE TEMP TABLE a(b); PRAGMA encoding='UTF-16le'; PRAGMA encoding;");
    check("PRAGMA encoding='UTF16'; PRAGMA encoding; PRAGMA encoding='utf16be'; PRAGMA encoding;");
}

/// `hex(a)` after binding `bytes` as text into a UTF-16 table, on SQLite.
fn ref_bound_hex(db: &RefDb, bytes: &[u8]) -> String {
    use libsqlite3_sys as ffi;
    unsafe {
        let mut st = std::ptr::null_mut();
        ffi::sqlite3_prepare_v2(db.0, c"INSERT INTO b(a) VALUES(?1) RETURNING hex(a)".as_ptr(), -1, &mut st, std::ptr::null_mut());
        ffi::sqlite3_bind_text(st, 1, bytes.as_ptr().cast(), bytes.len() as i32, ffi::SQLITE_TRANSIENT());
        assert_eq!(ffi::sqlite3_step(st), ffi::SQLITE_ROW);
        let p = ffi::sqlite3_column_text(st, 0);
        let s = std::ffi::CStr::from_ptr(p.cast()).to_string_lossy().into_owned();
        ffi::sqlite3_finalize(st);
        s
    }
}

#[test]
fn invalid_text_is_stored_as_sqlite_stores_it_and_kept() {
    let dir = tmp("invalid");
    let (theirs, ours) = (dir.join("theirs.db"), dir.join("ours.db"));
    let setup = "PRAGMA encoding='UTF-16le'; CREATE TABLE b(a, n); CREATE INDEX ba ON b(a);";
    no_errors(&ref_run(&theirs, setup));
    let mut conn = open(ours.to_str().unwrap());
    no_errors(&run_ours(&mut conn, setup));
    let reference = RefDb::open_path(theirs.to_str().unwrap());
    // Malformed UTF-8 (stray continuation bytes, truncated and overlong
    // sequences, bytes that start nothing valid) is read as SQLite reads
    // it. (Not a surrogate code point: SQLite writes U+FFFD for it,
    // ringlite the unit, so that one read from a UTF-16 file goes back
    // as it was.)
    for bytes in [
        &b"a\x80b"[..],
        b"\xc3",
        b"\xe2\x82",
        b"\xc0\x80x",
        b"\xff",
        b"\xf4\x90\x80\x80",
        b"ok \xe2\x82\xac",
        b"\xe0\x80\x80",
        b"\xc3\xa9\xa9",
        b"\xf8\x88\x80\x80\x80",
        b"\xfe\xff",
        b"\xef\xbf\xbe",
        b"\xc1\xbf",
        b"\xf0\x80\x80\x80",
    ] {
        let mut st = conn.prepare(b"INSERT INTO b(a) VALUES(?1) RETURNING hex(a)").unwrap().0.unwrap();
        st.bind(1, ringlite::value::Value::Text(bytes.to_vec())).unwrap();
        assert_eq!(st.step(&mut conn).unwrap(), ringlite::StepResult::Row);
        let ours_hex = from_value(st.column(0));
        st.reset(&mut conn);
        assert_eq!(ours_hex, V::Text(ref_bound_hex(&reference, bytes).into_bytes()), "{bytes:x?}");
    }
    // Unpaired surrogates SQLite wrote stay as they are when their row is
    // rewritten or copied.
    let script = "INSERT INTO b VALUES(CAST(x'00D84100' AS TEXT), 1), (CAST(x'00DC' AS TEXT), 2), (CAST(x'3DD800DE00D8' AS TEXT), 3);
UPDATE b SET n = n + 10 WHERE n < 5;
INSERT INTO b SELECT a, n + 100 FROM b WHERE n > 10;
SELECT hex(a), n FROM b WHERE n > 10 ORDER BY n;
SELECT count(*) FROM b WHERE a = CAST(x'00DC' AS TEXT);
PRAGMA integrity_check;";
    drop(reference);
    std::fs::copy(&theirs, &ours).unwrap();
    let mut conn = open(ours.to_str().unwrap());
    let reference = RefDb::open_path(theirs.to_str().unwrap());
    for stmt in script.split(";\n") {
        assert_eq!(run_ours(&mut conn, stmt), run_ref(&reference, stmt), "{stmt}");
    }
    drop(conn);
    assert_eq!(ref_run(&ours, "PRAGMA integrity_check"), ok_integrity());
    let _ = std::fs::remove_dir_all(&dir);
}
