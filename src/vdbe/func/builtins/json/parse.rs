//! JSON text parser: RFC 8259, plus the JSON5 extensions SQLite accepts
//! (comments, trailing commas, unquoted labels, single-quoted strings,
//! extra escapes and whitespace, hexadecimal, signed and dotted numbers,
//! Infinity and NaN). The result records whether any JSON5 feature was
//! used, so that json_valid() can insist on strict RFC 8259.
//!
//! Errors carry the byte offset where parsing failed; json_error_position
//! reports it (as a 1-based character position).

use super::node::{ty, Lex, Node};

/// Nesting limit (SQLite's JSON_MAX_DEPTH).
const MAX_DEPTH: usize = 1000;

pub struct Parsed {
    pub node: Node,
    /// Some JSON5-only syntax was used.
    pub json5: bool,
}

struct Parser<'a> {
    z: &'a [u8],
    pos: usize,
    json5: bool,
    /// The string being scanned used a backslash escape.
    str_escaped: bool,
    /// The string being scanned used JSON5-only syntax (TEXT5).
    str_json5: bool,
    /// Where the last array or object closed right where an element was
    /// expected (empty, or after a trailing comma): SQLite reports text
    /// left over after the top-level value there (else at offset 0).
    empty_close: Option<usize>,
    /// Where the JSON5 whitespace (comments, exotic spaces) skipped by the
    /// last `skip_ws` began: SQLite reports a syntax error found right
    /// after such whitespace at its start.
    ws_mark: Option<usize>,
}

/// Parse a complete JSON text. `Err(offset)` on malformed input; as in
/// SQLite, text left over after a complete value is reported at offset 0.
pub fn parse(z: &[u8]) -> Result<Parsed, usize> {
    let mut p = Parser { z, pos: 0, json5: false, str_escaped: false, str_json5: false, ws_mark: None, empty_close: None };
    p.skip_ws()?;
    if p.pos >= z.len() {
        // Nothing but whitespace.
        return Err(0);
    }
    let node = p.value(0)?;
    let junk_at = p.empty_close.unwrap_or(0);
    p.skip_ws().map_err(|_| junk_at)?;
    if p.pos < z.len() {
        return Err(junk_at);
    }
    Ok(Parsed { node, json5: p.json5 })
}

/// Canonical contents of a JSON5-escaped string body (JSONB TEXT5).
pub fn json5_string_body(z: &[u8]) -> Option<Vec<u8>> {
    let mut p = Parser { z, pos: 0, json5: false, str_escaped: false, str_json5: false, ws_mark: None, empty_close: None };
    p.string_body(None).ok()
}

/// A number literal on its own (a JSONB number payload), as a node.
pub fn number_literal(z: &[u8]) -> Option<Node> {
    let mut p = Parser { z, pos: 0, json5: false, str_escaped: false, str_json5: false, ws_mark: None, empty_close: None };
    let n = p.number().ok()?;
    (p.pos == z.len()).then_some(n)
}

/// The RFC 8259 spelling of a (possibly JSON5) number literal.
pub fn canonical_number(z: &[u8]) -> Option<Vec<u8>> {
    let mut p = Parser { z, pos: 0, json5: false, str_escaped: false, str_json5: false, ws_mark: None, empty_close: None };
    let n = p.scan_number().ok()?;
    (p.pos == z.len()).then_some(n.canonical)
}

/// What `scan_number` found.
struct Scanned {
    /// None for NaN (which becomes null).
    is_real: Option<bool>,
    /// RFC 8259 spelling.
    canonical: Vec<u8>,
    /// Spelled with JSON5 syntax beyond a leading '+' (hex, bare '.').
    json5: bool,
    hex: bool,
    infinite: bool,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_ident(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

impl<'a> Parser<'a> {
    fn peek(&self) -> u8 {
        self.z.get(self.pos).copied().unwrap_or(0)
    }

    fn at(&self, k: usize) -> u8 {
        self.z.get(self.pos + k).copied().unwrap_or(0)
    }

    /// Length of a JSON5-only whitespace character at the cursor, if any.
    fn json5_space(&self) -> usize {
        match self.peek() {
            0x0b | 0x0c => 1,
            0xc2 if self.at(1) == 0xa0 => 2,
            0xef if self.at(1) == 0xbb && self.at(2) == 0xbf => 3,
            0xe1 if self.at(1) == 0x9a && self.at(2) == 0x80 => 3,
            0xe2 if self.at(1) == 0x80 && (self.at(2) <= 0x8a || matches!(self.at(2), 0xa8 | 0xa9 | 0xaf)) => 3,
            0xe2 if self.at(1) == 0x81 && self.at(2) == 0x9f => 3,
            0xe3 if self.at(1) == 0x80 && self.at(2) == 0x80 => 3,
            _ => 0,
        }
    }

    /// Error position for a token found unexpected after `skip_ws`.
    fn fail(&self) -> usize {
        self.ws_mark.unwrap_or(self.pos)
    }

    fn mark_json5_ws(&mut self, start: usize) {
        if self.ws_mark.is_none() {
            self.ws_mark = Some(start);
        }
        self.json5 = true;
    }

    fn skip_ws(&mut self) -> Result<(), usize> {
        self.ws_mark = None;
        loop {
            match self.peek() {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' if self.at(1) == b'*' => {
                    let start = self.pos;
                    self.pos += 2;
                    loop {
                        if self.pos >= self.z.len() {
                            return Err(start);
                        }
                        if self.peek() == b'*' && self.at(1) == b'/' {
                            self.pos += 2;
                            break;
                        }
                        self.pos += 1;
                    }
                    self.mark_json5_ws(start);
                }
                b'/' if self.at(1) == b'/' => {
                    let start = self.pos;
                    while self.pos < self.z.len() && self.peek() != b'\n' {
                        self.pos += 1;
                    }
                    self.mark_json5_ws(start);
                }
                _ => {
                    let n = self.json5_space();
                    if n == 0 {
                        return Ok(());
                    }
                    let start = self.pos;
                    self.pos += n;
                    self.mark_json5_ws(start);
                }
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, usize> {
        // Containers nest at most MAX_DEPTH deep (scalars may sit below).
        if depth >= MAX_DEPTH && matches!(self.peek(), b'[' | b'{') {
            return Err(self.pos);
        }
        match self.peek() {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            _ => self.scalar(),
        }
    }

    /// A value that is not a container. Kept out of the recursive path so
    /// that deep nesting costs little stack.
    #[inline(never)]
    fn scalar(&mut self) -> Result<Node, usize> {
        match self.peek() {
            b'"' | b'\'' => self.string().map(Node::Str),
            b't' if self.word(b"true") => Ok(Node::True),
            b'f' if self.word(b"false") => Ok(Node::False),
            b'n' if self.word(b"null") => Ok(Node::Null),
            b'-' | b'+' | b'.' | b'0'..=b'9' | b'I' | b'i' | b'N' | b'n' | b'Q' | b'q' | b'S' | b's' => self.number(),
            _ => Err(self.pos),
        }
    }

    /// Whether a value keyword (true, false, null, or a NaN/Infinity
    /// spelling) starts at the cursor, as SQLite's value reader sees it.
    fn keyword_at(&self) -> bool {
        let rest = &self.z[self.pos..];
        let not_alnum = |n: usize| !rest.get(n).is_some_and(|c| c.is_ascii_alphanumeric());
        for w in [&b"true"[..], b"false", b"null"] {
            if rest.starts_with(w) && not_alnum(w.len()) {
                return true;
            }
        }
        for w in [&b"infinity"[..], b"inf", b"nan", b"qnan", b"snan"] {
            if rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w) && not_alnum(w.len()) {
                return true;
            }
        }
        false
    }

    /// A keyword not followed by an identifier character.
    fn word(&mut self, w: &[u8]) -> bool {
        if self.z[self.pos..].starts_with(w) && !self.at(w.len()).is_ascii_alphanumeric() {
            self.pos += w.len();
            true
        } else {
            false
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node, usize> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            let before_ws = self.pos;
            self.skip_ws()?;
            if self.pos >= self.z.len() {
                // Input ends where an element should be: SQLite reports
                // where the whitespace before it began.
                return Err(before_ws);
            }
            if self.peek() == b']' {
                if !items.is_empty() {
                    // reached only after a trailing comma
                    self.json5 = true;
                }
                self.empty_close = Some(self.pos);
                self.pos += 1;
                return Ok(Node::Array(items));
            }
            if !matches!(self.peek(), b'{' | b'[' | b'"' | b'\'' | b'-' | b'+' | b'.' | b'0'..=b'9') && !self.peek().is_ascii_alphabetic() {
                // A structural character is reported where the whitespace
                // before it began, anything else where it stands.
                return Err(if matches!(self.peek(), b',' | b'}' | b':') { before_ws } else { self.pos });
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws()?;
            match self.peek() {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Ok(Node::Array(items));
                }
                _ => return Err(self.fail()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Node, usize> {
        self.pos += 1;
        let mut members = Vec::new();
        loop {
            // Label errors are reported where the whitespace before the
            // label began.
            let before_ws = self.pos;
            self.skip_ws()?;
            if self.peek() == b'}' {
                if !members.is_empty() {
                    self.json5 = true;
                }
                self.empty_close = Some(self.pos);
                self.pos += 1;
                return Ok(Node::Object(members));
            }
            let label = self.label(depth, before_ws)?;
            self.skip_ws()?;
            if self.peek() != b':' {
                return Err(self.missing_colon(depth));
            }
            self.pos += 1;
            let before_value_ws = self.pos;
            self.skip_ws()?;
            if self.pos >= self.z.len() {
                return Err(before_value_ws);
            }
            let v = self.value(depth + 1)?;
            members.push((label, v));
            self.skip_ws()?;
            match self.peek() {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Ok(Node::Object(members));
                }
                _ => return Err(self.pos),
            }
        }
    }

    /// An object member's label: a string, or (JSON5) an identifier.
    #[inline(never)]
    fn label(&mut self, depth: usize, before_ws: usize) -> Result<Lex, usize> {
        match self.peek() {
            b'"' | b'\'' => self.string(),
            b'-' | b'+' | b'.' | b'0'..=b'9' | b'{' | b'[' => {
                // SQLite reads a label as a value first: a number or a
                // container is not a label.
                self.value(depth + 1)?;
                Err(before_ws)
            }
            c if is_ident_start(c) && self.keyword_at() => Err(before_ws),
            c if is_ident_start(c) => {
                let start = self.pos;
                while is_ident(self.peek()) {
                    self.pos += 1;
                }
                self.json5 = true;
                Ok(Lex::new(ty::TEXT, self.z[start..self.pos].to_vec()))
            }
            _ => Err(self.pos),
        }
    }

    /// The error for a label not followed by ':'. SQLite reads the value
    /// before it complains, so an error inside the value comes first.
    #[inline(never)]
    fn missing_colon(&mut self, depth: usize) -> usize {
        let at = self.fail();
        let value_start = self.pos;
        if self.pos < self.z.len() {
            let structural = matches!(self.peek(), b',' | b'}' | b']' | b':');
            match self.value(depth + 1) {
                Err(e) if e != value_start || !structural => return e,
                _ => {}
            }
        }
        at
    }

    /// A quoted string, as written: TEXT, TEXTJ (JSON escapes) or TEXT5
    /// (JSON5 escapes, raw control characters, or a raw '"' inside single
    /// quotes).
    fn string(&mut self) -> Result<Lex, usize> {
        let quote = self.peek();
        if quote == b'\'' {
            self.json5 = true;
        }
        self.pos += 1;
        let start = self.pos;
        self.str_escaped = false;
        self.str_json5 = false;
        self.string_body(Some(quote))?;
        let raw = self.z[start..self.pos - 1].to_vec();
        let t = if self.str_json5 {
            ty::TEXT5
        } else if self.str_escaped {
            ty::TEXTJ
        } else {
            ty::TEXT
        };
        Ok(Lex::new(t, raw))
    }

    /// String contents up to the closing `quote` (or the end of input when
    /// `None`), converted to canonical escapes.
    fn string_body(&mut self, quote: Option<u8>) -> Result<Vec<u8>, usize> {
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.z.get(self.pos) else {
                return if quote.is_none() { Ok(out) } else { Err(self.pos) };
            };
            if Some(c) == quote {
                self.pos += 1;
                return Ok(out);
            }
            if c == b'\\' {
                self.str_escaped = true;
                let e = self.at(1);
                if !matches!(e, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u') {
                    self.str_json5 = true;
                }
                match e {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                        out.push(b'\\');
                        out.push(e);
                        self.pos += 2;
                    }
                    b'u' => {
                        if !(2..6).all(|k| self.at(k).is_ascii_hexdigit()) {
                            return Err(self.pos);
                        }
                        out.extend_from_slice(&self.z[self.pos..self.pos + 6]);
                        self.pos += 6;
                    }
                    b'\'' => {
                        out.push(b'\'');
                        self.pos += 2;
                        self.json5 = true;
                    }
                    b'v' => {
                        out.extend_from_slice(b"\\u000b");
                        self.pos += 2;
                        self.json5 = true;
                    }
                    b'0' if !self.at(2).is_ascii_digit() => {
                        out.extend_from_slice(b"\\u0000");
                        self.pos += 2;
                        self.json5 = true;
                    }
                    b'x' => {
                        if !(2..4).all(|k| self.at(k).is_ascii_hexdigit()) {
                            return Err(self.pos);
                        }
                        out.extend_from_slice(b"\\u00");
                        out.push(self.at(2).to_ascii_lowercase());
                        out.push(self.at(3).to_ascii_lowercase());
                        self.pos += 4;
                        self.json5 = true;
                    }
                    b'\n' => {
                        self.pos += 2;
                        self.json5 = true;
                    }
                    b'\r' => {
                        self.pos += if self.at(2) == b'\n' { 3 } else { 2 };
                        self.json5 = true;
                    }
                    0xe2 if self.at(2) == 0x80 && matches!(self.at(3), 0xa8 | 0xa9) => {
                        self.pos += 4;
                        self.json5 = true;
                    }
                    _ => return Err(self.pos + 1),
                }
                continue;
            }
            if c == b'"' && quote != Some(b'"') {
                // a double quote inside a single-quoted string
                self.str_json5 = true;
                out.extend_from_slice(b"\\\"");
                self.pos += 1;
                continue;
            }
            if c < 0x20 {
                if c == 0 && quote.is_some() {
                    return Err(self.pos);
                }
                // Raw control characters are a JSON5 extension; keep them
                // escaped in the canonical form.
                self.json5 = true;
                self.str_json5 = true;
                super::node::escape_into(&mut out, &[c]);
                self.pos += 1;
                continue;
            }
            out.push(c);
            self.pos += 1;
        }
    }

    fn scan_number(&mut self) -> Result<Scanned, usize> {
        let start = self.pos;
        let mut text = Vec::new();
        let mut c = self.peek();
        if c == b'-' || c == b'+' {
            if c == b'+' {
                self.json5 = true;
            } else {
                text.push(b'-');
            }
            self.pos += 1;
            c = self.peek();
        }
        // Infinity / NaN spellings.
        for (name, repl) in [(&b"infinity"[..], &b"9e999"[..]), (b"inf", b"9e999"), (b"nan", b""), (b"qnan", b""), (b"snan", b"")] {
            let n = name.len();
            if self.z.len() >= self.pos + n && self.z[self.pos..self.pos + n].eq_ignore_ascii_case(name) && !self.at(n).is_ascii_alphanumeric() {
                self.pos += n;
                self.json5 = true;
                if repl.is_empty() {
                    return Ok(Scanned { is_real: None, canonical: b"null".to_vec(), json5: true, hex: false, infinite: false });
                }
                text.extend_from_slice(repl);
                return Ok(Scanned { is_real: Some(true), canonical: text, json5: false, hex: false, infinite: true });
            }
        }
        if c == b'0' && (self.at(1) == b'x' || self.at(1) == b'X') {
            self.pos += 2;
            let hs = self.pos;
            while self.peek().is_ascii_hexdigit() {
                self.pos += 1;
            }
            if self.pos == hs {
                return Err(hs);
            }
            self.json5 = true;
            let mut v: u64 = 0;
            for &h in &self.z[hs..self.pos] {
                v = v.saturating_mul(16).saturating_add((h as char).to_digit(16).unwrap_or(0) as u64);
            }
            text.extend_from_slice(v.to_string().as_bytes());
            return Ok(Scanned { is_real: Some(false), canonical: text, json5: true, hex: true, infinite: false });
        }
        let int_start = self.pos;
        while self.peek().is_ascii_digit() {
            self.pos += 1;
        }
        let int_digits = &self.z[int_start..self.pos];
        if int_digits.len() > 1 && int_digits[0] == b'0' {
            return Err(int_start + 1);
        }
        let mut is_real = false;
        let mut five = false;
        if int_digits.is_empty() {
            if self.peek() != b'.' || !self.at(1).is_ascii_digit() {
                return Err(if self.pos == start { start } else { self.pos });
            }
            self.json5 = true;
            five = true;
            text.push(b'0');
        } else {
            text.extend_from_slice(int_digits);
        }
        if self.peek() == b'.' {
            is_real = true;
            self.pos += 1;
            text.push(b'.');
            let fs = self.pos;
            while self.peek().is_ascii_digit() {
                self.pos += 1;
            }
            if self.pos == fs {
                self.json5 = true;
                five = true;
                text.push(b'0');
            } else {
                text.extend_from_slice(&self.z[fs..self.pos]);
            }
        }
        if self.peek() == b'e' || self.peek() == b'E' {
            is_real = true;
            text.push(self.peek());
            self.pos += 1;
            if self.peek() == b'+' || self.peek() == b'-' {
                text.push(self.peek());
                self.pos += 1;
            }
            let es = self.pos;
            while self.peek().is_ascii_digit() {
                self.pos += 1;
            }
            if self.pos == es {
                // SQLite reports a bare exponent at its 'e'.
                return Err(es - 1 - (self.z[es - 1] == b'+' || self.z[es - 1] == b'-') as usize);
            }
            text.extend_from_slice(&self.z[es..self.pos]);
        }
        if matches!(self.peek(), b'.' | b'e' | b'E') {
            return Err(self.pos);
        }
        let _ = start;
        Ok(Scanned { is_real: Some(is_real), canonical: text, json5: five, hex: false, infinite: false })
    }

    /// A number, kept as written (less any leading '+') with its JSONB
    /// type; NaN is null and Infinity the FLOAT `9e999`.
    fn number(&mut self) -> Result<Node, usize> {
        let mut start = self.pos;
        if self.peek() == b'+' {
            start += 1;
        }
        let n = self.scan_number()?;
        let Some(is_real) = n.is_real else { return Ok(Node::Null) };
        if n.infinite {
            return Ok(Node::Real(Lex::new(ty::FLOAT, n.canonical)));
        }
        let raw = self.z[start..self.pos].to_vec();
        Ok(match (is_real, n.hex || n.json5) {
            (false, false) => Node::Int(Lex::new(ty::INT, raw)),
            (false, true) => Node::Int(Lex::new(ty::INT5, raw)),
            (true, false) => Node::Real(Lex::new(ty::FLOAT, raw)),
            (true, true) => Node::Real(Lex::new(ty::FLOAT5, raw)),
        })
    }
}
