mod func_support;
use func_support::*;
use ringlite::value::Value;

#[test]
#[ignore]
fn explore() {
    let db = RefDb::open();
    let q = std::env::var("Q").unwrap();
    for line in q.split(';') {
        if line.trim().is_empty() { continue; }
        match db.query(line, &[]) {
            Ok(rows) => for r in rows { println!("{line} => {}", r.iter().map(|v| show(&Ok(v.clone()))).collect::<Vec<_>>().join(" | ")); },
            Err(e) => println!("{line} => ERR {e}"),
        }
    }
    let _ = Value::Null;
}
