use libsqlite3_sys as ffi;
use std::ffi::{CStr, CString};
#[test]
fn probe() {
    unsafe {
        let mut db = std::ptr::null_mut();
        ffi::sqlite3_open(c":memory:".as_ptr(), &mut db);
        let sql = std::env::var("PROBE_SQL").unwrap_or("select 1".into());
        let c = CString::new(sql).unwrap();
        let mut tail = c.as_ptr();
        loop {
        let mut st = std::ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(db, tail, -1, &mut st, &mut tail);
        if rc != 0 { println!("ERR {} {}", rc, CStr::from_ptr(ffi::sqlite3_errmsg(db)).to_string_lossy()); return; }
        if st.is_null() { break; }
        loop {
            let rc = ffi::sqlite3_step(st);
            if rc != 100 { if rc != 101 { println!("ERR {} {}", rc, CStr::from_ptr(ffi::sqlite3_errmsg(db)).to_string_lossy()); } break; }
            let n = ffi::sqlite3_column_count(st);
            let mut row = vec![];
            for i in 0..n {
                let t = ffi::sqlite3_column_type(st, i);
                let p = ffi::sqlite3_column_text(st, i);
                let s = if p.is_null() { "NULL".to_string() } else { CStr::from_ptr(p as _).to_string_lossy().into_owned() };
                let name = CStr::from_ptr(ffi::sqlite3_column_name(st, i)).to_string_lossy().into_owned();
                row.push(format!("{name}={t}:{s}"));
            }
            println!("{}", row.join(" | "));
        }
        ffi::sqlite3_finalize(st);
        }
    }
}
