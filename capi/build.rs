//! Build script: the C shim for the variadic API functions and the data
//! symbols (`shim/`). The version the library reports is not decided here:
//! `shim/version.c` gives SQLite 3.54.1's by default, and `make` may link
//! other strings into the shared library without rebuilding the crate.

fn main() {
    println!("cargo:rerun-if-changed=shim");
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
