//! FTS5 tokens of an application's tokenizer and values with a locale,
//! against the reference: colocated tokens (`FTS5_TOKEN_COLOCATED`
//! synonyms, in documents and queries), `locale=1` with `fts5_locale()`
//! and `fts5_get_locale()` (the locale reaching the tokenizer),
//! `tokendata=1` (token data after a zero byte) and the 'insttoken'
//! setting. The same tokenizer is registered on both sides: in ringlite
//! through the engine's `Extensions`, in the reference through its
//! `fts5_api` (`xCreateTokenizer_v2`). Results, errors and shadow-table
//! bytes must be the reference's.
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;
use ringlite::ext::fts5::extension::{CustomTokenizer, EmitToken, Extensions, TokenizerFactory};
use ringlite::{Connection, Result};
use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

/// The test tokenizer: words between spaces; '/' in a word becomes a
/// zero byte (token data); a locale is appended as "@locale"; "1st" is
/// followed by the synonym "first", "2nd" by "second" and "two".
fn syn_tokens(text: &[u8], locale: Option<&[u8]>) -> Vec<(Vec<u8>, usize, usize, bool)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        while i < text.len() && text[i] == b' ' {
            i += 1;
        }
        let s = i;
        while i < text.len() && text[i] != b' ' {
            i += 1;
        }
        if i == s {
            break;
        }
        let word = &text[s..i];
        let mut tok: Vec<u8> = word.iter().map(|&b| if b == b'/' { 0 } else { b }).collect();
        if let Some(l) = locale.filter(|l| !l.is_empty()) {
            tok.push(b'@');
            tok.extend_from_slice(l);
        }
        out.push((tok, s, i, false));
        let syns: &[&str] = match word {
            b"1st" => &["first"],
            b"2nd" => &["second", "two"],
            _ => &[],
        };
        for w in syns {
            out.push((w.as_bytes().to_vec(), s, i, true));
        }
    }
    out
}

struct Syn;

impl CustomTokenizer for Syn {
    fn tokenize(&self, text: &[u8], _reason: i32, locale: Option<&[u8]>, emit: &mut EmitToken<'_>) -> Result<()> {
        for (t, s, e, colocated) in syn_tokens(text, locale) {
            emit(&t, s, e, colocated)?;
        }
        Ok(())
    }
}

struct SynFactory;

impl TokenizerFactory for SynFactory {
    fn create(&self, _args: &[String]) -> Result<Arc<dyn CustomTokenizer>> {
        Ok(Arc::new(Syn))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

type XToken = Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int, c_int, c_int) -> c_int>;

unsafe extern "C" fn ref_create(_u: *mut c_void, _az: *mut *const c_char, _n: c_int, out: *mut *mut ffi::Fts5Tokenizer) -> c_int {
    // Any non-null pointer: the tokenizer keeps no state.
    *out = std::ptr::NonNull::<ffi::Fts5Tokenizer>::dangling().as_ptr();
    0
}

unsafe extern "C" fn ref_delete(_p: *mut ffi::Fts5Tokenizer) {}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ref_tokenize(
    _p: *mut ffi::Fts5Tokenizer,
    ctx: *mut c_void,
    _flags: c_int,
    text: *const c_char,
    n: c_int,
    locale: *const c_char,
    nlocale: c_int,
    x_token: XToken,
) -> c_int {
    let text = if n > 0 { std::slice::from_raw_parts(text as *const u8, n as usize) } else { &[] };
    let loc = (!locale.is_null() && nlocale > 0).then(|| std::slice::from_raw_parts(locale as *const u8, nlocale as usize));
    let Some(x) = x_token else { return 1 };
    for (t, s, e, colocated) in syn_tokens(text, loc) {
        let rc = x(ctx, c_int::from(colocated), t.as_ptr() as *const c_char, t.len() as c_int, s as c_int, e as c_int);
        if rc != 0 {
            return rc;
        }
    }
    0
}

static REF_SYN: ffi::fts5_tokenizer_v2 =
    ffi::fts5_tokenizer_v2 { iVersion: 2, xCreate: Some(ref_create), xDelete: Some(ref_delete), xTokenize: Some(ref_tokenize) };

/// Both connections, with the tokenizer "syn" registered on each.
fn open_both() -> (Connection, RefDb) {
    let c = ours_open();
    c.extension_state::<Extensions>().add_tokenizer("syn", Arc::new(SynFactory));
    let r = RefDb::open();
    unsafe {
        let mut api: *mut ffi::fts5_api = std::ptr::null_mut();
        let mut st = std::ptr::null_mut();
        assert_eq!(ffi::sqlite3_prepare_v2(r.0, c"SELECT fts5(?1)".as_ptr(), -1, &mut st, std::ptr::null_mut()), 0);
        ffi::sqlite3_bind_pointer(st, 1, &mut api as *mut _ as *mut c_void, c"fts5_api_ptr".as_ptr(), None);
        ffi::sqlite3_step(st);
        ffi::sqlite3_finalize(st);
        assert!(!api.is_null());
        let create = (*api).xCreateTokenizer_v2.expect("v2");
        let rc = create(api, c"syn".as_ptr(), std::ptr::null_mut(), &REF_SYN as *const _ as *mut _, None);
        assert_eq!(rc, 0);
    }
    (c, r)
}

fn same(c: &mut Connection, r: &RefDb, script: &[&str]) {
    for s in script {
        assert_eq!(run_ours(c, s), run_ref(r, s), "{s}");
    }
}

const SHADOW: &str = "SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx ORDER BY segid, term; \
    SELECT id, hex(sz) FROM t_docsize ORDER BY id; SELECT * FROM t_config ORDER BY k";

#[test]
fn colocated_tokens_as_sqlite() {
    for opts in ["", ", detail=column", ", detail=none", ", prefix=2", ", content=''", ", columnsize=0"] {
        let (mut c, r) = open_both();
        let create = format!("CREATE VIRTUAL TABLE t USING fts5(x, y, tokenize=syn{opts})");
        let ok_queries = opts != ", detail=column" && opts != ", detail=none";
        same(
            &mut c,
            &r,
            &[
                &create,
                "INSERT INTO t VALUES('the 1st place', 'a 2nd b'), ('the first place', 'second'), ('a 2nd', 'two 1st'), ('two second 1st', 'x')",
                SHADOW,
                "SELECT rowid FROM t WHERE t MATCH 'first'",
                "SELECT rowid FROM t WHERE t MATCH '1st'",
                "SELECT rowid FROM t WHERE t MATCH '1s*'",
                "SELECT rowid, bm25(t) FROM t WHERE t MATCH '2nd' ORDER BY rank",
                "SELECT rowid, highlight(t, 0, '[', ']'), highlight(t, 1, '[', ']') FROM t WHERE t MATCH '2nd OR 1st'",
                "SELECT rowid, snippet(t, -1, '[', ']', '..', 2) FROM t WHERE t MATCH 'two'",
                "CREATE VIRTUAL TABLE vi USING fts5vocab(t, instance); SELECT * FROM vi",
                "CREATE VIRTUAL TABLE vr USING fts5vocab(t, row); SELECT * FROM vr",
                "INSERT INTO t(t) VALUES('integrity-check')",
            ],
        );
        if ok_queries {
            same(
                &mut c,
                &r,
                &[
                    "SELECT rowid FROM t WHERE t MATCH '\"the 1st place\"'",
                    "SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'NEAR(2nd 1st, 0)'",
                    "SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '\"second 1st\"'",
                    "SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '\"two 2nd\"'",
                    "SELECT rowid FROM t WHERE t MATCH '^first'",
                ],
            );
        }
        if !opts.contains("content=''") {
            same(
                &mut c,
                &r,
                &[
                    "UPDATE t SET x = '1st 1st 2nd' WHERE rowid = 2",
                    "DELETE FROM t WHERE rowid = 1",
                    SHADOW,
                    "SELECT rowid, highlight(t, 0, '<', '>') FROM t WHERE t MATCH 'first'",
                    "INSERT INTO t(t) VALUES('optimize')",
                    SHADOW,
                    "INSERT INTO t(t) VALUES('integrity-check')",
                    "INSERT INTO t(t) VALUES('rebuild')",
                    SHADOW,
                ],
            );
        }
    }
}

#[test]
fn locale_values_as_sqlite() {
    let (mut c, r) = open_both();
    same(
        &mut c,
        &r,
        &[
            // (The header of a locale value is random: only what follows it.)
            "SELECT typeof(fts5_locale('en', 'hello')), length(fts5_locale('en', 'hello')), hex(substr(fts5_locale('en', 'hello'), 17))",
            "SELECT fts5_locale(NULL, 'x'), fts5_locale('', 'x'), typeof(fts5_locale('', 12)), fts5_locale(NULL, NULL), fts5_locale(X'00', 'b')",
            "SELECT hex(substr(fts5_locale('de', NULL), 17)), hex(substr(fts5_locale('de', 12), 17)), hex(substr(fts5_locale(1.5, X'4142'), 17))",
            "SELECT hex(substr(fts5_locale(X'4100', 'b'), 17))",
            "SELECT fts5_locale('a')",
            "SELECT fts5_get_locale(1, 0)",
            "CREATE VIRTUAL TABLE n USING fts5(x, y UNINDEXED)",
            "INSERT INTO n VALUES('a', fts5_locale('en', 'b'))",
            "INSERT INTO n VALUES(fts5_locale('en', 'b'), 'a')",
            "INSERT INTO n VALUES(fts5_locale('', 'b'), 'a')",
            "SELECT *, typeof(x) FROM n",
            "UPDATE n SET x = fts5_locale('en', 'b')",
            "SELECT rowid FROM n WHERE n MATCH fts5_locale('en', 'b')",
            "CREATE VIRTUAL TABLE bad USING fts5(x, locale=2)",
            "CREATE VIRTUAL TABLE bad USING fts5(x, locale='')",
            "CREATE VIRTUAL TABLE ok1 USING fts5(x, locale='1'); CREATE VIRTUAL TABLE ok0 USING fts5(x, locale=0)",
            "SELECT name, sql FROM sqlite_master WHERE name LIKE 'ok%' ORDER BY name",
        ],
    );
    for tokenizer in ["unicode61", "syn"] {
        let (mut c, r) = open_both();
        let create = format!("CREATE VIRTUAL TABLE t USING fts5(x, y, z UNINDEXED, tokenize={tokenizer}, locale=1)");
        same(
            &mut c,
            &r,
            &[
                &create,
                "SELECT name, sql FROM sqlite_master ORDER BY name",
                "INSERT INTO t VALUES(fts5_locale('en', 'hello world'), 'plain text', fts5_locale('de', 'kept'))",
                "INSERT INTO t VALUES('abc', fts5_locale('fr', 'bonjour 1st'), 3)",
                "INSERT INTO t VALUES(fts5_locale('de', 12), fts5_locale('de', NULL), NULL)",
                "INSERT INTO t VALUES(fts5_locale('de', X'4142'), fts5_locale('', 1.5), X'00')",
                "CREATE TABLE src(a, b, c); INSERT INTO src VALUES(fts5_locale('en', 'aa bb'), 'cc', 'dd'); INSERT INTO t SELECT * FROM src",
                "SELECT id, c0, typeof(c0), c1, typeof(c1), c2, l0, typeof(l0), l1 FROM t_content ORDER BY id",
                SHADOW,
                "SELECT rowid, x, typeof(x), y, z, fts5_get_locale(t, 0), fts5_get_locale(t, 1), fts5_get_locale(t, 2) FROM t",
                "SELECT fts5_get_locale(t, 3) FROM t",
                "SELECT fts5_get_locale(t, -1) FROM t",
                "SELECT fts5_get_locale(t, 0.0) FROM t",
                "SELECT fts5_get_locale(t, '0') FROM t",
                "SELECT fts5_get_locale(t) FROM t",
                "SELECT rowid FROM t WHERE t MATCH fts5_locale('en', 'hello')",
                "SELECT rowid FROM t WHERE t MATCH 'hello'",
                "SELECT rowid FROM t WHERE x MATCH fts5_locale('en', 'aa')",
                "SELECT rowid FROM t WHERE t MATCH fts5_locale('en', 'aa') AND t MATCH 'bb'",
                "SELECT rowid, highlight(t, 0, '[', ']'), snippet(t, 0, '[', ']', '..', 5) FROM t(fts5_locale('en', 'aa'))",
                "SELECT rowid, highlight(t, 1, '[', ']') FROM t WHERE t MATCH fts5_locale('fr', 'bonjour')",
                "UPDATE t SET y = fts5_locale('it', 'ciao') WHERE rowid = 5",
                "UPDATE t SET x = 'plain now' WHERE rowid = 1",
                "SELECT id, c0, c1, c2, l0, l1 FROM t_content ORDER BY id",
                SHADOW,
                "DELETE FROM t WHERE rowid = 2",
                "INSERT INTO t(t) VALUES('integrity-check')",
                "INSERT INTO t(t) VALUES('rebuild')",
                SHADOW,
                "INSERT INTO t(t) VALUES('integrity-check')",
                "CREATE VIRTUAL TABLE v USING fts5vocab(t, instance); SELECT * FROM v",
            ],
        );
    }
}

#[test]
fn locale_in_external_content_and_contentless_as_sqlite() {
    let (mut c, r) = open_both();
    same(
        &mut c,
        &r,
        &[
            "CREATE TABLE e(id INTEGER PRIMARY KEY, a, b)",
            "CREATE VIRTUAL TABLE te USING fts5(a, b, content=e, content_rowid=id, tokenize=syn, locale=1)",
            "INSERT INTO e VALUES(1, fts5_locale('en', 'x y'), 'z')",
            "INSERT INTO te(rowid, a, b) VALUES(1, fts5_locale('en', 'x y'), 'z')",
            "SELECT rowid, a, b, fts5_get_locale(te, 0), fts5_get_locale(te, 1) FROM te",
            "SELECT rowid, a, highlight(te, 0, '[', ']') FROM te WHERE te MATCH 'x@en'",
            "SELECT id, hex(block) FROM te_data ORDER BY id",
            "INSERT INTO te(te) VALUES('integrity-check')",
            "INSERT INTO te(te, rowid, a, b) VALUES('delete', 1, fts5_locale('en', 'x y'), 'z')",
            "SELECT id, hex(block) FROM te_data ORDER BY id",
            "CREATE VIRTUAL TABLE tc USING fts5(a, b UNINDEXED, content='', contentless_unindexed=1, tokenize=syn, locale=1)",
            // (SQLite 3.54.1 then fails every INSERT into such a table as
            // "database disk image is malformed": only the schema is compared.)
            "SELECT sql FROM sqlite_master WHERE name = 'tc_content'",
        ],
    );
}

#[test]
fn tokendata_as_sqlite() {
    for opts in ["", ", detail=column", ", detail=none", ", prefix=1"] {
        let (mut c, r) = open_both();
        for tokendata in ["tokendata=1", "tokendata=0"] {
            let create = format!("DROP TABLE IF EXISTS t; CREATE VIRTUAL TABLE t USING fts5(x, tokenize=syn, {tokendata}{opts})");
            same(
                &mut c,
                &r,
                &[
                    &create,
                    "INSERT INTO t VALUES('ab/X cd ab/Y ab'), ('ab/Z'), ('abc/1 ab')",
                    SHADOW,
                    "SELECT rowid FROM t WHERE t MATCH 'ab'",
                    "SELECT rowid FROM t WHERE t MATCH 'ab*'",
                    "SELECT rowid, highlight(t, 0, '[', ']'), bm25(t) FROM t WHERE t MATCH 'ab'",
                    "SELECT rowid FROM t WHERE t MATCH 'ab/X'",
                    "CREATE VIRTUAL TABLE IF NOT EXISTS v USING fts5vocab(t, instance); SELECT * FROM v",
                    "INSERT INTO t(t) VALUES('integrity-check')",
                ],
            );
        }
    }
    let (mut c, r) = open_both();
    same(&mut c, &r, &["CREATE VIRTUAL TABLE t USING fts5(x, tokendata=2)", "CREATE VIRTUAL TABLE t USING fts5(x, tokendata=1)"]);
    for v in ["0", "1", "2", "-1", "'1'", "'x'", "NULL", "1.5"] {
        same(&mut c, &r, &[&format!("INSERT INTO t(t, rank) VALUES('insttoken', {v})"), "SELECT * FROM t_config ORDER BY k"]);
    }
}
