//! Aggregates with an ORDER BY inside the call (`group_concat(a ORDER BY
//! b DESC)`, SQLite 3.44+): the function must see its group's rows in that
//! order, whatever order the loops or the GROUP BY sorter read them in.
//!
//! Each such call owns an ephemeral index, emptied when its group starts
//! (`reset_aggs`). A row that passes the call's FILTER and DISTINCT is not
//! stepped but stored there as `[null flag,] term ... , sequence, arg ...`;
//! when the group ends (`agg_output`, before `AggFinal`) the index is read
//! in order and each stored argument row is stepped. Invariants: the key
//! compares every field (the sequence number makes each row unique, so
//! rows with equal ORDER BY terms keep the order they arrived in, as
//! SQLite's); a term with an explicit NULLS FIRST/LAST is preceded by a
//! field holding whether it is NULL, ordered so NULLs land where asked.
//! DISTINCT keeps the first row seen of each argument value (the check
//! runs before the row is stored), as SQLite does. A function that reads
//! subtypes (`json_group_array(json(x) ORDER BY y)`) gets them back: each
//! argument's subtype is stored after the arguments.

use crate::sql::codegen::query::aggregate::AggCall;
use crate::sql::codegen::Compiler;
use crate::value::collation::Collation;
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{NullsOrder, SortOrder, SortedColumn};
use std::sync::Arc;

/// The ORDER BY of one aggregate call and the cursor of its index.
pub(in crate::sql::codegen) struct OrderedArgs<'a, 'b> {
    pub(in crate::sql::codegen) terms: &'a [SortedColumn<'b>],
    pub(in crate::sql::codegen) cursor: i32,
}

impl OrderedArgs<'_, '_> {
    /// The fields of the stored row before the arguments: per term an
    /// optional NULL flag and the term, then the sequence number.
    fn key_width(&self) -> usize {
        self.terms.iter().map(|t| 1 + t.nulls.is_some() as usize).sum::<usize>() + 1
    }
}

/// Whether the call's argument subtypes are stored with its rows: for a
/// function that declares it reads them (SQLITE_SUBTYPE), and for the
/// built-in ones (the JSON aggregates read them).
fn keeps_subtypes(a: &AggCall<'_, '_>) -> bool {
    a.def.flags.subtype || a.def.flags.builtin
}

/// The fields of a stored row after the key: the arguments, then their
/// subtypes when kept.
fn payload_width(a: &AggCall<'_, '_>) -> usize {
    a.n_func_args * (1 + keeps_subtypes(a) as usize)
}

impl Compiler<'_> {
    /// Open (or empty) the call's index: done when a group starts.
    pub(in crate::sql::codegen) fn open_ordered_rows(&mut self, a: &AggCall<'_, '_>, o: &OrderedArgs<'_, '_>) {
        let mut fields = Vec::new();
        for t in o.terms {
            let descending = matches!(t.order, Some(SortOrder::Desc));
            if let Some(n) = t.nulls {
                // 1 for NULL: descending puts NULLs first.
                fields.push(KeyField { collation: Collation::binary(), descending: n == NullsOrder::First });
            }
            let collation = match self.expr_collation(&t.expr) {
                Some((name, _)) => self.collation(&name).unwrap_or_else(|_| Collation::binary()),
                None => Collation::binary(),
            };
            fields.push(KeyField { collation, descending });
        }
        fields.push(KeyField { collation: Collation::binary(), descending: false });
        for _ in 0..payload_width(a) {
            fields.push(KeyField { collation: Collation::binary(), descending: false });
        }
        debug_assert_eq!(fields.len(), o.key_width() + payload_width(a));
        let n = fields.len() as i32;
        self.b.add4(Opcode::OpenEphemeral, o.cursor, n, 0, P4::KeyInfo(Arc::new(KeyInfo { fields })), 0);
    }

    /// Store one row of the call (its arguments at `args`, its ORDER BY
    /// terms after them and the FILTER) in the index.
    pub(in crate::sql::codegen) fn insert_ordered_row(&mut self, a: &AggCall<'_, '_>, o: &OrderedArgs<'_, '_>, args: i32) {
        let width = o.key_width() + payload_width(a);
        let base = self.b.regs(width);
        let terms = args + a.n_func_args as i32 + a.has_filter as i32;
        let mut k = base;
        for (i, t) in o.terms.iter().enumerate() {
            let term = terms + i as i32;
            if t.nulls.is_some() {
                let not_null = self.b.label();
                self.b.add(Opcode::Integer, 0, k, 0);
                self.b.add(Opcode::NotNull, term, not_null, 0);
                self.b.add(Opcode::Integer, 1, k, 0);
                self.b.bind(not_null);
                k += 1;
            }
            self.b.add(Opcode::SCopy, term, k, 0);
            k += 1;
        }
        self.b.add(Opcode::Sequence, o.cursor, k, 0);
        k += 1;
        if a.n_func_args > 0 {
            self.b.add(Opcode::Copy, args, k, a.n_func_args as i32 - 1);
        }
        if keeps_subtypes(a) {
            for i in 0..a.n_func_args as i32 {
                self.b.add(Opcode::GetSubtype, args + i, k + a.n_func_args as i32 + i, 0);
            }
        }
        let rec = self.b.reg();
        self.b.add(Opcode::MakeRecord, base, width as i32, rec);
        self.b.add(Opcode::IdxInsert, o.cursor, rec, 0);
    }

    /// Step the call over its group's stored rows, in order.
    pub(in crate::sql::codegen) fn step_ordered_rows(&mut self, a: &AggCall<'_, '_>, o: &OrderedArgs<'_, '_>) {
        let args = self.b.regs(a.n_func_args.max(1));
        let done = self.b.label();
        self.b.add(Opcode::Rewind, o.cursor, done, 0);
        let top = self.b.here();
        let first = o.key_width();
        for i in 0..a.n_func_args {
            self.b.add(Opcode::Column, o.cursor, (first + i) as i32, args + i as i32);
        }
        if keeps_subtypes(a) {
            let subtype = self.b.reg();
            for i in 0..a.n_func_args {
                self.b.add(Opcode::Column, o.cursor, (first + a.n_func_args + i) as i32, subtype);
                self.b.add(Opcode::SetSubtype, subtype, args + i as i32, 0);
            }
        }
        self.b.add4(Opcode::AggStep, 0, args, a.acc, P4::Func(a.def.clone()), a.n_func_args as u16);
        self.b.add(Opcode::Next, o.cursor, top as i32, 0);
        self.b.bind(done);
    }
}
