//! # VACUUM and VACUUM INTO
//!
//! `lang_vacuum.txt`. The statement compiles to a description
//! ([`Vacuum`]); the connection runs it here, the way SQLite does, on main
//! or an attached database ("main" below; TEMP is left alone):
//!
//! 1. The main database's write transaction is opened (RESERVED: no other
//!    writer until the end) and the connection behaves as inside `BEGIN`,
//!    so that every read below sees one snapshot.
//! 2. A fresh database (a private in-memory one, or the `INTO` file) with
//!    the same page size is filled on a second connection that shares
//!    this one's functions and collations: the tables are created, then
//!    the indexes (through SQL, so the root pages are SQLite's), then
//!    every row is copied with its rowid, then `sqlite_sequence`'s rows,
//!    and last the views and triggers (their stored text, so nothing
//!    fires during the copy). A rowid table's records and its indexes'
//!    entries are copied B-tree to B-tree in key order, unchanged (each
//!    an append to the new tree's right edge), as SQLite's transfer
//!    does; a WITHOUT ROWID table goes through an INSERT per row.
//! 3. `VACUUM INTO` stops there, after giving the new file the meta values
//!    SQLite carries over (default cache size, text encoding, user_version,
//!    application_id). In-place VACUUM copies the new database back page by
//!    page over the old one inside the write transaction opened in step 1
//!    (journaled like any change, so a crash leaves the old database), cuts
//!    the file to the new size and commits. Page 1 keeps the old file
//!    format bytes (a WAL database stays WAL), the meta values above and
//!    gets the schema cookie plus one, so other connections reload their
//!    schema.
//!
//! The new database keeps the old one's `auto_vacuum` mode, or takes the
//! one a `PRAGMA auto_vacuum` asked for that could not apply at once
//! (SQLite's way to turn auto_vacuum on or off for a database with tables).
//!
//! A `PRAGMA page_size` the database could not take at once is applied
//! here (file databases not in WAL mode, as SQLite): the new database is
//! built with that size and replaces the old file as a whole
//! (`Pager::replace_with_new_page_size`, journaled at the old size).
//!
//! The result holds the same rows with the same rowids, an empty freelist,
//! and passes `PRAGMA integrity_check`.

use super::{Connection, OpenFlags, Statement, StepResult};
use crate::btree::{Cursor, InsertKey, Meta, TxnState};
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_ERROR};
use crate::pager::header::{self, get_u32, put_u32};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::program::{Vacuum, VacuumInto};
use crate::Poll;

/// Page-1 words VACUUM carries over from the old database: default cache
/// size, text encoding, user_version, application_id.
const CARRIED_META: [usize; 4] = [48, 56, 60, 68];

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Run `sql` with `params` on `conn`, calling `each` for every row.
pub(super) fn run(conn: &mut Connection, sql: &str, params: &[Value], mut each: impl FnMut(&Statement) -> Result<()>) -> Result<()> {
    let mut rest = sql.as_bytes();
    while !rest.is_empty() {
        let (st, tail) = conn.prepare_terminated(rest)?;
        rest = &rest[tail..];
        let Some(mut st) = st else {
            if tail == 0 {
                break;
            }
            continue;
        };
        st.without_quantum();
        for (i, p) in params.iter().enumerate() {
            st.bind(i + 1, p.clone())?;
        }
        let outcome = loop {
            match st.step(conn) {
                Ok(StepResult::Row) => {
                    if let Err(e) = each(&st) {
                        break Err(e);
                    }
                }
                Ok(StepResult::Done) => break Ok(()),
                Ok(StepResult::Io) => {
                    if let Err(e) = conn.state.io.wait_any() {
                        break Err(e);
                    }
                }
                Err(e) => break Err(e),
            }
        };
        st.reset(conn);
        outcome?;
    }
    Ok(())
}

/// One row of `sqlite_schema`.
struct SchemaRow {
    kind: String,
    name: String,
    tbl_name: String,
    rootpage: i64,
    sql: Option<String>,
}

impl SchemaRow {
    /// A virtual table's row: no b-tree to copy, and its CREATE statement
    /// would need the module, so the row itself is copied (as SQLite does).
    fn is_virtual_table(&self) -> bool {
        self.kind == "table" && self.rootpage == 0
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        _ => None,
    }
}

impl Statement {
    /// Step a VACUUM statement: it runs to completion at once.
    pub(super) fn step_vacuum(&mut self, conn: &mut Connection, v: &Vacuum) -> Result<StepResult> {
        let into = match &v.into {
            None => None,
            Some(VacuumInto::File(f)) => Some(f.clone()),
            Some(VacuumInto::Param(i)) => match self.bound_param(*i) {
                Some(Value::Text(t)) => Some(String::from_utf8_lossy(t).into_owned()),
                _ => return Err(Error::new(SQLITE_ERROR, "non-text filename")),
            },
        };
        self.has_row = false;
        let started = std::time::Instant::now();
        let mut busy_count = 0;
        loop {
            match conn.vacuum(&v.schema, into.as_deref()) {
                // Everything was rolled back: retrying starts over.
                Err(e) if e.primary() == SQLITE_BUSY && conn.state.busy_retry(busy_count, started) => busy_count += 1,
                Err(e) => return Err(e),
                Ok(()) => return Ok(StepResult::Done),
            }
        }
    }
}

impl Connection {
    /// `VACUUM schema` or `VACUUM schema INTO path`.
    fn vacuum(&mut self, schema: &str, into: Option<&str>) -> Result<()> {
        if !self.state.autocommit {
            return Err(Error::new(SQLITE_ERROR, "cannot VACUUM from within a transaction"));
        }
        if self.state.active_statements > 0 {
            return Err(Error::new(SQLITE_ERROR, "cannot VACUUM - SQL statements in progress"));
        }
        let Some(db) = self.state.dbs.iter().position(|d| d.name.eq_ci(schema)) else {
            return Err(Error::new(SQLITE_ERROR, format!("unknown database {schema}")));
        };
        if db == 1 {
            // TEMP lives in memory: compacting it changes nothing visible.
            return match into {
                None => Ok(()),
                Some(_) => Err(Error::unsupported("VACUUM temp INTO")),
            };
        }
        if let Some(path) = into {
            // A `file:` URI names the file when the connection takes URIs
            // (it is then opened with them too, in `vacuum_copy`).
            let uri = self.open_flags.has(OpenFlags::URI) && path.starts_with("file:");
            if uri && path.split_once('?').is_some_and(|(_, q)| q.split('&').any(|kv| kv.split('=').next() == Some("reserve"))) {
                return Err(Error::unsupported("VACUUM INTO a URI with reserve=N"));
            }
            let file = if uri { super::open::parse_target(path, self.open_flags)?.path } else { path.to_string() };
            if std::fs::metadata(crate::io::os_path::os_path(&file)).is_ok_and(|m| m.len() > 0) {
                return Err(Error::new(SQLITE_ERROR, "output file already exists"));
            }
        }
        self.ensure_schema()?;
        let io = self.state.io.clone();
        let main = &mut self.state.dbs[db].btree;
        if into.is_none() {
            io.block_on(|| main.begin_write(false))?;
        } else {
            io.block_on(|| main.begin_read())?;
        }
        self.state.autocommit = false;
        let result = self.vacuum_copy(db, into);
        self.state.autocommit = true;
        let main = &mut self.state.dbs[db].btree;
        if main.txn_state() != TxnState::None {
            let _ = main.block_on(|b| b.rollback());
        }
        self.schema_loaded = false;
        result
    }

    /// Copy database `db` (main or attached) into a fresh one, then into
    /// the `INTO` file or back over itself.
    fn vacuum_copy(&mut self, db: usize, into: Option<&str>) -> Result<()> {
        let schema = quote(&self.state.dbs[db].name);
        let mut rows = Vec::new();
        run(self, &format!("SELECT type, name, tbl_name, rootpage, sql FROM {schema}.sqlite_schema"), &[], |st| {
            rows.push(SchemaRow {
                kind: text(st.column(0)).unwrap_or_default(),
                name: text(st.column(1)).unwrap_or_default(),
                tbl_name: text(st.column(2)).unwrap_or_default(),
                rootpage: match st.column(3) {
                    Value::Integer(i) => *i,
                    _ => 0,
                },
                sql: text(st.column(4)),
            });
            Ok(())
        })?;
        let old_page_size = self.state.dbs[db].btree.page_size();
        let old_reserve = self.state.dbs[db].btree.pager().reserved_bytes();
        let page_size = match into {
            None => self.state.dbs[db].btree.pager().page_size_for_vacuum(),
            Some(_) => old_page_size,
        };
        // (VACUUM INTO writes the reserve asked for too, as SQLite.)
        let reserve = match into {
            None => self.state.dbs[db].btree.pager().reserve_for_vacuum(),
            Some(_) => self.state.dbs[db].btree.pager().requested_reserve(),
        };
        let mut dest = match into {
            Some(path) => Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | (self.open_flags.0 & OpenFlags::URI)))?,
            None => Connection::open(":memory:", OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::MEMORY))?,
        };
        dest.funcs = self.funcs.clone();
        dest.collations = self.collations.clone();
        dest.collation_order = self.collation_order.clone();
        dest.state.dbs[0].btree.pager_mut().request_reserve(reserve);
        let auto_vacuum = match self.state.next_auto_vacuum.take() {
            Some(mode) => mode,
            None => self.state.dbs[0].btree.block_on(|b| b.auto_vacuum_mode())?,
        };
        run(
            &mut dest,
            // (The copy keeps the text encoding, which all the databases
            // of a connection share.)
            &format!(
                "PRAGMA encoding='{}'; PRAGMA page_size={page_size}; PRAGMA auto_vacuum={auto_vacuum}; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;",
                self.state.text_encoding.name()
            ),
            &[],
            |_| Ok(()),
        )?;
        let internal = |r: &&SchemaRow| crate::sql::schema::is_internal_name(&r.name);
        // sqlite_sequence comes with the first AUTOINCREMENT table; the
        // other internal tables (sqlite_stat1, sqlite_stat4) are created
        // in their place as SQLite's VACUUM creates them, the reserved
        // name allowed by writable_schema.
        let copied = |r: &&SchemaRow| !r.name.eq_ci("sqlite_sequence");
        let creates = |kind: &'static str| rows.iter().filter(move |r| r.kind == kind && r.sql.is_some() && !r.is_virtual_table());
        for r in creates("table").filter(copied) {
            let sql = r.sql.as_deref().unwrap_or_default();
            if internal(&r) {
                run(&mut dest, &format!("PRAGMA writable_schema=ON; {sql}; PRAGMA writable_schema=OFF"), &[], |_| Ok(()))?;
            } else {
                run(&mut dest, sql, &[], |_| Ok(()))?;
            }
        }
        // As SQLite: every table, then every index (so the root pages are
        // SQLite's), then the rows. A rowid table's rows and its indexes'
        // entries are copied B-tree to B-tree in key order (each an
        // append); any other table through SQL.
        for r in creates("index") {
            run(&mut dest, r.sql.as_deref().unwrap_or_default(), &[], |_| Ok(()))?;
        }
        for r in creates("table").filter(copied) {
            if self.copies_by_record(db, &mut dest, &r.name)? {
                self.copy_table_records(db, &mut dest, &r.name)?;
            } else {
                self.copy_table_rows(db, &mut dest, &r.name)?;
            }
        }
        if rows.iter().any(|r| r.kind == "table" && r.name.eq_ci("sqlite_sequence")) {
            run(&mut dest, "DELETE FROM sqlite_sequence", &[], |_| Ok(()))?;
            let mut seqs = Vec::new();
            run(self, &format!("SELECT name, seq FROM {schema}.sqlite_sequence"), &[], |st| {
                seqs.push([st.column(0).clone(), st.column(1).clone()]);
                Ok(())
            })?;
            for s in seqs {
                run(&mut dest, "INSERT INTO sqlite_sequence(name, seq) VALUES(?, ?)", &s, |_| Ok(()))?;
            }
        }
        for r in rows.iter().filter(|r| (r.kind == "view" || r.kind == "trigger" || r.is_virtual_table()) && r.sql.is_some()) {
            if r.is_virtual_table() {
                let row = [Value::text(r.name.clone()), Value::text(r.tbl_name.clone()), Value::text(r.sql.clone().unwrap_or_default())];
                run(&mut dest, "PRAGMA writable_schema=ON", &[], |_| Ok(()))?;
                run(&mut dest, "INSERT INTO sqlite_schema VALUES('table', ?, ?, 0, ?)", &row, |_| Ok(()))?;
                run(&mut dest, "PRAGMA writable_schema=OFF", &[], |_| Ok(()))?;
                continue;
            }
            run(&mut dest, r.sql.as_deref().unwrap_or_default(), &[], |_| Ok(()))?;
        }
        run(&mut dest, "COMMIT", &[], |_| Ok(()))?;

        let main = &mut self.state.dbs[db].btree;
        let old_page1 = main.block_on(|b| b.pager_mut().read_page(1))?;
        let dest_bt = &mut dest.state.dbs[0].btree;
        if dest_bt.page_size() != page_size {
            return Err(Error::new(SQLITE_ERROR, "VACUUM could not keep the page size"));
        }
        match into {
            Some(_) => {
                dest_bt.block_on(|b| b.pager_mut().begin_write(false))?;
                let mut page1 = dest_bt.block_on(|b| b.pager_mut().read_page(1))?;
                carry_meta(&old_page1, &mut page1);
                dest_bt.block_on(|b| b.pager_mut().put_page(1, &page1))?;
                dest_bt.block_on(|b| b.commit())?;
                dest.close()
            }
            None if page_size != old_page_size || dest_bt.pager().reserved_bytes() != old_reserve => {
                // A new page size: the whole file is replaced at once.
                dest_bt.block_on(|b| b.begin_read())?;
                let mut image = Vec::new();
                // (An empty copy has no page yet: its page 1 is still one.)
                for pgno in 1..=dest_bt.pager().db_size().max(1) {
                    image.extend_from_slice(&dest_bt.block_on(|b| b.pager_mut().read_page(pgno))?);
                }
                carry_meta(&old_page1, &mut image);
                image[header::WRITE_VERSION..=header::READ_VERSION].copy_from_slice(&old_page1[header::WRITE_VERSION..=header::READ_VERSION]);
                put_u32(&mut image, header::SCHEMA_COOKIE, get_u32(&old_page1, header::SCHEMA_COOKIE).wrapping_add(1));
                self.state.dbs[db].btree.pager_mut().replace_with_new_page_size(&mut image)
            }
            None => {
                dest_bt.block_on(|b| b.begin_read())?;
                // A copy with nothing in it has written no page: the file
                // still keeps its page 1 (an empty schema), as SQLite's.
                let n_pages = dest_bt.pager().db_size().max(1);
                for pgno in 1..=n_pages {
                    let dest_bt = &mut dest.state.dbs[0].btree;
                    let mut image = dest_bt.block_on(|b| b.pager_mut().read_page(pgno))?;
                    if pgno == 1 {
                        carry_meta(&old_page1, &mut image);
                        image[header::WRITE_VERSION..=header::READ_VERSION].copy_from_slice(&old_page1[header::WRITE_VERSION..=header::READ_VERSION]);
                        // The commit adds one to the change counter.
                        put_u32(&mut image, header::CHANGE_COUNTER, get_u32(&old_page1, header::CHANGE_COUNTER));
                        put_u32(&mut image, header::SCHEMA_COOKIE, get_u32(&old_page1, header::SCHEMA_COOKIE).wrapping_add(1));
                    }
                    let main = &mut self.state.dbs[db].btree;
                    main.block_on(|b| b.pager_mut().put_page(pgno, &image))?;
                }
                let main = &mut self.state.dbs[db].btree;
                main.block_on(|b| b.pager_mut().truncate_to(n_pages))?;
                main.block_on(|b| b.commit())
            }
        }
    }

    /// Copy every row of table `name` (rowids included) into `dest`
    /// through SQL (an INSERT per row; the table's indexes, if any, are
    /// filled by it).
    fn copy_table_rows(&mut self, db: usize, dest: &mut Connection, name: &str) -> Result<()> {
        let schema = quote(&self.state.dbs[db].name);
        let table = self.schemas.get(db).and_then(|s| s.table(name)).ok_or_else(|| Error::new(SQLITE_ERROR, format!("no such table: {name}")))?;
        // Generated columns are computed again as the rows go in.
        let mut cols: Vec<String> = table.columns.iter().filter(|c| c.generated.is_none()).map(|c| quote(&c.name)).collect();
        // (A WITHOUT ROWID table's rows are known by their key alone.)
        if table.rowid_alias.is_none() && table.without_rowid.is_none() {
            let taken = |a: &str| table.columns.iter().any(|c| c.name.eq_ci(a));
            let Some(rowid) = ["rowid", "_rowid_", "oid"].into_iter().find(|a| !taken(a)) else {
                return Err(Error::unsupported(&format!("VACUUM of table {name}: its columns hide the rowid")));
            };
            cols.insert(0, rowid.to_string());
        }
        let n = cols.len();
        let list = cols.join(", ");
        let insert = format!("INSERT INTO {}({list}) VALUES({})", quote(name), vec!["?"; n].join(", "));
        let (st, _) = dest.prepare_terminated(insert.as_bytes())?;
        let mut ins = st.ok_or_else(|| Error::new(SQLITE_ERROR, "VACUUM: empty insert"))?;
        ins.without_quantum();
        let select = format!("SELECT {list} FROM {schema}.{}", quote(name));
        let copied = run(self, &select, &[], |st| {
            for i in 0..n {
                ins.bind(i + 1, st.column(i).clone())?;
            }
            loop {
                match ins.step(dest) {
                    Ok(StepResult::Done) => break,
                    Ok(StepResult::Row) => {}
                    Ok(StepResult::Io) => dest.state.io.wait_any()?,
                    Err(e) => {
                        ins.reset(dest);
                        return Err(e);
                    }
                }
            }
            ins.reset(dest);
            Ok(())
        });
        copied
    }
}

impl Connection {
    /// Whether table `name` is copied B-tree to B-tree
    /// ([`Connection::copy_table_records`]): a rowid table the engine
    /// supports, on two databases of the same text encoding (the records
    /// are copied as they are).
    fn copies_by_record(&mut self, db: usize, dest: &mut Connection, name: &str) -> Result<bool> {
        let table = self.schemas.get(db).and_then(|s| s.table(name)).ok_or_else(|| Error::new(SQLITE_ERROR, format!("no such table: {name}")))?;
        if let Some(why) = &table.unsupported {
            return Err(Error::unsupported(&format!("VACUUM of table {name}: {why}")));
        }
        if table.without_rowid.is_some() {
            return Ok(false);
        }
        let src = &mut self.state.dbs[db].btree;
        let dst = &mut dest.state.dbs[0].btree;
        Ok(src.block_on(|b| b.meta(Meta::TextEncoding))?.max(1) == dst.block_on(|b| b.meta(Meta::TextEncoding))?.max(1) && dst.txn_state() == TxnState::Write)
    }

    /// Copy rowid table `name` into `dest`, where it and its indexes exist
    /// empty: its rows (rowids included) and then each index's entries,
    /// B-tree to B-tree in key order, so that every entry is an append to
    /// the new tree's rightmost leaf. No SQL: the records are copied
    /// unchanged, as SQLite's VACUUM does (its INSERT ... SELECT transfer
    /// copies raw records and index entries without re-checking
    /// constraints or recomputing stored columns).
    fn copy_table_records(&mut self, db: usize, dest: &mut Connection, name: &str) -> Result<()> {
        let dest_root = |dest: &mut Connection, kind: &str, name: &str| -> Result<u32> {
            let mut root = None;
            run(
                dest,
                "SELECT rootpage FROM main.sqlite_schema WHERE type = ? AND name = ?",
                &[Value::text(kind.to_string()), Value::text(name.to_string())],
                |st| {
                    root = Some(st.column(0).as_ref().to_i64());
                    Ok(())
                },
            )?;
            root.filter(|r| *r > 1).map(|r| r as u32).ok_or_else(|| Error::new(SQLITE_ERROR, format!("VACUUM: {kind} {name} missing from the copy")))
        };
        let schema = self.schemas.get(db).ok_or_else(|| Error::new(SQLITE_ERROR, "VACUUM: no schema"))?;
        let table = schema.table(name).ok_or_else(|| Error::new(SQLITE_ERROR, format!("no such table: {name}")))?;
        let src_root = table.root;
        let indexes: Vec<crate::sql::schema::Index> = schema.indexes_of(table).into_iter().cloned().collect();
        let mut trees = vec![(src_root, dest_root(dest, "table", name)?, None)];
        for ix in &indexes {
            let key_info = self.key_info_for_index(db, ix)?;
            trees.push((ix.root, dest_root(dest, "index", &ix.name)?, Some(key_info)));
        }
        let src = &mut self.state.dbs[db].btree;
        let dst = &mut dest.state.dbs[0].btree;
        for (src_root, dest_root, key_info) in trees {
            let index = key_info.is_some();
            let mut from = Cursor::new(src_root, false, key_info.clone());
            let mut to = Cursor::new(dest_root, true, key_info);
            let mut more = src.block_on(|b| from.first(b))?;
            let mut record = Vec::new();
            while more {
                // The rest of the source leaf, as far as the new tree's
                // last leaf has room, in one operation; else (a full leaf
                // to balance, a large row, the first entry) one entry.
                if to.append_leaf_run(dst, &mut from, src)? > 0 {
                    more = src.block_on(|b| from.next(b))?;
                    continue;
                }
                let rowid = if index { 0 } else { from.rowid() };
                src.block_on(|b| {
                    Ok(match from.payload(b)? {
                        Poll::Ready(p) => {
                            record.clear();
                            record.extend_from_slice(p);
                            Poll::Ready(())
                        }
                        Poll::Pending => Poll::Pending,
                    })
                })?;
                if index {
                    dst.block_on(|b| to.insert(b, InsertKey::Index(&record), &[]))?;
                } else {
                    dst.block_on(|b| to.insert(b, InsertKey::Rowid(rowid), &record))?;
                }
                more = src.block_on(|b| from.next(b))?;
            }
        }
        Ok(())
    }
}

/// Give `page1` the meta values VACUUM carries over from `old`.
fn carry_meta(old: &[u8], page1: &mut [u8]) {
    for off in CARRIED_META {
        put_u32(page1, off, get_u32(old, off));
    }
}
