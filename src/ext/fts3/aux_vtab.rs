//! # `fts4aux`: the terms of an FTS3/4 index as rows (fts3.txt, section 5)
//!
//! `CREATE VIRTUAL TABLE t USING fts4aux(FTS)` (or `fts4aux(DB, FTS)` for
//! a table in `temp`) reads the segments of FTS table `FTS` directly: for
//! each term, in byte order, one row with `col = '*'` (documents holding
//! the term anywhere, occurrences in all columns) then one per column
//! holding it, with the hidden `languageid` choosing the language.
//!
//! As in SQLite, only what is written to `%_segdir` is seen: terms still
//! pending in the FTS table's transaction are not, and the levels read are
//! those of index 0 of an FTS table with a single index (`languageid * 1024`
//! up to 1023 more), which on a table with prefix indexes is what SQLite
//! reads too. A target that does not exist fails the scan with a bare
//! SQLITE_ERROR.
//!
//! Plans: `idxNum` bit 1 `term =`, bit 2 `term >`/`>=`, bit 4 `term <`/`<=`
//! (the bound inclusive, the VM checks the operator again: constraints are
//! not omitted); an argument after those is the `languageid =` value.
//!
//! Invariant: the rows of a term are built from the merge of all its
//! segment versions, deletion markers dropped, so a deleted document
//! counts nowhere (checked: fts3aux_no_deletes).

use super::config::{dequote, Config, Content};
use super::doclist::merge_versions;
use super::segments::{self, Range};
use super::shadow::conn;
use super::tokenizer;
use crate::error::{Error, Result, SQLITE_ERROR};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ColumnContext, Connected, ConstraintOp, IndexInfo, Module, VTab, VTabCursor, VtabConfig};
use std::sync::Arc;

/// The `fts4aux` module.
pub struct AuxModule;

const SCHEMA: &str = "CREATE TABLE x(term, col, documents, occurrences, languageid HIDDEN)";

const COL_TERM: i32 = 0;
const COL_LANGID: i32 = 4;

const IDX_EQ: i32 = 1;
const IDX_GE: i32 = 2;
const IDX_LE: i32 = 4;

impl Module for AuxModule {
    fn connect(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        let bad = || Error::sql("invalid arguments to fts4aux constructor");
        let (db, fts) = match args.len() {
            4 => (args[1].clone(), dequote(args[3].trim())),
            // The two-argument form only for a table in temp (whose
            // target lives in another database).
            5 if args[1].eq_ci("temp") => (args[3].trim().to_string(), dequote(args[4].trim())),
            _ => return Err(bad()),
        };
        Ok(Connected { table: Arc::new(AuxTable { db, fts }), schema: SCHEMA.to_string(), config: VtabConfig::default() })
    }
}

struct AuxTable {
    /// The target's database.
    db: String,
    /// The target FTS table's name.
    fts: String,
}

impl VTab for AuxTable {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        let find = |info: &IndexInfo, col: i32, ops: &[u8]| info.constraints.iter().position(|c| c.usable && c.column == col && ops.contains(&c.op));
        let eq = find(info, COL_TERM, &[ConstraintOp::EQ]);
        let (ge, le) = if eq.is_some() {
            (None, None)
        } else {
            (find(info, COL_TERM, &[ConstraintOp::GT, ConstraintOp::GE]), find(info, COL_TERM, &[ConstraintOp::LT, ConstraintOp::LE]))
        };
        let lang = find(info, COL_LANGID, &[ConstraintOp::EQ]);
        let mut num = 0;
        let mut argv = 0;
        for (bit, at) in [(IDX_EQ, eq), (IDX_GE, ge), (IDX_LE, le)] {
            if let Some(i) = at {
                num |= bit;
                argv += 1;
                info.usage[i].argv_index = argv;
            }
        }
        info.idx_num = num;
        info.estimated_cost = if eq.is_some() {
            5.0
        } else {
            let mut cost = 20000.0;
            if ge.is_some() {
                cost /= 2.0;
            }
            if le.is_some() {
                cost /= 2.0;
            }
            cost
        };
        if let Some(i) = lang {
            argv += 1;
            info.usage[i].argv_index = argv;
            // (`languageid = ''` matches nothing: the VM compares again,
            // with the column's NUMERIC affinity).
            info.estimated_cost -= 1.0;
        }
        if info.order_by.len() == 1 && info.order_by[0].column == COL_TERM && !info.order_by[0].desc {
            info.order_by_consumed = true;
        }
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(AuxCursor { db: self.db.clone(), fts: self.fts.clone(), rows: Vec::new(), at: 0, langid: 0 }))
    }
}

/// One row: term, column (`None` for '*'), documents, occurrences.
struct AuxRow {
    term: Vec<u8>,
    col: Option<usize>,
    documents: i64,
    occurrences: i64,
}

struct AuxCursor {
    db: String,
    fts: String,
    rows: Vec<AuxRow>,
    at: usize,
    langid: i64,
}

fn text_arg(v: Option<&Value>) -> Option<Vec<u8>> {
    v.and_then(|v| v.as_ref().to_text().map(|t| t.into_owned()))
}

impl AuxCursor {
    /// A configuration that reads the target's segments as SQLite's
    /// fts4aux does: one index, ascending doclists.
    fn target(&self) -> Result<Config> {
        Ok(Config {
            fts4: true,
            db: self.db.clone(),
            name: self.fts.clone(),
            columns: Vec::new(),
            tokenizer: tokenizer::create("simple", &[])?,
            prefixes: Vec::new(),
            content: Content::Own,
            languageid: None,
            matchinfo_fts3: false,
            notindexed: Vec::new(),
            desc: false,
            compress: None,
        })
    }
}

impl VTabCursor for AuxCursor {
    fn filter(&mut self, host: &mut dyn VmHost, idx_num: i32, _idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        self.rows.clear();
        self.at = 0;
        let mut next = 0;
        let mut take = |on: bool| {
            if on {
                next += 1;
                Some(args.get(next - 1))
            } else {
                None
            }
        };
        let eq = take(idx_num & IDX_EQ != 0).map(text_arg);
        let ge = take(idx_num & IDX_GE != 0).map(text_arg);
        let le = take(idx_num & IDX_LE != 0).map(text_arg);
        // As `sqlite3_value_int`: the low 32 bits (the VM's own comparison
        // then rejects the rows of a value that did not fit).
        self.langid = args.get(next).map_or(0, |v| v.as_ref().to_i64() as i32 as i64);
        // A NULL bound matches nothing.
        if matches!(eq, Some(None)) || matches!(ge, Some(None)) || matches!(le, Some(None)) {
            return Ok(());
        }
        let (eq, ge, le) = (eq.flatten(), ge.flatten(), le.flatten());
        let cfg = self.target()?;
        let c = conn(host)?;
        let range = match &eq {
            Some(t) => Range::Exact(t),
            None => Range::All,
        };
        // A missing target (or unreadable shadow table) is SQLite's bare
        // error: the message of the failed read is not kept.
        let versions =
            segments::gather(c, &cfg, self.langid, 0, range, None).map_err(|e| if e.code == SQLITE_ERROR { Error::code(SQLITE_ERROR) } else { e })?;
        for (term, lists) in versions {
            if ge.as_ref().is_some_and(|g| term.as_slice() < g.as_slice()) {
                continue;
            }
            if le.as_ref().is_some_and(|l| term.as_slice() > l.as_slice()) {
                break;
            }
            let entries = merge_versions(lists, false, false);
            // invariant: fts3aux_no_deletes
            debug_assert!(entries.iter().all(|e| !e.is_delete()), "fts4aux counts a deletion marker");
            if entries.is_empty() {
                continue;
            }
            let mut per_col: Vec<(i64, i64)> = Vec::new();
            let mut all = (0i64, 0i64);
            for e in &entries {
                let mut any = false;
                for (col, positions) in &e.cols {
                    if positions.is_empty() {
                        continue;
                    }
                    if per_col.len() <= *col {
                        per_col.resize(*col + 1, (0, 0));
                    }
                    per_col[*col].0 += 1;
                    per_col[*col].1 += positions.len() as i64;
                    all.1 += positions.len() as i64;
                    any = true;
                }
                if any {
                    all.0 += 1;
                }
            }
            if all.0 == 0 {
                continue;
            }
            self.rows.push(AuxRow { term: term.clone(), col: None, documents: all.0, occurrences: all.1 });
            for (col, (documents, occurrences)) in per_col.into_iter().enumerate() {
                if documents > 0 {
                    self.rows.push(AuxRow { term: term.clone(), col: Some(col), documents, occurrences });
                }
            }
        }
        Ok(())
    }

    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        if self.at < self.rows.len() {
            self.at += 1;
        }
        Ok(())
    }

    fn eof(&mut self) -> bool {
        self.at >= self.rows.len()
    }

    fn column(&mut self, _host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        let Some(r) = self.rows.get(self.at) else { return Ok(Value::Null) };
        Ok(match ctx.column {
            0 => Value::Text(r.term.clone()),
            1 => r.col.map_or_else(|| Value::text("*"), |c| Value::Integer(c as i64)),
            2 => Value::Integer(r.documents),
            3 => Value::Integer(r.occurrences),
            _ => Value::Integer(self.langid),
        })
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.at as i64 + 1)
    }
}
