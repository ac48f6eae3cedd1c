//! Build script: the C shim for the variadic API functions, and the version
//! strings the library reports.
//!
//! Version settings come from the environment so that `make` can match the
//! system's `sqlite3.h` (Debian's shell refuses a library whose source id
//! differs from the one it was compiled with):
//!   RINGLITE_SQLITE_VERSION    e.g. "3.54.1"
//!   RINGLITE_SQLITE_SOURCE_ID  the full SQLITE_SOURCE_ID string
//! Defaults are those of the reference SQLite 3.54.1.

const DEFAULT_VERSION: &str = "3.54.1";
const DEFAULT_SOURCE_ID: &str = "2026-10-16 14:45:20 555e07ef33f69a0957d24d8e555b702464a131d6f1607f4c3c1e4551e8e6ca76";

fn main() {
    println!("cargo:rerun-if-env-changed=RINGLITE_SQLITE_VERSION");
    println!("cargo:rerun-if-env-changed=RINGLITE_SQLITE_SOURCE_ID");
    println!("cargo:rerun-if-changed=shim");
    let version = std::env::var("RINGLITE_SQLITE_VERSION").ok().filter(|v| !v.is_empty()).unwrap_or(DEFAULT_VERSION.into());
    let source_id = std::env::var("RINGLITE_SQLITE_SOURCE_ID").ok().filter(|v| !v.is_empty()).unwrap_or(DEFAULT_SOURCE_ID.into());
    let mut parts = version.split('.').map(|p| p.parse::<i64>().unwrap_or(0));
    let (x, y, z) = (parts.next().unwrap_or(3), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    println!("cargo:rustc-env=RINGLITE_SQLITE_VERSION={version}");
    println!("cargo:rustc-env=RINGLITE_SQLITE_SOURCE_ID={source_id}");
    println!("cargo:rustc-env=RINGLITE_SQLITE_VERSION_NUMBER={}", x * 1_000_000 + y * 1000 + z);

    let mut build = cc::Build::new();
    for entry in std::fs::read_dir("shim").expect("capi/shim") {
        let path = entry.expect("shim entry").path();
        if path.extension().is_some_and(|e| e == "c") {
            build.file(&path);
        }
    }
    // Nothing in Rust calls the shim's entry points: without whole-archive
    // the linker would drop them from the library.
    build.link_lib_modifier("+whole-archive").warnings(true).flag_if_supported("-fvisibility=default").compile("ringlite_shim");
}
