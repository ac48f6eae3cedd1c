//! # A nested SELECT's expression columns named by their source text
//!
//! SQLite names a subquery's, CTE's or view's unaliased expression column
//! by the text the user wrote (comments after it included), which the AST
//! only prints back normalized. The compiler finds that text among the
//! result-column spans of the texts it compiles from: the CREATE VIEW
//! statements being expanded (innermost first), then the statement.
//!
//! Owns [`ColumnTexts`]: one text's spans indexed by what they render
//! (tokens only, white space removed, ASCII case folded), built once per
//! text on first use. A lookup is then a hash probe, so naming the columns
//! of a compound of N arms costs O(N), not N scans of the whole text.
//!
//! Invariant: [`ColumnTexts::find`] answers the first span in source order
//! that renders as the expression does (what a linear search of
//! `parse::all_result_column_spans` would find) (checked:
//! column_text_first_span).

use std::cell::OnceCell;
use std::collections::HashMap;

/// The key two texts of one expression share: tokens only (comments and
/// white space dropped), ASCII case folded.
fn squeezed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).map(|c| c.to_ascii_lowercase()).collect()
}

/// One text's result-column spans by their rendering.
#[derive(Default)]
pub struct ColumnTexts {
    first_by_key: HashMap<String, String>,
}

impl ColumnTexts {
    fn of(text: &[u8]) -> ColumnTexts {
        let mut first_by_key = HashMap::new();
        for span in crate::sql::parse::all_result_column_spans(text) {
            // A span keeps the comments written after its expression; they
            // are not part of what it renders.
            let tokens_only: String = crate::sql::parse::tokens(span.as_bytes()).map(|t| &span[t.start..t.end]).collect();
            first_by_key.entry(squeezed(&tokens_only)).or_insert(span);
        }
        ColumnTexts { first_by_key }
    }

    /// The first span rendering as `expr_text` (white space and ASCII case
    /// aside).
    pub fn find(&self, expr_text: &str) -> Option<&String> {
        self.first_by_key.get(&squeezed(expr_text))
    }
}

/// A source text and its spans, indexed on first use.
pub struct IndexedText {
    pub text: String,
    index: OnceCell<ColumnTexts>,
}

impl IndexedText {
    pub fn new(text: String) -> IndexedText {
        IndexedText { text, index: OnceCell::new() }
    }

    pub fn columns(&self) -> &ColumnTexts {
        self.index.get_or_init(|| ColumnTexts::of(self.text.as_bytes()))
    }
}

/// The statement's own text's index (the statement's bytes live as long
/// as the compiler; only the index is kept here).
#[derive(Default)]
pub struct StatementTexts {
    index: OnceCell<ColumnTexts>,
}

impl StatementTexts {
    pub fn columns(&self, sql: &[u8]) -> &ColumnTexts {
        self.index.get_or_init(|| ColumnTexts::of(sql))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_answers_what_a_linear_search_finds() {
        let sql = b"SELECT a + 1, A+1 /* c */, b, (a + 1), \"b\" FROM t UNION ALL SELECT x, a  +  1, b -- d\n, 2 FROM u";
        let texts = ColumnTexts::of(sql);
        let spans = crate::sql::parse::all_result_column_spans(sql);
        let tokens_only = |s: &str| crate::sql::parse::tokens(s.as_bytes()).map(|t| &s[t.start..t.end]).collect::<String>();
        assert!(spans.len() >= 9);
        for s in &spans {
            let linear = spans.iter().find(|x| squeezed(&tokens_only(x)) == squeezed(&tokens_only(s)));
            // invariant: column_text_first_span
            assert_eq!(texts.find(&tokens_only(s)), linear, "{s:?}");
        }
    }
}
