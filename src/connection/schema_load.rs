//! Reading a database's schema table (`sqlite_schema`, root page 1) into
//! a [`Schema`]: the whole table at open or after another connection
//! changed it, only the rows a CREATE appended, or only the rowids left
//! after a DROP. This is the one place the schema is read from storage
//! (blocking, inside the read transaction `in_read_txn` provides); the
//! compiler only ever sees the parsed result (`sql/mod.rs`: compiling
//! never touches the database). Parsing the rows is `sql/schema.rs`'s.

use crate::btree::{Btree, Cursor};
use crate::error::{Error, Result};
use crate::io::IoContext;
use crate::sql::schema::{check_stored_rows, Schema, SchemaRow, StatRow, StoredCheckMemo, StoredRow};
use crate::value::encoding::TextEncoding;
use crate::value::record::decode_record;
use crate::value::Value;

/// Read `sqlite_schema` (blocking) and build the schema of a database
/// being attached: its text encoding must be the connection's `enc`.
pub(super) fn load(io: &IoContext, bt: &mut Btree, enc: TextEncoding, check: Option<&str>) -> Result<Schema> {
    reload(io, bt, None, None, enc, true, "sqlite_master", check)
}

/// Read the schema of `bt` again after a change, reusing what
/// `previous` (this database's schema before the change) parsed from
/// rows that are still there unchanged: a CREATE then costs one parse,
/// not one per object of the schema.
///
/// The file's text encoding is noted on `bt` from its header; an empty
/// file gets `enc` (the connection's), which it will be created with.
/// With `fixed_encoding` (an attached database, or main once the
/// connection has read it), a header encoding field that is set and whose
/// low two bits are not `enc` is refused, as SQLite refuses it, even where
/// a first read would have taken it as UTF-8 (4, 256: a field VACUUM
/// carries over as it is).
/// `schema_table` names this database's schema table as SQLite first
/// enters it in the schema (`sqlite_temp_master` for TEMP), which
/// decides the order tables are visited in (`sql/schema_visit_order.rs`).
/// With `check` (the database's name; `None` under `PRAGMA
/// writable_schema`), the rows are first checked as SQLite checks them
/// when it reads a schema (`sql/schema/stored_check.rs`), with `memo`
/// (what an earlier check learned from rows' text: see
/// `StoredCheckMemo`) parsing only rows it does not hold.
pub(super) fn reload(
    io: &IoContext,
    bt: &mut Btree,
    previous: Option<&Schema>,
    memo: Option<&StoredCheckMemo>,
    enc: TextEncoding,
    fixed_encoding: bool,
    schema_table: &str,
    check: Option<&str>,
) -> Result<Schema> {
    if io.block_on(|| bt.page_count())? == 0 {
        bt.set_text_encoding(enc);
        return Ok(Schema::empty(schema_table));
    }
    let cookie = io.block_on(|| bt.meta(crate::btree::Meta::SchemaCookie))?;
    // SQLite refuses a schema format newer than the 4 it writes; it reads
    // the field's low byte only (256 passes, 261 does not).
    if io.block_on(|| bt.meta(crate::btree::Meta::SchemaFormat))? & 0xff > 4 {
        return Err(Error::sql("unsupported file format"));
    }
    // The records' text is in this encoding; the cursors convert it.
    let word = io.block_on(|| bt.meta(crate::btree::Meta::TextEncoding))?;
    let file_enc = if fixed_encoding {
        if word != 0 && word & 3 != enc as u32 {
            return Err(Error::sql("attached databases must use the same text encoding as main database"));
        }
        enc
    } else {
        TextEncoding::from_header(word)
    };
    bt.set_text_encoding(file_enc);
    let mut cur = Cursor::new(1, false, None);
    let more = io.block_on(|| cur.first(bt))?;
    let mut stored = check.map(|_| Vec::new());
    let (rows, row_ids) = read_schema_rows(io, bt, &mut cur, more, stored.as_mut())?;
    let memo = match (check, &stored) {
        (Some(db_name), Some(stored)) => {
            let pages = io.block_on(|| bt.page_count())?;
            check_stored_rows(stored, pages, db_name, schema_table == "sqlite_temp_master", memo.cloned())?
        }
        // (Unchecked, the rows leave the memo as it was.)
        _ => memo.cloned().unwrap_or_default(),
    };
    let mut s = Schema::from_rows_reusing(rows, cookie, previous, Some(&memo), schema_table)?;
    s.stored_check = memo;
    s.row_ids = row_ids;
    debug_assert_eq!(s.rows.len(), s.row_ids.len());
    load_stats(io, bt, &mut s);
    Ok(s)
}

/// Read `sqlite_stat1` into `schema`'s tables and indexes (see
/// `sql/schema/stats.rs`); returns whether any statistic changed. As in
/// SQLite, a statistics table that cannot be read leaves the defaults
/// rather than failing the schema read.
pub(super) fn load_stats(io: &IoContext, bt: &mut Btree, schema: &mut Schema) -> bool {
    let rows = read_stat1(io, bt, schema).unwrap_or_default();
    schema.apply_stats(&rows)
}

fn read_stat1(io: &IoContext, bt: &mut Btree, schema: &Schema) -> Result<Vec<StatRow>> {
    let Some(t) = schema.table("sqlite_stat1").filter(|t| t.root > 0 && t.view_select.is_none() && t.virtual_table.is_none()) else {
        return Ok(Vec::new());
    };
    let field = |name: &str| t.column_index(name).and_then(|c| t.field_of(c));
    let (Some(tbl), Some(idx), Some(stat)) = (field("tbl"), field("idx"), field("stat")) else { return Ok(Vec::new()) };
    let mut rows = Vec::new();
    let mut cur = Cursor::new(t.root, false, None);
    let mut more = io.block_on(|| cur.first(bt))?;
    while more {
        let payload = io.block_on(|| cur.payload(bt).map(|p| p.map(|s| s.to_vec())))?;
        let rec = decode_record(&payload)?;
        let text = |i: usize| rec.get(i).and_then(|v| v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned()));
        rows.push((text(tbl), text(idx), text(stat)));
        more = io.block_on(|| cur.next(bt))?;
    }
    Ok(rows)
}

/// After a statement that only appended rows to this database's schema
/// table (a CREATE): read and parse the rows after the last one
/// `schema` knows, the others being unchanged.
pub(super) fn append_new_rows(schema: &mut Schema, io: &IoContext, bt: &mut Btree) -> Result<()> {
    let cookie = io.block_on(|| bt.meta(crate::btree::Meta::SchemaCookie))?;
    let mut cur = Cursor::new(1, false, None);
    let last = schema.row_ids.last().copied().unwrap_or(0);
    let at = io.block_on(|| cur.seek_rowid(bt, last.saturating_add(1)))?;
    let more = match at {
        crate::btree::SeekResult::Found | crate::btree::SeekResult::After => true,
        crate::btree::SeekResult::Before => io.block_on(|| cur.next(bt))?,
        crate::btree::SeekResult::Empty => false,
    };
    let (rows, row_ids) = read_schema_rows(io, bt, &mut cur, more, None)?;
    schema.append_rows(cookie, rows, row_ids)
}

/// After a statement that only deleted rows from this database's schema
/// table (a DROP): forget the objects of the rows that are gone (reading
/// only the rowids left). A table an index had made unsupported is
/// parsed again (the index may be the one dropped), by reading
/// everything. Returns the rows that went, or `None` when it read
/// everything.
pub(super) fn forget_deleted_rows(schema: &mut Schema, io: &IoContext, bt: &mut Btree) -> Result<Option<Vec<SchemaRow>>> {
    if !schema.can_forget_rows() {
        *schema = reload(io, bt, Some(schema), Some(&schema.stored_check), bt.text_encoding(), false, schema.visit_order.schema_table(), None)?;
        return Ok(None);
    }
    let cookie = io.block_on(|| bt.meta(crate::btree::Meta::SchemaCookie))?;
    let mut live = Vec::with_capacity(schema.row_ids.len());
    let mut cur = Cursor::new(1, false, None);
    let mut more = io.block_on(|| cur.first(bt))?;
    while more {
        live.push(cur.rowid());
        more = io.block_on(|| cur.next(bt))?;
    }
    match schema.forget_rows_not_in(cookie, &live) {
        Some(gone) => Ok(Some(gone)),
        None => {
            *schema = reload(io, bt, Some(schema), Some(&schema.stored_check), bt.text_encoding(), false, schema.visit_order.schema_table(), None)?;
            Ok(None)
        }
    }
}

/// The schema-table rows from the cursor's position (`more`: it is on a
/// row) to the end, and their rowids; with `stored`, each row's fields
/// as text there too (for `check_stored_rows`).
fn read_schema_rows(
    io: &IoContext,
    bt: &mut Btree,
    cur: &mut Cursor,
    mut more: bool,
    mut stored: Option<&mut Vec<StoredRow>>,
) -> Result<(Vec<SchemaRow>, Vec<i64>)> {
    let (mut rows, mut row_ids) = (Vec::new(), Vec::new());
    while more {
        let payload = io.block_on(|| cur.payload(bt).map(|p| p.map(|s| s.to_vec())))?;
        let rec = decode_record(&payload)?;
        if let Some(stored) = stored.as_deref_mut() {
            let field = |i: usize| rec.get(i).and_then(|v| v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned()));
            stored.push(StoredRow { ty: field(0), name: field(1), tbl: field(2), root: field(3), sql: field(4) });
        }
        let text = |i: usize| match rec.get(i) {
            Some(Value::Text(t)) => String::from_utf8_lossy(t).into_owned(),
            _ => String::new(),
        };
        let root = match rec.get(3) {
            Some(Value::Integer(i)) => *i,
            _ => 0,
        };
        let sql = match rec.get(4) {
            Some(Value::Text(t)) => Some(String::from_utf8_lossy(t).into_owned()),
            _ => None,
        };
        rows.push((text(0), text(1), text(2), root, sql));
        row_ids.push(cur.rowid());
        more = io.block_on(|| cur.next(bt))?;
    }
    Ok((rows, row_ids))
}
