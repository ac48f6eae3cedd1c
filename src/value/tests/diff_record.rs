//! Record bytes against the records SQLite writes into a database file,
//! and key comparison against SQLite's index order.

use super::refdb::{same, show, RefDb, Rng};
use crate::value::collation::Collation;
use crate::value::compare::compare_values;
use crate::value::record::*;
use crate::value::varint::read_varint;
use crate::value::{Value, ValueRef};
use std::cmp::Ordering;
use std::collections::BTreeMap;

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(9) {
        0 => Value::Null,
        1 => Value::Integer(*rng.pick(&[
            0,
            1,
            -1,
            2,
            127,
            128,
            -128,
            -129,
            32767,
            32768,
            -32769,
            8388607,
            8388608,
            2147483647,
            2147483648,
            -2147483649,
            0x7fff_ffff_ffff,
            0x8000_0000_0000,
            i64::MAX,
            i64::MIN,
        ])),
        2 | 3 => Value::Integer(rng.next() as i64 >> rng.below(64)),
        4 => Value::Real(*rng.pick(&[0.0, -0.0, 1.0, 2.0, 0.5, 1e100, -3.25])),
        5 => Value::Real(rng.double()),
        6 => Value::Text(rng.numeric_text()),
        7 => {
            let n = rng.below(300) as usize;
            Value::Text((0..n).map(|i| b'a' + (i % 26) as u8).collect())
        }
        _ => {
            let n = rng.below(200) as usize;
            Value::Blob((0..n).map(|_| rng.next() as u8).collect())
        }
    }
}

/// Every (rowid, payload) of the table B-tree rooted at `root`.
fn table_cells(file: &[u8], page_size: usize, root: u32, out: &mut BTreeMap<i64, Vec<u8>>) {
    let base = (root as usize - 1) * page_size;
    let hdr = if root == 1 { base + 100 } else { base };
    let kind = file[hdr];
    let ncells = u16::from_be_bytes([file[hdr + 3], file[hdr + 4]]) as usize;
    let ptrs = hdr + if kind == 0x05 { 12 } else { 8 };
    for i in 0..ncells {
        let off = base + u16::from_be_bytes([file[ptrs + 2 * i], file[ptrs + 2 * i + 1]]) as usize;
        if kind == 0x05 {
            let child = u32::from_be_bytes(file[off..off + 4].try_into().unwrap());
            table_cells(file, page_size, child, out);
        } else {
            assert_eq!(kind, 0x0d);
            let (len, a) = read_varint(&file[off..]).unwrap();
            let (rowid, b) = read_varint(&file[off + a..]).unwrap();
            let start = off + a + b;
            assert!((len as usize) < page_size - 35, "test rows must not overflow");
            out.insert(rowid as i64, file[start..start + len as usize].to_vec());
        }
    }
    if kind == 0x05 {
        let right = u32::from_be_bytes(file[hdr + 8..hdr + 12].try_into().unwrap());
        table_cells(file, page_size, right, out);
    }
}

#[test]
fn records_are_byte_identical_to_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.db");
    let mut rng = Rng(11);
    let mut rows: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    {
        let db = RefDb::open(path.to_str().unwrap());
        db.exec("CREATE TABLE t(a, b, c, d, e, f)");
        let mut ins = db.prepare("INSERT INTO t(rowid, a, b, c, d, e, f) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        db.exec("BEGIN");
        for rowid in 1..=3000i64 {
            let ncols = 1 + rng.below(6) as usize;
            let mut vals: Vec<Value> = (0..ncols).map(|_| random_value(&mut rng)).collect();
            if vals.iter().any(|v| matches!(v, Value::Real(r) if r.is_nan())) {
                continue;
            }
            let mut params = vec![Value::Integer(rowid)];
            params.extend(vals.iter().cloned());
            params.resize(7, Value::Null);
            ins.run(&params).unwrap();
            vals.resize(6, Value::Null);
            rows.insert(rowid, vals);
        }
        db.exec("COMMIT");
    }
    let file = std::fs::read(&path).unwrap();
    let page_size = u16::from_be_bytes([file[16], file[17]]) as usize;
    let mut cells = BTreeMap::new();
    table_cells(&file, page_size, 2, &mut cells);
    assert_eq!(cells.len(), rows.len());
    for (rowid, vals) in &rows {
        let want = &cells[rowid];
        let ours = encode_record(vals);
        assert_eq!(&ours, want, "row {rowid}: {:?}", vals.iter().map(show).collect::<Vec<_>>());
        // The VM's slice builder writes the same bytes.
        let refs: Vec<ValueRef<'_>> = vals.iter().map(|v| v.as_ref()).collect();
        let mut from_slice = vec![0xaa; 3];
        RecordBuilder::default().build_slice(&refs, &mut from_slice);
        assert_eq!(&from_slice, want, "row {rowid} (build_slice)");
        let rec = Record::parse(want).unwrap();
        for (i, v) in vals.iter().enumerate() {
            assert!(same(&rec.column(i).unwrap().to_owned(), v), "row {rowid} col {i}");
        }
    }
}

#[test]
fn key_comparison_matches_sqlite_index_order() {
    let db = RefDb::memory();
    db.exec("CREATE TABLE k(a, b COLLATE NOCASE, c)");
    let mut ins = db.prepare("INSERT INTO k VALUES(?1, ?2, ?3)");
    let mut rng = Rng(12);
    let mut rows = Vec::new();
    for _ in 0..2000 {
        let mut r: Vec<Value> = (0..3).map(|_| random_value(&mut rng)).collect();
        if r.iter().any(|v| matches!(v, Value::Real(x) if x.is_nan())) {
            continue;
        }
        if rng.below(3) == 0 {
            r[1] = Value::text(*rng.pick(&["abc", "ABC", "Abd", "abc ", "b"]));
        }
        ins.run(&r).unwrap();
        rows.push(r);
    }
    let want: Vec<Vec<Value>> = db.query("SELECT a, b, c FROM k ORDER BY a, b COLLATE NOCASE DESC, c", &[]).unwrap();
    let key_info = KeyInfo {
        fields: vec![
            KeyField { collation: Collation::binary(), descending: false },
            KeyField { collation: Collation::nocase(), descending: true },
            KeyField { collation: Collation::binary(), descending: false },
        ],
    };
    let mut recs: Vec<Vec<u8>> = rows.iter().map(|r| encode_record(r)).collect();
    recs.sort_by(|x, y| compare_records(x, y, &key_info).unwrap());
    for (w, rec) in want.iter().zip(&recs) {
        let keyv: Vec<ValueRef<'_>> = w.iter().map(Value::as_ref).collect();
        assert_eq!(compare_record_with_key(rec, &keyv, &key_info).unwrap(), Ordering::Equal, "{:?}", w.iter().map(show).collect::<Vec<_>>());
    }
    // Prefix keys compare equal; a shorter key decides on its own fields.
    let r = encode_record(&[Value::Integer(1), Value::text("x")]);
    assert_eq!(compare_record_with_key(&r, &[ValueRef::Integer(1)], &key_info).unwrap(), Ordering::Equal);
    assert_eq!(compare_record_with_key(&r, &[ValueRef::Integer(2)], &key_info).unwrap(), Ordering::Less);
    assert_eq!(compare_values(ValueRef::Text(b"a"), ValueRef::Blob(b"a"), None), Ordering::Less);
}
