//! The parsed JSON tree and its canonical text.
//!
//! Numbers and strings keep their canonical JSON spelling rather than a
//! decoded value, because SQLite's json() gives back the text it was given
//! (`1e2` stays `1e2`, `"\u0041"` stays escaped); JSON5 spellings are
//! rewritten to RFC 8259 ones at parse time (`0x1F` → `31`, `.5` → `0.5`,
//! `Infinity` → `9e999`, `'x'` → `"x"`, `\x41` → `\u0041`). Decoding into
//! SQL values happens only on extraction. Objects keep member order and
//! duplicate labels.

use crate::value::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    True,
    False,
    /// Integer literal, canonical decimal text (may exceed i64).
    Int(Vec<u8>),
    /// Real literal, canonical text (`9e999` for infinity).
    Real(Vec<u8>),
    /// String contents between the quotes, with RFC 8259 escapes only.
    Str(Vec<u8>),
    Array(Vec<Node>),
    /// Members as (escaped label contents, value).
    Object(Vec<(Vec<u8>, Node)>),
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Escape raw text as the contents of a JSON string.
pub fn escape_into(out: &mut Vec<u8>, raw: &[u8]) {
    for &c in raw {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0d => out.extend_from_slice(b"\\r"),
            c if c < 0x20 => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 15) as usize]);
            }
            c => out.push(c),
        }
    }
}

fn hex_val(c: u8) -> u32 {
    (c as char).to_digit(16).unwrap_or(0)
}

/// Decode the escapes of canonical string contents into raw text.
pub fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c != b'\\' || i + 1 >= s.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = s[i + 1];
        i += 2;
        match e {
            b'b' => out.push(0x08),
            b't' => out.push(0x09),
            b'n' => out.push(0x0a),
            b'f' => out.push(0x0c),
            b'r' => out.push(0x0d),
            b'u' => {
                let read4 = |at: usize| -> Option<u32> {
                    let h = s.get(at..at + 4)?;
                    h.iter().all(|c| c.is_ascii_hexdigit()).then(|| h.iter().fold(0, |a, &c| a * 16 + hex_val(c)))
                };
                let mut cp = read4(i).unwrap_or(0xfffd);
                i += 4;
                if (0xd800..0xdc00).contains(&cp) && s.get(i) == Some(&b'\\') && s.get(i + 1) == Some(&b'u') {
                    if let Some(lo) = read4(i + 2) {
                        if (0xdc00..0xe000).contains(&lo) {
                            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                            i += 6;
                        }
                    }
                }
                crate::vdbe::func::builtins::core::push_utf8(&mut out, cp);
            }
            other => out.push(other),
        }
    }
    out
}

impl Node {
    /// Minified canonical text.
    pub fn render(&self, out: &mut Vec<u8>) {
        match self {
            Node::Null => out.extend_from_slice(b"null"),
            Node::True => out.extend_from_slice(b"true"),
            Node::False => out.extend_from_slice(b"false"),
            Node::Int(t) | Node::Real(t) => out.extend_from_slice(t),
            Node::Str(s) => {
                out.push(b'"');
                out.extend_from_slice(s);
                out.push(b'"');
            }
            Node::Array(items) => {
                out.push(b'[');
                for (k, it) in items.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    it.render(out);
                }
                out.push(b']');
            }
            Node::Object(members) => {
                out.push(b'{');
                for (k, (label, v)) in members.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    out.push(b'"');
                    out.extend_from_slice(label);
                    out.extend_from_slice(b"\":");
                    v.render(out);
                }
                out.push(b'}');
            }
        }
    }

    pub fn to_text(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.render(&mut out);
        out
    }

    /// Indented text as json_pretty() writes it.
    pub fn render_pretty(&self, out: &mut Vec<u8>, indent: &[u8], depth: usize) {
        let newline = |out: &mut Vec<u8>, d: usize| {
            out.push(b'\n');
            for _ in 0..d {
                out.extend_from_slice(indent);
            }
        };
        match self {
            Node::Array(items) if !items.is_empty() => {
                out.push(b'[');
                for (k, it) in items.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    newline(out, depth + 1);
                    it.render_pretty(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push(b']');
            }
            Node::Object(members) if !members.is_empty() => {
                out.push(b'{');
                for (k, (label, v)) in members.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    newline(out, depth + 1);
                    out.push(b'"');
                    out.extend_from_slice(label);
                    out.extend_from_slice(b"\": ");
                    v.render_pretty(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push(b'}');
            }
            other => other.render(out),
        }
    }

    /// The SQL value of this node: NULL, 1/0 for booleans, INTEGER or REAL
    /// for numbers, decoded TEXT for strings, JSON text for containers.
    pub fn to_sql(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::True => Value::Integer(1),
            Node::False => Value::Integer(0),
            Node::Int(t) => {
                let (i, class) = crate::value::numeric::text_to_i64(t);
                if class == crate::value::numeric::IntParse::Exact {
                    Value::Integer(i)
                } else {
                    Value::Real(crate::value::numeric::text_to_f64(t).0)
                }
            }
            Node::Real(t) => Value::Real(real_value(t)),
            Node::Str(s) => Value::Text(unescape(s)),
            Node::Array(_) | Node::Object(_) => Value::Text(self.to_text()),
        }
    }

    /// json_type() name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::True => "true",
            Node::False => "false",
            Node::Int(_) => "integer",
            Node::Real(_) => "real",
            Node::Str(_) => "text",
            Node::Array(_) => "array",
            Node::Object(_) => "object",
        }
    }
}

/// A real literal's value; exponents beyond the double range are infinite.
fn real_value(t: &[u8]) -> f64 {
    let txt = std::str::from_utf8(t).unwrap_or("0");
    txt.parse::<f64>().unwrap_or_else(|_| crate::value::numeric::text_to_f64(t).0)
}
