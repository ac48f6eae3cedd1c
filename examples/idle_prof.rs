//! Heap-profiling driver for idle tenants (ringlite only): opens N async
//! connections (default 1,000), each on its own copy of a 2,000-row
//! `users` database, runs one point query, then `release_memory`, and
//! holds them all open while it pauses, so a heap profiler's peak is the
//! idle tenants: `heaptrack target/debug/examples/idle_prof 1000`.
//! `BLOCKING=1` opens blocking connections; `CACHE=n` sets `cache_size`
//! (default: the default cache, then `release_memory`).
use ringlite::{Connection, OpenFlags, StepResult};

fn run(c: &mut Connection, sql: &str) {
    let (st, _) = c.prepare(sql.as_bytes()).unwrap();
    let mut st = st.unwrap();
    loop {
        match st.step(c).unwrap() {
            StepResult::Row => {}
            StepResult::Done => break,
            StepResult::Io => {
                c.io_poll(-1).unwrap();
            }
        }
    }
    st.reset(c);
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let dir = std::env::var("PROF_DIR").unwrap_or_else(|_| "/dev/shm/idle_prof".into());
    std::fs::create_dir_all(&dir).unwrap();
    let base = format!("{dir}/base.db");
    if !std::path::Path::new(&base).exists() {
        let mut c = Connection::open(&base, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
        run(&mut c, "CREATE TABLE users(id INTEGER PRIMARY KEY, username TEXT)");
        run(
            &mut c,
            "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<2000) INSERT INTO users SELECT i, 'user' || i || '@example.com' FROM k",
        );
        c.close().unwrap();
    }
    let extra = if std::env::var_os("BLOCKING").is_some() { 0 } else { OpenFlags::ASYNC };
    let cache = std::env::var("CACHE").ok();
    let mut conns = Vec::with_capacity(n);
    for i in 0..n {
        let p = format!("{dir}/t{i}.db");
        if !std::path::Path::new(&p).exists() {
            std::fs::copy(&base, &p).unwrap();
        }
        let mut c = Connection::open(&p, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | extra)).unwrap();
        if let Some(cs) = &cache {
            run(&mut c, &format!("PRAGMA cache_size={cs}"));
        }
        run(&mut c, &format!("SELECT username FROM users WHERE id={}", i % 2000 + 1));
        if cache.is_none() {
            c.release_memory();
        }
        conns.push(c);
    }
    eprintln!("{n} tenants open");
    std::thread::sleep(std::time::Duration::from_millis(200));
    for mut c in conns {
        c.close().unwrap();
    }
}
