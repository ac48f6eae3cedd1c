//! Rows of the table-valued functions json_each(X[,P]) and json_tree(X[,P]),
//! and of jsonb_each/jsonb_tree (the same rows, containers in `value` as JSONB).
//!
//! The SQL layer owns table-valued functions; this computes their rows so
//! that it only has to present them. Each row has the eight visible
//! columns, in order: key, value, type, atom, id, parent, fullkey, path
//! (the hidden `json` and `root` columns are the arguments themselves).
//!
//! json_each lists the direct children of the element at P (default `$`),
//! or that element alone when it is not an array or object; json_tree lists
//! the element at P and everything below it, depth first. `id` is the
//! element's offset in the document's JSONB form (an object member's is
//! its label's), `parent` the containing element's id (json_tree only),
//! `fullkey` the element's path and `path` its container's. Containers in
//! `value` are JSON text (to carry the JSON subtype). For a BLOB argument
//! the ids assume minimal JSONB headers.

use super::node::{header_len, Node};
use super::path;
use crate::error::Result;
use crate::value::Value;

/// The rows of json_each (`recursive` false) or json_tree (true) over the
/// document `json` from the path `root` (None: `$`). A NULL document or a
/// path that leads nowhere gives no rows; malformed JSON or a malformed
/// path is an error.
pub fn rows(json: &Value, root: Option<&Value>, recursive: bool) -> Result<Vec<Vec<Value>>> {
    rows_as(json, root, recursive, false)
}

/// As [`rows`]; with `binary` (jsonb_each/jsonb_tree) a container's
/// `value` is its JSONB.
pub fn rows_as(json: &Value, root: Option<&Value>, recursive: bool, binary: bool) -> Result<Vec<Vec<Value>>> {
    let Some(doc) = super::input(json)? else { return Ok(Vec::new()) };
    let root_path: Vec<u8> = match root {
        None => b"$".to_vec(),
        Some(Value::Null | Value::Pointer(_)) => return Ok(Vec::new()),
        Some(v) => super::super::conv::value_bytes(v).unwrap_or_default().into_owned(),
    };
    let Some(at) = path::locate(&doc, &root_path)? else { return Ok(Vec::new()) };
    let fullkey = String::from_utf8_lossy(crate::vdbe::func::builtins::core::c_str(&root_path)).into_owned();
    let mut out = Vec::new();
    if recursive {
        let (key, path) = root_key_and_path(&doc, crate::vdbe::func::builtins::core::c_str(&root_path), at.id);
        out.push(row(key, at.node, at.id, Value::Null, &fullkey, &path, binary));
        walk(at.node, at.offset, at.id, &fullkey, true, binary, &mut out);
    } else if matches!(at.node, Node::Array(_) | Node::Object(_)) {
        walk(at.node, at.offset, at.id, &fullkey, false, binary, &mut out);
    } else {
        out.push(row(Value::Null, at.node, at.id, Value::Null, &fullkey, &fullkey, binary));
    }
    Ok(out)
}

/// The key and path json_tree reports for its first row when started below
/// the root, found as SQLite finds them: the last '.' or '[' in the path
/// text whose prefix names a container that has the element as its first
/// child splits path from key; failing that, everything after '$' is the
/// key. An index key is the integer its text starts with; a quoted label
/// loses its quotes.
fn root_key_and_path(doc: &Node, z: &[u8], id: usize) -> (Value, String) {
    if z.len() <= 1 {
        return (Value::Null, "$".to_string());
    }
    let mut j = 1;
    for n in (1..z.len()).rev() {
        if z[n] != b'[' && z[n] != b'.' {
            continue;
        }
        if let Ok(Some(parent)) = path::locate(doc, &z[..n]) {
            if parent.offset + header_len(parent.node.jsonb_payload_size()) == id {
                j = n;
                break;
            }
        }
    }
    let rest = &z[j..];
    let key = if rest[0] == b'[' {
        Value::Integer(crate::value::numeric::text_to_i64(&rest[1..]).0)
    } else if rest.get(1) == Some(&b'"') {
        Value::Text(rest[2..rest.len().saturating_sub(1).max(2)].to_vec())
    } else {
        Value::Text(rest[1..].to_vec())
    };
    (key, String::from_utf8_lossy(&z[..j]).into_owned())
}

fn row(key: Value, node: &Node, id: usize, parent: Value, fullkey: &str, path: &str, binary: bool) -> Vec<Value> {
    let atom = match node {
        Node::Array(_) | Node::Object(_) => Value::Null,
        other => other.to_sql(),
    };
    let value = match node {
        Node::Array(_) | Node::Object(_) if binary => Value::Blob(node.to_jsonb()),
        other => other.to_sql(),
    };
    vec![key, value, Value::text(node.type_name()), atom, Value::Integer(id as i64), parent, Value::text(fullkey), Value::text(path)]
}

/// `.label`, or `."label"` unless the label is a letter followed by
/// letters and digits.
fn label_step(raw: &[u8]) -> String {
    let plain = raw.first().is_some_and(|c| c.is_ascii_alphabetic()) && raw.iter().all(|c| c.is_ascii_alphanumeric());
    let text = String::from_utf8_lossy(raw);
    if plain {
        format!(".{text}")
    } else {
        format!(".\"{text}\"")
    }
}

/// Rows for the children of `node` (whose header is at `offset`), and
/// below them when `recursive`.
fn walk(node: &Node, offset: usize, id: usize, fullkey: &str, recursive: bool, binary: bool, out: &mut Vec<Vec<Value>>) {
    let parent = if recursive { Value::Integer(id as i64) } else { Value::Null };
    let mut off = offset + header_len(node.jsonb_payload_size());
    match node {
        Node::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let key = format!("{fullkey}[{i}]");
                out.push(row(Value::Integer(i as i64), child, off, parent.clone(), &key, fullkey, binary));
                if recursive {
                    walk(child, off, off, &key, true, binary, out);
                }
                off += child.jsonb_size();
            }
        }
        Node::Object(members) => {
            for (label, child) in members {
                let label_size = header_len(label.raw.len()) + label.raw.len();
                let key = format!("{fullkey}{}", label_step(&label.raw));
                let name = Value::Text(label.decoded().into_owned());
                out.push(row(name, child, off, parent.clone(), &key, fullkey, binary));
                if recursive {
                    walk(child, off + label_size, off, &key, true, binary, out);
                }
                off += label_size + child.jsonb_size();
            }
        }
        _ => {}
    }
}
