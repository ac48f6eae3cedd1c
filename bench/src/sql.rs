//! # Suite `sql`: the compiler and the VM
//!
//! Prepare cost (prepare + finalize in a loop) for a simple and a complex
//! statement, and row throughput for a filtered scan, a 3-way join, a
//! GROUP BY over a large table and an ORDER BY that needs a sort (no
//! index). Data: `t` (100k rows as in the storage suite, no index on
//! `c`), `customers` (1k), `items` (1k), `orders` (100k), `big` (1M rows
//! of two integers).

use crate::data::{build_base, fill_t, open_copy, permutation, Rng};
use crate::engine::{Engine, Ringlite, Sqlite, R};
use crate::harness::{measure, pair, Config, Outcome, Row};
use std::path::Path;

pub const SCHEMA: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER);
CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, region INTEGER);
CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT, price INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, cust INTEGER, item INTEGER, qty INTEGER);
CREATE TABLE big(g INTEGER, v INTEGER);";

pub const SIMPLE: &str = "SELECT b FROM t WHERE a = ?1";
pub const COMPLEX: &str = "SELECT c.region, i.label, count(*) AS n, sum(o.qty * i.price) AS revenue,
       max(CASE WHEN o.qty > 5 THEN o.qty ELSE 0 END) AS big_qty
  FROM orders o JOIN customers c ON c.id = o.cust JOIN items i ON i.id = o.item
 WHERE i.price BETWEEN ?1 AND ?2 AND c.name LIKE 'a%' AND o.id NOT IN (SELECT id FROM orders WHERE qty = 0)
 GROUP BY c.region, i.label HAVING count(*) > 1
 ORDER BY revenue DESC, c.region LIMIT 20";

struct Sizes {
    t_rows: u64,
    orders: u64,
    big: u64,
    prepares: u64,
}

fn sizes(cfg: Config) -> Sizes {
    if cfg.quick {
        Sizes { t_rows: 300, orders: 100, big: 1_000, prepares: 10 }
    } else {
        Sizes { t_rows: 100_000, orders: 100_000, big: 1_000_000, prepares: 2_000 }
    }
}

fn fill(db: &mut Sqlite, sz: &Sizes) -> R<()> {
    let mut rng = Rng::new(1234);
    let cvals: Vec<i64> = (0..sz.t_rows).map(|_| rng.below(1_000_000) as i64).collect();
    fill_t(db, sz.t_rows, &cvals, &mut rng)?;
    let mut s = db.prepare("INSERT INTO customers VALUES (?1, ?2, ?3)")?;
    for id in 1..=1000 {
        let w = rng.word(8);
        db.bind_i64(&mut s, 1, id)?;
        db.bind_text(&mut s, 2, &w)?;
        db.bind_i64(&mut s, 3, rng.below(10) as i64)?;
        db.step(&mut s)?;
        db.reset(&mut s);
    }
    db.finalize(s);
    let mut s = db.prepare("INSERT INTO items VALUES (?1, ?2, ?3)")?;
    for id in 1..=1000 {
        let w = rng.word(4);
        db.bind_i64(&mut s, 1, id)?;
        db.bind_text(&mut s, 2, &w[..1])?;
        db.bind_i64(&mut s, 3, rng.below(100) as i64 + 1)?;
        db.step(&mut s)?;
        db.reset(&mut s);
    }
    db.finalize(s);
    let mut s = db.prepare("INSERT INTO orders VALUES (?1, ?2, ?3, ?4)")?;
    for id in 1..=sz.orders as i64 {
        db.bind_i64(&mut s, 1, id)?;
        db.bind_i64(&mut s, 2, rng.below(1000) as i64 + 1)?;
        db.bind_i64(&mut s, 3, rng.below(1000) as i64 + 1)?;
        db.bind_i64(&mut s, 4, rng.below(10) as i64)?;
        db.step(&mut s)?;
        db.reset(&mut s);
    }
    db.finalize(s);
    let vs = permutation(sz.big, &mut rng);
    let mut s = db.prepare("INSERT INTO big VALUES (?1, ?2)")?;
    for (i, v) in vs.iter().enumerate() {
        db.bind_i64(&mut s, 1, (i % 1000) as i64)?;
        db.bind_i64(&mut s, 2, *v)?;
        db.step(&mut s)?;
        db.reset(&mut s);
    }
    db.finalize(s);
    Ok(())
}

/// Run the suite; `dir` is the run's scratch directory.
pub fn run(cfg: Config, dir: &Path) -> R<Vec<Row>> {
    let sz = sizes(cfg);
    let base = dir.join("sql-base.db");
    build_base(&base, SCHEMA, |db| fill(db, &sz))?;
    let mut rows = Vec::new();
    for (name, sql) in [("simple", SIMPLE), ("complex (3-way join, subquery, GROUP BY, ORDER BY)", COMPLEX)] {
        pair(
            cfg,
            &mut rows,
            format!("prepare+finalize {name}, {} times", sz.prepares),
            sz.prepares,
            || prepare_loop::<Sqlite>(cfg, &base, dir, sql, sz.prepares),
            || prepare_loop::<Ringlite>(cfg, &base, dir, sql, sz.prepares),
        );
    }
    let queries: [(String, u64, &str); 4] = [
        (format!("scan with filter over {} rows", sz.t_rows), sz.t_rows, "SELECT a, b FROM t WHERE c % 10 = 3 AND length(b) > 20"),
        (
            format!("3-way join, {} orders", sz.orders),
            sz.orders,
            "SELECT o.id, c.name, i.price FROM orders o JOIN customers c ON c.id = o.cust JOIN items i ON i.id = o.item WHERE i.price > 50",
        ),
        (format!("GROUP BY over {} rows (1000 groups)", sz.big), sz.big, "SELECT g, count(*), sum(v), min(v) FROM big GROUP BY g"),
        (format!("ORDER BY without index, {} rows", sz.t_rows), sz.t_rows, "SELECT a, c, b FROM t ORDER BY c, a"),
    ];
    for (name, ops, sql) in queries {
        pair(cfg, &mut rows, name, ops, || query::<Sqlite>(cfg, &base, dir, sql), || query::<Ringlite>(cfg, &base, dir, sql));
    }
    Ok(rows)
}

fn prepare_loop<E: Engine>(cfg: Config, base: &Path, dir: &Path, sql: &str, n: u64) -> Outcome {
    let run = || -> R<Outcome> {
        let mut db: E = open_copy(base, dir, "prepare")?;
        Ok(measure(cfg, || {
            for _ in 0..n {
                let s = db.prepare(sql)?;
                db.finalize(s);
            }
            Ok(n)
        }))
    };
    run().unwrap_or_else(Outcome::Failed)
}

fn query<E: Engine>(cfg: Config, base: &Path, dir: &Path, sql: &str) -> Outcome {
    let run = || -> R<Outcome> {
        let mut db: E = open_copy(base, dir, "query")?;
        let mut s = db.prepare(sql)?;
        let out = measure(cfg, || db.drain(&mut s));
        db.finalize(s);
        Ok(out)
    };
    run().unwrap_or_else(Outcome::Failed)
}
