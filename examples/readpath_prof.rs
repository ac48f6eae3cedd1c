//! Profiling driver for the per-row read path (ringlite only, no SQLite in
//! the profile): `cargo run --release --example readpath_prof -- <scan|rowid|index|tenants|tenants-steps|insert|append|replace> [iterations]`.
//!
//! The workloads mirror the `storage` and `tenants` benchmarks: a full scan
//! `sum(length(b))` of 100,000 rows, 100,000 point lookups by rowid or by
//! index in one read transaction, and 1,000 `SELECT * FROM users LIMIT 100`
//! per iteration (`tenants-steps`: only stepped, as the `tenants` suite does; `tenants`: each column read too); `insert`: 100,000 inserts into an indexed table in one
//! transaction (rolled back). The database is built at `/tmp/readpath_prof.db` (or `$PROF_DB`) on the
//! first run; `ASYNC=1` opens the measured connection async. `EXPLAIN=1` prints the program instead; `SHOW=1` prints the
//! scan's result and VM step count. Instruction counts of the measured part
//! only: `valgrind --tool=callgrind --toggle-collect='*timed_loop*' ...`.
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags, Statement, StepResult};
use std::time::Instant;

fn step(c: &mut Connection, s: &mut Statement) -> bool {
    loop {
        match s.step(c).unwrap() {
            StepResult::Row => return true,
            StepResult::Done => return false,
            StepResult::Io => {
                c.io_poll(-1).unwrap();
            }
        }
    }
}
fn exec(c: &mut Connection, sql: &str) {
    let mut rest = sql.as_bytes();
    loop {
        let (st, tail) = c.prepare(rest).unwrap();
        if let Some(mut st) = st {
            while step(c, &mut st) {}
            st.reset(c);
        }
        if tail == 0 || tail >= rest.len() {
            return;
        }
        rest = &rest[tail..];
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("scan");
    let iters: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let path_owned = std::env::var("PROF_DB").unwrap_or_else(|_| "/tmp/readpath_prof.db".into());
    let path = path_owned.as_str();
    let n = 100_000i64;
    let mut rng = 42u64;
    let mut next = || {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x2545F4914F6CDD1D)
    };
    if !std::path::Path::new(path).exists() {
        let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
        exec(&mut c, "PRAGMA page_size=4096; CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER); CREATE INDEX t_c ON t(c);");
        exec(&mut c, "CREATE TABLE users(id INTEGER PRIMARY KEY, username TEXT)");
        exec(&mut c, "BEGIN");
        let (ins, _) = c.prepare(b"INSERT INTO t VALUES(?1, ?2, ?3)").unwrap();
        let mut ins = ins.unwrap();
        for i in 1..=n {
            let len = 10 + (next() % 50) as usize;
            let w: String = (0..len).map(|_| (b'a' + (next() % 26) as u8) as char).collect();
            ins.bind(1, Value::Integer(i)).unwrap();
            ins.bind(2, Value::text(&w)).unwrap();
            ins.bind(3, Value::Integer((i * 7919) % n)).unwrap();
            step(&mut c, &mut ins);
            ins.reset(&mut c);
        }
        let (ins, _) = c
            .prepare(b"INSERT INTO users VALUES(?1, substr('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop', 1 + ?1 % 7, 20 + ?1 % 40))")
            .unwrap();
        let mut ins = ins.unwrap();
        for i in 1..=20000 {
            ins.bind(1, Value::Integer(i)).unwrap();
            step(&mut c, &mut ins);
            ins.reset(&mut c);
        }
        exec(&mut c, "COMMIT");
    }
    // ASYNC=1: the measured connection is an async one (as the tenants
    // suite's `ringlite async`).
    let async_flag = if std::env::var("ASYNC").is_ok() { OpenFlags::ASYNC } else { 0 };
    let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | async_flag)).unwrap();
    exec(&mut c, "PRAGMA cache_size=-2000; SELECT count(*) FROM (SELECT a, b, c FROM t)");
    let sql: &[u8] = match what {
        "scan" => b"SELECT sum(length(b)) FROM t",
        "rowid" => b"SELECT b FROM t WHERE rowid=?1",
        "index" => b"SELECT b FROM t WHERE c=?1",
        "insert" => b"INSERT INTO w VALUES(?1, ?2, ?3)",
        "append" => b"INSERT INTO a VALUES(?1, ?2, ?3)",
        "replace" => b"REPLACE INTO r VALUES(?1, ?2)",
        _ => b"SELECT * FROM users LIMIT 100",
    };
    if what == "insert" {
        exec(&mut c, "DROP TABLE IF EXISTS w; CREATE TABLE w(a INTEGER PRIMARY KEY, b TEXT, c INTEGER); CREATE INDEX w_c ON w(c);");
    }
    if what == "append" {
        exec(&mut c, "DROP TABLE IF EXISTS a; CREATE TABLE a(a INTEGER, b INTEGER, c TEXT);");
    }
    if what == "replace" {
        exec(&mut c, "DROP TABLE IF EXISTS r; CREATE TABLE r(a INTEGER PRIMARY KEY, b TEXT);");
    }
    if std::env::var("EXPLAIN").is_ok() {
        let mut e = b"EXPLAIN ".to_vec();
        e.extend_from_slice(sql);
        let (st, _) = c.prepare(&e).unwrap();
        let mut st = st.unwrap();
        while step(&mut c, &mut st) {
            let row: Vec<String> = (0..st.column_count()).map(|i| format!("{:?}", st.column(i))).collect();
            println!("{}", row.join(" | "));
        }
        return;
    }
    let (st, _) = c.prepare(sql).unwrap();
    let mut st = st.unwrap();
    let t0 = Instant::now();
    let sum = timed_loop(&mut c, &mut st, what, iters, n, &mut next);
    let el = t0.elapsed();
    println!("{what}: {:.3} ms per iteration (sum {sum})", el.as_secs_f64() * 1000.0 / iters as f64);
}

/// The measured part (a separate function so that `valgrind --tool=callgrind
/// --toggle-collect=*timed_loop*` counts only it).
#[inline(never)]
fn timed_loop(c: &mut Connection, st: &mut Statement, what: &str, iters: usize, n: i64, next: &mut impl FnMut() -> u64) -> usize {
    let mut sum = 0usize;
    for _ in 0..iters {
        match what {
            "rowid" | "index" => {
                exec(c, "BEGIN");
                for k in 0..n {
                    let key = (next() % n as u64) as i64 + if what == "rowid" { 1 } else { 0 };
                    let _ = k;
                    st.bind(1, Value::Integer(key)).unwrap();
                    if step(c, st) {
                        if let Value::Text(t) = st.column(0) {
                            sum += t.len();
                        }
                    }
                    st.reset(c);
                }
                exec(c, "COMMIT");
            }
            "insert" => {
                exec(c, "BEGIN");
                for i in 0..n {
                    let r = next();
                    st.bind(1, Value::Integer(i + 1)).unwrap();
                    st.bind(2, Value::text(format!("word{r:x}"))).unwrap();
                    st.bind(3, Value::Integer((r % n as u64) as i64)).unwrap();
                    step(c, st);
                    st.reset(c);
                }
                exec(c, "ROLLBACK");
            }
            // The C API benchmark's INSERT (no rowid given, no index) and
            // REPLACE (35,000 keys hit twice on average).
            "append" | "replace" => {
                exec(c, "BEGIN");
                let rows = if what == "append" { n } else { n * 7 / 10 };
                for i in 0..rows {
                    let r = next();
                    if what == "append" {
                        let x = r % 500_000;
                        st.bind(1, Value::Integer(x as i64)).unwrap();
                        st.bind(2, Value::Integer(i + 1)).unwrap();
                        st.bind(3, Value::text(format!("{} thousand {} hundred and {}", x / 1000, (x / 100) % 10, x % 100))).unwrap();
                    } else {
                        let k = r % 35_000;
                        st.bind(1, Value::Integer(k as i64)).unwrap();
                        st.bind(2, Value::text(format!("{} thousand {}", k / 1000, k % 1000))).unwrap();
                    }
                    step(c, st);
                    st.reset(c);
                }
                exec(c, "ROLLBACK");
            }
            "scan" => {
                while step(c, st) {
                    if std::env::var("SHOW").is_ok() {
                        let (a, b) = (st.status(4), st.status(1));
                        eprintln!("row: {:?} steps {a} fullscan {b}", st.column(0));
                    }
                    sum += 1;
                }
                st.reset(c);
            }
            "tenants-steps" => {
                // As the tenants suite: stepped to the end, no column read.
                for _ in 0..1000 {
                    while step(c, st) {
                        sum += 1;
                    }
                    st.reset(c);
                }
            }
            _ => {
                for _ in 0..1000 {
                    while step(c, st) {
                        // As the bench's `drain`: each column as an integer
                        // and, for text, its length.
                        for i in 0..st.column_count() {
                            let v = st.column(i);
                            let len = if let Value::Text(t) = v { t.len() } else { 0 };
                            sum = sum.wrapping_add(v.as_ref().to_i64() as usize ^ len);
                        }
                    }
                    st.reset(c);
                }
            }
        }
    }
    sum
}
