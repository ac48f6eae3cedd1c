//! WAL, two connections of one process: a PASSIVE checkpoint that read
//! the index header just before the other connection restarted the log
//! (every frame was copied, so a writer may start the log over) must not
//! copy the new log's frames under the old header's `mxFrame` and `nPage`
//! (nor truncate the database to the old size). SQLite checks, once READ0
//! is held, that the salts are still the header's. Timed here without
//! threads: the checkpointing connection's database file runs the other
//! connection's transaction at the checkpoint's second access to the
//! index, after it read the header. The soak (`sql_threads_one_file`) hit
//! this as "database disk image is malformed".

use crate::watched_main_db::{MainDbWatcher, WatchedBackend};
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags};
use std::cell::{Cell, RefCell};
use std::sync::Arc;

type Hook = Box<dyn FnOnce()>;

thread_local! {
    /// (armed by the checkpoint's CKPT lock, index accesses seen since, what to run)
    static HOOK: RefCell<Option<(bool, u32, Hook)>> = const { RefCell::new(None) };
    static FIRED: Cell<bool> = const { Cell::new(false) };
}

/// The checkpointing connection's database file: the hook run where
/// described above.
struct CheckpointHook;

impl MainDbWatcher for CheckpointHook {
    fn before_shm_map(&self) {
        // The second index access of the checkpoint (its first read the
        // header): run the hook there, before the access.
        let hook = HOOK.with(|h| {
            let mut h = h.borrow_mut();
            let due = match h.as_mut() {
                Some(state) if state.0 => {
                    state.1 += 1;
                    state.1 == 2
                }
                _ => false,
            };
            if due {
                h.take().map(|s| s.2)
            } else {
                None
            }
        });
        if let Some(f) = hook {
            f();
            FIRED.with(|x| x.set(true));
        }
    }
    fn after_shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool, granted: bool) {
        // A checkpoint has just taken CKPT (slot 1; a recovery takes two).
        if offset == 1 && n == 1 && exclusive && lock && granted {
            HOOK.with(|h| {
                if let Some((armed, seen, _)) = h.borrow_mut().as_mut() {
                    *armed = true;
                    *seen = 0;
                }
            });
        }
    }
}

fn exec(c: &mut Connection, sql: &str) -> Vec<Vec<Value>> {
    let mut rest = sql.as_bytes();
    let mut rows = Vec::new();
    while !rest.is_empty() {
        let (stmt, used) = c.prepare(rest).unwrap_or_else(|e| panic!("{sql}: {e}"));
        rest = &rest[used..];
        let Some(mut s) = stmt else { continue };
        rows.clear();
        loop {
            match s.step(c).unwrap_or_else(|e| panic!("{sql}: {e}")) {
                ringlite::StepResult::Row => rows.push((0..s.column_count()).map(|i| s.column(i).clone()).collect()),
                ringlite::StepResult::Done => break,
                ringlite::StepResult::Io => {
                    c.io_poll(100).unwrap();
                }
            }
        }
        s.reset(c);
    }
    rows
}

fn open(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap()
}

#[test]
fn a_checkpoint_ignores_a_log_restarted_after_it_read_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    let p = path.to_str().unwrap().to_string();
    let mut s = open(&p);
    exec(&mut s, "PRAGMA journal_mode=wal; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x INTEGER PRIMARY KEY, y)");
    exec(&mut s, "INSERT INTO t(y) VALUES(randomblob(600)), (randomblob(600)), (randomblob(600))");
    // Every frame copied: the next writer restarts the log.
    exec(&mut s, "PRAGMA wal_checkpoint");
    let backend = Arc::new(WatchedBackend(Arc::new(ringlite::io::sync::SyncBackend::new()), Arc::new(CheckpointHook)));
    let mut a = Connection::open_with_backend(&p, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE), backend).unwrap();
    exec(&mut a, "PRAGMA wal_autocheckpoint=0; SELECT count(*) FROM t");
    // The restart, and a commit whose first frames hold pages past the
    // old end of the database (more frames than the old log had).
    let p2 = p.clone();
    HOOK.with(|h| {
        *h.borrow_mut() = Some((
            false,
            0,
            Box::new(move || {
                let mut b = open(&p2);
                exec(&mut b, "PRAGMA wal_autocheckpoint=0; INSERT INTO t(y) SELECT randomblob(1500) FROM t, t AS u");
            }),
        ))
    });
    exec(&mut a, "PRAGMA wal_checkpoint(PASSIVE)");
    assert!(FIRED.with(|f| f.get()), "the hook did not run: the checkpoint's accesses changed");
    drop(a);
    // Copy the rest and start the log over: the database file alone
    // must now hold every row.
    exec(&mut s, "PRAGMA wal_checkpoint(TRUNCATE)");
    drop(s);
    let mut c = open(&p);
    let ok = exec(&mut c, "PRAGMA integrity_check");
    assert!(matches!(&ok[..], [row] if matches!(&row[..], [Value::Text(t)] if t == b"ok")), "{ok:?}");
    let n = exec(&mut c, "SELECT count(*) FROM t");
    assert!(matches!(&n[..], [row] if matches!(&row[..], [Value::Integer(12)])), "{n:?}");
}
