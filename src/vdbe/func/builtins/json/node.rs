//! The parsed JSON tree, its canonical text and its JSONB encoding.
//!
//! Numbers and strings keep the spelling they were given, tagged with the
//! JSONB element type that describes it ([`Lex`]), exactly as SQLite's
//! JSONB does: `1e2` stays `1e2`, `"\u0041"` stays escaped, `0x1F` is an
//! INT5, `'a"b'` a TEXT5, SQL text inserted by an edit a TEXTRAW. Text
//! output rewrites JSON5 spellings to RFC 8259 ones (`0x1F` → `31`, `.5` →
//! `0.5`, `\x41` → `\u0041`); JSONB output writes the lexemes back as they
//! are. Decoding into SQL values happens only on extraction. Objects keep
//! member order and duplicate labels.

use crate::value::Value;
use std::borrow::Cow;

/// JSONB element types (the low nibble of an element header).
pub mod ty {
    pub const NULL: u8 = 0;
    pub const TRUE: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const INT: u8 = 3;
    pub const INT5: u8 = 4;
    pub const FLOAT: u8 = 5;
    pub const FLOAT5: u8 = 6;
    pub const TEXT: u8 = 7;
    pub const TEXTJ: u8 = 8;
    pub const TEXT5: u8 = 9;
    pub const TEXTRAW: u8 = 10;
    pub const ARRAY: u8 = 11;
    pub const OBJECT: u8 = 12;
}

/// A number or string as written: its JSONB type and payload bytes.
/// INT/FLOAT hold RFC 8259 numbers, INT5/FLOAT5 JSON5 ones; TEXT holds
/// text needing no escapes, TEXTJ text with JSON escapes, TEXT5 text with
/// JSON5 escapes, TEXTRAW unescaped text that may need escaping.
#[derive(Debug, Clone, PartialEq)]
pub struct Lex {
    pub ty: u8,
    pub raw: Vec<u8>,
}

impl Lex {
    pub fn new(ty: u8, raw: impl Into<Vec<u8>>) -> Lex {
        Lex { ty, raw: raw.into() }
    }

    /// A string from raw SQL text: TEXT when nothing needs escaping, else
    /// TEXTJ with the escapes applied (what the constructors write).
    pub fn text_escaped(raw: &[u8]) -> Lex {
        let mut esc = Vec::with_capacity(raw.len());
        escape_into(&mut esc, raw);
        if esc.len() == raw.len() {
            Lex::new(ty::TEXT, esc)
        } else {
            Lex::new(ty::TEXTJ, esc)
        }
    }

    /// The RFC 8259 spelling (for strings: the contents between quotes).
    pub fn canonical(&self) -> Cow<'_, [u8]> {
        match self.ty {
            ty::INT5 | ty::FLOAT5 => Cow::Owned(super::parse::canonical_number(&self.raw).unwrap_or_else(|| b"0".to_vec())),
            ty::TEXT5 => Cow::Owned(super::parse::json5_string_body(&self.raw).unwrap_or_default()),
            ty::TEXTRAW => {
                let mut out = Vec::with_capacity(self.raw.len());
                escape_into(&mut out, &self.raw);
                Cow::Owned(out)
            }
            _ => Cow::Borrowed(&self.raw),
        }
    }

    /// String contents with escapes decoded.
    pub fn decoded(&self) -> Cow<'_, [u8]> {
        match self.ty {
            ty::TEXT | ty::TEXTRAW => Cow::Borrowed(&self.raw),
            _ => Cow::Owned(unescape(&self.canonical())),
        }
    }

    /// Whether two labels name the same member.
    pub fn same_label(&self, other: &[u8], other_raw: bool) -> bool {
        let plain = |t: u8| t == ty::TEXT || t == ty::TEXTRAW;
        if plain(self.ty) && other_raw {
            return self.raw == other;
        }
        let theirs: Cow<'_, [u8]> = if other_raw { Cow::Borrowed(other) } else { Cow::Owned(unescape(other)) };
        *self.decoded() == *theirs
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    True,
    False,
    /// INT or INT5.
    Int(Lex),
    /// FLOAT or FLOAT5.
    Real(Lex),
    /// A REAL that came from an SQL value, written as SQLite's REAL text
    /// (infinities as ±9.0e+999).
    SqlReal(f64),
    /// TEXT, TEXTJ, TEXT5 or TEXTRAW.
    Str(Lex),
    Array(Vec<Node>),
    /// Members as (label, value).
    Object(Vec<(Lex, Node)>),
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
            Node::Int(t) | Node::Real(t) => out.extend_from_slice(&t.canonical()),
            Node::SqlReal(r) => out.extend_from_slice(&sql_real_text(*r)),
            Node::Str(s) => {
                out.push(b'"');
                out.extend_from_slice(&s.canonical());
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
                    out.extend_from_slice(&label.canonical());
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
                    out.extend_from_slice(&label.canonical());
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
                let t = t.canonical();
                let (i, class) = crate::value::numeric::text_to_i64(&t);
                if class == crate::value::numeric::IntParse::Exact {
                    Value::Integer(i)
                } else {
                    Value::Real(crate::value::numeric::text_to_f64(&t).0)
                }
            }
            Node::Real(t) => Value::Real(real_value(&t.canonical())),
            Node::SqlReal(r) => Value::Real(*r),
            Node::Str(s) => Value::Text(s.decoded().into_owned()),
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
            Node::Real(_) | Node::SqlReal(_) => "real",
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

/// Bytes of the smallest JSONB header for a payload of `n` bytes.
pub fn header_len(n: usize) -> usize {
    match n as u64 {
        0..=11 => 1,
        12..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Append a JSONB element header for `payload_len` bytes of type `t`,
/// using the smallest size field.
fn header(out: &mut Vec<u8>, t: u8, payload_len: usize) {
    let n = payload_len as u64;
    if n <= 11 {
        out.push(((n as u8) << 4) | t);
    } else if n <= 0xff {
        out.push(0xc0 | t);
        out.push(n as u8);
    } else if n <= 0xffff {
        out.push(0xd0 | t);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else if n <= 0xffff_ffff {
        out.push(0xe0 | t);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(0xf0 | t);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

impl Node {
    /// Bytes of this node's JSONB encoding (header and payload).
    pub fn jsonb_size(&self) -> usize {
        let payload = self.jsonb_payload_size();
        header_len(payload) + payload
    }

    /// Bytes of this node's JSONB payload.
    pub fn jsonb_payload_size(&self) -> usize {
        match self {
            Node::Null | Node::True | Node::False => 0,
            Node::Int(l) | Node::Real(l) | Node::Str(l) => l.raw.len(),
            Node::SqlReal(r) => sql_real_text(*r).len(),
            Node::Array(items) => items.iter().map(Node::jsonb_size).sum(),
            Node::Object(members) => members.iter().map(|(l, v)| header_len(l.raw.len()) + l.raw.len() + v.jsonb_size()).sum(),
        }
    }

    /// The JSONB encoding.
    pub fn to_jsonb(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }

    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Node::Null => out.push(ty::NULL),
            Node::True => out.push(ty::TRUE),
            Node::False => out.push(ty::FALSE),
            Node::Int(l) | Node::Real(l) | Node::Str(l) => {
                header(out, l.ty, l.raw.len());
                out.extend_from_slice(&l.raw);
            }
            Node::SqlReal(r) => {
                let t = sql_real_text(*r);
                header(out, ty::FLOAT, t.len());
                out.extend_from_slice(&t);
            }
            Node::Array(items) => {
                let mut body = Vec::new();
                for it in items {
                    it.encode(&mut body);
                }
                header(out, ty::ARRAY, body.len());
                out.extend_from_slice(&body);
            }
            Node::Object(members) => {
                let mut body = Vec::new();
                for (label, v) in members {
                    header(&mut body, label.ty, label.raw.len());
                    body.extend_from_slice(&label.raw);
                    v.encode(&mut body);
                }
                header(out, ty::OBJECT, body.len());
                out.extend_from_slice(&body);
            }
        }
    }
}

/// An SQL REAL in JSON text: SQLite's REAL text; infinities ±9.0e+999.
pub fn sql_real_text(r: f64) -> Vec<u8> {
    if r.is_infinite() {
        return if r > 0.0 { b"9.0e+999".to_vec() } else { b"-9.0e+999".to_vec() };
    }
    crate::value::numeric::format_real(r).into_bytes()
}
