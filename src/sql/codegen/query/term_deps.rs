//! Which FROM items of the innermost scope a WHERE term reads (a bit
//! per item; `u64::MAX` when not known before the loops: a subquery, a
//! result-column alias), memoised during the join-order search.
//!
//! Invariant: a term is placed at the outermost loop after every item
//! its mask names, so the mask may be too wide, never too narrow.

use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{has_subquery, walk};
use crate::sql::parse::unquoted;
use sqlite3_parser::ast::{self, Expr};

impl Compiler<'_> {
    /// Which FROM items (bits) of the innermost scope `e` reads.
    pub fn expr_deps(&mut self, e: &Expr<'_>) -> u64 {
        let key = e as *const Expr<'_> as usize;
        if let Some(&known) = self.names.name_memo.as_ref().and_then(|m| m.deps.get(&key)) {
            // invariant: name_memo_stable
            debug_assert_eq!(known, self.expr_deps_resolved(e), "a remembered dependency mask went stale");
            return known;
        }
        let deps = self.expr_deps_resolved(e);
        if let Some(m) = self.names.name_memo.as_mut() {
            m.deps.insert(key, deps);
        }
        deps
    }

    /// [`Self::expr_deps`], where a bare name that is a result alias of
    /// the innermost SELECT counts as the items its expression reads
    /// (re-parsed from its text, without the aliases: an alias's
    /// expression cannot name one).
    pub fn expr_deps_through_aliases(&mut self, e: &Expr<'_>) -> u64 {
        let deps = self.expr_deps(e);
        if deps != u64::MAX || has_subquery(e) || self.names.deps_through_aliases {
            return deps;
        }
        self.names.deps_through_aliases = true;
        let deps = self.expr_deps_resolved(e);
        self.names.deps_through_aliases = false;
        deps
    }

    /// What the expression of result alias `name` of the innermost SELECT
    /// reads (`None`: not such an alias, or not known before the loops).
    fn alias_deps(&mut self, name: &str) -> Option<u64> {
        let (level, text) = self.find_alias(name)?;
        if level + 1 != self.names.aliases.len() {
            return None;
        }
        let saved = self.names.aliases.split_off(level);
        let sql = format!("SELECT {text}");
        let found = crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| {
            if let Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) = cmd {
                if let ast::OneSelect::Select { columns, .. } = &sel.body.select {
                    if let Some(ast::ResultColumn::Expr(x, _)) = columns.first() {
                        return Ok(Some(self.expr_deps_resolved(x)));
                    }
                }
            }
            Ok(None)
        });
        self.names.aliases.extend(saved);
        found.ok().flatten().filter(|&m| m != u64::MAX)
    }

    fn expr_deps_resolved(&mut self, e: &Expr<'_>) -> u64 {
        if has_subquery(e) {
            return u64::MAX;
        }
        // (Names as written, unquoted where used: no copy of each.)
        let mut names: Vec<(Option<&str>, Option<&str>, &str)> = Vec::new();
        walk(e, &mut |x| {
            // (A NULL test folded to an integer reads no column.)
            if self.null_fold(x).is_some() {
                return false;
            }
            match x {
                // `x IN ()` is the constant false (true with NOT) that
                // SQLite makes it, its left side never read: it depends
                // on no table, so a WHERE term of it is tested once,
                // before the loops (a scan that never starts).
                Expr::InList { lhs, rhs, .. } if rhs.is_none_or(|r| r.is_empty()) && !crate::sql::codegen::expr::row_value::is_written_row(lhs) => {
                    return false
                }
                Expr::Id(id) => names.push((None, None, id.0)),
                Expr::Name(n) => names.push((None, None, n.0)),
                Expr::Qualified(t, c) => names.push((None, Some(t.0), c.0)),
                Expr::DoublyQualified(d, t, c) => names.push((Some(d.0), Some(t.0), c.0)),
                _ => {}
            }
            true
        });
        let mut mask = 0u64;
        for (d, q, n) in names {
            let (d, q, n) = (d.map(unquoted), q.map(unquoted), unquoted(n));
            let found = match d {
                // `db.table.column` reads the item of that table in that database.
                Some(d) => match self.db_index(&d) {
                    Some(db) => crate::sql::resolve::resolve_in(&mut self.names.scopes, Some(db), q.as_deref(), &n),
                    None => Ok(None),
                },
                None => self.resolve_name(q.as_deref(), &n),
            };
            if let Ok(Some(r)) = found {
                if r.depth == 0 && r.item < 64 {
                    mask |= 1 << r.item;
                }
                // An unqualified USING column of a RIGHT/FULL JOIN also
                // reads the right-hand column it is coalesced with.
                if q.is_none() && !self.frame.using_coalesce.is_empty() {
                    if let Some(reads) = self.frame.using_coalesce.get(&(r.cursor, r.column.map_or(-1, |c| c as i64))) {
                        for p in reads.iter().filter(|p| r.depth == 0 && p.item < 64) {
                            mask |= 1 << p.item;
                        }
                    }
                }
            } else if q.is_none() {
                // Could be an alias of a result column: evaluate late.
                if self.alias_visible(&n) {
                    let through = if self.names.deps_through_aliases { self.alias_deps(&n) } else { None };
                    mask = through.map_or(u64::MAX, |m| mask | m);
                }
            }
        }
        mask
    }
}
