//! # Rebasing: the rebase buffer apply writes, and the rebaser
//!
//! While a changeset is applied, each DATA, NOTFOUND or CONFLICT conflict
//! the handler resolved (OMIT or REPLACE) is written to the rebase buffer,
//! a changeset of its own: a remote DELETE as a DELETE with its old row,
//! a remote INSERT or UPDATE as an INSERT whose record holds the key and
//! the new values (undefined elsewhere); the indirect byte says REPLACE.
//!
//! A [`Rebaser`] configured with such buffers (later ones win per field,
//! REPLACE wins over OMIT) rewrites a local changeset as the rules of
//! `sqlite3_rebaser` say: a local INSERT against a remote INSERT becomes
//! an UPDATE from the remote row (OMIT) or goes (REPLACE); a local UPDATE
//! against a remote UPDATE takes the remote values as its old ones (OMIT)
//! or drops the columns the remote set (REPLACE), against a remote DELETE
//! becomes an INSERT (OMIT) or goes; a local DELETE against a remote
//! DELETE goes, against an UPDATE takes the new values as its old ones.
//! Changes keep their order; every table of the input keeps its header.

use super::format::{read_all, write_change, write_table, Change, Item, Table, OP_DELETE, OP_INSERT, OP_UPDATE};
use super::value::{encode, Field};
use crate::error::Result;
use crate::util::ascii::AsciiLower;
use std::collections::HashMap;
use std::sync::Arc;

/// The rebase buffer apply fills.
#[derive(Default)]
pub struct RebaseLog {
    out: Vec<u8>,
    table: Option<Arc<Table>>,
}

impl RebaseLog {
    /// Note a resolved conflict on `it` (`replace`: the handler said REPLACE).
    pub fn note(&mut self, it: &Item, replace: bool) {
        if !self.table.as_ref().is_some_and(|t| Arc::ptr_eq(t, &it.table)) {
            write_table(&mut self.out, false, &it.table);
            self.table = Some(it.table.clone());
        }
        let t = &it.table;
        let c = &it.change;
        let record: Vec<Field> = match c.op {
            OP_DELETE => c.old.clone(),
            OP_INSERT => c.new.clone(),
            _ => (0..t.width()).map(|i| if t.is_key(i) { c.old.get(i).cloned().flatten() } else { c.new.get(i).cloned().flatten() }).collect(),
        };
        self.out.push(if c.op == OP_DELETE { OP_DELETE as u8 } else { OP_INSERT as u8 });
        self.out.push(u8::from(replace));
        record.iter().for_each(|f| encode(&mut self.out, f));
    }

    /// The buffer (empty when no conflict was resolved).
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }
}

struct Resolution {
    delete: bool,
    replace: bool,
    values: Vec<Field>,
}

/// `sqlite3_rebaser`.
#[derive(Default)]
pub struct Rebaser {
    tables: HashMap<String, HashMap<Vec<u8>, Resolution>>,
}

fn key_bytes(t: &Table, c: &Change) -> Vec<u8> {
    let mut k = Vec::new();
    c.key(t).into_iter().for_each(|v| encode(&mut k, &Some(v.clone())));
    k
}

impl Rebaser {
    /// `sqlite3rebaser_configure`: add a rebase buffer.
    pub fn configure(&mut self, buf: &[u8]) -> Result<()> {
        for it in read_all(buf, false)? {
            let c = it.change;
            let delete = c.op == OP_DELETE;
            let values = if delete { c.old.clone() } else { c.new.clone() };
            let key = key_bytes(&it.table, &c);
            let table = self.tables.entry(it.table.name.ascii_lower()).or_default();
            match table.get_mut(&key) {
                Some(r) => {
                    r.replace |= c.indirect;
                    r.delete = delete;
                    for (i, v) in values.into_iter().enumerate() {
                        if v.is_some() && i < r.values.len() {
                            r.values[i] = v;
                        }
                    }
                }
                None => {
                    table.insert(key, Resolution { delete, replace: c.indirect, values });
                }
            }
        }
        Ok(())
    }

    /// `sqlite3rebaser_rebase`: the local changeset `buf`, rebased.
    pub fn rebase(&self, buf: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut last: Option<Arc<Table>> = None;
        for it in read_all(buf, false)? {
            if !last.as_ref().is_some_and(|t| Arc::ptr_eq(t, &it.table)) {
                write_table(&mut out, it.patchset, &it.table);
                last = Some(it.table.clone());
            }
            let r = self.tables.get(&it.table.name.ascii_lower()).and_then(|t| t.get(&key_bytes(&it.table, &it.change)));
            let change = match r {
                None => Some(it.change),
                Some(r) => rebase_one(&it.table, it.change, r),
            };
            if let Some(c) = change {
                write_change(&mut out, it.patchset, &it.table, &c);
            }
        }
        Ok(out)
    }
}

fn rebase_one(t: &Table, mut c: Change, r: &Resolution) -> Option<Change> {
    let w = t.width();
    let rv = |i: usize| r.values.get(i).cloned().flatten();
    match (c.op, r.delete) {
        (OP_DELETE, true) => None,
        (OP_DELETE, false) => {
            for i in 0..w.min(c.old.len()) {
                if let Some(v) = rv(i) {
                    c.old[i] = Some(v);
                }
            }
            Some(c)
        }
        (OP_UPDATE, true) if r.replace => None,
        (OP_UPDATE, true) => {
            let new = (0..w).map(|i| c.new.get(i).cloned().flatten().or_else(|| rv(i))).collect();
            Some(Change { op: OP_INSERT, indirect: c.indirect, old: Vec::new(), new })
        }
        (OP_UPDATE, false) => {
            for i in (0..w.min(c.old.len())).filter(|i| !t.is_key(*i)) {
                if let Some(v) = rv(i) {
                    if r.replace {
                        c.old[i] = None;
                        c.new[i] = None;
                    } else if c.old[i].is_some() {
                        c.old[i] = Some(v);
                    }
                }
            }
            let any = (0..w).any(|i| !t.is_key(i) && c.new.get(i).is_some_and(|f| f.is_some()));
            any.then_some(c)
        }
        (OP_INSERT, false) if r.replace => None,
        (OP_INSERT, false) => {
            let old = (0..w).map(rv).collect();
            Some(Change { op: OP_UPDATE, indirect: c.indirect, old, new: c.new })
        }
        _ => Some(c),
    }
}
