//! Resumability: statements run on the simulated backend (one completion
//! per poll, reordered) give the same answers as on the memory backend,
//! and async connections observe `StepResult::Io` on the way.
use crate::sql_common;
use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::IoContext;
use ringlite::{Connection, OpenFlags, StepResult};
use sql_common::{run_ref, Outcome, RefDb, V};
use std::sync::Arc;

fn run_async(conn: &mut Connection, sql: &str, pendings: &mut usize) -> Vec<Outcome> {
    let mut out = Vec::new();
    let mut rest = sql.as_bytes();
    while !rest.iter().all(|c| c.is_ascii_whitespace()) {
        let (st, tail) = conn.prepare(rest).expect("prepare");
        rest = &rest[tail..];
        let Some(mut st) = st else { continue };
        let names: Vec<String> = (0..st.column_count()).map(|i| st.column_name(i).to_string()).collect();
        let mut rows = Vec::new();
        let o = loop {
            match st.step(conn) {
                Ok(StepResult::Row) => rows.push(
                    (0..st.column_count())
                        .map(|i| match st.column(i) {
                            ringlite::value::Value::Null | ringlite::value::Value::Pointer(_) => V::Null,
                            ringlite::value::Value::Integer(x) => V::Int(*x),
                            ringlite::value::Value::Real(r) => V::Real(r.to_bits()),
                            ringlite::value::Value::Text(t) => V::Text(t.clone()),
                            ringlite::value::Value::Blob(b) => V::Blob(b.clone()),
                            ringlite::value::Value::ZeroBlob(n) => V::Blob(vec![0; *n]),
                        })
                        .collect(),
                ),
                Ok(StepResult::Done) => break Outcome::Rows { names, rows },
                Ok(StepResult::Io) => {
                    *pendings += 1;
                    conn.io().wait_any().expect("poll");
                }
                Err(e) => break Outcome::Error { code: e.primary(), message: e.message.clone() },
            }
        };
        st.reset(conn);
        out.push(o);
    }
    out
}

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c); CREATE INDEX tb ON t(b);
INSERT INTO t VALUES(1,'one',randomblob(3000) IS NOT NULL),(2,'two',zeroblob(5000)),(3,'three',3);
INSERT INTO t SELECT a+3, b||'x', c FROM t;
INSERT INTO t SELECT a+6, b||'y', c FROM t;
INSERT INTO t SELECT a+12, b||'z', length(c) FROM t;";

const QUERIES: &str = "SELECT a, b, length(c) FROM t ORDER BY b;
SELECT count(*), sum(a) FROM t;
SELECT a FROM t WHERE b = 'twox';
UPDATE t SET b = upper(b) WHERE a % 2 = 0;
DELETE FROM t WHERE a > 20;
SELECT a, b FROM t WHERE b > 'T' ORDER BY a;
SELECT * FROM t WHERE a = 7;";

#[test]
fn simulated_io_matches_reference() {
    let backend = Arc::new(SimBackend::new(SimConfig { seed: 7, reorder: true, max_per_poll: 1, fail_one_in: 0 }));
    let io = IoContext::new(backend.clone());
    let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::ASYNC);
    let mut pendings = 0;
    let reference = RefDb::open();
    {
        let mut w = Connection::open_with_io("sim.db", flags, io.clone()).expect("open");
        let a = run_async(&mut w, SETUP, &mut pendings);
        let b = run_ref(&reference, SETUP);
        assert_eq!(a, b);
        w.close().unwrap();
    }
    // A fresh connection has nothing cached: its reads suspend.
    let mut r = Connection::open_with_io("sim.db", flags, io).expect("open");
    let before = pendings;
    let a = run_async(&mut r, QUERIES, &mut pendings);
    let b = run_ref(&reference, QUERIES);
    assert_eq!(a, b);
    assert!(pendings > before, "expected suspended steps on the simulated backend");
}
