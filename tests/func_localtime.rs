//! 'localtime' and 'utc' modifiers against SQLite 3.54.1 in a zone with
//! daylight saving time. Its own test binary: TZ is set before either
//! engine first asks for local time.
mod func_support;
use func_support::*;
use ringlite::value::Value;

#[test]
fn localtime_and_utc_in_new_york() {
    if !std::path::Path::new("/usr/share/zoneinfo/America/New_York").exists() {
        eprintln!("no zoneinfo; skipped");
        return;
    }
    std::env::set_var("TZ", "America/New_York");
    let db = RefDb::open();
    let mut bad = Vec::new();
    // The zone really is in effect (EDT is UTC-4 in July).
    let g = call_scalar("datetime", &[Value::text("2024-07-04 12:00:00"), Value::text("localtime")]);
    assert!(same(&g, &Ok(Value::text("2024-07-04 08:00:00"))), "{}", show(&g));
    let times = [
        "2024-03-10 06:59:59",
        "2024-03-10 07:00:00",
        "2024-03-10 02:30:00",
        "2024-11-03 05:59:59",
        "2024-11-03 06:00:00",
        "2024-11-03 01:30:00",
        "2024-07-04 12:00:00.250",
        "1969-07-20 20:17:40",
        "1900-01-01 00:00:00",
        "2050-06-01 12:00",
        "2100-12-31 23:59:59",
        "0500-03-01 00:00",
        "2038-01-19 03:14:08",
        "1970-01-01 00:00:00",
    ];
    for t in times {
        for mods in [vec!["localtime"], vec!["utc"], vec!["localtime", "utc"], vec!["utc", "localtime"], vec!["localtime", "localtime"]] {
            let mut args = vec![Value::text(t)];
            args.extend(mods.iter().map(|m| Value::text(*m)));
            let ph = vec!["?"; args.len()].join(",");
            for f in ["datetime", "unixepoch"] {
                let e = db.eval(&format!("{f}({ph})"), &args);
                let g = call_scalar(f, &args);
                if !same(&e, &g) {
                    bad.push(format!("{f}({t}, {mods:?}) sqlite={} ours={}", show(&e), show(&g)));
                }
            }
        }
    }
    assert_clean(bad);
}
