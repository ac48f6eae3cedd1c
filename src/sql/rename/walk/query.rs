//! The walk of queries: WITH, SELECT cores and compounds (their result
//! names and aliases, ORDER BY), FROM sources and join constraints, window
//! definitions and expressions.

use super::*;
use crate::util::ascii::AsciiLower;

impl Walker<'_> {
    /// The source a table name in FROM stands for (a CTE first).
    pub(super) fn table_source(&mut self, qn: &QualifiedName<'_>, alias: Option<&ast::As<'_>>) -> Source {
        let name = plain(qn.name.0);
        let alias = alias.map(alias_of);
        if qn.db_name.is_none() {
            if let Some(cte) = self.ctes.iter().rev().find(|c| eq(&c.name, &name)) {
                return Source { complete: cte.complete, ..Source::new(alias.clone().unwrap_or(name), alias.is_some(), false, cte.columns.clone()) };
            }
        }
        match self.resolve_table(qn.db_name.as_ref(), &qn.name) {
            Some(t) => {
                // Resolving a virtual table connects it (SQLite reports a
                // missing module as the object's error).
                if let (Err(e), 0) = (t.connect(), self.quiet) {
                    self.fail(e.message);
                }
                let is_target = self.is_target_table(t);
                if is_target && self.renames_table() {
                    self.hit(qn.name.0);
                }
                let (columns, complete) = self.columns_of(t);
                Source { complete, ..Source::new(alias.clone().unwrap_or(name), alias.is_some(), is_target, columns) }
            }
            None => {
                self.unknown_sources += 1;
                Source { complete: false, ..Source::new(alias.clone().unwrap_or(name), alias.is_some(), false, Vec::new()) }
            }
        }
    }

    pub(super) fn missing_table(&mut self, qn: &QualifiedName<'_>) {
        if self.resolve_table(qn.db_name.as_ref(), &qn.name).is_some() {
            return;
        }
        let name = plain(qn.name.0);
        if is_builtin_table(&name) {
            return;
        }
        if qn.db_name.is_none() && self.ctes.iter().any(|c| eq(&c.name, &name)) {
            return;
        }
        let db = match &qn.db_name {
            Some(d) => plain(d.0),
            None => self.db_name(if self.home_db == 1 { 0 } else { self.home_db }),
        };
        self.fail(format!("no such table: {db}.{name}"));
    }

    /// Add a FROM clause's sources to the innermost level, each join's
    /// constraint walked once its right side is there.
    pub(super) fn from(&mut self, from: &ast::FromClause<'_>) {
        crate::sql::parse::with_stack(|| self.walk_from_clause(from));
    }

    pub(super) fn walk_from_clause(&mut self, from: &ast::FromClause<'_>) {
        if let Some(first) = from.select {
            self.select_table(first);
        }
        for j in from.joins.iter().flat_map(|j| j.iter()) {
            let before = self.levels.last().map_or(0, |l| l.len());
            self.select_table(&j.table);
            match &j.constraint {
                Some(ast::JoinConstraint::On(e)) => self.expr(e),
                Some(ast::JoinConstraint::Using(names)) => {
                    for n in names.iter() {
                        self.using_column(n.0, before);
                    }
                }
                None => {}
            }
        }
    }

    pub(super) fn select_table(&mut self, t: &SelectTable<'_>) {
        let source = match t {
            SelectTable::Table(qn, alias, _) => {
                self.missing_table(qn);
                self.table_source(qn, alias.as_ref())
            }
            SelectTable::TableCall(qn, args, alias) => {
                for a in args.iter().flat_map(|a| a.iter()) {
                    self.expr(a);
                }
                let name = alias.as_ref().map_or_else(|| plain(qn.name.0), alias_of);
                self.unknown_sources += 1;
                Source { complete: false, ..Source::new(name, true, false, Vec::new()) }
            }
            SelectTable::Select(sel, alias) => {
                // (A subquery in FROM does not see the sources beside it.)
                let unknown = self.unknown_sources;
                let beside = self.levels.pop();
                let columns = self.select(sel);
                self.levels.extend(beside);
                let name = alias.as_ref().map(alias_of).unwrap_or_default();
                let complete = unknown == self.unknown_sources && !columns.iter().any(String::is_empty);
                Source { complete, ..Source::new(name, true, false, columns) }
            }
            SelectTable::Sub(from, _) => {
                self.from(from);
                return;
            }
        };
        if let Some(level) = self.levels.last_mut() {
            level.push(source);
        }
    }

    pub(super) fn with(&mut self, with: &ast::With<'_>) {
        for cte in with.ctes.iter() {
            let name = plain(cte.tbl_name.0);
            let declared: Option<Vec<String>> = cte.columns.map(|cs| cs.iter().map(|c| plain(c.col_name.0)).collect());
            // A CTE the statement never names again expands no view.
            let unused = self.name_counts.get(&name.ascii_lower()).is_some_and(|&n| n <= 1);
            self.quiet += usize::from(unused);
            let unknown = self.unknown_sources;
            if with.recursive {
                // The CTE may read itself.
                self.ctes.push(Cte { name: name.clone(), columns: declared.clone().unwrap_or_default(), complete: declared.is_some() });
                let names = self.select(cte.select);
                self.ctes.pop();
                let complete = unknown == self.unknown_sources && (declared.is_some() || !names.iter().any(String::is_empty));
                self.ctes.push(Cte { name, columns: declared.unwrap_or(names), complete });
            } else {
                let names = self.select(cte.select);
                let complete = unknown == self.unknown_sources && (declared.is_some() || !names.iter().any(String::is_empty));
                self.ctes.push(Cte { name, columns: declared.unwrap_or(names), complete });
            }
            self.quiet -= usize::from(unused);
        }
    }

    /// Walk a SELECT; its result column names.
    pub fn select(&mut self, sel: &Select<'_>) -> Vec<String> {
        crate::sql::parse::with_stack(|| self.select_inner(sel))
    }

    pub(super) fn select_inner(&mut self, sel: &Select<'_>) -> Vec<String> {
        let ctes = self.ctes.len();
        if let Some(w) = &sel.with {
            self.with(w);
        }
        // (SQLite resolves LIMIT and OFFSET first: their errors come first.)
        if let Some(l) = sel.limit {
            self.expr(&l.expr);
            if let Some(o) = &l.offset {
                self.expr(o);
            }
        }
        let compound = sel.body.compounds.as_ref().is_some_and(|c| !c.is_empty());
        let (names, aliases) = self.one_select(&sel.body.select);
        if let Some(order_by) = sel.order_by {
            let read = if compound { columns_read(&sel.body.select) } else { Vec::new() };
            for term in order_by.iter() {
                // A bare name matching a result alias is that column; in
                // a compound, another bare name is a column the first
                // SELECT reads, or no column at all (see
                // `compound_order_by`).
                let mut e = &term.expr;
                while let Expr::Collate(inner, _) = e {
                    e = inner;
                }
                let bare = match e {
                    Expr::Id(id) => Some(plain(id.0)),
                    _ => None,
                };
                if let Some(b) = bare {
                    if aliases.iter().any(|a| eq(a, &b)) || (compound && !read.iter().any(|r| eq(r, &b))) {
                        continue;
                    }
                }
                self.expr(&term.expr);
            }
        }
        self.levels.pop();
        self.aliases.pop();
        for c in sel.body.compounds.iter().flat_map(|c| c.iter()) {
            self.one_select(&c.select);
            self.levels.pop();
            self.aliases.pop();
        }
        if compound {
            self.compound_order_by(sel, &names);
        }
        self.ctes.truncate(ctes);
        names
    }

    /// A compound's ORDER BY terms must name a result column: a bare name
    /// is a result name, or the column a result reads.
    pub(super) fn compound_order_by(&mut self, sel: &Select<'_>, names: &[String]) {
        let read = columns_read(&sel.body.select);
        // (Names from `*` may be incomplete: no check then.)
        if let OneSelect::Select { columns, .. } = &sel.body.select {
            if columns.iter().any(|rc| !matches!(rc, ResultColumn::Expr(..))) {
                return;
            }
        }
        for (i, term) in sel.order_by.iter().flat_map(|o| o.iter()).enumerate() {
            let mut e = &term.expr;
            while let Expr::Collate(inner, _) = e {
                e = inner;
            }
            let Expr::Id(id) = e else {
                // An expression (not a column name, not a column number)
                // must be one of an arm's result expressions as written.
                if !matches!(e, Expr::Qualified(..) | Expr::DoublyQualified(..))
                    && crate::sql::model::expr_shape::parse_time_integer(e).is_none()
                    && !any_arm_result_is(sel, &term.expr)
                {
                    self.fail(format!("{} ORDER BY term does not match any column in the result set", ordinal(i + 1)));
                }
                continue;
            };
            let name = plain(id.0);
            if names.iter().chain(read.iter()).any(|n| eq(n, &name)) {
                continue;
            }
            self.fail(format!("{} ORDER BY term does not match any column in the result set", ordinal(i + 1)));
        }
    }

    /// Walk one SELECT core, leaving its level pushed (the caller pops it
    /// after ORDER BY); its result names and explicit aliases.
    pub(super) fn one_select(&mut self, s: &OneSelect<'_>) -> (Vec<String>, Vec<String>) {
        self.levels.push(Vec::new());
        let aliases: Vec<String> = match s {
            OneSelect::Select { columns, .. } => columns
                .iter()
                .filter_map(|rc| match rc {
                    ResultColumn::Expr(_, Some(a)) => Some(alias_of(a)),
                    _ => None,
                })
                .collect(),
            OneSelect::Values(_) => Vec::new(),
        };
        self.aliases.push(aliases);
        match s {
            OneSelect::Values(rows) => {
                for row in rows.iter() {
                    for e in row.iter() {
                        self.expr(e);
                    }
                }
                let n = rows.first().map_or(0, |r| r.len());
                ((1..=n).map(|i| format!("column{i}")).collect(), Vec::new())
            }
            OneSelect::Select { columns, from, where_clause, group_by, having, window_clause, .. } => {
                if let Some(f) = from {
                    self.from(f);
                }
                let mut names = Vec::new();
                let aliases = self.aliases.last().cloned().unwrap_or_default();
                for rc in columns.iter() {
                    match rc {
                        ResultColumn::Expr(e, alias) => {
                            self.expr(e);
                            let name = match (alias, e) {
                                (Some(a), _) => alias_of(a),
                                (None, Expr::Id(id)) => plain(id.0),
                                (None, Expr::Qualified(_, c) | Expr::DoublyQualified(_, _, c)) => plain(c.0),
                                _ => String::new(),
                            };
                            names.push(name);
                        }
                        ResultColumn::Star => {
                            let level = self.levels.last().map(|l| l.iter().flat_map(|s| s.columns.clone()).collect::<Vec<_>>()).unwrap_or_default();
                            names.extend(level);
                        }
                        ResultColumn::TableStar(t) => {
                            let found = self.levels.last().and_then(|l| l.iter().find(|s| eq(&s.name, &plain(t.0))));
                            if let Some(s) = found {
                                names.extend(s.columns.clone());
                                if s.is_target && !s.aliased && self.renames_table() {
                                    self.hit(t.0);
                                }
                            }
                        }
                    }
                }
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                for e in group_by.iter().flat_map(|g| g.iter()) {
                    if let Expr::Id(id) = e {
                        if aliases.iter().any(|a| eq(a, &plain(id.0))) {
                            continue;
                        }
                    }
                    self.expr(e);
                }
                if let Some(h) = having {
                    self.expr(h);
                }
                for w in window_clause.iter().flat_map(|w| w.iter()) {
                    self.window(&w.window);
                }
                (names, aliases)
            }
        }
    }

    pub(super) fn window(&mut self, w: &ast::Window<'_>) {
        for e in w.partition_by.iter().flat_map(|p| p.iter()) {
            self.expr(e);
        }
        for t in w.order_by.iter().flat_map(|o| o.iter()) {
            self.expr(&t.expr);
        }
        if let Some(f) = &w.frame_clause {
            for b in std::iter::once(&f.start).chain(f.end.iter()) {
                if let ast::FrameBound::Following(e) | ast::FrameBound::Preceding(e) = b {
                    self.expr(e);
                }
            }
        }
    }

    pub(super) fn exprs(&mut self, es: &[Expr<'_>]) {
        for e in es {
            self.expr(e);
        }
    }

    pub(super) fn tail(&mut self, t: Option<&ast::FunctionTail<'_>>) {
        let Some(t) = t else { return };
        if let Some(f) = t.filter_clause {
            self.expr(f);
        }
        if let Some(ast::Over::Window(w)) = t.over_clause {
            self.window(w);
        }
    }

    /// Walk an expression.
    /// Out of line: its stack check was inlined at each of ~30 callers.
    #[inline(never)]
    pub fn expr(&mut self, e: &Expr<'_>) {
        crate::sql::parse::with_stack(|| self.expr_inner(e));
    }

    pub(super) fn expr_inner(&mut self, e: &Expr<'_>) {
        match e {
            Expr::Id(id) => self.column_ref(None, id.0),
            Expr::Qualified(t, c) => self.column_ref(Some(t), c.0),
            Expr::DoublyQualified(_, t, c) => self.column_ref(Some(t), c.0),
            Expr::Between { lhs, start, end, .. } => {
                self.expr(lhs);
                self.expr(start);
                self.expr(end);
            }
            Expr::Binary(a, _, b) => {
                self.expr(a);
                self.expr(b);
            }
            // (SQLite does not fold while it renames: the names the fold
            // dropped are renamed too.)
            Expr::FoldedAnd(and) => self.expr(and),
            Expr::Case { base, when_then_pairs, else_expr } => {
                if let Some(b) = base {
                    self.expr(b);
                }
                for (w, t) in when_then_pairs.iter() {
                    self.expr(w);
                    self.expr(t);
                }
                if let Some(x) = else_expr {
                    self.expr(x);
                }
            }
            Expr::Cast { expr, .. } | Expr::Collate(expr, _) | Expr::IsNull(expr) | Expr::NotNull(expr) | Expr::Unary(_, expr) => self.expr(expr),
            Expr::Exists(s) | Expr::Subquery(s) => {
                self.select(s);
            }
            Expr::FunctionCall { args, order_by, filter_over, .. } => {
                self.exprs(args.unwrap_or(&[]));
                if let Some(ast::FunctionCallOrder::SortList(cols)) = order_by {
                    for c in cols.iter() {
                        self.expr(&c.expr);
                    }
                }
                self.tail(filter_over.as_ref());
            }
            Expr::FunctionCallStar { filter_over, .. } => self.tail(filter_over.as_ref()),
            // (SQLite reads `x IN ()` as a constant: its `x` is no name.)
            Expr::InList { rhs: None, .. } => {}
            Expr::InList { lhs, rhs, .. } => {
                self.expr(lhs);
                self.exprs(rhs.unwrap_or(&[]));
            }
            Expr::InSelect { lhs, rhs, .. } => {
                self.expr(lhs);
                self.select(rhs);
            }
            Expr::InTable { lhs, rhs, args, .. } => {
                self.expr(lhs);
                let cte = rhs.db_name.is_none() && self.ctes.iter().any(|c| eq(&c.name, &plain(rhs.name.0)));
                if !cte && self.renames_table() && self.resolve_table(rhs.db_name.as_ref(), &rhs.name).is_some_and(|t| self.is_target_table(t)) {
                    self.hit(rhs.name.0);
                }
                self.exprs(args.unwrap_or(&[]));
            }
            Expr::Like { lhs, rhs, escape, .. } => {
                self.expr(lhs);
                self.expr(rhs);
                if let Some(x) = escape {
                    self.expr(x);
                }
            }
            Expr::Parenthesized(v) => self.exprs(v),
            Expr::Raise(_, Some(m)) => self.expr(m),
            Expr::Raise(_, None) | Expr::Literal(_) | Expr::Name(_) | Expr::Variable(_) => {}
        }
    }
}

/// Whether `e` is written as a result expression of one of the arms of
/// compound `sel` (a COLLATE included: SQLite matches none of
/// `x + 1 COLLATE nocase` with `x + 1`); also when an arm's columns are
/// not all expressions (`*`: not known here), so that nothing is refused
/// wrongly.
fn any_arm_result_is(sel: &Select<'_>, e: &Expr<'_>) -> bool {
    // (Without the position tags of `rename::tagged`: two tokens of one
    // text are told apart by their tags only.)
    fn bare(e: &Expr<'_>) -> String {
        e.to_string().chars().filter(|c| !('\u{E000}'..='\u{E00A}').contains(c)).collect()
    }
    let text = bare(e);
    let arms = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
    for arm in arms {
        match arm {
            OneSelect::Select { columns, .. } => {
                for c in columns.iter() {
                    match c {
                        ResultColumn::Expr(r, _) if bare(r).eq_ci(&text) => return true,
                        ResultColumn::Expr(..) => {}
                        _ => return true,
                    }
                }
            }
            OneSelect::Values(_) => {}
        }
    }
    false
}
