//! FTS5 tokenizers (`src/ext/fts5/tokenizer/`): for each `tokenize=`
//! setting, the same inserts on ours and on the reference leave the same
//! shadow rows byte for byte (the index holds the tokens), the same
//! queries give the same rows and highlights, bad arguments give
//! SQLite's errors, and a file the reference wrote with these
//! tokenizers is read and extended by ours and passes the reference's
//! integrity check.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb, V};
use ringlite::{Connection, OpenFlags};

const TOKENIZERS: &[&str] = &[
    "unicode61",
    "'unicode61 remove_diacritics 0'",
    "'unicode61 remove_diacritics 2'",
    "'unicode61 categories ''L* N* Co Mn'''",
    "'unicode61 categories ''Lu Nd'''",
    "'unicode61 categories ''L*,N*'''",
    "'unicode61 tokenchars ''-_.'' separators ''xé'''",
    "'unicode61 separators ''abc'' tokenchars ''b'''",
    "ascii",
    "'ascii separators ''0123456789'' tokenchars ''-'''",
    "porter",
    "'porter ascii'",
    "'porter unicode61 remove_diacritics 0'",
    "'porter porter'",
    "trigram",
    "'trigram case_sensitive 1'",
    "'trigram remove_diacritics 1'",
    "'trigram case_sensitive 0 remove_diacritics 2'",
    "'porter trigram'",
];

const DOCS: &[&str] = &[
    "The quick brown fox jumps over the lazy dog",
    "Relational generalizations: hopping, filing, caresses and ponies",
    "Ünïcode café naïve RÉSUMÉ Ærøskøbing ộ ǅ ΣΊΣΥΦΟΣ straße",
    "well-known e-mail x_y a.b.c 123-456 a\u{301}b c\u{301} \u{301}d x\u{20dd}y",
    "correction corrected correcting corrects connective connections",
    "abcdefghij KLMNOPQRST uvwxyz",
    "日本語のテキスト 中文 한국어 ﬁ ℌ Ⅻ ① ½",
    "private \u{e000}\u{e001} use, emoji 🙂🙃 and tabs\tand\nlines",
    "hop hopped hopping hopeful hopefulness happily happiness",
    "sing singing feed agreed ies dies sses eeds plastered motoring happy sky hoping conflated troubled sized tanned falling hissing fizzed \
     filing conditional rational valenci digitizer conformabli radicalli vileli analogousli vietnamization predication feudalism \
     callousness formaliti sensibiliti triplicate formalize electriciti electrical revival allowance airliner gyroscopic defensible \
     irritant replacement adjustment adoption homologou communism angulariti effective bowdlerize probate cease controll roll \
     abxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxing abxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxing",
    "",
];

const QUERIES: &[&str] = &[
    "fox",
    "\"quick brown\"",
    "hop*",
    "correct",
    "connect",
    "general",
    "cafe",
    "resume",
    "unicode",
    "\"well-known\"",
    "known",
    "cdefg",
    "\"hij klm\"",
    "cdefg AND pqr",
    "ab",
    "abc*",
    "ǆ",
    "σίσυφος",
    "strasse",
    "straße",
    "o",
    "ộ",
    "123",
    "b",
    "日本",
    "テキスト",
];

/// Outcomes as lines of text, so a failing comparison prints readably.
fn show(o: Vec<Outcome>) -> Vec<String> {
    let mut out = Vec::new();
    for x in o {
        match x {
            Outcome::Rows { rows, .. } => {
                for r in rows {
                    let cells: Vec<String> = r
                        .iter()
                        .map(|v| match v {
                            V::Null => "NULL".into(),
                            V::Int(i) => i.to_string(),
                            V::Real(b) => format!("{:.12e}", f64::from_bits(*b)),
                            V::Text(t) => String::from_utf8_lossy(t).into_owned(),
                            V::Blob(b) => format!("x'{}'", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
                        })
                        .collect();
                    out.push(cells.join(" | "));
                }
                out.push("--".into());
            }
            e => out.push(format!("{e:?}")),
        }
    }
    out
}

fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

const SHADOW: &str = "SELECT id, hex(block) FROM t_data ORDER BY id; SELECT segid, hex(term), pgno FROM t_idx ORDER BY 1, 2; \
    SELECT id, hex(sz) FROM t_docsize ORDER BY id; SELECT * FROM t_config";

#[test]
fn tokenizers_index_and_match_as_sqlite() {
    for tok in TOKENIZERS {
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        let create = format!("CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize={tok})");
        assert_eq!(run_ours(&mut c, &create), run_ref(&r, &create), "{create}");
        let mut sql = String::from("BEGIN;");
        for (i, d) in DOCS.iter().enumerate() {
            let other = DOCS[(i + 3) % DOCS.len()];
            sql.push_str(&format!("INSERT INTO t(rowid, a, b) VALUES({}, {}, {});", i + 1, q(d), q(other)));
        }
        sql.push_str("COMMIT; DELETE FROM t WHERE rowid = 2; UPDATE t SET b = 'hopping ponies' WHERE rowid = 3");
        assert_eq!(run_ours(&mut c, &sql), run_ref(&r, &sql), "{tok}");
        assert_eq!(show(run_ours(&mut c, SHADOW)), show(run_ref(&r, SHADOW)), "{tok}: shadow rows");
        for m in QUERIES {
            let s = format!("SELECT rowid, highlight(t, 0, '[', ']'), highlight(t, 1, '<', '>') FROM t WHERE t MATCH {} ORDER BY rowid", q(m));
            assert_eq!(show(run_ours(&mut c, &s)), show(run_ref(&r, &s)), "{tok}: {s}");
        }
    }
}

#[test]
fn tokenizer_argument_errors_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let specs = [
        "'unicode61 remove_diacritics 3'",
        "'unicode61 foo 1'",
        "'unicode61 remove_diacritics'",
        "'unicode61 remove_diacritics 01'",
        "'Unicode61 REMOVE_DIACRITICS 0'",
        "'unicode61 remove_diacritics ''0''x'",
        "nosuch",
        "'ascii remove_diacritics 1'",
        "'porter nosuch'",
        "'porter unicode61 x'",
        "'trigram case_sensitive 2'",
        "'trigram remove_diacritics 1 case_sensitive 1'",
        "'trigram case_sensitive 1 case_sensitive 0 remove_diacritics 1'",
        "'trigram foo 1'",
        "'unicode61 categories ''Lu X*'''",
        "'unicode61 categories ''L* Lx'''",
        "'unicode61 categories ''lu'''",
        "'unicode61 categories ''L'''",
        "'unicode61 categories ''*'''",
        "'unicode61 categories ''Cs Cn LC'''",
        "'unicode61 categories '''''",
        "'unicode61 categories L*'",
        "'\"porter\" \"ascii\"'",
        "'[unicode61]'",
        "'a$b'",
        "''",
        "'porter ascii tokenchars ''-'''",
        "'ascii categories L*'",
        "unicode61 tokenchars",
        "\"porter ascii\"",
        "'''porter'' ''ascii'''",
    ];
    for (i, spec) in specs.iter().enumerate() {
        let sql = format!("CREATE VIRTUAL TABLE e{i} USING fts5(x, tokenize={spec})");
        assert_eq!(run_ours(&mut c, &sql), run_ref(&r, &sql), "{sql}");
    }
    for sql in [
        "CREATE VIRTUAL TABLE m1 USING fts5(x, tokenize=unicode61, tokenize=ascii)",
        "CREATE VIRTUAL TABLE m2 USING fts5(x, detail=foo)",
        "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL%' ORDER BY name",
    ] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
}

fn ok_check() -> Option<Outcome> {
    Some(Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] })
}

#[test]
fn reference_files_with_tokenizers_go_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    for (k, tok) in ["'porter unicode61 remove_diacritics 2'", "'trigram remove_diacritics 1'", "'ascii tokenchars ''-'''"].iter().enumerate() {
        let path = dir.path().join(format!("t{k}.db"));
        let path = path.to_str().unwrap();
        let f = RefDb::open_path(path);
        run_ref(&f, &format!("CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize={tok})"));
        for (i, d) in DOCS.iter().enumerate() {
            run_ref(&f, &format!("INSERT INTO t(rowid, a, b) VALUES({}, {}, 'x')", i + 1, q(d)));
        }
        let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open");
        for m in QUERIES {
            let s = format!("SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH {} ORDER BY rowid", q(m));
            assert_eq!(show(run_ours(&mut c, &s)), show(run_ref(&f, &s)), "{tok}: {s}");
        }
        let w = "INSERT INTO t VALUES('Corrections RELATIONAL well-known', 'cafés'); UPDATE t SET a = 'hopefulness naïve' WHERE rowid = 1; DELETE FROM t WHERE rowid = 4";
        assert!(matches!(run_ours(&mut c, w).pop(), Some(Outcome::Rows { .. })), "{tok}");
        drop(c);
        let check = "INSERT INTO t(t) VALUES('integrity-check'); PRAGMA integrity_check";
        assert_eq!(run_ref(&f, check).pop(), ok_check(), "{tok}");
    }
}

#[test]
fn snippet_with_tokenizers_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let setup = "CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize=porter); \
        INSERT INTO t VALUES('  one two three, four five.  ', 'hopping x'); INSERT INTO t VALUES('x y', NULL); INSERT INTO t VALUES('x', 3.5); \
        CREATE VIRTUAL TABLE u USING fts5(a, tokenize=trigram); INSERT INTO u VALUES('abcdefghij KLMNOPQRST')";
    assert_eq!(run_ours(&mut c, setup), run_ref(&r, setup));
    for s in [
        "SELECT rowid, snippet(t, 0, '[', ']', '...', 5) FROM t WHERE t MATCH 'two OR four OR x' ORDER BY rowid",
        "SELECT rowid, snippet(t, 0, '[', ']', '...', 64) FROM t WHERE t MATCH '\"two three\" five' ORDER BY rowid",
        "SELECT rowid, snippet(t, 1, '<b>', '</b>', '', 100) FROM t WHERE t MATCH 'hops OR x' ORDER BY rowid",
        "SELECT rowid, snippet(t, 1, NULL, NULL, NULL, 2) FROM t WHERE t MATCH 'hop' ORDER BY rowid",
        "SELECT snippet(t, 2, '[', ']', '...', 5) FROM t WHERE t MATCH 'x'",
        "SELECT snippet(t, 0, '[', ']', '...') FROM t WHERE t MATCH 'x'",
        "SELECT snippet(t, 0, '[', ']', '...', 3, 4) FROM t WHERE t MATCH 'x'",
        "SELECT snippet(u, -1, '[', ']', '...', 30) FROM u WHERE u MATCH 'cdefg AND pqr'",
        "SELECT snippet(t, 0, '[', ']', '...', 2) FROM t WHERE t MATCH 'one'",
        "SELECT snippet(t, -1, '[', ']', '...', 5) FROM t WHERE t MATCH 'one'",
    ] {
        assert_eq!(show(run_ours(&mut c, s)), show(run_ref(&r, s)), "{s}");
    }
}
