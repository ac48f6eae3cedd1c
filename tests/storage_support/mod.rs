//! Shared helpers for the storage tests: a tiny record encoder (so these
//! tests do not depend on the value module), and real SQLite access through
//! `libsqlite3_sys` for differential checks.
#![allow(dead_code, unsafe_code)]

use libsqlite3_sys as ffi;
use ringlite::btree::{Btree, BtreeOptions, Cursor, InsertKey, Meta, TreeKind};
use ringlite::io::IoContext;
use std::ffi::{CStr, CString};

/// A column value as both sides see it.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

fn put_varint(v: u64, out: &mut Vec<u8>) {
    if v > 0x00ff_ffff_ffff_ffff {
        let mut b = [0u8; 9];
        b[8] = v as u8;
        let mut x = v >> 8;
        for i in (0..8).rev() {
            b[i] = (x as u8 & 0x7f) | 0x80;
            x >>= 7;
        }
        out.extend_from_slice(&b);
        return;
    }
    let mut tmp = Vec::new();
    let mut x = v;
    loop {
        tmp.push((x & 0x7f) as u8 | 0x80);
        x >>= 7;
        if x == 0 {
            break;
        }
    }
    tmp[0] &= 0x7f;
    tmp.reverse();
    out.extend(tmp);
}

/// Encode a record in SQLite's format.
pub fn encode(vals: &[V]) -> Vec<u8> {
    let mut types = Vec::new();
    let mut body = Vec::new();
    for v in vals {
        match v {
            V::Null => types.push(0u64),
            V::Int(0) => types.push(8),
            V::Int(1) => types.push(9),
            V::Int(i) => {
                let (t, n) = match *i {
                    -128..=127 => (1, 1),
                    -32768..=32767 => (2, 2),
                    -8388608..=8388607 => (3, 3),
                    -2147483648..=2147483647 => (4, 4),
                    -140737488355328..=140737488355327 => (5, 6),
                    _ => (6, 8),
                };
                types.push(t);
                body.extend_from_slice(&i.to_be_bytes()[8 - n..]);
            }
            V::Real(r) => {
                types.push(7);
                body.extend_from_slice(&r.to_bits().to_be_bytes());
            }
            V::Text(s) => {
                types.push(13 + 2 * s.len() as u64);
                body.extend_from_slice(s.as_bytes());
            }
            V::Blob(b) => {
                types.push(12 + 2 * b.len() as u64);
                body.extend_from_slice(b);
            }
        }
    }
    let mut hdr = Vec::new();
    for t in &types {
        put_varint(*t, &mut hdr);
    }
    // Header length counts itself.
    let mut len = hdr.len() + 1;
    loop {
        let mut l = Vec::new();
        put_varint(len as u64, &mut l);
        if l.len() + hdr.len() == len {
            let mut out = l;
            out.extend(hdr);
            out.extend(body);
            return out;
        }
        len = l.len() + hdr.len();
    }
}

/// Decode a record (tests compare what our cursors return).
pub fn decode(rec: &[u8]) -> Vec<V> {
    ringlite::value::record::Record::parse(rec)
        .and_then(|r| r.values())
        .expect("record")
        .into_iter()
        .map(|v| match v {
            ringlite::value::ValueRef::Null => V::Null,
            ringlite::value::ValueRef::Integer(i) => V::Int(i),
            ringlite::value::ValueRef::Real(r) => V::Real(r),
            ringlite::value::ValueRef::Text(t) => V::Text(String::from_utf8_lossy(t).into_owned()),
            ringlite::value::ValueRef::Blob(b) => V::Blob(b.to_vec()),
        })
        .collect()
}

/// A real SQLite connection.
pub struct Sqlite(*mut ffi::sqlite3);

impl Sqlite {
    pub fn open(path: &str) -> Sqlite {
        let c = CString::new(path).unwrap();
        let mut db = std::ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_open_v2(c.as_ptr(), &mut db, ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE, std::ptr::null()) };
        assert_eq!(rc, 0, "sqlite3_open_v2");
        Sqlite(db)
    }

    pub fn exec(&self, sql: &str) {
        let c = CString::new(sql).unwrap();
        let mut err = std::ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_exec(self.0, c.as_ptr(), None, std::ptr::null_mut(), &mut err) };
        if rc != 0 {
            let msg = unsafe { CStr::from_ptr(err).to_string_lossy().into_owned() };
            panic!("sqlite exec {sql}: {rc} {msg}");
        }
    }

    pub fn try_query(&self, sql: &str) -> Result<Vec<Vec<V>>, (i32, String)> {
        let c = CString::new(sql).unwrap();
        let mut stmt = std::ptr::null_mut();
        unsafe {
            let rc = ffi::sqlite3_prepare_v2(self.0, c.as_ptr(), -1, &mut stmt, std::ptr::null_mut());
            if rc != 0 {
                return Err((rc, CStr::from_ptr(ffi::sqlite3_errmsg(self.0)).to_string_lossy().into_owned()));
            }
            let mut rows = Vec::new();
            loop {
                let rc = ffi::sqlite3_step(stmt);
                if rc == ffi::SQLITE_DONE {
                    break;
                }
                if rc != ffi::SQLITE_ROW {
                    let e = (rc, CStr::from_ptr(ffi::sqlite3_errmsg(self.0)).to_string_lossy().into_owned());
                    ffi::sqlite3_finalize(stmt);
                    return Err(e);
                }
                let n = ffi::sqlite3_column_count(stmt);
                let mut row = Vec::new();
                for i in 0..n {
                    row.push(match ffi::sqlite3_column_type(stmt, i) {
                        ffi::SQLITE_INTEGER => V::Int(ffi::sqlite3_column_int64(stmt, i)),
                        ffi::SQLITE_FLOAT => V::Real(ffi::sqlite3_column_double(stmt, i)),
                        ffi::SQLITE_TEXT => {
                            let p = ffi::sqlite3_column_text(stmt, i);
                            let n = ffi::sqlite3_column_bytes(stmt, i) as usize;
                            V::Text(String::from_utf8_lossy(std::slice::from_raw_parts(p, n)).into_owned())
                        }
                        ffi::SQLITE_BLOB => {
                            let p = ffi::sqlite3_column_blob(stmt, i) as *const u8;
                            let n = ffi::sqlite3_column_bytes(stmt, i) as usize;
                            V::Blob(if n == 0 { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() })
                        }
                        _ => V::Null,
                    });
                }
                rows.push(row);
            }
            ffi::sqlite3_finalize(stmt);
            Ok(rows)
        }
    }

    pub fn query(&self, sql: &str) -> Vec<Vec<V>> {
        self.try_query(sql).unwrap_or_else(|e| panic!("sqlite query {sql}: {e:?}"))
    }

    pub fn integrity(&self) -> String {
        let rows = self.query("PRAGMA integrity_check");
        rows.iter().map(|r| format!("{:?}", r[0])).collect::<Vec<_>>().join("\n")
    }
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        unsafe { ffi::sqlite3_close(self.0) };
    }
}

/// Open a B-tree on `path` with `io`, creating it.
pub fn open_btree(io: &IoContext, path: &str) -> Btree {
    Btree::open(io, path, BtreeOptions { create: true, ..Default::default() }).expect("open")
}

/// Add a `sqlite_schema` row through our B-tree and bump the cookie.
#[allow(clippy::too_many_arguments)]
pub fn add_schema_row(io: &IoContext, bt: &mut Btree, rowid: i64, kind: &str, name: &str, tbl: &str, root: u32, sql: &str) {
    let rec = encode(&[V::Text(kind.into()), V::Text(name.into()), V::Text(tbl.into()), V::Int(root as i64), V::Text(sql.into())]);
    let mut c = Cursor::new(1, true, None);
    io.block_on(|| c.insert(bt, InsertKey::Rowid(rowid), &rec)).expect("schema insert");
    let cookie = io.block_on(|| bt.meta(Meta::SchemaCookie)).unwrap();
    io.block_on(|| bt.set_meta(Meta::SchemaCookie, cookie + 1)).unwrap();
}

/// Create a tree in a write transaction.
pub fn create_tree(io: &IoContext, bt: &mut Btree, kind: TreeKind) -> u32 {
    io.block_on(|| bt.create_tree(kind)).expect("create tree")
}

/// A small deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn text(&mut self, len: usize) -> String {
        (0..len).map(|_| (b'a' + self.below(26) as u8) as char).collect()
    }
}

/// The cursor's payload, copied out.
pub fn payload(io: &IoContext, c: &mut Cursor, bt: &mut Btree) -> Vec<u8> {
    io.block_on(|| c.payload(bt).map(|p| p.map(|s| s.to_vec()))).expect("payload")
}
