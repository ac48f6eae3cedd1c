//! Loops over an index of a rowid table: a search (equalities on a key
//! prefix, then at most a lower and an upper bound on the next key
//! column, or on the rowid when every key column is pinned) or a full scan, read forwards or backwards, and either looking
//! up each entry's table row or, for a covering index, reading the
//! columns from the entry itself.
//!
//! Invariants: the bounds only narrow the entries read; the WHERE terms
//! they come from are still checked on every row, so a bound may be loose
//! (NULL entries at the low end are let through) but never excludes a
//! matching row. A covering loop leaves the table cursor unpositioned:
//! every read of its columns is redirected to the index through
//! `col_map`, which is only done when every column the query reads is in
//! the index.

use crate::error::Result;
use crate::sql::codegen::expr::index_expr::index_column_name;
use crate::sql::codegen::loop_kind::LoopKind;
use crate::sql::codegen::{ColumnSource, Compiler};
use crate::sql::plan::terms::LookupOp;
use crate::sql::schema::{Index, Table};
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::Expr;

/// One index loop to emit.
pub(crate) struct IndexLoop<'a, 'b> {
    /// Table cursor (looked up by rowid unless `covering`).
    pub table_cursor: i32,
    /// Name shown in the plan.
    pub item_name: String,
    /// The index.
    pub idx: Index,
    /// Values of the leading key columns' equalities.
    pub eqs: Vec<&'a Expr<'b>>,
    /// Lower and upper bound on the next key column, in index order.
    pub lower: Option<(LookupOp, &'a Expr<'b>)>,
    /// See `lower`.
    pub upper: Option<(LookupOp, &'a Expr<'b>)>,
    /// Read from the last entry to the first.
    pub backward: bool,
    /// Read the columns from the index entries.
    pub covering: bool,
    /// Shown as a covering index (a MULTI-INDEX OR branch reads the
    /// table row all the same: see `multi_or.rs`; the WHERE loop of an
    /// UPDATE or DELETE reads the index alone, shown as SQLite shows it,
    /// not covering: see `LoopContext::dml_where_uses`).
    pub covering_shown: bool,
    /// A min()/max() query: a full scan is shown as SEARCH.
    pub min_max: bool,
    /// `idx` is a WITHOUT ROWID table's PRIMARY KEY: the table's own
    /// cursor walks it (no second cursor, no lookup of the row).
    pub primary_key: bool,
}

impl<'b> Compiler<'_> {
    /// Emit the start of an index loop; `next` continues with the next
    /// entry, `end` leaves the loop.
    pub(crate) fn emit_index_loop<'a>(&mut self, table: &Table, l: IndexLoop<'a, 'b>, next: i32, end: i32) -> Result<LoopKind> {
        let idx = &l.idx;
        let icur = if l.primary_key {
            l.table_cursor
        } else {
            let icur = self.b.cursor();
            let ki = self.index_key_info(idx)?;
            self.b.add4(Opcode::OpenRead, icur, idx.root as i32, idx.db as i32, P4::KeyInfo(ki), 0);
            self.comment(&idx.name);
            icur
        };
        let ne = l.eqs.len();
        // (Past the key columns a bound is on the rowid, compared as a
        // number.)
        let mut affs: String = idx.columns.iter().take(ne + 1).map(|c| self.index_column_affinity(table, c).letter()).collect();
        if ne == idx.columns.len() {
            affs.push(crate::value::affinity::Affinity::Numeric.letter());
        }
        // `keys`: the prefix and the lower bound; `endkeys`: the prefix
        // and the upper bound (both in index order).
        let keys = self.b.regs(ne + 1);
        for (i, e) in l.eqs.iter().enumerate() {
            self.expr(e, keys + i as i32)?;
            // (`column = NULL` holds for no row: the loop ends, so that
            // the term need not be tested again; see
            // `note_index_consumed`.)
            if !matches!(e, Expr::Literal(sqlite3_parser::ast::Literal::Numeric(_) | sqlite3_parser::ast::Literal::String(_))) {
                self.b.add(Opcode::IsNull, keys + i as i32, end, 0);
            }
        }
        let endkeys = self.b.regs(ne + 1);
        for i in 0..ne {
            self.b.add(Opcode::SCopy, keys + i as i32, endkeys + i as i32, 0);
        }
        let mut desc: Vec<String> = idx.columns.iter().take(ne).map(|c| format!("{}=?", index_column_name(table, c))).collect();
        let col_name = idx.columns.get(ne).map_or_else(|| "rowid".to_string(), |c| index_column_name(table, c));
        // The plan shows the term's own direction (bounds on a DESC column
        // were swapped to index order); SQLite's plan text says `>` and `<`
        // for inclusive bounds too.
        let range_desc = idx.columns.get(ne).is_some_and(|c| c.descending);
        let shown = |op: LookupOp| {
            let op = if range_desc { op.swapped() } else { op };
            match op {
                LookupOp::Gt | LookupOp::Ge => ">",
                LookupOp::Lt | LookupOp::Le => "<",
                LookupOp::Eq => "=",
            }
        };
        let mut bound_texts: Vec<String> = Vec::new();
        // NULL bounds never match: skip the loop.
        let with_affinity = |c: &mut Self, regs: i32, n: usize| {
            if n > 0 {
                c.b.add4(Opcode::Affinity, regs, n as i32, 0, P4::affinity(affs[..n].to_string()), 0);
            }
        };
        if let Some((op, e)) = l.lower {
            self.expr(e, keys + ne as i32)?;
            self.b.add(Opcode::IsNull, keys + ne as i32, end, 0);
            with_affinity(self, keys, ne + 1);
            bound_texts.push(format!("{col_name}{}?", shown(op)));
        } else {
            with_affinity(self, keys, ne);
        }
        if let Some((op, e)) = l.upper {
            self.expr(e, endkeys + ne as i32)?;
            self.b.add(Opcode::IsNull, endkeys + ne as i32, end, 0);
            with_affinity(self, endkeys, ne + 1);
            bound_texts.push(format!("{col_name}{}?", shown(op)));
        } else {
            with_affinity(self, endkeys, ne);
        }
        let n_lower = (ne + l.lower.is_some() as usize) as i64;
        let n_upper = (ne + l.upper.is_some() as usize) as i64;
        if !l.backward {
            match l.lower {
                Some((op, _)) => {
                    let opc = if op == LookupOp::Gt { Opcode::SeekGT } else { Opcode::SeekGE };
                    self.b.add4(opc, icur, end, keys, P4::Int64(n_lower), 0);
                }
                None if ne > 0 => {
                    self.b.add4(Opcode::SeekGE, icur, end, keys, P4::Int64(ne as i64), 0);
                }
                None if l.upper.is_some() && !idx.columns.first().is_some_and(|c| c.descending) => {
                    // Skip NULL entries at the start of the index.
                    let null = self.b.reg();
                    self.b.add(Opcode::Null, 0, null, 0);
                    self.b.add4(Opcode::SeekGT, icur, end, null, P4::Int64(1), 0);
                }
                None => {
                    self.b.add(Opcode::Rewind, icur, end, 0);
                }
            }
        } else {
            match l.upper {
                Some((op, _)) => {
                    let opc = if op == LookupOp::Lt { Opcode::SeekLT } else { Opcode::SeekLE };
                    self.b.add4(opc, icur, end, endkeys, P4::Int64(n_upper), 0);
                }
                None if ne > 0 => {
                    self.b.add4(Opcode::SeekLE, icur, end, endkeys, P4::Int64(ne as i64), 0);
                }
                None => {
                    self.b.add(Opcode::Last, icur, end, 0);
                }
            }
        }
        // The lower bound of the term's own order comes first.
        if range_desc {
            bound_texts.reverse();
        }
        desc.extend(bound_texts);
        let top = self.b.here();
        if !l.backward {
            match l.upper {
                Some((op, _)) => {
                    let opc = if op == LookupOp::Lt { Opcode::IdxGE } else { Opcode::IdxGT };
                    self.b.add4(opc, icur, end, endkeys, P4::Int64(n_upper), 0);
                }
                None if ne > 0 => {
                    self.b.add4(Opcode::IdxGT, icur, end, endkeys, P4::Int64(ne as i64), 0);
                }
                None => {}
            }
        } else {
            match l.lower {
                Some((op, _)) => {
                    let opc = if op == LookupOp::Gt { Opcode::IdxLE } else { Opcode::IdxLT };
                    self.b.add4(opc, icur, end, keys, P4::Int64(n_lower), 0);
                }
                None if ne > 0 => {
                    self.b.add4(Opcode::IdxLT, icur, end, keys, P4::Int64(ne as i64), 0);
                }
                None => {}
            }
        }
        if l.primary_key {
            // The entry is the row.
            if desc.is_empty() {
                let shown = if l.min_max { format!("SEARCH {} USING PRIMARY KEY", l.item_name) } else { format!("SCAN {}", l.item_name) };
                self.stmt.eqp.push(format_args!("{shown}"));
            } else {
                self.stmt.eqp.push(format_args!("SEARCH {} USING PRIMARY KEY ({})", l.item_name, desc.join(" AND ")));
            }
            return Ok(if l.backward { LoopKind::IndexBack(icur, top) } else { LoopKind::Index(icur, top) });
        }
        if l.covering {
            self.map_columns_to_index(table, idx, l.table_cursor, icur);
        } else {
            self.seek_table_from_index(table, idx, icur, l.table_cursor, next);
        }
        let how = if l.covering_shown { "COVERING INDEX" } else { "INDEX" };
        if desc.is_empty() {
            let verb = if l.min_max { "SEARCH" } else { "SCAN" };
            self.stmt.eqp.push(format_args!("{verb} {} USING {how} {}", l.item_name, idx.name));
        } else {
            self.stmt.eqp.push(format_args!("SEARCH {} USING {how} {} ({})", l.item_name, idx.name, desc.join(" AND ")));
        }
        Ok(if l.backward { LoopKind::IndexBack(icur, top) } else { LoopKind::Index(icur, top) })
    }

    /// Redirect every read of `table_cursor`'s columns (and rowid) to the
    /// entry under index cursor `icur` (a covering loop).
    pub(crate) fn map_columns_to_index(&mut self, table: &Table, idx: &Index, table_cursor: i32, icur: i32) {
        for (pos, ic) in idx.columns.iter().enumerate() {
            if let Some(c) = ic.column {
                let key = if table.rowid_alias == Some(c) { -1 } else { c as i64 };
                self.frame.col_map.entry((table_cursor, key)).or_insert(ColumnSource::Cursor(icur, pos));
            }
        }
        self.frame.col_map.insert((table_cursor, -1), ColumnSource::Cursor(icur, idx.columns.len()));
    }

    /// Whether index `idx` of FROM item `item` holds every column the
    /// query reads of it (`uses`; the rowid is in every entry).
    pub(crate) fn index_covers(table: &Table, idx: &Index, item: usize, uses: &[(usize, Option<usize>)]) -> bool {
        // (A WITHOUT ROWID table's entries hold its key, not a rowid: not
        // read as covering yet.)
        if table.without_rowid.is_some() {
            return false;
        }
        uses.iter().filter(|(i, _)| *i == item).all(|(_, c)| match c {
            None => true,
            Some(c) => table.columns.get(*c).is_some_and(|col| col.generated.is_none()) && idx.columns.iter().any(|ic| ic.column == Some(*c)),
        })
    }
}
