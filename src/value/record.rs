//! The record format: a header of serial types followed by the values
//! (`fileformat2.txt`, "Record Format"), and comparison of index keys.

use super::collation::Collation;

/// How the fields of an index key compare: one entry per key column.
#[derive(Debug, Clone)]
pub struct KeyInfo {
    /// Per field: collation and direction. Fields past the end of this
    /// list (the rowid of an index entry) compare with BINARY, ascending.
    pub fields: Vec<KeyField>,
}

/// One field of a [`KeyInfo`].
#[derive(Debug, Clone)]
pub struct KeyField {
    /// Collation for text values.
    pub collation: Collation,
    /// `DESC` column: order reversed.
    pub descending: bool,
}
