//! # sqllogictest scripts: parsing, formatting, running
//!
//! The dialect is SQLite's original one (the `/work/shared/sqllogictest`
//! corpus): `statement ok|error`, `query <types> <sort> [label]`, `----`,
//! one value per line or `N values hashing to <md5>`, `hash-threshold`,
//! `skipif`/`onlyif <db>` (we are `sqlite`), `halt`, `#` comments. We add
//! one extension: `statement error <regex>`, matched against the error
//! message (and compared with the reference in `diff` mode).
//!
//! Why our own parser rather than the `sqllogictest` crate: that crate
//! reads a different flavour (rows on one line, no text after
//! `skipif mysql`, no conditional `halt`, other hashing rules), so using it
//! would mean a lossy preprocessing pass plus re-deriving every classic
//! rule on top of its API. The classic format is line-based and small; a
//! direct parser keeps exact line numbers for reports and the exact source
//! spans `complete` mode needs to rewrite results in place.

pub mod format;
pub mod parser;
pub mod runner;
