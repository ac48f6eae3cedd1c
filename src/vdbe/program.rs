//! Compiled programs: instructions with SQLite's opcode names and operand
//! conventions (`opcode.txt`), plus what the statement needs to know about
//! its program (result columns, parameters, cursors, registers).
//!
//! Invariant: jump targets (`p2` of jumping opcodes) are resolved addresses
//! once a `Program` is built; labels live only in the code generator
//! (checked: program_jumps_resolved).

use crate::util::ascii::AsciiLower;
use crate::value::collation::Collation;
use crate::value::record::KeyInfo;
use crate::value::Value;
use crate::vdbe::func::FuncDef;
use std::sync::Arc;

/// `Column` P5: the value feeds only `length()` (SQLite's values).
pub const OPFLAG_LENGTHARG: u16 = 0x40;
/// `Column` P5: the value feeds only `typeof()`.
pub const OPFLAG_TYPEOFARG: u16 = 0x80;
/// `Column` P5: the value feeds only `octet_length()` (both bits).
pub const OPFLAG_BYTELENARG: u16 = 0xc0;
/// `Column` P5 (ringlite's own): the value is the first argument of a
/// built-in `substr(X, P1)` whose other argument is already in the next
/// register; a large blob is read only as far as `substr()` takes it.
pub const OPFLAG_SUBSTR2ARG: u16 = 0x100;
/// The same for `substr(X, P1, P2)` (P1, P2 in the next two registers).
pub const OPFLAG_SUBSTR3ARG: u16 = 0x200;

/// The opcodes this VM implements. Names and operands follow SQLite's
/// `opcode.txt`; `Debug` prints the name EXPLAIN shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opcode {
    // control
    Init,
    Goto,
    Gosub,
    Return,
    Halt,
    HaltIfNull,
    /// r[P1] = rows this statement changed so far (`PRAGMA count_changes`).
    ChangeCount,
    /// A trigger body starts: save `changes()`, `last_insert_rowid()` and
    /// the enclosing trigger statement's row count (`exec::trigger_counts`).
    TriggerEnter,
    /// A trigger body ends: put back what its `TriggerEnter` saved.
    TriggerLeave,
    /// A trigger body's statement ended: its rows become `changes()` and
    /// count in `total_changes()`.
    ResetCount,
    If,
    IfNot,
    IsNull,
    NotNull,
    /// Jump to P2 when the storage class of register P3 is in the mask P5
    /// (0x01 INTEGER, 0x02 FLOAT, 0x04 TEXT, 0x08 BLOB, 0x10 NULL: bit
    /// `type - 1`). SQLite's OP_IsType in its register form (P1 -1); the
    /// integrity check tests stored values with it instead of `typeof()`.
    IsType,
    IfPos,
    IfNotZero,
    DecrJumpZero,
    OffsetLimit,
    Once,
    /// Add the key in r[P3..P3+P2] (P4: the affinity it is stored
    /// under) to the Bloom filter in r[P1].
    FilterAdd,
    /// Jump to P2 when the key in r[P3..P3+P4] is surely not in the
    /// Bloom filter in r[P1].
    Filter,
    Jump,
    Noop,
    InitCoroutine,
    Yield,
    EndCoroutine,
    ResultRow,
    // registers and constants
    Integer,
    Int64,
    Real,
    String8,
    Blob,
    Null,
    Variable,
    Move,
    Copy,
    SCopy,
    /// The subtype of register p1 into p2 (NULL for none).
    GetSubtype,
    /// Register p1's integer (NULL: none) as the subtype of register p2
    /// (its low byte; P5 1: whole, for a virtual table's unchanged column).
    SetSubtype,
    IntCopy,
    MustBeInt,
    RealAffinity,
    Affinity,
    Cast,
    // arithmetic and logic
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
    Concat,
    BitAnd,
    BitOr,
    ShiftLeft,
    ShiftRight,
    BitNot,
    Not,
    And,
    Or,
    IsTrue,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Compare,
    Function,
    // aggregates
    AggStep,
    AggFinal,
    AggValue,
    AggInverse,
    // records and cursors
    MakeRecord,
    Column,
    Rowid,
    /// Copy the whole payload of cursor P1's current entry (a table row's
    /// record, or an index entry's key) into register P2 as a blob: the
    /// INSERT ... SELECT transfer copies records without decoding them.
    RowData,
    OpenRead,
    OpenWrite,
    OpenEphemeral,
    OpenPseudo,
    Close,
    NullRow,
    IfNullRow,
    Rewind,
    Last,
    Next,
    Prev,
    SeekRowid,
    NotExists,
    SeekGE,
    SeekGT,
    SeekLE,
    SeekLT,
    IdxGE,
    IdxGT,
    IdxLE,
    IdxLT,
    IdxRowid,
    Found,
    NotFound,
    NoConflict,
    NewRowid,
    Insert,
    Delete,
    IdxInsert,
    IdxDelete,
    /// r[P2] = entries of cursor P1's tree; P5 bit 1: a root of the other
    /// kind than the cursor's is not refused (the integrity check's index
    /// counts).
    Count,
    Sequence,
    // sorter
    SorterOpen,
    SorterInsert,
    SorterSort,
    SorterNext,
    SorterData,
    // transactions and schema
    Transaction,
    AutoCommit,
    Savepoint,
    ReadCookie,
    SetCookie,
    CreateBtree,
    Destroy,
    Clear,
    ParseSchema,
    DropTable,
    DropIndex,
    IntegrityCk,
    Pagecount,
    /// ringlite: a pragma that reads or sets a B-tree/pager knob at run
    /// time (SQLite does these in OP_JournalMode, OP_Checkpoint and in
    /// pragma.c). P1 database, P2 first output register, P4 `Text` "name"
    /// or "name=value".
    PragmaBtree,
    TypeCheck,
    // foreign keys
    FkCounter,
    FkIfZero,
    /// ringlite: jump to P2 when `PRAGMA foreign_keys` is off (foreign key
    /// code is always compiled in and skipped at run time, so changing the
    /// pragma needs no re-prepare).
    FkIfOff,
    /// Fail with "FOREIGN KEY constraint failed" while the transaction has
    /// unresolved deferred violations (COMMIT, and the RELEASE that ends a
    /// transaction).
    FkCheck,
    /// ringlite: fill the temporary table P1 with the rows of the
    /// table-valued function json_each (P5 0) or json_tree (P5 1) over the
    /// P3 arguments starting at register P2, replacing its earlier rows
    /// (SQLite's OP_VFilter on the json_each virtual table).
    JsonRows,
    // ringlite: the result row of EXPLAIN-like statements built at compile time
    ResultRowConst,
    /// Run trigger program P3 (an index into the statement's
    /// `Program::subprograms`) in a new frame: its registers 1..=P4 start
    /// as copies of registers P1.. of the caller. When it ends with
    /// RAISE(IGNORE) (a `Halt` with P3 = 1) the caller goes on at P2, else
    /// after this instruction (SQLite's OP_Program, its OP_Param reads
    /// done at entry).
    Program,
    /// Only cursor P1 may write its table until `CursorUnlock` P1 (an
    /// UPDATE's REPLACE runs DELETE triggers: they may not change the
    /// table being updated).
    CursorLock,
    CursorUnlock,
    // virtual tables (`exec::vtab`)
    /// Open cursor P1 on the virtual table in P4.
    VOpen,
    /// Start cursor P1's scan: xFilter with idxNum r[P3], the r[P3+1]
    /// arguments from r[P3+2], idxStr P4; jump to P2 when it has no row.
    VFilter,
    /// Advance cursor P1; jump to P2 while it has a row.
    VNext,
    /// r[P3] = column P2 of cursor P1's row (P5 1: for an UPDATE that
    /// does not change it, `sqlite3_vtab_nochange`).
    VColumn,
    /// r[P2] = the rowid of cursor P1's row.
    VRowid,
    /// xUpdate on the table in P4 with the P2 arguments from r[P3]; P5
    /// the conflict mode; P1 1: an inserted row's rowid becomes
    /// last_insert_rowid.
    VUpdate,
    /// xBegin on the table in P4 (once per transaction).
    VBegin,
    /// xCreate of the table described by P4 in database P1.
    VCreate,
    /// xDestroy of table P4 (text) in database P1.
    VDestroy,
    /// xRename of the table in P4 to the name in r[P1].
    VRename,
    /// xIntegrity of the table in P4 (database name r[P1+1]... see exec):
    /// r[P2] = its message or NULL.
    VCheck,
    /// r[P2] = the IN list's values r[P1..P1+P3] (P5 1: the first column
    /// of ephemeral index P1's rows), for `sqlite3_vtab_in_first`.
    VInitIn,
}

/// The fourth operand. Every variant's payload is one word (the rare
/// large ones are boxed), so a `P4` is 16 bytes and an [`Insn`] 32: a
/// program of a huge statement holds hundreds of thousands of them. Build
/// the boxed variants with the constructors ([`P4::bytes`], ...).
#[derive(Clone, Default)]
pub enum P4 {
    /// Unused.
    #[default]
    None,
    /// A 64-bit integer (`Int64`).
    Int64(i64),
    /// A real (`Real`).
    Real(f64),
    /// Text or blob bytes (`String8`, `Blob`).
    Bytes(Box<Vec<u8>>),
    /// Text or blob bytes, at most [`P4::SHORT`] of them, held in the
    /// operand itself (most literals: no allocation). Read either form
    /// with [`P4::as_bytes`].
    Short(u8, [u8; P4::SHORT]),
    /// A function (`Function`, `AggStep`, `AggFinal`).
    Func(Arc<FuncDef>),
    /// Index key description (`OpenRead`/`OpenWrite` on an index,
    /// `OpenEphemeral`, `SorterOpen`, `Compare`).
    KeyInfo(Arc<KeyInfo>),
    /// Collating sequence (comparisons).
    Coll(Box<Collation>),
    /// Affinity string, one letter per column (`MakeRecord`, `Affinity`).
    Affinity(Box<String>),
    /// The table a row write changes (`Insert`, `Delete`, `Clear`): for
    /// the update and pre-update hooks and messages.
    Table(Arc<WrittenTable>),
    /// A message or SQL text (`Halt`, `ParseSchema`).
    Text(Box<String>),
    /// Root pages (`IntegrityCk`).
    Roots(Box<Vec<u32>>),
    /// A constant row (`ResultRowConst`).
    Row(Box<Vec<Value>>),
    /// A connected virtual table (`VOpen`, `VUpdate`, `VBegin`, ...).
    VTab(Arc<crate::vdbe::vtab::VtabInstance>),
    /// What `VCreate` creates.
    VCreate(Arc<crate::vdbe::vtab::CreateSpec>),
}

/// A table as the hooks of its row writes describe it (`P4::Table`).
#[derive(Debug, Clone)]
pub struct WrittenTable {
    /// The table's name.
    pub name: String,
    /// For each column, its field in the row's record (`None`: a VIRTUAL
    /// generated column). The INTEGER PRIMARY KEY's field holds NULL: its
    /// value is the rowid.
    pub fields: Vec<Option<usize>>,
    /// The INTEGER PRIMARY KEY column.
    pub rowid_alias: Option<usize>,
    /// Each column's constant DEFAULT: what a row written before the
    /// column was added holds.
    pub defaults: Vec<Value>,
    /// Whether the pre-update hook is told of its changes (not for
    /// `sqlite_sequence`, as in SQLite; `sqlite_stat1` is told, and the
    /// session extension records it).
    pub preupdate: bool,
    /// A WITHOUT ROWID table: no rowid to report, and the update hook is
    /// not told (as in SQLite).
    pub without_rowid: bool,
    /// The trigger depth of the write when the trigger bodies around it
    /// were compiled inline (programs run as frames add their own depth).
    pub trigger_depth: i32,
}

impl std::fmt::Debug for P4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.display())
    }
}

impl P4 {
    /// The most bytes [`P4::Short`] holds.
    pub const SHORT: usize = 14;

    /// Text or blob bytes (inline when short).
    pub fn bytes(b: Vec<u8>) -> P4 {
        if b.len() <= P4::SHORT {
            let mut d = [0u8; P4::SHORT];
            d[..b.len()].copy_from_slice(&b);
            return P4::Short(b.len() as u8, d);
        }
        P4::Bytes(Box::new(b))
    }

    /// The bytes of a `Bytes` or `Short` operand.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            P4::Bytes(b) => Some(b),
            P4::Short(n, d) => Some(&d[..*n as usize]),
            _ => None,
        }
    }

    /// A collating sequence.
    pub fn coll(c: Collation) -> P4 {
        P4::Coll(Box::new(c))
    }

    /// An affinity string.
    pub fn affinity(a: String) -> P4 {
        P4::Affinity(Box::new(a))
    }

    /// A message or SQL text.
    pub fn text(t: String) -> P4 {
        P4::Text(Box::new(t))
    }

    /// Root pages.
    pub fn roots(r: Vec<u32>) -> P4 {
        P4::Roots(Box::new(r))
    }

    /// A constant row.
    pub fn row(r: Vec<Value>) -> P4 {
        P4::Row(Box::new(r))
    }

    /// EXPLAIN's rendering of the operand.
    pub fn display(&self) -> String {
        match self {
            P4::None => String::new(),
            P4::Int64(i) => i.to_string(),
            P4::Real(r) => crate::value::numeric::format_real(*r),
            P4::Bytes(_) | P4::Short(..) => String::from_utf8_lossy(self.as_bytes().unwrap_or_default()).into_owned(),
            P4::Func(f) => format!("{}({})", f.name, f.n_args.max(0)),
            P4::KeyInfo(k) => {
                let parts: Vec<String> = k
                    .fields
                    .iter()
                    .map(|f| {
                        let c = if f.collation.name.eq_ci("BINARY") { "B".to_string() } else { f.collation.name.to_string() };
                        if f.descending {
                            format!("-{c}")
                        } else {
                            c
                        }
                    })
                    .collect();
                format!("k({},{})", k.fields.len(), parts.join(","))
            }
            P4::Coll(c) => c.name.to_string(),
            P4::Affinity(a) => a.to_string(),
            P4::Table(t) => t.name.clone(),
            P4::Text(t) => t.to_string(),
            P4::Roots(r) => r.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","),
            P4::Row(_) => String::new(),
            P4::VTab(v) => format!("vtab:{}", v.name),
            P4::VCreate(c) => format!("vtab:{}", c.name),
        }
    }
}

/// One instruction.
#[derive(Debug, Clone)]
pub struct Insn {
    /// What to do.
    pub opcode: Opcode,
    /// First operand (often a cursor or register).
    pub p1: i32,
    /// Second operand (often a jump target).
    pub p2: i32,
    /// Third operand.
    pub p3: i32,
    /// Fourth operand.
    pub p4: P4,
    /// Flags.
    pub p5: u16,
}

// (EXPLAIN's comment column is kept out of line, `Program::comments`: most
// instructions have none, and a program of a huge statement has hundreds
// of thousands of them.)
const _: () = assert!(std::mem::size_of::<P4>() == 16 && std::mem::size_of::<Insn>() == 32);

/// `p5` bits of comparison opcodes.
pub mod cmp_flags {
    /// Jump (or store true) if either operand is NULL.
    pub const JUMPIFNULL: u16 = 0x10;
    /// NULL = NULL is true (IS / IS NOT).
    pub const NULLEQ: u16 = 0x80;
    /// Store the result in register p2 instead of jumping.
    pub const STOREP2: u16 = 0x20;
    /// Low bits: the affinity letter ('A'..'E') to apply to the operands
    /// before comparing; 0 for none.
    pub const AFF_MASK: u16 = 0x47;
}

/// A compiled statement program.
#[derive(Clone, Default)]
pub struct Program {
    /// The instructions.
    pub insns: Vec<Insn>,
    /// EXPLAIN's comment column of the instructions that have one (a
    /// table or index name): (address, comment), by address.
    pub comments: Vec<(u32, Box<str>)>,
    /// How many times compiling it passed another 100 jump labels: where
    /// SQLite checks for an interrupt and counts a step towards calling
    /// the progress handler during a prepare (see `Connection::compile`).
    pub compile_checkpoints: u32,
    /// Registers used (1-based numbering; register 0 unused).
    pub n_regs: usize,
    /// Cursors used.
    pub n_cursors: usize,
    /// Result column names.
    pub column_names: Vec<String>,
    /// Declared types of result columns that are table columns.
    pub column_decltypes: Vec<Option<String>>,
    /// (database, table, column) of result columns that are table columns.
    pub column_origins: Vec<Option<(String, String, String)>>,
    /// Parameter names by index (index 0 unused); `None` for `?`.
    pub param_names: Vec<Option<String>>,
    /// The parameters whose binding makes the statement compile again
    /// (SQLite's expmask: bit `i - 1` for parameter `i` below 32, bit 31
    /// for the others): a LIMIT or OFFSET read as a parameter.
    pub expire_on_bind: u32,
    /// Whether the program never writes the database.
    pub readonly: bool,
    /// 0 normal, 1 EXPLAIN, 2 EXPLAIN QUERY PLAN.
    pub explain: u8,
    /// Schema cookie the program was compiled against (checked by
    /// `Transaction`).
    pub schema_cookie: u32,
    /// Whether the program changes the schema (reload after it runs).
    pub changes_schema: bool,
    /// Whether the statement counts rows for `changes()`.
    pub counts_changes: bool,
    /// A failure half-way leaves nothing the statement must undo itself,
    /// so `Transaction` opens no statement savepoint (SQLite's
    /// `usesStmtJournal` is false, a savepoint would copy every page the
    /// statement touches). Either the statement writes at most one row,
    /// and only after every check that can make it fail (a single-row
    /// INSERT without triggers, foreign keys, upsert, AUTOINCREMENT,
    /// RETURNING, indexes on expressions, VIRTUAL columns or with a WHERE
    /// clause, nor a REPLACE that deletes before it writes: one on a table
    /// with indexes); or it is a one-pass UPDATE or DELETE that can fail
    /// only as SQLite's may without a statement journal: by an error that
    /// ends the transaction (I/O, a full disk, interrupt) or that SQLite
    /// too leaves half done (see `Compiler::onepass_cannot_abort`).
    pub no_statement_savepoint: bool,
    /// EXPLAIN QUERY PLAN rows: (id, parent, detail).
    pub query_plan: Vec<(i32, i32, String, i32)>,
    /// A VACUUM statement: run by the connection (`connection/vacuum.rs`),
    /// not by the VM.
    pub vacuum: Option<Vacuum>,
    /// ATTACH or DETACH: the program only computes the operands (one
    /// row: file name, schema name for ATTACH; schema name for DETACH);
    /// the connection does the rest (`connection/attach.rs`).
    pub attach: Option<AttachKind>,
    /// The connection's ATTACH/DETACH count when this was compiled:
    /// database indexes in the program are only valid while it holds.
    pub attach_generation: u64,
    /// The connection's `settings_generation` when this was compiled.
    pub settings_generation: u64,
    /// Debug builds: the settings this was compiled under (see
    /// `vdbe/settings.rs`).
    #[cfg(debug_assertions)]
    pub compiled_settings: Option<crate::vdbe::settings::Settings>,
    /// An ANALYZE statement: run by the connection (`connection/analyze.rs`).
    pub analyze: Option<Analyze>,
    /// `integrity_check`/`quick_check`: a record that cannot be decoded
    /// (a `Column` failing with SQLITE_CORRUPT) ends the statement with the
    /// row "database disk image is malformed" instead of an error, as
    /// SQLite reports it; corruption met by other instructions stays an
    /// error, as in SQLite.
    pub corruption_is_a_row: bool,
    /// Trigger programs the statement runs with `Program` (recursive
    /// triggers): each compiled once, indexed by `Program`'s P3. A trigger
    /// program's own `Program` instructions index this same list.
    pub subprograms: Vec<Program>,
}

impl Program {
    /// The comment of the instruction at `addr` (empty: none).
    pub fn comment(&self, addr: usize) -> &str {
        match self.comments.binary_search_by_key(&(addr as u32), |c| c.0) {
            Ok(i) => &self.comments[i].1,
            Err(_) => "",
        }
    }
}

/// What an ANALYZE statement asks for.
#[derive(Debug, Clone)]
pub struct Analyze {
    /// The database ("main" when not named).
    pub schema: String,
    /// A table or index of it; `None` for all its tables.
    pub target: Option<String>,
}

/// Which of ATTACH and DETACH a program is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachKind {
    /// `ATTACH file AS name`.
    Attach,
    /// `DETACH name`.
    Detach,
}

/// What a VACUUM statement asks for.
#[derive(Debug, Clone)]
pub struct Vacuum {
    /// The schema to vacuum ("main" when not named).
    pub schema: String,
    /// `VACUUM INTO`: the output file's name, or the parameter holding it.
    pub into: Option<VacuumInto>,
}

/// The target of `VACUUM INTO`.
#[derive(Debug, Clone)]
pub enum VacuumInto {
    /// A string literal.
    File(String),
    /// A bound parameter (1-based index).
    Param(usize),
}
