//! The walk of the CREATE statements ALTER TABLE RENAME edits: a table's
//! columns, constraints and REFERENCES, an index's columns and WHERE, a
//! view's SELECT, a trigger's ON table, UPDATE OF columns, WHEN and the
//! statements of its body (their target tables and column lists, NEW and
//! OLD, upserts).

use super::*;

impl Walker<'_> {
    /// Walk one CREATE statement.
    pub fn statement(&mut self, stmt: &Stmt<'_>) {
        match stmt {
            // (Legacy mode: the names SQLite edited before 3.25.)
            Stmt::CreateView { .. } if self.target.legacy => {}
            Stmt::CreateTable { tbl_name, body, .. } if self.target.legacy => {
                if self.home_db == self.target.db && eq(&plain(tbl_name.name.0), &self.target.table) {
                    self.hit(tbl_name.name.0);
                }
                let ast::CreateTableBody::ColumnsAndConstraints { columns, constraints, .. } = body else { return };
                for k in columns.iter().flat_map(|c| c.constraints.iter()) {
                    if let ast::ColumnConstraint::ForeignKey { clause, .. } = &k.constraint {
                        self.foreign_key(clause);
                    }
                }
                for k in constraints.iter().flat_map(|c| c.iter()) {
                    if let ast::TableConstraint::ForeignKey { clause, .. } = &k.constraint {
                        self.foreign_key(clause);
                    }
                }
            }
            Stmt::CreateIndex { tbl_name, .. } if self.target.legacy => {
                if self.home_db == self.target.db && eq(&plain(tbl_name.0), &self.target.table) {
                    self.hit(tbl_name.0);
                }
            }
            Stmt::CreateTrigger { tbl_name, .. } if self.target.legacy => {
                if self.resolve_table(tbl_name.db_name.as_ref(), &tbl_name.name).is_some_and(|t| self.is_target_table(t)) {
                    self.hit(tbl_name.name.0);
                }
            }
            Stmt::CreateTable { tbl_name, body, .. } => self.create_table(tbl_name, body),
            Stmt::CreateIndex { tbl_name, columns, where_clause, .. } => {
                let table = self.schema.table_in(Some(self.home_db), &plain(tbl_name.0));
                let Some(table) = table else { return };
                let is_target = self.is_target_table(table);
                if is_target && self.renames_table() {
                    self.hit(tbl_name.0);
                }
                let (names, complete) = self.columns_of(table);
                let source = Source { complete, ..Source::new(table.name.clone(), false, is_target, names) };
                self.levels.push(vec![source]);
                for c in columns.iter() {
                    self.expr(&c.expr);
                }
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                self.levels.pop();
            }
            Stmt::CreateView { view_name, select, .. } => {
                self.expanding.push(plain(view_name.name.0));
                self.select(select);
            }
            Stmt::CreateTrigger { tbl_name, event, when_clause, commands, .. } => self.trigger(tbl_name, event, when_clause.as_ref(), commands),
            // A virtual table's own statement: its name (the module's
            // arguments are the module's).
            Stmt::CreateVirtualTable { tbl_name, .. } => {
                if self.home_db == self.target.db && eq(&plain(tbl_name.name.0), &self.target.table) && self.renames_table() {
                    self.hit(tbl_name.name.0);
                }
            }
            _ => {}
        }
    }

    pub(super) fn create_table(&mut self, tbl_name: &QualifiedName<'_>, body: &ast::CreateTableBody<'_>) {
        let name = plain(tbl_name.name.0);
        let is_target = self.home_db == self.target.db && eq(&name, &self.target.table);
        if is_target && self.renames_table() {
            self.hit(tbl_name.name.0);
        }
        let ast::CreateTableBody::ColumnsAndConstraints { columns, constraints, .. } = body else { return };
        let names = columns.iter().map(|c| plain(c.col_name.0)).collect();
        self.levels.push(vec![Source::new(name, false, is_target, names)]);
        for c in columns.iter() {
            if is_target && self.is_target_column(c.col_name.0) {
                self.hit(c.col_name.0);
            }
            for k in c.constraints.iter() {
                match &k.constraint {
                    ast::ColumnConstraint::Check(e) | ast::ColumnConstraint::Generated { expr: e, .. } => self.expr(e),
                    ast::ColumnConstraint::ForeignKey { clause, .. } => self.foreign_key(clause),
                    _ => {}
                }
            }
        }
        for k in constraints.iter().flat_map(|c| c.iter()) {
            match &k.constraint {
                ast::TableConstraint::PrimaryKey { columns, .. } | ast::TableConstraint::Unique { columns, .. } => {
                    for c in columns.iter() {
                        self.expr(&c.expr);
                    }
                }
                ast::TableConstraint::Check(e, _) => self.expr(e),
                ast::TableConstraint::ForeignKey { columns, clause, .. } => {
                    for c in columns.iter() {
                        if is_target && self.is_target_column(c.col_name.0) {
                            self.hit(c.col_name.0);
                        }
                    }
                    self.foreign_key(clause);
                }
            }
        }
        self.levels.pop();
    }

    /// `REFERENCES parent(columns)`: the parent is in the same database.
    pub(super) fn foreign_key(&mut self, clause: &ast::ForeignKeyClause<'_>) {
        let parent_is_target = self.home_db == self.target.db && eq(&plain(clause.tbl_name.0), &self.target.table);
        if !parent_is_target || !self.target.references {
            return;
        }
        if self.renames_table() {
            self.hit(clause.tbl_name.0);
        }
        for c in clause.columns.iter().flat_map(|c| c.iter()) {
            if self.is_target_column(c.col_name.0) {
                self.hit(c.col_name.0);
            }
        }
    }

    pub(super) fn trigger(&mut self, tbl_name: &QualifiedName<'_>, event: &ast::TriggerEvent<'_>, when: Option<&Expr<'_>>, commands: &[TriggerCmd<'_>]) {
        let Some(table) = self.resolve_table(tbl_name.db_name.as_ref(), &tbl_name.name) else {
            return;
        };
        let is_target = self.is_target_table(table);
        if is_target && self.renames_table() {
            self.hit(tbl_name.name.0);
        }
        if let ast::TriggerEvent::UpdateOf(cols) = event {
            for c in cols.iter() {
                if is_target && self.is_target_column(c.0) {
                    self.hit(c.0);
                }
            }
        }
        let (columns, complete) = self.columns_of(table);
        let row = |name: &str| Source { qualified_only: true, complete, ..Source::new(name.into(), true, is_target, columns.clone()) };
        self.levels.push(vec![row("new"), row("old")]);
        if let Some(w) = when {
            self.expr(w);
        }
        for cmd in commands {
            self.trigger_command(cmd);
        }
        self.levels.pop();
    }

    /// The source a trigger statement writes to.
    pub(super) fn written_table(&mut self, tbl_name: &QualifiedName<'_>) -> Source {
        let src = self.table_source(tbl_name, None);
        if src.columns.is_empty() && self.error.is_none() && self.resolve_table(tbl_name.db_name.as_ref(), &tbl_name.name).is_none() {
            let db = self.db_name(if self.home_db == 1 { 0 } else { self.home_db });
            self.fail(format!("no such table: {db}.{}", plain(tbl_name.name.0)));
        }
        src
    }

    pub(super) fn sets(&mut self, sets: &[ast::Set<'_>], is_target: bool) {
        for s in sets {
            for c in s.col_names.iter() {
                if is_target && self.is_target_column(c.0) {
                    self.hit(c.0);
                }
            }
            self.expr(&s.expr);
        }
    }

    pub(super) fn trigger_command(&mut self, cmd: &TriggerCmd<'_>) {
        match cmd {
            TriggerCmd::Update { tbl_name, sets, from, where_clause, .. } => {
                let src = self.written_table(tbl_name);
                let is_target = src.is_target;
                self.levels.push(vec![src]);
                if let Some(f) = from {
                    self.from(f);
                }
                self.sets(sets, is_target);
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                self.levels.pop();
            }
            TriggerCmd::Insert { tbl_name, col_names, select, upsert, .. } => {
                let src = self.written_table(tbl_name);
                let is_target = src.is_target;
                for c in col_names.iter().flat_map(|c| c.iter()) {
                    if is_target && self.is_target_column(c.0) {
                        self.hit(c.0);
                    }
                }
                self.select(select);
                // (SQLite renames `excluded` itself with the table.)
                let excluded = Source { complete: src.complete, ..Source::new("excluded".into(), false, is_target, src.columns.clone()) };
                self.levels.push(vec![src, excluded]);
                let mut next = *upsert;
                while let Some(u) = next {
                    if let Some(ix) = &u.index {
                        for t in ix.targets.iter() {
                            self.expr(&t.expr);
                        }
                        if let Some(w) = &ix.where_clause {
                            self.expr(w);
                        }
                    }
                    if let ast::UpsertDo::Set { sets, where_clause } = &u.do_clause {
                        self.sets(sets, is_target);
                        if let Some(w) = where_clause {
                            self.expr(w);
                        }
                    }
                    next = u.next;
                }
                self.levels.pop();
            }
            TriggerCmd::Delete { tbl_name, where_clause } => {
                let src = self.written_table(tbl_name);
                self.levels.push(vec![src]);
                if let Some(w) = where_clause {
                    self.expr(w);
                }
                self.levels.pop();
            }
            TriggerCmd::Select(s) => {
                self.select(s);
            }
        }
    }
}
