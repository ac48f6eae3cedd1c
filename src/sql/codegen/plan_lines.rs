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
    /// Lines: (id, parent line number + 1 or 0 for the top, text, cost).
    lines: Vec<(i32, i32, String, i32)>,
    /// The parent of the lines pushed now (line number + 1; 0: the top).
    parent: i32,
}

impl PlanLines {
    /// Record a line (formatted only when wanted).
    pub fn push(&mut self, text: std::fmt::Arguments<'_>) {
        if self.wanted {
            self.lines.push((0, self.parent, text.to_string(), 0));
        }
    }

    /// Record a line whose third column SQLite fills with the loop's cost
    /// estimate (a virtual table's, as a LogEst).
    pub fn push_with_cost(&mut self, text: std::fmt::Arguments<'_>, cost: i32) {
        if self.wanted {
            self.lines.push((0, self.parent, text.to_string(), cost));
        }
    }

    /// Make the lines pushed from now on children of line `line` (`None`:
    /// of the top); returns the parent in force before, to restore.
    pub fn set_parent(&mut self, line: Option<usize>) -> i32 {
        std::mem::replace(&mut self.parent, line.map_or(0, |l| l as i32 + 1))
    }

    /// Restore a parent [`Self::set_parent`] returned.
    pub fn restore_parent(&mut self, saved: i32) {
        self.parent = saved;
    }

    /// Mark the loop whose plan starts at line `at` as a LEFT JOIN's: its
    /// line, or for a MULTI-INDEX OR each of its searches (as SQLite
    /// marks them).
    pub fn mark_left_join(&mut self, at: usize) {
        let multi = self.lines.get(at).is_some_and(|l| l.2 == "MULTI-INDEX OR");
        for (i, l) in self.lines.iter_mut().enumerate().skip(at) {
            if !multi && i == at || multi && (l.2.starts_with("SEARCH ") || l.2.starts_with("SCAN ")) {
                l.2.push_str(" LEFT-JOIN");
            }
            if !multi {
                break;
            }
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
