//! Memory driver for `bench/huge_statements.py`'s cases on the engine
//! alone (system allocator, so heaptrack sees every allocation):
//! `cargo build --example huge_mem_probe && heaptrack target/debug/examples/huge_mem_probe in 150000`.
use ringlite::{Connection, OpenFlags};

fn exec(c: &mut Connection, sql: &str) -> usize {
    let (st, _) = c.prepare(sql.as_bytes()).unwrap();
    let mut rows = 0;
    if let Some(mut st) = st {
        loop {
            match st.step(c).unwrap() {
                ringlite::StepResult::Row => rows += 1,
                ringlite::StepResult::Io => {}
                _ => break,
            }
        }
        st.reset(c);
    }
    rows
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map(String::as_str).unwrap_or("in");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(150_000);
    let mut c = Connection::open(":memory:", OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    exec(&mut c, "CREATE TABLE t(a, b, c)");
    exec(&mut c, "CREATE TABLE u(x)");
    exec(&mut c, "INSERT INTO u VALUES(1)");
    let list = |f: &dyn Fn(usize) -> String, sep: &str| (0..n).map(f).collect::<Vec<_>>().join(sep);
    let sql = match case {
        "in" => format!("SELECT * FROM u WHERE x IN ({})", list(&|i| i.to_string(), ",")),
        "values" => format!("INSERT INTO t VALUES {}", list(&|i| format!("({i},'v{i}',{i}.5)"), ",")),
        "compound" => list(&|i| format!("SELECT {i}"), " UNION ALL "),
        _ => panic!("case"),
    };
    println!("{}", exec(&mut c, &sql));
}
