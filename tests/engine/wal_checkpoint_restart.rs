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

use ringlite::io::{Buffer, Completion, CompletionResult, File, FileHint, FileModes, IoBackend, LockLevel, OpenOptions, ShmRegion};
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags, Result};
use std::cell::{Cell, RefCell};
use std::sync::Arc;

type Hook = Box<dyn FnOnce()>;

thread_local! {
    /// (armed by the checkpoint's CKPT lock, index accesses seen since, what to run)
    static HOOK: RefCell<Option<(bool, u32, Hook)>> = const { RefCell::new(None) };
    static FIRED: Cell<bool> = const { Cell::new(false) };
}

struct HookBackend(Arc<dyn IoBackend>);

impl IoBackend for HookBackend {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let f = self.0.open(path, opts)?;
        Ok(if opts.kind == ringlite::io::FileKind::MainDb { Arc::new(HookFile(f)) } else { f })
    }
    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        self.0.delete(path, sync_dir)
    }
    fn delete_request(&self, path: &str, sync_dir: bool) -> Result<Completion> {
        self.0.delete_request(path, sync_dir)
    }
    fn exists(&self, path: &str) -> Result<bool> {
        self.0.exists(path)
    }
    fn full_path(&self, path: &str) -> Result<String> {
        self.0.full_path(path)
    }
    fn poll(&self, timeout: Option<std::time::Duration>) -> Result<usize> {
        self.0.poll(timeout)
    }
}

/// The checkpointing connection's database file: every call forwarded,
/// the hook run where described above.
struct HookFile(Arc<dyn File>);

impl File for HookFile {
    fn read(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.0.read(offset, buf)
    }
    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.0.write(offset, buf)
    }
    fn sync(&self, data_only: bool) -> Result<Completion> {
        self.0.sync(data_only)
    }
    fn truncate(&self, size: u64) -> Result<Completion> {
        self.0.truncate(size)
    }
    fn size(&self) -> Result<u64> {
        self.0.size()
    }
    fn read_now(&self, offset: u64, len: usize) -> Option<Result<CompletionResult>> {
        self.0.read_now(offset, len)
    }
    fn size_request(&self) -> Result<Completion> {
        self.0.size_request()
    }
    fn has_moved(&self) -> Result<bool> {
        self.0.has_moved()
    }
    fn sibling_exists(&self, suffix: &str) -> Option<bool> {
        self.0.sibling_exists(suffix)
    }
    fn sector_size(&self) -> u32 {
        self.0.sector_size()
    }
    fn device_characteristics(&self) -> u32 {
        self.0.device_characteristics()
    }
    fn modes(&self) -> Option<&FileModes> {
        self.0.modes()
    }
    fn lock(&self, level: LockLevel) -> Result<bool> {
        self.0.lock(level)
    }
    fn unlock(&self, level: LockLevel) -> Result<()> {
        self.0.unlock(level)
    }
    fn check_reserved_lock(&self) -> Result<bool> {
        self.0.check_reserved_lock()
    }
    fn lock_level(&self) -> LockLevel {
        self.0.lock_level()
    }
    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<ShmRegion>> {
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
        self.0.shm_map(region, region_size, extend)
    }
    fn shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        let r = self.0.shm_lock(offset, n, exclusive, lock);
        // A checkpoint has just taken CKPT (slot 1; a recovery takes two).
        if offset == 1 && n == 1 && exclusive && lock && matches!(r, Ok(true)) {
            HOOK.with(|h| {
                if let Some((armed, seen, _)) = h.borrow_mut().as_mut() {
                    *armed = true;
                    *seen = 0;
                }
            });
        }
        r
    }
    fn external_reader(&self) -> Result<bool> {
        self.0.external_reader()
    }
    fn shm_unmap(&self, delete: bool) -> Result<()> {
        self.0.shm_unmap(delete)
    }
    fn hint(&self, hint: FileHint) {
        self.0.hint(hint)
    }
    fn opened_read_only(&self) -> bool {
        self.0.opened_read_only()
    }
    fn persist_wal(&self) -> bool {
        self.0.persist_wal()
    }
    fn has_shared_memory(&self) -> bool {
        self.0.has_shared_memory()
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
    let backend = Arc::new(HookBackend(Arc::new(ringlite::io::sync::SyncBackend::new())));
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
