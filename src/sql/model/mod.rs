//! # The query model
//!
//! The resolved shape of a query that both the planner (`sql/plan/`) and
//! code generation (`sql/codegen/`) work on: the FROM items once opened
//! with their join terms ([`from`]), the result columns after `*`
//! expansion, the way rows leave the innermost loop and where a SELECT's
//! rows go ([`query`]).
//!
//! Invariant: this module depends on neither `plan/` nor `codegen/` (only
//! on the schema, name resolution and the VDBE's vocabulary), so that both
//! can use it without depending on each other (checked:
//! model_depends_on_neither).

pub mod expr_shape;
pub mod from;
pub mod query;

#[cfg(test)]
mod tests {
    #[test]
    fn names_neither_the_planner_nor_code_generation() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sql/model");
        // (Spelled in two halves: this file is read too.)
        let needles = [concat!("plan", "::"), concat!("codegen", "::")];
        for entry in std::fs::read_dir(&dir).expect("src/sql/model") {
            let path = entry.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("source");
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                // invariant: model_depends_on_neither
                assert!(!needles.iter().any(|x| code.contains(x)), "{}:{}: {line}", path.display(), n + 1);
            }
        }
    }
}
