//! A SELECT as code generation carries it: where its rows go ([`Dest`]),
//! its result columns after `*` expansion ([`ResultItem`]), how rows
//! leave the innermost loop ([`RowCtx`]: sorter, DISTINCT, LIMIT), and the
//! facts known once it is compiled ([`SelectInfo`]), plus the sort-key
//! shape of an ORDER BY (an extra "is NULL" key for non-default NULL
//! placement).

use crate::sql::resolve::ColumnRef;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::value::collation::Collation;
use crate::value::record::{KeyField, KeyInfo};
use sqlite3_parser::ast::{self, Expr, SortOrder, SortedColumn};
use std::sync::Arc;

/// Where the rows of a SELECT go.
#[derive(Debug, Clone, Copy)]
pub enum Dest {
    /// `ResultRow`.
    Output,
    /// The first row into `reg` (one register per column), then jump to
    /// `done`.
    Scalar {
        /// Register.
        reg: i32,
        /// Label after the subquery.
        done: i32,
    },
    /// The first row into registers from `reg`, then jump to `done`
    /// (a row-value subquery).
    Row {
        /// First register.
        reg: i32,
        /// Label after the subquery.
        done: i32,
    },
    /// Each row into a temporary table under the rowid in its first
    /// column; a later row with the same key replaces the earlier one.
    EphemKeyed(i32),
    /// Each row into a temporary index whose first `.1` columns are the
    /// key (a WITHOUT ROWID table's primary key): a later row with an
    /// equal key replaces the earlier one, as with `EphemKeyed`.
    EphemIndexKeyed(i32, usize),
    /// Set `reg` to 1 on the first row, then jump to `done`.
    Exists {
        /// Register.
        reg: i32,
        /// Label after the subquery.
        done: i32,
    },
    /// Insert each row as a key into a temporary index.
    EphemIndex(i32),
    /// Append each row to a temporary table.
    EphemTable(i32),
    /// Compute the rows and throw them away (SELECT in a trigger).
    Discard,
    /// The first `width` columns of each row into registers from `reg`,
    /// then `Yield co` (the WHERE loop of a one-pass UPDATE or DELETE,
    /// `onepass.rs`, one column; the rows of INSERT ... SELECT, into a
    /// table or a virtual table, all).
    Yield {
        /// The coroutine's register.
        co: i32,
        /// First register receiving the row.
        reg: i32,
        /// Columns copied (at least 1).
        width: usize,
    },
    /// A recursive CTE's rows: into the result table and the queue,
    /// skipping rows already seen when `dedupe` is set, stopping at the
    /// CTE's LIMIT.
    Recursive {
        /// Result table.
        result: i32,
        /// Queue of rows still to expand.
        queue: i32,
        /// Index of rows seen (UNION).
        dedupe: Option<i32>,
        /// LIMIT counter, the label after the CTE, OFFSET counter.
        limit: Option<(i32, i32, Option<i32>)>,
        /// With an ORDER BY: the queue is ordered (an index of sort keys,
        /// a sequence number, then the row; `Compiler::recursive_orders`
        /// entry) and rows reach the result when taken from it.
        order: Option<usize>,
    },
}

/// Facts about a compiled SELECT.
#[derive(Debug, Clone, Default)]
pub struct SelectInfo {
    /// Result columns.
    pub n_columns: usize,
    /// It referenced an enclosing query.
    pub correlated: bool,
    /// Affinity of the first result column.
    pub first_affinity: Option<Affinity>,
    /// Result column names.
    pub names: Vec<String>,
    /// Result column affinities.
    pub affinities: Vec<Option<Affinity>>,
    /// Declared types of result columns that are table columns.
    pub decltypes: Vec<Option<String>>,
    /// (database, table, column) a result column reads directly.
    pub origins: Vec<Option<(String, String, String)>>,
    /// Collation of each result column (a subquery's columns keep it).
    pub collations: Vec<Option<String>>,
    /// The names the result columns give the columns of a table made
    /// from them (CREATE TABLE ... AS; `create_as.rs`): computed for the
    /// SELECT compiled with `Compiler::span_names`, empty otherwise.
    pub table_names: Vec<String>,
    /// The names a FROM subquery or CTE made of this SELECT gives its
    /// columns, before they are made unique (`written_column_name`): how
    /// the result columns are written, not the declared names of the
    /// columns they read. A compound's are its first arm's.
    pub written_names: Vec<String>,
    /// Kinds of value each result column may hold ([`kinds`]).
    pub data_types: Vec<u8>,
    /// Which result columns are a CAST.
    pub casts: Vec<bool>,
    /// A compound SELECT's arms (or a VALUES list's rows), left to right.
    pub arms: Vec<SelectInfo>,
    /// A parenthesized join's SELECT (`Compiler::nested_from`): per
    /// column, the table it comes from and whether `*` leaves it out.
    pub sources: Vec<NestedSource>,
}

/// Where a column of a parenthesized join comes from.
#[derive(Debug, Clone, Default)]
pub struct NestedSource {
    /// The table (or alias) naming it; `None` for what a USING column's
    /// name alone reads.
    pub table: Option<String>,
    /// The database of that table, when it is one.
    pub db: Option<usize>,
    /// Left out of `*` (a USING column's right or own column).
    pub hidden: bool,
}

/// One result column after `*` expansion.
pub enum ResultItem<'a, 'b> {
    /// An expression, with its alias.
    Expr(&'a Expr<'b>, Option<String>),
    /// A column from `*` expansion, and whether it reads as the name
    /// alone would (`*`: a USING column of a RIGHT or FULL JOIN is then
    /// the right or coalesced column) or as the qualified name (`t.*`).
    Col(ColumnRef, String, bool),
}

/// LIMIT/OFFSET registers.
#[derive(Debug, Clone, Copy)]
pub struct LimitRegs {
    /// Rows still allowed.
    pub limit: i32,
    /// Rows still to skip.
    pub offset: Option<i32>,
}

/// How a DISTINCT tells a repeated row.
#[derive(Debug, Clone)]
pub enum Distinct {
    /// The rows sent so far, in a temporary index (its cursor): SQLite's
    /// "USE TEMP B-TREE FOR DISTINCT".
    Table(i32),
    /// The loops give equal rows one after the other: a row repeats the
    /// one before it (in registers from `prev`; `first` is 0 until a row
    /// was sent), compared under each column's collation.
    Ordered { first: i32, prev: i32, collations: Vec<Collation> },
}

/// How rows are emitted from the innermost loop.
pub struct RowCtx {
    /// Final destination.
    pub dest: Dest,
    /// Sorter cursor and number of key columns, when ORDER BY sorts.
    pub sorter: Option<(i32, usize)>,
    /// ORDER BY terms: result column index or key expression (as
    /// positions into the ORDER BY list).
    pub order_map: Vec<Option<usize>>,
    /// How DISTINCT drops repeated rows.
    pub distinct: Option<Distinct>,
    /// LIMIT (applied at the final destination).
    pub limit: Option<LimitRegs>,
    /// Where to go when LIMIT is reached.
    pub end: i32,
    /// The sorter is a top-n index (`codegen/query/top_n.rs`).
    pub top_n: bool,
}

/// Whether an ORDER BY term asks for the non-default NULL placement
/// (ASC NULLS LAST or DESC NULLS FIRST): it then sorts by an extra
/// "is NULL" key column first.
pub fn needs_null_key(t: &SortedColumn<'_>) -> bool {
    let desc = matches!(t.order, Some(SortOrder::Desc));
    match t.nulls {
        Some(ast::NullsOrder::Last) => !desc,
        Some(ast::NullsOrder::First) => desc,
        None => false,
    }
}

/// Number of sorter key columns for `terms`.
pub fn key_width(terms: &[SortedColumn<'_>]) -> usize {
    terms.iter().map(|t| 1 + needs_null_key(t) as usize).sum()
}

/// Key description comparing `n` columns with BINARY, ascending.
pub fn binary_key_info(n: usize) -> Arc<KeyInfo> {
    Arc::new(KeyInfo { fields: (0..n).map(|_| KeyField { collation: Collation::binary(), descending: false }).collect() })
}

/// Value kinds an expression may produce (SQLite's data type mask).
pub mod kinds {
    /// A number.
    pub const NUMERIC: u8 = 0x01;
    /// Text.
    pub const TEXT: u8 = 0x02;
    /// A blob.
    pub const BLOB: u8 = 0x04;
    /// Anything.
    pub const ANY: u8 = 0x07;
}

/// The affinity of column `i` of a SELECT as a table column (the
/// compound rules of `codegen/ddl/create_as.rs`'s doc: an arm without
/// affinity defers to the next, a TEXT or numeric affinity other arms
/// may contradict becomes BLOB).
pub fn column_affinity(info: &SelectInfo, i: usize) -> Affinity {
    column_affinity_or_none(info, i).unwrap_or(Affinity::Blob)
}

/// `column_affinity`, None when no arm gives the column an affinity (a
/// view shows no type for it then).
pub fn column_affinity_or_none(info: &SelectInfo, i: usize) -> Option<Affinity> {
    let single;
    let arms: &[SelectInfo] = if info.arms.is_empty() {
        single = [info.clone()];
        &single
    } else {
        &info.arms
    };
    let aff_of = |a: &SelectInfo| a.affinities.get(i).copied().flatten();
    let kinds_of = |a: &SelectInfo| a.data_types.get(i).copied().unwrap_or(kinds::ANY);
    let mut k = 0u8;
    let mut at = 0;
    let mut aff = aff_of(&arms[0]);
    while aff.is_none() && at + 1 < arms.len() {
        k |= kinds_of(&arms[at]);
        at += 1;
        aff = aff_of(&arms[at]);
    }
    let mut aff = aff?;
    if aff >= Affinity::Text && arms.len() > 1 {
        for a in &arms[at + 1..] {
            k |= kinds_of(a);
        }
        if (aff == Affinity::Text && k & kinds::NUMERIC != 0) || (aff.is_numeric() && k & kinds::TEXT != 0) {
            aff = Affinity::Blob;
        }
        if aff.is_numeric() && arms[0].casts.get(i).copied().unwrap_or(false) {
            aff = Affinity::Numeric;
        }
    }
    Some(aff)
}

/// Make names unique ignoring case, SQLite's way: a name already used
/// gets `:1`, `:2`, ... appended to its base (the name without a
/// trailing `:digits`); after the third try the suffix is a random
/// number.
/// (The names taken are kept folded in a set: a 2,000-column list cost
/// 2,000^2 comparisons.)
pub fn unique_names(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    let mut taken: crate::util::fast_hash::FastMap<String, ()> = Default::default();
    for n in names {
        let mut name = n.clone();
        let mut counter: u32 = 0;
        while taken.contains_key(&name.ascii_lower()) {
            let digits = name.bytes().rev().take_while(|b| b.is_ascii_digit()).count();
            let base_len = if digits < name.len() && name.as_bytes()[name.len() - digits - 1] == b':' { name.len() - digits - 1 } else { name.len() };
            counter = counter.wrapping_add(1);
            name = format!("{}:{counter}", &name[..base_len]);
            if counter > 3 {
                counter = random_u32();
            }
        }
        taken.insert(name.ascii_lower(), ());
        out.push(name);
    }
    out
}

fn random_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish() as u32
}
