//! Numeric literals of SQL text (`123`, `1_000`, `0x1F`, `.5`, `1e3`) to
//! numbers, as SQLite's tokenizer accepts them: an integer that fits in
//! i64 stays one, a larger decimal integer becomes a real, a hexadecimal
//! literal is the 64-bit pattern it spells ("hex literal too big" past
//! that). Code generation loads literals with it and the schema reads
//! constant DEFAULT values with it.

use crate::error::{Error, Result};

/// A parsed numeric literal.
pub enum Number {
    /// Fits in i64.
    Int(i64),
    /// Real (or too-large integer).
    Real(f64),
}

/// Parse a numeric literal as SQLite's tokenizer accepts it.
pub fn parse_numeric(s: &str) -> Result<Number> {
    let t = s.replace('_', "");
    if t.len() > 2 && (t.starts_with("0x") || t.starts_with("0X")) {
        return u64::from_str_radix(&t[2..], 16).map(|v| Number::Int(v as i64)).map_err(|_| Error::sql(format!("hex literal too big: {s}")));
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(match t.parse::<i64>() {
            Ok(i) => Number::Int(i),
            Err(_) => Number::Real(t.parse::<f64>().unwrap_or(f64::INFINITY)),
        });
    }
    let mut f = t.clone();
    if f.starts_with('.') {
        f.insert(0, '0');
    }
    if let Some(p) = f.find('.') {
        if !f.as_bytes().get(p + 1).is_some_and(|c| c.is_ascii_digit()) {
            f.insert(p + 1, '0');
        }
    }
    f.parse::<f64>().map(Number::Real).map_err(|_| Error::sql(format!("unrecognized token: \"{s}\"")))
}
