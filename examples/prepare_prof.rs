//! Profiling driver for prepare time (ringlite only, no SQLite in the
//! profile): `cargo run --release --example prepare_prof -- <simple|complex> [iterations]`.
//!
//! Prepares and finalizes the `sql` benchmark's simple or complex statement
//! in a loop on a database holding that suite's schema (no rows: prepare
//! never reads table data). The database is built at `/tmp/prepare_prof.db`
//! on every run. `EXPLAIN=1` prints the program instead. Instruction counts of the measured part only:
//! `valgrind --tool=callgrind --toggle-collect='*timed_loop*' ...`.
use ringlite::{Connection, OpenFlags};
use std::time::Instant;

const SCHEMA: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER);
CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, region INTEGER);
CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT, price INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, cust INTEGER, item INTEGER, qty INTEGER);
CREATE TABLE big(g INTEGER, v INTEGER);";

const SIMPLE: &str = "SELECT b FROM t WHERE a = ?1";
const COMPLEX: &str = "SELECT c.region, i.label, count(*) AS n, sum(o.qty * i.price) AS revenue,
       max(CASE WHEN o.qty > 5 THEN o.qty ELSE 0 END) AS big_qty
  FROM orders o JOIN customers c ON c.id = o.cust JOIN items i ON i.id = o.item
 WHERE i.price BETWEEN ?1 AND ?2 AND c.name LIKE 'a%' AND o.id NOT IN (SELECT id FROM orders WHERE qty = 0)
 GROUP BY c.region, i.label HAVING count(*) > 1
 ORDER BY revenue DESC, c.region LIMIT 20";

fn exec(c: &mut Connection, sql: &str) {
    let mut rest = sql.as_bytes();
    loop {
        let (st, tail) = c.prepare(rest).unwrap();
        if let Some(mut st) = st {
            while matches!(st.step(c).unwrap(), ringlite::StepResult::Row | ringlite::StepResult::Io) {}
            st.reset(c);
        }
        if tail == 0 || tail >= rest.len() {
            return;
        }
        rest = &rest[tail..];
    }
}

#[inline(never)]
fn timed_loop(c: &mut Connection, sql: &str, iters: usize) {
    for _ in 0..iters {
        let (st, _) = c.prepare(sql.as_bytes()).unwrap();
        drop(std::hint::black_box(st));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("simple");
    let iters: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let sql = if what == "complex" { COMPLEX } else { SIMPLE };
    let path = "/tmp/prepare_prof.db";
    let _ = std::fs::remove_file(path);
    let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    exec(&mut c, SCHEMA);
    if std::env::var_os("EXPLAIN").is_some() {
        let (st, _) = c.prepare(format!("EXPLAIN {sql}").as_bytes()).unwrap();
        let mut st = st.unwrap();
        while matches!(st.step(&mut c).unwrap(), ringlite::StepResult::Row) {
            let row: Vec<String> = (0..8).map(|i| format!("{:?}", st.column(i))).collect();
            println!("{}", row.join(" "));
        }
        return;
    }
    timed_loop(&mut c, sql, 10);
    let t = Instant::now();
    timed_loop(&mut c, sql, iters);
    let el = t.elapsed();
    println!("{what}: {iters} prepares in {:?} ({:.2} us each)", el, el.as_secs_f64() * 1e6 / iters as f64);
}
