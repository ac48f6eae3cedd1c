//! The EXPLAIN QUERY PLAN lines a compilation records as it chooses loops
//! and temporary B-trees.
//!
//! Only EXPLAIN QUERY PLAN shows them, so they are formatted only when
//! the statement is one ([`PlanLines::wanted`]); otherwise every call is
//! a no-op and the list stays empty (its length, used to find or drop the
//! lines a nested compilation added, is then always 0).

/// The lines: (id, parent, text, the "notused" column), in the order they
/// were chosen.
#[derive(Debug, Default)]
pub struct PlanLines {
    /// Whether the lines are recorded (the statement is EXPLAIN QUERY PLAN).
    pub wanted: bool,
    lines: Vec<(i32, i32, String, i32)>,
}

impl PlanLines {
    /// Record a line (formatted only when wanted).
    pub fn push(&mut self, text: std::fmt::Arguments<'_>) {
        if self.wanted {
            self.lines.push((0, 0, text.to_string(), 0));
        }
    }

    /// Record a line whose third column SQLite fills with the loop's cost
    /// estimate (a virtual table's, as a LogEst).
    pub fn push_with_cost(&mut self, text: std::fmt::Arguments<'_>, cost: i32) {
        if self.wanted {
            self.lines.push((0, 0, text.to_string(), cost));
        }
    }

    /// Lines recorded so far.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether no line was recorded.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Drop the lines recorded after the first `len`.
    pub fn truncate(&mut self, len: usize) {
        self.lines.truncate(len);
    }

    /// The text of line `i`, to complete it.
    pub fn text_mut(&mut self, i: usize) -> Option<&mut String> {
        self.lines.get_mut(i).map(|l| &mut l.2)
    }

    /// The recorded lines, taken out.
    pub fn take(&mut self) -> Vec<(i32, i32, String, i32)> {
        std::mem::take(&mut self.lines)
    }
}
