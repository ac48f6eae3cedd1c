//! # `dbstat`: one row per B-tree page, or per B-tree (dbstat.txt)
//!
//! An eponymous virtual table describing the pages of a database file:
//! for each B-tree (the schema table's own, then the others in schema
//! order, or by name when the query orders by name) its pages depth-first, each page followed by the overflow
//! pages of its cells and then its children, which is the order of the
//! `path` column. With `aggregate = 1` one row sums each B-tree.
//!
//! Column meanings as dbstat.txt gives them: `payload` counts the payload
//! bytes stored on the page (a cell's local part, or an overflow page's
//! share), `mx_payload` the largest whole payload of a cell on the page,
//! `unused` the usable bytes not taken by headers, pointers and cells.
//! The pages are read through [`Connection::read_pages`], in a read
//! transaction, and the rows are built at xFilter.
//!
//! Plans (`idxNum`, shown in hex): 0x1 schema given, 0x2 name given,
//! 0x4 aggregate given, 0x8 the rows come in the ORDER BY name asked for.
//!
//! Invariant: a page is visited at most once per B-tree walk (a damaged
//! file with a loop in it ends the walk, it does not hang it) (checked:
//! dbstat_page_once).

use crate::connection::pages::PageFile;
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::index_info::SCAN_HEX;
use crate::vdbe::vtab::{ColumnContext, Connected, ConstraintOp, IndexInfo, Module, ModuleKind, VTab, VTabCursor, VtabConfig};
use std::collections::HashSet;
use std::sync::Arc;

/// Register `dbstat`.
pub fn register(conn: &mut Connection) -> Result<()> {
    conn.create_module("dbstat", Some(Arc::new(DbstatModule)))
}

struct DbstatModule;

const SCHEMA: &str = "CREATE TABLE x(name TEXT, path TEXT, pageno INTEGER, pagetype TEXT, ncell INTEGER, payload INTEGER, unused INTEGER, mx_payload INTEGER, pgoffset INTEGER, pgsize INTEGER, schema TEXT HIDDEN, aggregate BOOLEAN HIDDEN)";

impl Module for DbstatModule {
    fn kind(&self) -> ModuleKind {
        ModuleKind::Eponymous
    }
    fn connect(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        // CREATE VIRTUAL TABLE x USING dbstat(schema): that schema by default.
        let default = args.get(3).map(|s| s.trim().trim_matches(|c| c == '\'' || c == '"').to_string()).unwrap_or_else(|| "main".to_string());
        Ok(Connected { table: Arc::new(Dbstat { default }), schema: SCHEMA.to_string(), config: VtabConfig { direct_only: true, ..VtabConfig::default() } })
    }
}

struct Dbstat {
    default: String,
}

const COL_NAME: i32 = 0;
const COL_SCHEMA: i32 = 10;
const COL_AGGREGATE: i32 = 11;

impl VTab for Dbstat {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        let mut num = 0;
        let mut argv = 0;
        for (bit, col) in [(1, COL_SCHEMA), (2, COL_NAME), (4, COL_AGGREGATE)] {
            if let Some(i) = info.constraints.iter().position(|c| c.usable && c.op == ConstraintOp::EQ && c.column == col) {
                argv += 1;
                info.usage[i].argv_index = argv;
                info.usage[i].omit = col != COL_NAME;
                num |= bit;
            }
        }
        if info.order_by.len() == 1 && info.order_by[0].column == COL_NAME && !info.order_by[0].desc {
            info.order_by_consumed = true;
            num |= 8;
        }
        info.idx_num = num;
        info.idx_str = None;
        info.idx_flags |= SCAN_HEX;
        // (SQLite's module answers 1.0 whatever the plan, visible in
        // EXPLAIN QUERY PLAN's third column.)
        info.estimated_cost = 1.0;
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(Cursor { default: self.default.clone(), rows: Vec::new(), at: 0, schema: String::new(), aggregate: false }))
    }
}

/// One row.
#[derive(Debug, Clone, Default)]
struct Row {
    name: String,
    path: Option<String>,
    pageno: i64,
    pagetype: Option<&'static str>,
    ncell: i64,
    payload: i64,
    unused: i64,
    mx_payload: i64,
    pgoffset: Option<i64>,
    pgsize: i64,
}

struct Cursor {
    default: String,
    rows: Vec<Row>,
    at: usize,
    schema: String,
    aggregate: bool,
}

fn text_of(v: &Value) -> Option<String> {
    v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned())
}

impl VTabCursor for Cursor {
    fn filter(&mut self, host: &mut dyn VmHost, idx_num: i32, _idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        let mut k = 0;
        let mut next = || {
            k += 1;
            args.get(k - 1).cloned().unwrap_or(Value::Null)
        };
        self.schema = if idx_num & 1 != 0 { text_of(&next()).unwrap_or_default() } else { self.default.clone() };
        let name = if idx_num & 2 != 0 { Some(next()) } else { None };
        self.aggregate = idx_num & 4 != 0 && next().as_ref().to_i64() != 0;
        self.rows.clear();
        self.at = 0;
        let conn = Connection::from_host(host).ok_or_else(|| Error::sql("dbstat: no connection"))?;
        // The B-trees: the schema table and every table or index with pages.
        let sql = format!("SELECT name, rootpage FROM \"{}\".sqlite_schema WHERE rootpage != 0", self.schema.replace('"', "\"\""));
        let mut trees = vec![("sqlite_schema".to_string(), 1i64)];
        match conn.prepare_terminated(sql.as_bytes()) {
            Ok((Some(mut st), _)) => {
                while let crate::connection::StepResult::Row = st.step(conn)? {
                    trees.push((text_of(st.column(0)).unwrap_or_default(), st.column(1).as_ref().to_i64()));
                }
                st.reset(conn);
            }
            // No such schema: no rows, as SQLite.
            _ => return Ok(()),
        }
        if idx_num & 8 != 0 {
            crate::util::cold_sort::sort_by(&mut trees, |a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        }
        if let Some(n) = &name {
            let Some(n) = text_of(n) else { return Ok(()) };
            trees.retain(|t| t.0 == n);
        }
        let aggregate = self.aggregate;
        // pgsize and pgoffset count in pages of the main database whatever
        // the schema (what SQLite 3.54 reports for an attached database of
        // another page size; observed).
        let main_page_size = conn.read_pages("main", |f, _| Ok(f.page_size))?;
        let rows = conn.read_pages(&self.schema, |file, read| {
            let mut rows = Vec::new();
            for (name, root) in &trees {
                if file.page_count == 0 {
                    break;
                }
                let shown = main_page_size.unwrap_or(file.page_size);
                let mut w = Walk { file, read, rows: Vec::new(), seen: HashSet::new(), name, shown };
                w.page(*root as u32, "/".to_string())?;
                if aggregate {
                    let mut sum = Row { name: name.clone(), ..Row::default() };
                    for r in &w.rows {
                        sum.pageno += 1;
                        sum.ncell += r.ncell;
                        sum.payload += r.payload;
                        sum.unused += r.unused;
                        sum.mx_payload = sum.mx_payload.max(r.mx_payload);
                        sum.pgsize += r.pgsize;
                    }
                    rows.push(sum);
                } else {
                    rows.append(&mut w.rows);
                }
            }
            Ok(rows)
        })?;
        self.rows = rows.unwrap_or_default();
        Ok(())
    }

    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        self.at += 1;
        Ok(())
    }

    fn eof(&mut self) -> bool {
        self.at >= self.rows.len()
    }

    fn column(&mut self, _host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        let Some(r) = self.rows.get(self.at) else { return Ok(Value::Null) };
        let opt_text = |s: &Option<String>| s.as_ref().map_or(Value::Null, |s| Value::text(s.clone()));
        Ok(match ctx.column {
            0 => Value::text(r.name.clone()),
            1 => opt_text(&r.path),
            2 => Value::Integer(r.pageno),
            3 => r.pagetype.map_or(Value::Null, Value::text),
            4 => Value::Integer(r.ncell),
            5 => Value::Integer(r.payload),
            6 => Value::Integer(r.unused),
            7 => Value::Integer(r.mx_payload),
            8 => r.pgoffset.map_or(Value::Null, Value::Integer),
            9 => Value::Integer(r.pgsize),
            10 => Value::text(self.schema.clone()),
            _ => Value::Integer(self.aggregate as i64),
        })
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.at as i64)
    }
}

/// One B-tree's walk.
struct Walk<'a> {
    file: &'a PageFile,
    read: &'a mut dyn FnMut(u32) -> Result<Vec<u8>>,
    rows: Vec<Row>,
    seen: HashSet<u32>,
    name: &'a str,
    /// The page size pgsize and pgoffset count in.
    shown: u32,
}

/// A varint at `p[i..]`: (value, length).
fn varint(p: &[u8], i: usize) -> Result<(u64, usize)> {
    let mut v: u64 = 0;
    for k in 0..9 {
        let b = *p.get(i + k).ok_or_else(Error::corrupt)?;
        if k == 8 {
            return Ok(((v << 8) | b as u64, 9));
        }
        v = (v << 7) | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            return Ok((v, k + 1));
        }
    }
    unreachable!()
}

fn be16(p: &[u8], i: usize) -> Result<usize> {
    p.get(i..i + 2).map(|b| u16::from_be_bytes([b[0], b[1]]) as usize).ok_or_else(Error::corrupt)
}

fn be32(p: &[u8], i: usize) -> Result<u32> {
    p.get(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])).ok_or_else(Error::corrupt)
}

impl Walk<'_> {
    fn row(&self, pgno: u32, path: String, pagetype: &'static str) -> Row {
        let ps = self.shown as i64;
        Row {
            name: self.name.to_string(),
            path: Some(path),
            pageno: pgno as i64,
            pagetype: Some(pagetype),
            pgoffset: Some((pgno as i64 - 1) * ps),
            pgsize: ps,
            ..Row::default()
        }
    }

    /// The page `pgno` at `path`, then its cells' overflow pages and its
    /// children.
    fn page(&mut self, pgno: u32, path: String) -> Result<()> {
        // invariant: dbstat_page_once
        if !self.seen.insert(pgno) {
            return Ok(());
        }
        let p = (self.read)(pgno)?;
        let u = self.file.usable_size as usize;
        let h = if pgno == 1 { 100 } else { 0 };
        let kind = *p.get(h).ok_or_else(Error::corrupt)?;
        let (leaf, table) = match kind {
            0x0d => (true, true),
            0x05 => (false, true),
            0x0a => (true, false),
            0x02 => (false, false),
            _ => return Err(Error::corrupt()),
        };
        let hdr = if leaf { 8 } else { 12 };
        let ncell = be16(&p, h + 3)?;
        let mut row = self.row(pgno, path.clone(), if leaf { "leaf" } else { "internal" });
        row.ncell = ncell as i64;
        let max_local = if table { u - 35 } else { (u - 12) * 64 / 255 - 23 };
        let min_local = (u - 12) * 32 / 255 - 23;
        let mut overflow = Vec::new();
        let mut children = Vec::new();
        for i in 0..ncell {
            let off = be16(&p, h + hdr + 2 * i)?;
            let mut at = off;
            if !leaf {
                children.push(be32(&p, at)?);
                at += 4;
            }
            if table && !leaf {
                varint(&p, at)?;
                continue;
            }
            let (size, n) = varint(&p, at)?;
            at += n;
            if table {
                let (_, n) = varint(&p, at)?;
                at += n;
            }
            let size = size as usize;
            let local = if size <= max_local {
                size
            } else {
                let k = min_local + (size - min_local) % (u - 4);
                if k <= max_local {
                    k
                } else {
                    min_local
                }
            };
            row.payload += local as i64;
            row.mx_payload = row.mx_payload.max(size as i64);
            at += local;
            if local < size {
                overflow.push((i, be32(&p, at)?, size - local));
            }
        }
        if !leaf {
            children.push(be32(&p, h + 8)?);
        }
        // Free space as the page header accounts it: the gap before the
        // cell content area, the freeblocks and the fragmented bytes. (The
        // content area's start is read as stored: an empty 64 KiB page
        // stores 0 there and SQLite reports -8 unused bytes; observed.)
        let content = be16(&p, h + 5)? as i64;
        let mut free = content - (h + hdr + 2 * ncell) as i64 + *p.get(h + 7).ok_or_else(Error::corrupt)? as i64;
        let mut fb = be16(&p, h + 1)?;
        let mut hops = 0;
        while fb != 0 && fb + 4 <= p.len() && hops < p.len() {
            free += be16(&p, fb + 2)? as i64;
            fb = be16(&p, fb)?;
            hops += 1;
        }
        row.unused = free;
        self.rows.push(row);
        let mut overflow = overflow.into_iter().peekable();
        let n_children = children.len();
        for i in 0..ncell.max(n_children) {
            while let Some(&(cell, first, rest)) = overflow.peek() {
                if cell != i {
                    break;
                }
                overflow.next();
                self.overflow(first, rest, &path, i)?;
            }
            if let Some(&c) = children.get(i) {
                self.page(c, format!("{path}{i:03x}/"))?;
            }
        }
        Ok(())
    }

    /// The overflow chain of cell `cell` of the page at `path`.
    fn overflow(&mut self, mut pgno: u32, mut rest: usize, path: &str, cell: usize) -> Result<()> {
        let u = self.file.usable_size as usize;
        let mut k = 0;
        while rest > 0 && pgno != 0 && self.seen.insert(pgno) {
            let p = (self.read)(pgno)?;
            let here = rest.min(u - 4);
            let mut row = self.row(pgno, format!("{path}{cell:03x}+{k:06x}"), "overflow");
            row.payload = here as i64;
            row.unused = (u - 4 - here) as i64;
            self.rows.push(row);
            rest -= here;
            pgno = be32(&p, 0)?;
            k += 1;
        }
        Ok(())
    }
}
