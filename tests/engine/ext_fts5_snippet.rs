//! FTS5 `snippet()` and `highlight()` (`src/ext/fts5/snippet.rs`):
//! generated tables (one to three columns, UNINDEXED, unicode61 /
//! porter / trigram / tokenchars, own content, external content,
//! columnsize=0) holding documents of 1 to 100 tokens with punctuation,
//! sentence ends and runs of white space, queried with generated
//! phrases, prefixes, `^`, NEAR groups, column filters and boolean
//! operators; every snippet (column -1 or given, 1..64 tokens and the
//! odd values 0, -3, 65, 100, several markers and ellipses) and
//! highlight must be the reference's byte for byte. Hand-picked edge
//! cases follow.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

const GAPS: &[&str] = &[" ", " ", " ", "  ", ". ", ": ", ", ", ".", " . ", "\t", "\n", " :  ", "! ", "...", " -- ", ".\n"];

fn doc(r: &mut Rng, words: &[&str], n: usize) -> String {
    let mut s = String::new();
    if r.chance(20) {
        s.push_str(r.pick(&["  ", ". ", "(", " : "]));
    }
    for i in 0..n {
        s.push_str(r.pick(words));
        if r.chance(20) {
            s.push_str(r.pick(words));
        }
        if i + 1 < n {
            s.push_str(r.pick(GAPS));
        }
    }
    if r.chance(30) {
        s.push_str(r.pick(&[".", "  ", "!", " . "]));
    }
    s
}

fn phrase(r: &mut Rng, words: &[&str]) -> String {
    let k = r.pick(&[1, 1, 1, 2, 2, 3]);
    let toks: Vec<&str> = (0..k).map(|_| r.pick(words)).collect();
    let mut s = toks.join(" ");
    if k > 1 || r.chance(20) {
        s = format!("\"{s}\"");
    }
    if r.chance(10) {
        s.push_str(" *");
    }
    if r.chance(5) {
        s = format!("^{s}");
    }
    s
}

fn query(r: &mut Rng, words: &[&str], ncol: usize) -> String {
    if r.chance(15) {
        let n = r.pick(&[2, 2, 3]);
        let ps: Vec<String> = (0..n).map(|_| phrase(r, words)).collect();
        return format!("NEAR({}, {})", ps.join(" "), r.pick(&[0, 1, 2, 5, 10]));
    }
    let n = r.pick(&[1, 1, 2, 2, 3, 4]);
    let op = r.pick(&[" ", " OR ", " AND ", " OR "]);
    let s = (0..n).map(|_| phrase(r, words)).collect::<Vec<_>>().join(op);
    if r.chance(15) {
        let filters: &[&str] = if ncol == 2 {
            &["a", "b"]
        } else if ncol == 3 {
            &["a", "b", "{a b}", "-b", "c"]
        } else {
            &["a"]
        };
        return format!("{} : ({s})", r.pick(filters));
    }
    s
}

/// One generated table and `nquery` queries on it: (setup, queries).
fn case(seed: u64, nquery: usize) -> (Vec<String>, Vec<String>) {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let ncol = 1 + r.below(3);
    let cols = &["a", "b", "c"][..ncol];
    let mut decl: Vec<String> = cols.iter().map(|c| c.to_string()).collect();
    if ncol > 1 && r.chance(20) {
        decl[ncol - 1].push_str(" UNINDEXED");
    }
    let tok = r.pick(&["", "", ", tokenize=porter", ", tokenize=trigram", ", tokenize=\"unicode61 tokenchars '.'\""]);
    let kind = r.pick(&["", "", ", content=src", ", columnsize=0", ", content=src, columnsize=0"]);
    let mut words: Vec<&str> = "a b c d e f g h".split(' ').collect();
    if tok.contains("trigram") {
        words = vec!["abc", "bcd", "cde", "abcd", "xyz", "yza"];
    } else if tok.is_empty() && r.chance(30) {
        words = vec!["a", "é", "ü", "ab", "x\u{e9}y", "日本", "b"];
    }
    let external = kind.starts_with(", content=src");
    let mut setup = Vec::new();
    if external {
        setup.push(format!("CREATE TABLE src({})", cols.join(", ")));
    }
    setup.push(format!("CREATE VIRTUAL TABLE t USING fts5({}{tok}{kind})", decl.join(", ")));
    setup.push("BEGIN".into());
    let target = if external { "src" } else { "t" };
    for _ in 0..30 {
        let vals: Vec<String> = (0..ncol)
            .map(|_| match r.below(100) {
                0..=2 => "NULL".into(),
                3..=5 => "''".into(),
                6..=7 => (1 + r.below(99)).to_string(),
                _ => {
                    let n = r.pick(&[1, 2, 3, 5, 8, 12, 20, 40, 70, 100]);
                    q(&doc(&mut r, &words, n))
                }
            })
            .collect();
        setup.push(format!("INSERT INTO {target} VALUES({})", vals.join(", ")));
    }
    if external {
        setup.push("INSERT INTO t(t) VALUES('rebuild')".into());
    }
    setup.push("COMMIT".into());
    let mut queries = vec!["SELECT rowid, snippet(t, -1, '[', ']', '...', 4) FROM t ORDER BY rowid LIMIT 5".to_string()];
    for _ in 0..nquery {
        let m = query(&mut r, &words, ncol);
        let mut col: i64 = r.pick(&[-1, -1, 0, 0, 1, 2, -2]);
        if col >= ncol as i64 {
            col = -1;
        }
        let n: i64 =
            if r.chance(5) { 1 + r.below(64) as i64 } else { r.pick(&[1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 16, 20, 25, 32, 40, 50, 64, 0, -3, 65, 100]) };
        let ellipsis = r.pick(&["...", "", "<..>", "…"]);
        let (open, close) = r.pick(&[("[", "]"), ("<b>", "</b>"), ("", ""), ("{", "}")]);
        queries.push(format!(
            "SELECT rowid, snippet(t, {col}, {}, {}, {}, {n}), highlight(t, {}, '[', ']') FROM t WHERE t MATCH {} ORDER BY rowid",
            q(open),
            q(close),
            q(ellipsis),
            col.max(0),
            q(&m)
        ));
    }
    (setup, queries)
}

fn rows_of(o: &[Outcome]) -> usize {
    o.iter().map(|x| if let Outcome::Rows { rows, .. } = x { rows.len() } else { 0 }).sum()
}

#[test]
fn generated_snippets_and_highlights_are_the_references() {
    let (mut nquery, mut nrow) = (0, 0);
    for seed in 1..=16u64 {
        let (setup, queries) = case(seed, 40);
        let mut c = crate::sql_common::ours_open();
        let r = RefDb::open();
        for s in &setup {
            assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "seed {seed}: {s}");
        }
        for s in &queries {
            let (a, b) = (run_ours(&mut c, s), run_ref(&r, s));
            assert_eq!(a, b, "seed {seed}: {}\n{s}", setup.join(";\n"));
            nquery += 1;
            nrow += rows_of(&b);
        }
    }
    eprintln!("{nquery} queries, {nrow} rows compared");
    // Most queries must return rows, or the comparison says little.
    assert!(nquery >= 600 && nrow >= 3000, "{nquery} queries, {nrow} rows");
}

#[test]
fn snippet_edge_cases_as_sqlite() {
    let mut c = crate::sql_common::ours_open();
    let r = RefDb::open();
    let setup = "CREATE VIRTUAL TABLE o USING fts5(a, b, c UNINDEXED); \
        INSERT INTO o VALUES('', 'x y', 'p q r s'); INSERT INTO o VALUES(' ... ', 'x y', ''); \
        INSERT INTO o VALUES('w v u t s', 'x y', ' , '); \
        INSERT INTO o VALUES('one two. three four five six seven eight nine ten eleven twelve', 'x', NULL); \
        INSERT INTO o VALUES('six', NULL, 3.5); \
        CREATE VIRTUAL TABLE k USING fts5(a, b UNINDEXED, content='', contentless_unindexed=1, columnsize=0); \
        INSERT INTO k(rowid, a, b) VALUES(1, 'x y', 'p q r s'); INSERT INTO k(rowid, a, b) VALUES(2, 'y y x', 'p q r s'); \
        CREATE TABLE src(a); CREATE VIRTUAL TABLE e USING fts5(a, content=src); \
        INSERT INTO e(rowid, a) VALUES(1, 'a b c d e f g x'); INSERT INTO src(rowid, a) VALUES(1, 'x')";
    assert_eq!(run_ours(&mut c, setup), run_ref(&r, setup));
    let mut qs = Vec::new();
    for n in [-40i64, -3, -2, -1, 0, 1, 2, 3, 64, 65, 2147483647, 4294967297] {
        for col in [-1, 0, 1, 2] {
            qs.push(format!("SELECT rowid, quote(snippet(o, {col}, '[', ']', '<..>', {n})) FROM o WHERE o MATCH 'x OR six OR two' ORDER BY rowid"));
        }
        qs.push(format!("SELECT rowid, quote(snippet(k, 1, '[', ']', '<..>', {n})) FROM k WHERE k MATCH 'x' ORDER BY rowid"));
    }
    qs.extend(
        [
            "SELECT rowid, snippet(o, -1, NULL, NULL, NULL, 2) FROM o WHERE o MATCH 'six' ORDER BY rowid",
            "SELECT rowid, snippet(o, -1, '<' || char(0) || 'x', ']', '.' || char(0) || '.', 2) FROM o WHERE o MATCH 'six' ORDER BY rowid",
            "SELECT rowid, snippet(o, 0.9, 'a', 'b', 'c', '3') FROM o WHERE o MATCH 'six' ORDER BY rowid",
            "SELECT rowid, highlight(o, 4294967296, '[', ']') FROM o WHERE o MATCH 'six' ORDER BY rowid",
            "SELECT snippet(o, 3, '[', ']', '...', 5) FROM o WHERE o MATCH 'x'",
            "SELECT snippet(o, 0, '[', ']', '...') FROM o WHERE o MATCH 'x'",
            "SELECT snippet(o, 0, '[', ']', '...', 3, 4) FROM o WHERE o MATCH 'x'",
            "SELECT rowid, quote(highlight(o, -1, '[', ']')), quote(highlight(o, 3, '[', ']')), quote(highlight(o, 1, '[', ']')) FROM o WHERE o MATCH 'x OR six' ORDER BY rowid",
            "SELECT quote(highlight(o, 2147483648, '[', ']')), quote(snippet(o, 2147483648, '[', ']', '', 3)) FROM o WHERE o MATCH 'six'",
            "SELECT quote(snippet(o, -2147483649, '[', ']', '', 3)), quote(snippet(o, NULL, '[', ']', '', NULL)) FROM o WHERE o MATCH 'six'",
            "SELECT rowid, snippet(o, 0, '[', ']', '<..>', -4294967295), snippet(o, 0, '[', ']', '<..>', 2.9) FROM o WHERE o MATCH 'six' ORDER BY rowid",
            "SELECT rowid, snippet(o, -1, '[', ']', '...', 3) FROM o ORDER BY rowid",
            "SELECT rowid, quote(snippet(k, -1, '[', ']', '<..>', 1)) FROM k WHERE k MATCH 'x' ORDER BY rowid",
            "SELECT rowid, quote(snippet(e, -1, '[', ']', '<..>', 1)) FROM e WHERE e MATCH 'x'",
            "DELETE FROM e_docsize",
            "SELECT rowid, quote(snippet(e, -1, '[', ']', '<..>', 1)) FROM e WHERE e MATCH 'x'",
            "INSERT INTO e_docsize VALUES(1, x'07')",
            "SELECT rowid, quote(snippet(e, 0, '[', ']', '<..>', 1)) FROM e WHERE e MATCH 'x'",
            // A row the external content table lacks.
            "INSERT INTO e(rowid, a) VALUES(2, 'x y')",
            "SELECT rowid, quote(highlight(e, 0, '[', ']')) FROM e WHERE e MATCH 'y'",
            "SELECT rowid, quote(snippet(e, 0, '[', ']', '', 3)) FROM e WHERE e MATCH 'y'",
        ]
        .map(String::from),
    );
    for s in &qs {
        assert_eq!(run_ours(&mut c, s), run_ref(&r, s), "{s}");
    }
}
