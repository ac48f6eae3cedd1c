//! auto_vacuum databases written by us: random workloads (inserts with
//! overflow chains, deletes, new and dropped tables) on FULL and
//! INCREMENTAL databases made by SQLite or by us. After every commit real
//! SQLite's `integrity_check` (which checks the pointer map) must be ok,
//! the rows must be the model's, and a FULL database must have no free
//! page; `incremental_vacuum(N)` must take exactly N free pages out.

use crate::storage_support;

use ringlite::btree::{Btree, Cursor, InsertKey, SeekResult, TreeKind};
use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use std::collections::BTreeMap;
use std::sync::Arc;
use storage_support::*;

/// A table as the test tracks it: its schema rowid, root and rows.
struct Table {
    schema_rowid: i64,
    root: u32,
    rows: BTreeMap<i64, Vec<u8>>,
}

struct World {
    io: IoContext,
    path: String,
    bt: Btree,
    tables: BTreeMap<String, Table>,
    next_schema_rowid: i64,
    rng: Rng,
    /// Drops that moved the largest root into the hole.
    moved_roots: usize,
}

fn schema_record(name: &str, root: u32) -> Vec<u8> {
    encode(&[V::Text("table".into()), V::Text(name.into()), V::Text(name.into()), V::Int(root as i64), V::Text(format!("CREATE TABLE {name}(a,b)"))])
}

impl World {
    fn open(path: &str) -> World {
        let io = IoContext::new(Arc::new(SyncBackend::new()));
        let bt = open_btree(&io, path);
        World { io, path: path.to_string(), bt, tables: BTreeMap::new(), next_schema_rowid: 1, rng: Rng(0x1234_5678), moved_roots: 0 }
    }

    /// Pick up the tables SQLite made (`name`, root, rows).
    fn load(&mut self) {
        let db = Sqlite::open(&self.path);
        for r in db.query("SELECT rowid, name, rootpage FROM sqlite_schema WHERE type='table'") {
            let (V::Int(rowid), V::Text(name), V::Int(root)) = (&r[0], &r[1], &r[2]) else { panic!() };
            let rows = db
                .query(&format!("SELECT rowid, a, b FROM {name}"))
                .into_iter()
                .map(|r| {
                    (
                        match r[0] {
                            V::Int(i) => i,
                            _ => panic!(),
                        },
                        encode(&r[1..]),
                    )
                })
                .collect();
            self.tables.insert(name.clone(), Table { schema_rowid: *rowid, root: *root as u32, rows });
            self.next_schema_rowid = self.next_schema_rowid.max(rowid + 1);
        }
    }

    fn bump_cookie(&mut self) {
        let io = self.io.clone();
        let c = io.block_on(|| self.bt.meta(ringlite::btree::Meta::SchemaCookie)).unwrap();
        io.block_on(|| self.bt.set_meta(ringlite::btree::Meta::SchemaCookie, c + 1)).unwrap();
    }

    fn create_table(&mut self) {
        let io = self.io.clone();
        let name = format!("t{}", self.next_schema_rowid);
        let root = io.block_on(|| self.bt.create_tree(TreeKind::Table)).unwrap();
        let rowid = self.next_schema_rowid;
        self.next_schema_rowid += 1;
        let rec = schema_record(&name, root);
        let mut c = Cursor::new(1, true, None);
        io.block_on(|| c.insert(&mut self.bt, InsertKey::Rowid(rowid), &rec)).unwrap();
        self.bump_cookie();
        self.tables.insert(name, Table { schema_rowid: rowid, root, rows: BTreeMap::new() });
    }

    fn drop_table(&mut self, name: &str) {
        let io = self.io.clone();
        let t = self.tables.remove(name).unwrap();
        let mut c = Cursor::new(1, true, None);
        assert_eq!(io.block_on(|| c.seek_rowid(&mut self.bt, t.schema_rowid)).unwrap(), SeekResult::Found);
        io.block_on(|| c.delete(&mut self.bt)).unwrap();
        let moved = io.block_on(|| self.bt.drop_tree(t.root)).unwrap();
        if let Some(old) = moved {
            self.moved_roots += 1;
            // The largest root now lives at the dropped one's page, and
            // the B-tree rewrote its schema row (SQLite's check below
            // walks the trees the schema names).
            let (_, ot) = self.tables.iter_mut().find(|(_, o)| o.root == old).expect("moved root belongs to a table");
            ot.root = t.root;
        }
        self.bump_cookie();
    }

    fn churn(&mut self, table: &str, ops: usize) {
        let io = self.io.clone();
        let root = self.tables[table].root;
        let mut c = Cursor::new(root, true, None);
        for _ in 0..ops {
            let k = self.rng.below(300) as i64;
            if self.rng.below(3) == 0 {
                if io.block_on(|| c.seek_rowid(&mut self.bt, k)).unwrap() == SeekResult::Found {
                    io.block_on(|| c.delete(&mut self.bt)).unwrap();
                }
                self.tables.get_mut(table).unwrap().rows.remove(&k);
            } else {
                let n = if self.rng.below(4) == 0 { 2000 + self.rng.below(6000) } else { self.rng.below(200) } as usize;
                let rec = encode(&[V::Int(k), V::Blob(vec![(k % 251) as u8; n])]);
                io.block_on(|| c.insert(&mut self.bt, InsertKey::Rowid(k), &rec)).unwrap();
                self.tables.get_mut(table).unwrap().rows.insert(k, rec);
            }
        }
    }

    fn begin(&mut self) {
        let io = self.io.clone();
        io.block_on(|| self.bt.begin_write(false)).unwrap();
    }

    fn commit(&mut self) {
        let io = self.io.clone();
        io.block_on(|| self.bt.commit()).unwrap();
    }

    /// SQLite's view: integrity, rows, free pages.
    fn verify(&self, what: &str) -> i64 {
        let db = Sqlite::open(&self.path);
        assert_eq!(db.integrity(), "Text(\"ok\")", "{what}");
        for (name, t) in &self.tables {
            let rows: BTreeMap<i64, Vec<u8>> = db
                .query(&format!("SELECT rowid, a, b FROM {name}"))
                .into_iter()
                .map(|r| {
                    (
                        match r[0] {
                            V::Int(i) => i,
                            _ => panic!(),
                        },
                        encode(&r[1..]),
                    )
                })
                .collect();
            assert_eq!(rows, t.rows, "{what}: table {name}");
        }
        match db.query("PRAGMA freelist_count")[0][0] {
            V::Int(n) => n,
            _ => panic!(),
        }
    }

    fn random_txn(&mut self, round: usize) {
        self.begin();
        let r = self.rng.below(10);
        if r == 0 || self.tables.is_empty() {
            self.create_table();
        } else if r == 1 && self.tables.len() > 1 {
            let names: Vec<String> = self.tables.keys().cloned().collect();
            let name = names[self.rng.below(names.len() as u64) as usize].clone();
            self.drop_table(&name);
        }
        let names: Vec<String> = self.tables.keys().cloned().collect();
        for _ in 0..1 + self.rng.below(2) {
            let name = names[self.rng.below(names.len() as u64) as usize].clone();
            let ops = 5 + self.rng.below(60) as usize;
            self.churn(&name, ops);
        }
        self.commit();
        let _ = round;
    }
}

fn sqlite_made(path: &str, mode: &str) {
    let db = Sqlite::open(path);
    db.exec(&format!("PRAGMA auto_vacuum={mode}; CREATE TABLE a(a,b); CREATE TABLE b(a,b); CREATE TABLE c(a,b);"));
    db.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<120) INSERT INTO a SELECT i, randomblob(i*30) FROM n;");
    db.exec("INSERT INTO b SELECT a, b FROM a WHERE a % 2 = 0; INSERT INTO c SELECT a, b FROM a WHERE a % 3 = 0;");
}

#[test]
fn full_auto_vacuum_database_made_by_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.db").to_str().unwrap().to_string();
    sqlite_made(&path, "FULL");
    let mut w = World::open(&path);
    w.load();
    for round in 0..40 {
        w.random_txn(round);
        let free = w.verify(&format!("round {round}"));
        assert_eq!(free, 0, "round {round}: FULL leaves no free page");
    }
}

#[test]
fn full_auto_vacuum_database_made_by_us() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ours.db").to_str().unwrap().to_string();
    let mut w = World::open(&path);
    w.bt.set_page_size(1024);
    w.begin();
    assert!(w.io.clone().block_on(|| w.bt.set_auto_vacuum(1)).unwrap());
    w.create_table();
    w.commit();
    {
        let db = Sqlite::open(&path);
        assert_eq!(db.query("PRAGMA auto_vacuum")[0][0], V::Int(1));
    }
    for round in 0..40 {
        w.random_txn(round);
        assert_eq!(w.verify(&format!("round {round}")), 0);
    }
    // Dropping every table but one gives the space back.
    w.begin();
    let names: Vec<String> = w.tables.keys().cloned().collect();
    for name in &names[1..] {
        w.drop_table(name);
    }
    w.commit();
    assert_eq!(w.verify("after drops"), 0);
    assert!(w.moved_roots > 0, "some drop moved a root");
}

#[test]
fn incremental_vacuum_takes_out_the_pages_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("incr.db").to_str().unwrap().to_string();
    sqlite_made(&path, "INCREMENTAL");
    let mut w = World::open(&path);
    w.load();
    for round in 0..15 {
        w.random_txn(round);
        w.verify(&format!("round {round}"));
    }
    // Free a lot, then vacuum in steps.
    w.begin();
    let names: Vec<String> = w.tables.keys().cloned().collect();
    for name in &names {
        let keys: Vec<i64> = w.tables[name].rows.keys().copied().filter(|k| k % 3 != 0).collect();
        let io = w.io.clone();
        let root = w.tables[name].root;
        let mut c = Cursor::new(root, true, None);
        for k in keys {
            assert_eq!(io.block_on(|| c.seek_rowid(&mut w.bt, k)).unwrap(), SeekResult::Found);
            io.block_on(|| c.delete(&mut w.bt)).unwrap();
            w.tables.get_mut(name).unwrap().rows.remove(&k);
        }
    }
    w.commit();
    let free = w.verify("after deletes");
    assert!(free > 10, "deletes freed pages ({free})");
    let size_before = std::fs::metadata(&path).unwrap().len();
    w.begin();
    w.io.clone().block_on(|| w.bt.incremental_vacuum(Some(7))).unwrap();
    w.commit();
    assert_eq!(w.verify("incremental_vacuum(7)"), free - 7);
    assert!(std::fs::metadata(&path).unwrap().len() < size_before, "the file shrank");
    w.begin();
    w.io.clone().block_on(|| w.bt.incremental_vacuum(None)).unwrap();
    w.commit();
    assert_eq!(w.verify("incremental_vacuum"), 0);
    // More work after the vacuum.
    for round in 0..10 {
        w.random_txn(round);
        w.verify(&format!("after vacuum, round {round}"));
    }
}

/// Run SQL on our engine (no result rows needed).
fn our_exec(conn: &mut ringlite::Connection, sql: &str) {
    let mut rest = sql.as_bytes();
    while !rest.is_empty() {
        let (stmt, used) = conn.prepare(rest).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        rest = &rest[used..];
        let Some(mut stmt) = stmt else { continue };
        while stmt.step(conn).unwrap_or_else(|e| panic!("{sql}: {e:?}")) == ringlite::StepResult::Row {}
    }
}

#[test]
fn sql_workload_on_auto_vacuum_databases() {
    for mode in ["FULL", "INCREMENTAL"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sql.db").to_str().unwrap().to_string();
        {
            let db = Sqlite::open(&path);
            db.exec(&format!("PRAGMA page_size=1024; PRAGMA auto_vacuum={mode}; CREATE TABLE a(x INTEGER PRIMARY KEY, y); CREATE INDEX ay ON a(y);"));
        }
        let mut conn = ringlite::Connection::open(&path, ringlite::OpenFlags(ringlite::OpenFlags::READWRITE)).unwrap();
        for i in 0..12 {
            our_exec(&mut conn, &format!("CREATE TABLE t{i}(p, q); CREATE INDEX t{i}q ON t{i}(q);"));
            our_exec(&mut conn, &format!("WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k+1 FROM n WHERE k<60) INSERT INTO t{i} SELECT k, hex(randomblob(k * 7 + {i} * 40)) FROM n;"));
            our_exec(&mut conn, &format!("INSERT INTO a(y) SELECT q FROM t{i} WHERE p % 4 = 0;"));
            if i % 3 == 2 {
                // Drop an older table: its root and its index's root go,
                // and the largest roots move into their places.
                our_exec(&mut conn, &format!("DROP TABLE t{}", i - 2));
            }
            if i % 4 == 3 {
                our_exec(&mut conn, &format!("DROP INDEX t{i}q; DELETE FROM a WHERE x % 3 = 0;"));
            }
            let db = Sqlite::open(&path);
            assert_eq!(db.integrity(), "Text(\"ok\")", "{mode} step {i}");
            if mode == "FULL" {
                assert_eq!(db.query("PRAGMA freelist_count")[0][0], V::Int(0), "{mode} step {i}");
            }
        }
        let ours = {
            let (stmt, _) = conn.prepare(b"SELECT count(*), sum(length(q)) FROM t11").unwrap();
            let mut stmt = stmt.unwrap();
            assert_eq!(stmt.step(&mut conn).unwrap(), ringlite::StepResult::Row);
            (format!("{:?}", stmt.column(0)), format!("{:?}", stmt.column(1)))
        };
        drop(conn);
        let db = Sqlite::open(&path);
        let theirs = db.query("SELECT count(*), sum(length(q)) FROM t11");
        assert_eq!(format!("{:?}", theirs[0]), format!("[{}, {}]", ours.0.replace("Integer", "Int"), ours.1.replace("Integer", "Int")), "{mode}");
    }
}
