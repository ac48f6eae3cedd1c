//! # The VDBE: register bytecode and its resumable interpreter (being written)

pub mod func;
