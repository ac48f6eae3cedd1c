//! Reading JSONB, SQLite's binary JSON: any BLOB given to a JSON function
//! is taken as JSONB. Each element is a header byte (low nibble: type;
//! high nibble: payload size, or 12..15 for a 1-, 2-, 4- or 8-byte
//! big-endian size that follows) and its payload. (Writing is
//! `Node::to_jsonb`.)

use super::node::{ty, Lex, Node};
use super::parse::{json5_string_body, number_literal};

const MAX_DEPTH: usize = 1000;

/// Decode a whole blob; `None` when it is not well-formed JSONB.
pub fn decode(b: &[u8]) -> Option<Node> {
    let (node, end) = element(b, 0, 0)?;
    (end == b.len()).then_some(node)
}

/// (type, payload start, payload end) of the element at `pos`.
fn header(b: &[u8], pos: usize) -> Option<(u8, usize, usize)> {
    let h = *b.get(pos)?;
    let t = h & 0x0f;
    let (size, hdr) = match h >> 4 {
        n @ 0..=11 => (n as u64, 1),
        12 => (*b.get(pos + 1)? as u64, 2),
        13 => (u16::from_be_bytes(b.get(pos + 1..pos + 3)?.try_into().ok()?) as u64, 3),
        14 => (u32::from_be_bytes(b.get(pos + 1..pos + 5)?.try_into().ok()?) as u64, 5),
        _ => (u64::from_be_bytes(b.get(pos + 1..pos + 9)?.try_into().ok()?), 9),
    };
    let start = pos + hdr;
    let end = start.checked_add(usize::try_from(size).ok()?)?;
    if end > b.len() {
        return None;
    }
    Some((t, start, end))
}

/// One element and the offset after it. Only containers recurse; leaves
/// are decoded in [`leaf`] so that the recursive frame stays small.
fn element(b: &[u8], pos: usize, depth: usize) -> Option<(Node, usize)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let (t, start, end) = header(b, pos)?;
    let node = match t {
        ty::ARRAY => {
            let mut items = Vec::new();
            let mut p = start;
            while p < end {
                let (n, next) = element(&b[..end], p, depth + 1)?;
                items.push(n);
                p = next;
            }
            Node::Array(items)
        }
        ty::OBJECT => {
            let mut members = Vec::new();
            let mut p = start;
            while p < end {
                let (label, next) = element(&b[..end], p, depth + 1)?;
                let Node::Str(label) = label else { return None };
                let (value, after) = element(&b[..end], next, depth + 1)?;
                members.push((label, value));
                p = after;
            }
            Node::Object(members)
        }
        _ => leaf(t, &b[start..end])?,
    };
    Some((node, end))
}

#[inline(never)]
fn leaf(t: u8, payload: &[u8]) -> Option<Node> {
    Some(match t {
        ty::NULL..=ty::FALSE if !payload.is_empty() => return None,
        ty::NULL => Node::Null,
        ty::TRUE => Node::True,
        ty::FALSE => Node::False,
        ty::INT..=ty::FLOAT5 => {
            // The payload must be a number of the kind the type says.
            match (t, number_literal(payload)?) {
                (ty::INT | ty::INT5, Node::Int(_)) => Node::Int(Lex::new(t, payload.to_vec())),
                (ty::FLOAT | ty::FLOAT5, Node::Int(_) | Node::Real(_)) => Node::Real(Lex::new(t, payload.to_vec())),
                (ty::FLOAT5, Node::Null) => Node::Null,
                _ => return None,
            }
        }
        ty::TEXT | ty::TEXTRAW => Node::Str(Lex::new(t, payload.to_vec())),
        ty::TEXTJ | ty::TEXT5 => {
            json5_string_body(payload)?;
            Node::Str(Lex::new(t, payload.to_vec()))
        }
        _ => return None,
    })
}
