//! Column affinity (`datatype3.txt` §3): how a declared type maps to an
//! affinity, how a value is converted when stored under an affinity, and
//! which affinity a comparison applies to its operands (§4.2).
//!
//! Invariant: [`apply_affinity`] is SQLite's in-register conversion, the one
//! done before a value goes into a record. It prefers INTEGER even under
//! REAL affinity (a whole REAL is kept as an integer, which is how SQLite
//! stores it on disk); reading a REAL column back must then apply
//! [`real_affinity`] to turn such integers into REALs again.
//! [`apply_column_affinity`] combines both for callers that want the value a
//! user would read back.

use super::numeric::{
    cast_to_blob, cast_to_integer, cast_to_numeric, cast_to_real, cast_to_text, format_real, integer_prefix, real_to_integer_if_exact, text_to_numeric,
};
use super::Value;
use crate::util::ascii::AsciiLower;

/// The five affinities, with SQLite's internal letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Affinity {
    /// `A`: no conversion ("BLOB", formerly "NONE").
    Blob,
    /// `B`: numbers become text.
    Text,
    /// `C`: well-formed numeric text becomes a number.
    Numeric,
    /// `D`: as NUMERIC.
    Integer,
    /// `E`: as NUMERIC, and the value reads back as REAL.
    Real,
}

impl Affinity {
    /// SQLite's letter for this affinity (as in `OP_Affinity` strings).
    pub fn letter(self) -> char {
        match self {
            Affinity::Blob => 'A',
            Affinity::Text => 'B',
            Affinity::Numeric => 'C',
            Affinity::Integer => 'D',
            Affinity::Real => 'E',
        }
    }

    /// The affinity for a letter `A`..`E`.
    pub fn from_letter(c: char) -> Option<Affinity> {
        Some(match c {
            'A' => Affinity::Blob,
            'B' => Affinity::Text,
            'C' => Affinity::Numeric,
            'D' => Affinity::Integer,
            'E' => Affinity::Real,
            _ => return None,
        })
    }

    /// NUMERIC, INTEGER or REAL.
    pub fn is_numeric(self) -> bool {
        self >= Affinity::Numeric
    }

    /// The affinity of a column declared with type `decl` (the five rules of
    /// `datatype3.txt` §3.1, first match wins; matching is on substrings,
    /// case-insensitive; an empty type is BLOB).
    pub fn from_decltype(decl: &str) -> Affinity {
        let up = decl.ascii_upper();
        if up.contains("INT") {
            Affinity::Integer
        } else if up.contains("CHAR") || up.contains("CLOB") || up.contains("TEXT") {
            Affinity::Text
        } else if up.contains("BLOB") || up.trim().is_empty() {
            Affinity::Blob
        } else if up.contains("REAL") || up.contains("FLOA") || up.contains("DOUB") {
            Affinity::Real
        } else {
            Affinity::Numeric
        }
    }
}

/// `CAST(v AS <type>)`, the type given by its affinity. Unlike
/// [`apply_affinity`] the conversion is forced: text under INTEGER reads
/// its longest integer prefix (`'1e2'` is 1), anything under TEXT or BLOB
/// is rendered.
pub fn cast(v: Value, aff: Affinity) -> Value {
    let r = v.as_ref();
    match aff {
        Affinity::Blob => match v {
            Value::Blob(_) | Value::ZeroBlob(_) => v,
            _ => cast_to_blob(r).map_or(Value::Null, Value::Blob),
        },
        Affinity::Text => cast_to_text(r).map_or(Value::Null, Value::Text),
        Affinity::Integer => match &v {
            Value::Text(t) | Value::Blob(t) => Value::Integer(integer_prefix(t)),
            Value::ZeroBlob(_) => Value::Integer(0),
            _ => cast_to_integer(r),
        },
        Affinity::Real => cast_to_real(r),
        Affinity::Numeric => cast_to_numeric(r),
    }
}

/// Converts `v` as SQLite does before storing it under affinity `aff`
/// (see the module invariant about REAL).
pub fn apply_affinity(v: Value, aff: Affinity) -> Value {
    match aff {
        Affinity::Blob => v,
        Affinity::Text => match v {
            Value::Integer(i) => Value::Text(i.to_string().into_bytes()),
            Value::Real(r) => Value::Text(format_real(r).into_bytes()),
            other => other,
        },
        Affinity::Numeric | Affinity::Integer | Affinity::Real => match v {
            Value::Text(t) => text_to_numeric(&t).unwrap_or(Value::Text(t)),
            Value::Real(r) => real_to_integer_if_exact(r).map_or(Value::Real(r), Value::Integer),
            other => other,
        },
    }
}

/// `OP_RealAffinity`: an INTEGER read from a REAL column becomes REAL.
pub fn real_affinity(v: Value) -> Value {
    match v {
        Value::Integer(i) => Value::Real(i as f64),
        other => other,
    }
}

/// The value a column of affinity `aff` reads back after `v` was stored.
pub fn apply_column_affinity(v: Value, aff: Affinity) -> Value {
    let stored = apply_affinity(v, aff);
    if aff == Affinity::Real {
        real_affinity(stored)
    } else {
        stored
    }
}

/// The affinity a comparison applies to both of its operands
/// (`datatype3.txt` §4.2). Each side is `None` when it is an expression
/// with no affinity, or the affinity of the column (or CAST) it is.
/// Two sides with affinity: NUMERIC if either is numeric, else none
/// (`Blob`). One side with affinity: that affinity. Neither: `Blob`.
/// Under NUMERIC affinity the VM converts TEXT operands that are numbers;
/// under TEXT it renders numeric operands as text; `Blob` converts nothing.
pub fn comparison_affinity(left: Option<Affinity>, right: Option<Affinity>) -> Affinity {
    match (left, right) {
        (Some(l), Some(r)) => {
            if l.is_numeric() || r.is_numeric() {
                Affinity::Numeric
            } else {
                Affinity::Blob
            }
        }
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => Affinity::Blob,
    }
}
