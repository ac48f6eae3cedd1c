//! # Differential fuzzer (placeholder until the generator lands)
use std::process::ExitCode;
pub fn main(_args: Vec<String>) -> ExitCode {
    eprintln!("fuzz: not built yet");
    ExitCode::from(2)
}
