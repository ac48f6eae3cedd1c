//! Shadow tables: the ordinary tables a virtual table keeps its content in
//! (FTS5's `%_data`, R*Tree's `%_node`), read-only to ordinary SQL while
//! `SQLITE_DBCONFIG_DEFENSIVE` is on, as SQLite protects them.
//!
//! A table is a shadow table when its name is `<vtab>_<suffix>` for a
//! virtual table `<vtab>` whose module is registered and whose xShadowName
//! (version 3 modules) accepts `<suffix>`. SQLite marks the table as it
//! parses its CREATE TABLE (the part before the last `_` naming a virtual
//! table of any schema) and when the virtual table connects (any `_`
//! after its name, same schema); here the same two readings are made when
//! a statement that would write the table is compiled. (SQLite does not
//! mark a table whose schema was read before the module was registered
//! until the virtual table connects; ringlite treats it as a shadow table
//! from the module's registration on.)
//!
//! Only the check lives here; the statements that refuse (INSERT, UPDATE,
//! DELETE, DROP TABLE, ALTER TABLE, CREATE TRIGGER) call it where SQLite
//! does, with SQLite's messages. Whether the statement being compiled is
//! "ordinary SQL" is the connection's call (`CompileEnv::shadows_read_only`).

use crate::sql::codegen::Compiler;
use crate::sql::schema::Table;

impl Compiler<'_> {
    /// Whether `t` may not be written by the statement being compiled
    /// because it is a shadow table and the connection is defensive.
    pub(crate) fn shadow_table_refused(&self, t: &Table) -> bool {
        self.env.shadows_read_only && self.is_shadow_table(t)
    }

    /// Whether `t` is a shadow table of a virtual table (see the module doc).
    fn is_shadow_table(&self, t: &Table) -> bool {
        if t.virtual_table.is_some() || t.view_select.is_some() {
            return false;
        }
        let Some(reg) = self.env.vtabs else { return false };
        let name = t.name.as_str();
        let last = name.rfind('_');
        name.match_indices('_').any(|(at, _)| {
            let (owner, suffix) = (&name[..at], &name[at + 1..]);
            // As SQLite reads a CREATE TABLE: the name before the last "_"
            // is a virtual table of any schema, its module registered.
            let declared = Some(at) == last
                && self
                    .env
                    .schema
                    .table_in(None, owner)
                    .and_then(|v| v.virtual_table.as_ref())
                    .and_then(|v| reg.module(&v.module))
                    .is_some_and(|(_, m)| m.shadow_name(suffix));
            // As SQLite marks them when a virtual table connects: tables
            // of its schema named after it.
            declared || reg.table(t.db, owner).is_some_and(|inst| inst.module.shadow_name(suffix))
        })
    }
}
