//! All terminal symbols.

include!(concat!(env!("OUT_DIR"), "/parse_token.rs"));
