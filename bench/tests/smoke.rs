//! Smoke test: the benchmark binary runs every suite in `--quick` mode
//! (tiny sizes, a few seconds even in a debug build),
//! both engines agree on every checksum, and a Markdown table comes out.
//! Timings are never asserted (they depend on machine load).

use std::process::Command;

#[test]
fn quick_run_of_every_suite_succeeds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("quick.md");
    let run = Command::new(env!("CARGO_BIN_EXE_ringlite-bench")).args(["all", "--quick", "--out"]).arg(&out).output().expect("run ringlite-bench");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "ringlite-bench --quick failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    let md = std::fs::read_to_string(&out).expect("report written");
    for heading in ["### storage", "### sql", "### tenants", "### slow"] {
        assert!(md.contains(heading), "missing {heading} in\n{md}");
    }
    assert!(!md.contains("results differ"), "engines disagree:\n{md}");
    assert!(md.contains("ratio"), "no ratio column:\n{md}");
}

#[test]
fn quick_open_loop_and_idle_suites_succeed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("quick.md");
    let run = Command::new(env!("CARGO_BIN_EXE_ringlite-bench")).args(["openloop", "idle", "--quick", "--out"]).arg(&out).output().expect("run ringlite-bench");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "ringlite-bench openloop idle --quick failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    let md = std::fs::read_to_string(&out).expect("report written");
    for needle in ["### openloop", "| 50% | ringlite async |", "sqlite best pool", "### idle", "| ringlite async | cache_size=10 |"] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
}
