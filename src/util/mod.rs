//! Small helpers every layer may use, depending on no other module of the
//! crate: the fast hasher of the compiler's and the function registry's
//! maps (`fast_hash`), the process's random generator (`prng`), one
//! shared stable sort for cold paths (`cold_sort`), ASCII case folding
//! compiled once (`ascii`).

pub mod ascii;
pub mod cold_sort;
pub mod fast_hash;
pub mod fmt;
pub mod prng;
