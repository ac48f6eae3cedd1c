//! # The special commands: `INSERT INTO t(t, rank) VALUES('cmd', arg)`
//!
//! 'rebuild', 'optimize', 'merge' and the persistent settings 'pgsz',
//! 'automerge', 'crisismerge', 'usermerge', 'secure-delete',
//! 'deletemerge', 'hashsize', 'insttoken' and 'rank' (`rank.rs`) (stored
//! in `%_config`, the
//! structure cookie bumped so other connections notice), with SQLite's
//! value ranges; 'delete' (a row's index entries, given its old values)
//! and 'delete-all' for external content and contentless tables (an
//! error on a table with its own content, as in SQLite);
//! 'integrity-check' (`check.rs`). Other commands are refused as not
//! supported yet.
//!
//! Invariant: a command either completes or changes nothing visible
//! (the statement's savepoint undoes partial writes).

use super::check;
use super::config::{Config, Content};
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
/// `row`: the rowid and column values given with the command.
pub fn run(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending, cmd: &str, arg: Option<&Value>, row: (Option<i64>, &[Value])) -> Result<()> {
    let own = cfg.content == Content::Own;
    match cmd {
        "delete" if cfg.contentless_delete => Err(Error::sql("'delete' may not be used with a contentless_delete=1 table")),
        "delete" if !own => match row.0 {
            Some(id) => writer::delete_command(host, cfg, p, id, row.1),
            None => Ok(()),
        },
        "delete-all" if !own => writer::delete_all(host, cfg, p),
        "integrity-check" => check::run(conn(host)?, cfg, p, arg.is_some_and(|v| v.as_ref().to_i64() != 0)),
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
        "pgsz" | "automerge" | "crisismerge" | "usermerge" | "secure-delete" | "deletemerge" | "hashsize" | "insttoken" => {
            let v = int_arg(arg).ok_or_else(logic_error)?;
            let ok = match cmd {
                "pgsz" => (32..=65536).contains(&v),
                "automerge" => (0..=64).contains(&v),
                "crisismerge" | "secure-delete" | "insttoken" => v >= 0,
                "hashsize" => v > 0,
                // (Out of range values mean the default, 10%, or 0.)
                "deletemerge" => true,
                _ => (2..=16).contains(&v),
            };
            if !ok {
                return Err(logic_error());
            }
            let c = conn(host)?;
            // (The writer reads `hashsize` again.)
            p.hashsize = None;
            index::exec(c, &format!("REPLACE INTO {}(k, v) VALUES(?, ?)", cfg.shadow("config")), &[Value::Text(cmd.into()), Value::Integer(v)])?;
            index::bump_cookie(c, cfg)
        }
        "rank" => {
            // (Checked as a spec, not for its function: an unknown name
            // is only an error when a query ranks with it.)
            let spec = arg.and_then(|v| v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned())).unwrap_or_default();
            if super::rank::parse(&spec).is_none() {
                return Err(logic_error());
            }
            let c = conn(host)?;
            index::exec(c, &format!("REPLACE INTO {}(k, v) VALUES('rank', ?)", cfg.shadow("config")), &[Value::Text(spec.into_bytes())])?;
            index::bump_cookie(c, cfg)
        }
        "delete-all" => Err(Error::sql("'delete-all' may only be used with a contentless or external content fts5 table")),
        "delete" => Err(logic_error()),
        _ => Err(Error::unsupported(&format!("the fts5 command '{cmd}'"))),
    }
}
