//! # The special commands: `INSERT INTO t(t, rank) VALUES('cmd', arg)`
//!
//! 'rebuild', 'optimize', 'merge' and the persistent settings 'pgsz',
//! 'automerge', 'crisismerge' and 'usermerge' (stored in `%_config`, the
//! structure cookie bumped so other connections notice), with SQLite's
//! value ranges; 'delete-all' on a table with its own content is an
//! error as in SQLite. Other commands are refused as not supported yet.
//!
//! Invariant: a command either completes or changes nothing visible
//! (the statement's savepoint undoes partial writes).

use super::config::Config;
use super::index;
use super::pending::Pending;
use super::shadow::conn;
use super::writer;
use crate::error::{Error, Result, SQLITE_ERROR};
use crate::value::Value;
use crate::vdbe::host::VmHost;

fn logic_error() -> Error {
    Error::new(SQLITE_ERROR, "SQL logic error")
}

/// An integer setting value (integers, or text holding one).
fn int_arg(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Integer(i) => Some(*i),
        Value::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Run command `cmd` with argument `arg` (the value given for `rank`).
pub fn run(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending, cmd: &str, arg: Option<&Value>) -> Result<()> {
    match cmd {
        "rebuild" => writer::rebuild(host, cfg, p),
        "optimize" => {
            let c = conn(host)?;
            index::flush(c, cfg, p)?;
            index::optimize(c, cfg)
        }
        "merge" => {
            let c = conn(host)?;
            index::flush(c, cfg, p)?;
            let n = int_arg(arg).unwrap_or(0);
            if n != 0 {
                index::user_merge(c, cfg, n)?;
            }
            Ok(())
        }
        "pgsz" | "automerge" | "crisismerge" | "usermerge" => {
            let v = int_arg(arg).ok_or_else(logic_error)?;
            let ok = match cmd {
                "pgsz" => (32..=65536).contains(&v),
                "automerge" => (0..=64).contains(&v),
                "crisismerge" => v >= 0,
                _ => (2..=16).contains(&v),
            };
            if !ok {
                return Err(logic_error());
            }
            let c = conn(host)?;
            index::exec(c, &format!("REPLACE INTO {}(k, v) VALUES(?, ?)", cfg.shadow("config")), &[Value::Text(cmd.into()), Value::Integer(v)])?;
            index::bump_cookie(c, cfg)
        }
        "delete-all" => Err(Error::sql("'delete-all' may only be used with a contentless or external content fts5 table")),
        "delete" => Err(logic_error()),
        _ => Err(Error::unsupported(&format!("the fts5 command '{cmd}'"))),
    }
}
