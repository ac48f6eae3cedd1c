//! Inner loops over a table no index serves: an automatic index (the
//! table's rows for one probed column, built once into a temporary index,
//! as SQLite's automatic indexes) or a filtered copy of the table (its own
//! WHERE terms applied once, not per outer row).
use crate::error::Result;
use crate::sql::codegen::loop_kind::LoopKind;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::has_subquery;
use crate::sql::model::from::FromItem;
use crate::sql::plan::prelude::*;
use crate::sql::plan::terms::LookupOp;
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::Expr;

impl<'b> Compiler<'_> {
    /// An inner loop over a table with no index for its join term
    /// `col = <outer value>`: as SQLite's automatic index, the table's
    /// entries (col, the columns read, rowid) go once into a temporary
    /// index (only the rows its own terms keep), and each outer row seeks
    /// there instead of scanning the table. `None` when no term qualifies.
    pub(in crate::sql::codegen) fn automatic_index_loop<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        table: &Table,
        cands: &[(Option<usize>, LookupOp, &'a Expr<'b>)],
        terms: &[&'a Expr<'b>],
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
        before: u64,
        next: i32,
        end: i32,
        item_name: &str,
    ) -> Result<Option<LoopKind>> {
        // (Not in a trigger body: the index would outlive the firing.)
        if table.without_rowid.is_some() || !self.dml.firing.is_empty() || matches!(it.index_hint, Some(None)) {
            return Ok(None);
        }
        let binary = |c: Option<&str>| c.is_none_or(|c| c.eq_ci("BINARY"));
        let Some((col, value)) = cands.iter().find_map(|(c, op, e)| {
            let c = (*c)?;
            let column = table.columns.get(c)?;
            let usable = *op == LookupOp::Eq && table.rowid_alias != Some(c) && table.field_of(c).is_some() && binary(column.collation.as_deref());
            usable.then_some((c, *e))
        }) else {
            return Ok(None);
        };
        // Probed once per row of an outer loop, or of the enclosing query
        // (a correlated subquery; not in a statement that writes, which
        // may change the table between two runs of the subquery).
        if before == 0 && (self.stmt.writes || !self.refs_outer(value)) || before != 0 && self.loops.outer_loops_one_row {
            return Ok(None);
        };
        if !binary(self.expr_collation(value).map(|(n, _)| n).as_deref()) {
            return Ok(None);
        }
        // The comparison's affinity must let an index on the column decide
        // it (SQLite's rule for using any index), and is the probe's.
        let column_aff = table.columns[col].affinity;
        let numeric = |a: Affinity| matches!(a, Affinity::Numeric | Affinity::Integer | Affinity::Real);
        let has = |a: Option<Affinity>| a.filter(|a| *a != Affinity::Blob);
        let compared = match (has(Some(column_aff)), has(self.expr_affinity(value))) {
            (Some(a), Some(b)) => {
                if numeric(a) || numeric(b) {
                    Affinity::Numeric
                } else {
                    Affinity::Blob
                }
            }
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => Affinity::Blob,
        };
        let usable = compared == Affinity::Blob || (compared == Affinity::Text && column_aff == Affinity::Text) || (numeric(compared) && numeric(column_aff));
        if !usable {
            return Ok(None);
        }
        let me = 1u64 << it.item.min(63);
        let own: Vec<&'a Expr<'b>> = terms.iter().copied().filter(|t| !has_subquery(t) && self.expr_deps(t) == me && !self.refs_outer(t)).collect();
        // Entries: the key, the other columns the query reads (in table
        // order, as SQLite's automatic index holds them, which orders the
        // rows of one key), then the rowid. Probed from the rows of a
        // subquery in FROM, the key and rowid only: SQLite would rather
        // index the subquery's rows, and this keeps the rows of one key in
        // the order that plan gives.
        let mut fields = vec![col];
        let items = &self.names.scopes.last().unwrap().items;
        let after_subquery = (0..items.len().min(64)).any(|i| before & (1 << i) != 0 && items[i].table.is_empty());
        if let Some(u) = uses.filter(|_| !after_subquery) {
            for c in 0..table.columns.len() {
                let read = u.iter().any(|(i, x)| *i == it.item && *x == Some(c));
                if read && c != col && table.rowid_alias != Some(c) && table.field_of(c).is_some() {
                    fields.push(c);
                }
            }
        }
        let width = fields.len() + 1;
        let auto = self.b.cursor();
        let ki = std::sync::Arc::new(crate::value::record::KeyInfo {
            fields: vec![crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false }; width],
        });
        let built = self.b.label();
        self.b.add(Opcode::Once, 0, built, 0);
        self.b.add4(Opcode::OpenEphemeral, auto, width as i32, 0, P4::KeyInfo(ki), 0);
        let fill_end = self.b.label();
        self.b.add(Opcode::Rewind, it.cursor, fill_end, 0);
        let top = self.b.here();
        let skip = self.b.label();
        for t in &own {
            self.where_term_if_false(t, skip)?;
        }
        let regs = self.b.regs(width);
        for (k, &c) in fields.iter().enumerate() {
            let field = table.field_of(c).unwrap_or(c);
            self.b.add4(Opcode::Column, it.cursor, field as i32, regs + k as i32, crate::sql::codegen::expr::default_p4(table, c), 0);
        }
        self.b.add(Opcode::Rowid, it.cursor, regs + fields.len() as i32, 0);
        let rec = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, width as i32, rec);
        self.b.add(Opcode::IdxInsert, auto, rec, 0);
        self.b.bind(skip);
        // P5 = SQLITE_STMTSTATUS_AUTOINDEX: each row found counts there.
        self.b.add4(Opcode::Next, it.cursor, top as i32, 0, P4::None, 3);
        self.b.bind(fill_end);
        self.b.bind(built);
        // Each outer row: the entries equal to its value (NULL matches none).
        let key = self.b.reg();
        self.expr(value, key)?;
        self.b.add(Opcode::IsNull, key, end, 0);
        if compared != Affinity::Blob {
            self.b.add4(Opcode::Affinity, key, 1, 0, P4::affinity(compared.letter().to_string()), 0);
        }
        self.b.add4(Opcode::SeekGE, auto, end, key, P4::Int64(1), 0);
        let loop_top = self.b.here();
        self.b.add4(Opcode::IdxGT, auto, end, key, P4::Int64(1), 0);
        let rid = self.b.reg();
        self.b.add(Opcode::Column, auto, fields.len() as i32, rid);
        self.b.add(Opcode::SeekRowid, it.cursor, next, rid);
        let partial = if own.is_empty() { "" } else { "PARTIAL " };
        self.stmt.eqp.push(format_args!("SEARCH {item_name} USING AUTOMATIC {partial}COVERING INDEX ({}=?)", table.columns[col].name));
        Ok(Some(LoopKind::Index(auto, loop_top)))
    }

    /// An inner loop that must scan its whole table for every outer row
    /// reads a filtered copy instead: the rows passing the terms that
    /// depend on this table alone are copied once into a temporary table
    /// that takes over the table's cursor number.
    pub(in crate::sql::codegen) fn prefilter_inner_table<'a>(&mut self, it: &FromItem<'a, 'b>, table: &Table, terms: &[&'a Expr<'b>]) -> Result<()> {
        let me = 1u64 << it.item.min(63);
        let mut own: Vec<&'a Expr<'b>> = Vec::new();
        for t in terms {
            if !has_subquery(t) && self.expr_deps(t) == me && !self.refs_outer(t) {
                own.push(t);
            }
        }
        // (Not in a trigger body: its copy would outlive the firing.)
        if own.is_empty() || table.without_rowid.is_some() || !self.dml.firing.is_empty() {
            return Ok(());
        }
        let Some(open_at) = self.b.insns.iter().rposition(|i| i.opcode == Opcode::OpenRead && i.p1 == it.cursor) else {
            return Ok(());
        };
        let n = table.columns.len();
        self.b.insns[open_at].opcode = Opcode::Noop;
        let skip = self.b.label();
        self.b.add(Opcode::Once, 0, skip, 0);
        self.b.add(Opcode::OpenEphemeral, it.cursor, n as i32, 0);
        let src = self.b.cursor();
        self.b.add4(Opcode::OpenRead, src, table.root as i32, table.db as i32, P4::Int64(n as i64), 0);
        self.comment(&table.name);
        self.names.scopes.last_mut().unwrap().items[it.item].cursor = src;
        let r = (|| -> Result<()> {
            let fill_end = self.b.label();
            self.b.add(Opcode::Rewind, src, fill_end, 0);
            let top = self.b.here();
            let next = self.b.label();
            for t in &own {
                self.where_term_if_false(t, next)?;
            }
            // The copy keeps the record layout (VIRTUAL columns are
            // computed from it on read, as from the table).
            let n_fields = table.stored_count();
            let regs = self.b.regs(n_fields);
            for i in 0..n {
                let Some(f) = table.field_of(i) else { continue };
                if table.rowid_alias == Some(i) {
                    self.b.add(Opcode::Null, 0, regs + f as i32, 0);
                } else {
                    let d = crate::sql::codegen::expr::default_p4(table, i);
                    self.b.add4(Opcode::Column, src, f as i32, regs + f as i32, d, 0);
                }
            }
            let rec = self.b.reg();
            let rid = self.b.reg();
            self.b.add(Opcode::MakeRecord, regs, n_fields as i32, rec);
            self.b.add(Opcode::Rowid, src, rid, 0);
            self.b.add(Opcode::Insert, it.cursor, rec, rid);
            self.b.bind(next);
            self.b.add(Opcode::Next, src, top as i32, 0);
            self.b.bind(fill_end);
            Ok(())
        })();
        self.names.scopes.last_mut().unwrap().items[it.item].cursor = it.cursor;
        r?;
        self.b.bind(skip);
        Ok(())
    }
}
