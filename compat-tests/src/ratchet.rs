//! # Ratchet: pass counts that may only grow
//!
//! A ratchet file lists, per script, how many of its records passed
//! (`<passed>/<total> <path>`, one per line, `#` comments). A check fails
//! when a listed script now passes fewer records than listed; `update`
//! raises the counts to what passed now (never lowers them). Per-record
//! counts rather than whole files because the engine under construction
//! passes parts of almost every file long before it passes any file whole.

use crate::slt::runner::FileReport;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub passed: usize,
    pub total: usize,
}

pub type Ratchet = BTreeMap<String, Entry>;

pub fn load(path: &str) -> Result<Ratchet, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ratchet::new()),
        Err(e) => return Err(format!("{path}: {e}")),
    };
    let mut out = Ratchet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || format!("{path}:{}: expected `<passed>/<total> <path>`", n + 1);
        let (counts, file) = line.split_once(' ').ok_or_else(bad)?;
        let (p, t) = counts.split_once('/').ok_or_else(bad)?;
        let entry = Entry { passed: p.parse().map_err(|_| bad())?, total: t.parse().map_err(|_| bad())? };
        out.insert(file.trim().to_string(), entry);
    }
    Ok(out)
}

pub fn save(path: &str, ratchet: &Ratchet, engine: &str) -> Result<(), String> {
    let mut text = format!(
        "# ringlite-compat ratchet ({engine}): <records passed>/<records> <script>.\n\
         # A script passing fewer records than listed is a regression.\n"
    );
    for (file, e) in ratchet {
        text.push_str(&format!("{}/{} {}\n", e.passed, e.total, file));
    }
    if let Some(dir) = std::path::Path::new(path).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
}

/// Scripts that pass fewer records than the ratchet says. A script cut
/// short by the timeout is not judged: how far it got depends on the load.
pub fn regressions(ratchet: &Ratchet, reports: &[FileReport]) -> Vec<String> {
    reports
        .iter()
        .filter(|r| !r.timed_out)
        .filter_map(|r| {
            let e = ratchet.get(&r.name)?;
            (r.passed < e.passed).then(|| format!("{}: {} records passed, ratchet says {}", r.name, r.passed, e.passed))
        })
        .collect()
}

/// Raise the ratchet to the current results.
pub fn update(ratchet: &mut Ratchet, reports: &[FileReport]) {
    for r in reports {
        let e = ratchet.entry(r.name.clone()).or_insert(Entry { passed: 0, total: r.total });
        e.passed = e.passed.max(r.passed);
        e.total = r.total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name: &str, passed: usize, total: usize) -> FileReport {
        FileReport { path: format!("/x/{name}"), name: name.into(), passed, total, ..Default::default() }
    }

    #[test]
    fn counts_only_grow_and_drops_are_regressions() {
        let path = std::env::temp_dir().join(format!("ratchet-{}.txt", std::process::id()));
        let path = path.to_str().unwrap();
        let mut r = Ratchet::new();
        update(&mut r, &[report("a.test", 3, 5), report("b.test", 0, 2)]);
        save(path, &r, "ringlite").unwrap();
        let mut r = load(path).unwrap();
        assert_eq!(r["a.test"], Entry { passed: 3, total: 5 });
        let now = [report("a.test", 2, 5), report("b.test", 1, 2), report("new.test", 0, 1)];
        assert_eq!(regressions(&r, &now).len(), 1);
        update(&mut r, &now);
        assert_eq!(r["a.test"].passed, 3, "never lowered");
        assert_eq!(r["b.test"].passed, 1);
        assert!(r.contains_key("new.test"));
        std::fs::remove_file(path).unwrap();
    }
}
