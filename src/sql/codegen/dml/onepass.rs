//! One-pass UPDATE and DELETE: when changing the rows cannot change which
//! rows the WHERE loop visits, the loop runs once and each matching row is
//! changed as soon as it is found, instead of first collecting every
//! matching rowid into a temporary table (`update::collect_rowids`).
//!
//! The WHERE loop is the generated `SELECT rowid FROM t WHERE ...` that the
//! two-pass path compiles, run as a coroutine yielding one rowid at a time
//! (`Dest::Yield`); the statement's loop takes each rowid, seeks its write
//! cursor there and changes the row. The loop's read cursors stay valid
//! across the writes: a B-tree cursor whose tree changed re-seeks by its
//! saved key, and one whose entry was deleted lands on the entry after it
//! (see `btree`'s contract). An index search that holds every column the
//! WHERE reads yields the rowid from the index entry without looking the
//! row up (`LoopContext::dml_where_uses`): the statement's seek is then
//! the row's only lookup, as SQLite's `DeferredSeek` makes it.
//! An UPDATE of every row (no WHERE, no
//! authorizer) needs no coroutine: its write cursor walks the table, as
//! an update in place leaves the cursor on the row (`update.rs`).
//!
//! Invariant (what [`Compiler::onepass_allowed`] checks, falling back to
//! two passes otherwise): the table has a rowid; no trigger, foreign key
//! or RETURNING may observe rows half-way; OR REPLACE is not asked for;
//! nothing in the statement is a subquery (or `IN table`) that could read
//! the target while it changes; no WITH clause; an UPDATE assigns neither
//! the rowid nor any column an index key (or partial index condition,
//! or generated column) depends on, so no entry of the table or of an
//! index the loop may scan moves. The statement is not compiled inside a
//! trigger program (checked: onepass_refused).

use crate::error::{Error, Result};
use crate::sql::codegen::dml::assign::{Assignment, SetValue};
use crate::sql::codegen::target::{OnConflict, WriteTarget};
use crate::sql::codegen::Compiler;
use crate::sql::model::query::Dest;
use crate::sql::schema::Table;
use crate::vdbe::program::{Insn, Opcode, P4};
use sqlite3_parser::ast::{self, Stmt};
use sqlite3_parser::dialect::TokenType;

/// Whether an instruction of a one-pass UPDATE or DELETE can fail only
/// as SQLite's statement without a statement journal may: by an error
/// that ends the whole transaction (I/O, a full disk, interrupt) or one
/// SQLite too leaves half done (a corrupt page, a value too big). Not a
/// function call (any may raise an error; SQLite's `sqlite3MayAbort`), a
/// constraint check or an error halt, a trigger program, a row handed
/// to the application.
fn cannot_abort(i: &Insn) -> bool {
    use Opcode::*;
    match i.opcode {
        Halt => i.p1 == 0,
        Init | Goto | Transaction | If | IfNot | IsNull | NotNull | Once | Noop | InitCoroutine | Yield | EndCoroutine | Integer | Int64 | Real | String8
        | Blob | Null | Variable | Move | Copy | SCopy | Affinity | RealAffinity | Cast | Add | Subtract | Multiply | Divide | Remainder | Concat | BitAnd
        | BitOr | ShiftLeft | ShiftRight | BitNot | Not | And | Or | IsTrue | Eq | Ne | Lt | Le | Gt | Ge | Compare | Jump | MakeRecord | Column | Rowid
        | OpenRead | OpenWrite | Close | NullRow | IfNullRow | Rewind | Last | Next | Prev | SeekRowid | NotExists | SeekGE | SeekGT | SeekLE | SeekLT
        | IdxGE | IdxGT | IdxLE | IdxLT | IdxRowid | Found | NotFound | Insert | Delete | IdxInsert | IdxDelete => true,
        _ => false,
    }
}

/// Whether an expression's text may read a table: a SELECT (subquery,
/// EXISTS, IN (SELECT ...)) or `IN name` (a table or table-valued
/// function). Conservative: a false positive only costs the second pass.
fn may_read_tables(text: &str) -> bool {
    // (A scan, not a token list: the text may be a huge WHERE clause.)
    let mut after_in = false;
    for t in crate::sql::parse::tokens(text.as_bytes()) {
        if matches!(t.kind, TokenType::TK_SELECT | TokenType::TK_VALUES) || (after_in && t.kind != TokenType::TK_LP) {
            return true;
        }
        after_in = t.kind == TokenType::TK_IN;
    }
    false
}

impl Compiler<'_> {
    /// Whether the UPDATE or DELETE of `table` may run in one pass (see the
    /// module doc). `assignments` is `None` for a DELETE.
    pub fn onepass_allowed(
        &self,
        table: &Table,
        with: bool,
        where_clause: Option<&ast::Expr<'_>>,
        returning: bool,
        oc: OnConflict,
        assignments: Option<&[Assignment<'_, '_>]>,
    ) -> bool {
        // invariant: onepass_refused
        if with || returning || oc == OnConflict::Replace || !self.dml.firing.is_empty() {
            return false;
        }
        // invariant: onepass_refused
        if table.without_rowid.is_some() || !self.env.triggers_of(table).is_empty() || self.fk_involved(table) {
            return false;
        }
        if where_clause.is_some_and(|w| may_read_tables(&crate::sql::parse::ast_text(w))) {
            return false;
        }
        let Some(assignments) = assignments else { return true };
        if table.columns.iter().any(|col| col.generated.is_some()) {
            return false;
        }
        let indexes = self.env.schema.indexes_of(table);
        assignments.iter().all(|(i, v)| {
            let value_ok = match v {
                SetValue::Expr(e) => !may_read_tables(&e.to_string()),
                SetValue::RowElement(..) | SetValue::Column(..) => false,
            };
            value_ok
                && *i != usize::MAX
                && table.rowid_alias != Some(*i)
                && indexes.iter().all(|idx| idx.where_sql.is_none() && idx.columns.iter().all(|ic| ic.column.is_some_and(|c| c != *i)))
        })
    }

    /// Whether the one-pass UPDATE or DELETE compiled so far needs no
    /// statement savepoint: none of its instructions can fail but as
    /// SQLite's statement without a statement journal may (see
    /// `cannot_abort` and `Program::no_statement_savepoint`).
    pub fn onepass_cannot_abort(&self) -> bool {
        self.stmt.subprograms.is_empty() && self.b.insns.iter().chain(self.b.constants.iter()).all(cannot_abort)
    }

    /// Let a one-pass statement change its rows through the WHERE loop's
    /// own cursors, as SQLite's one-pass DELETE does (`aiCurOnePass`):
    /// the loop (the coroutine compiled from `loop_start` on) opens the
    /// target table and the index it scans; those cursors become the
    /// statement's write cursors for the same trees (`t`), and the write
    /// cursors opened before the loop for them are dropped. The row the
    /// loop yields is then the one its table cursor is on (the write
    /// side's `NotExists` has nothing to seek; a loop reading the index
    /// alone leaves the table cursor for that seek), the index entry it found
    /// the row by is the one its index cursor is on (`IdxDelete` deletes
    /// it there), and a deleted entry leaves the loop's cursor on the
    /// entry after it, where its `Next` goes on (`Cursor::delete`).
    ///
    /// An UPDATE shares only the table cursor (`indexes_too` false): it
    /// rewrites the row in place, and its index entries do not move.
    ///
    /// Only cursors opened once, in the loop's leading run of opens (so
    /// open before the loop yields anything), by a plain `OpenRead` of
    /// the same tree with the same key description, are shared. Sound
    /// because nothing but the yielded row is changed: an entry the loop
    /// is on is either the row's own (deleted through it) or left alone
    /// while a seek for the row's entry moves the cursor, which only a
    /// loop that has finished with that cursor allows (the one-pass loop
    /// has a single FROM item and no subquery: an index it scans is the
    /// one the row came from; see the module doc).
    pub fn onepass_share_cursors(&mut self, t: &mut WriteTarget, loop_start: usize, indexes_too: bool) {
        let insns = &self.b.insns;
        let is_open = |op: Opcode| matches!(op, Opcode::OpenRead | Opcode::OpenWrite | Opcode::OpenEphemeral | Opcode::OpenPseudo | Opcode::SorterOpen);
        // The loop's leading opens (after its InitCoroutine).
        let lead_end = (loop_start + 1..insns.len()).find(|&i| !is_open(insns[i].opcode)).unwrap_or(insns.len());
        let key_text = |p4: &P4| match p4 {
            P4::KeyInfo(k) => Some(format!("{k:?}")),
            _ => None,
        };
        let loop_cursor_of = |root: u32, db: usize, write_cursor: i32| -> Option<usize> {
            let write_open = insns.iter().position(|i| i.opcode == Opcode::OpenWrite && i.p1 == write_cursor)?;
            let mut found = (loop_start + 1..lead_end)
                .filter(|&i| insns[i].opcode == Opcode::OpenRead && insns[i].p2 == root as i32 && insns[i].p3 == db as i32 && insns[i].p5 & 0x02 == 0);
            let at = found.next()?;
            if found.next().is_some() || key_text(&insns[at].p4) != key_text(&insns[write_open].p4) {
                return None;
            }
            let cur = insns[at].p1;
            let opens = insns.iter().chain(self.b.constants.iter()).filter(|i| i.p1 == cur && (is_open(i.opcode) || i.opcode == Opcode::Close)).count();
            (opens == 1).then_some(at)
        };
        let mut shares = Vec::new();
        if let Some(at) = loop_cursor_of(t.table.root, t.table.db, t.cursor) {
            shares.push((at, None));
        }
        for (n, (idx, c)) in t.indexes.iter().enumerate().filter(|_| indexes_too) {
            if let Some(at) = loop_cursor_of(idx.root, idx.db, *c) {
                shares.push((at, Some(n)));
            }
        }
        for (at, which) in shares {
            let shared = self.b.insns[at].p1;
            let old = match which {
                None => std::mem::replace(&mut t.cursor, shared),
                Some(n) => std::mem::replace(&mut t.indexes[n].1, shared),
            };
            self.b.insns[at].opcode = Opcode::OpenWrite;
            if let Some(at) = self.b.insns[..loop_start].iter().position(|i| i.opcode == Opcode::OpenWrite && i.p1 == old) {
                let w = &mut self.b.insns[at];
                w.opcode = Opcode::Noop;
                w.p1 = 0;
                w.p2 = 0;
                w.p3 = 0;
                w.p4 = P4::None;
                self.b.clear_comment(at);
            }
        }
    }

    /// Compile the WHERE loop over `table` as a coroutine yielding the
    /// rowid of each matching row (see the module doc). Returns (the
    /// coroutine's register, the register the rowid is yielded in); the
    /// caller's loop is `Yield co, end` then the row's change.
    pub fn onepass_rowids(&mut self, table: &Table, alias: Option<String>, where_clause: Option<&ast::Expr<'_>>) -> Result<(i32, i32)> {
        let co = self.b.reg();
        let rid = self.b.reg();
        let after = self.b.label();
        let at = self.b.here() as i32;
        self.b.add(Opcode::InitCoroutine, co, after, at + 1);
        self.frame.internal_rowid_read = true;
        self.frame.dml_target = Some(table.name.clone());
        let sql = match where_clause {
            Some(w) => format!(
                "SELECT {} FROM {} AS \"{}\" WHERE {w}",
                crate::sql::resolve::INTERNAL_ROWID,
                self.table_sql_name(table),
                alias.unwrap_or_else(|| table.name.clone()).replace('"', "\"\"")
            ),
            None => format!("SELECT {} FROM {} NOT INDEXED", crate::sql::resolve::INTERNAL_ROWID, self.table_sql_name(table)),
        };
        let compiled = crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
            Some(ast::Cmd::Stmt(Stmt::Select(sel))) => self.compile_dml_where(sel, Dest::Yield { co, reg: rid, width: 1 }).map(|_| ()),
            _ => Err(Error::sql("malformed WHERE")),
        });
        self.frame.internal_rowid_read = false;
        self.frame.dml_target = None;
        compiled?;
        self.b.add(Opcode::EndCoroutine, co, 0, 0);
        self.b.bind(after);
        Ok((co, rid))
    }
}
