//! The EXPLAIN QUERY PLAN lines a compilation records as it chooses loops
//! and temporary B-trees.
//!
//! Only EXPLAIN QUERY PLAN shows them, so they are formatted only when
//! the statement is one ([`PlanLines::wanted`]); otherwise every call is
//! a no-op and the list stays empty (its length, used to find or drop the
//! lines a nested compilation added, is then always 0).

use sqlite3_parser::ast;
use std::collections::HashMap;

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
    /// The statement's SELECTs' numbers, by the address of their
    /// `ast::Select` (see `select_ids`).
    select_ids: HashMap<usize, i32>,
    /// The last number given (to the statement's SELECTs, then to those
    /// compiled from other text).
    last_select_id: i32,
}

/// A subquery's heading line ("LIST SUBQUERY 1"), open while its plan
/// is recorded under it; see [`PlanLines::open_subquery`].
#[must_use]
pub struct SubqueryLine {
    /// The heading's line number, when lines are recorded.
    at: Option<usize>,
    /// The subquery's number.
    id: i32,
    /// The parent in force before.
    saved: i32,
}

impl PlanLines {
    /// Start recording for a statement (`wanted`: it is EXPLAIN QUERY
    /// PLAN), numbering the SELECTs of `stmt`.
    pub fn start(&mut self, wanted: bool, stmt: &ast::Stmt<'_>) {
        self.wanted = wanted;
        self.select_ids.clear();
        self.last_select_id = 0;
        if let (true, ast::Stmt::Select(sel)) = (wanted, stmt) {
            super::select_ids::number_select(sel, &mut self.select_ids, &mut self.last_select_id);
        }
    }

    /// The number EXPLAIN QUERY PLAN gives the subquery `sel`.
    fn select_id(&mut self, sel: &ast::Select<'_>) -> i32 {
        match self.select_ids.get(&(sel as *const ast::Select<'_> as usize)) {
            Some(&id) => id,
            None => {
                self.last_select_id += 1;
                self.last_select_id
            }
        }
    }

    /// The name EXPLAIN QUERY PLAN gives the unnamed FROM subquery `sel`.
    pub fn unnamed_subquery_name(&mut self, sel: &ast::Select<'_>) -> String {
        if !self.wanted {
            return String::new();
        }
        format!("(subquery-{})", self.select_id(sel))
    }

    /// Record the heading of a FROM item materialised before the loops
    /// ("MATERIALIZE v") and make the lines pushed until
    /// [`Self::restore_parent`] with the returned value its children.
    pub fn open_materialize(&mut self, name: &str) -> i32 {
        if !self.wanted {
            return self.parent;
        }
        let at = self.lines.len();
        self.lines.push((0, self.parent, format!("MATERIALIZE {name}"), 0));
        self.set_parent(Some(at))
    }

    /// Drop the heading [`Self::open_materialize`] just recorded, with
    /// no line under it yet: the item is flattened after all.
    pub fn drop_last_heading(&mut self) {
        if !self.wanted {
            return;
        }
        debug_assert!(self.lines.last().is_some_and(|l| l.2.starts_with("MATERIALIZE ")), "the last line is the heading dropped");
        self.lines.pop();
    }

    /// Record the heading of subquery `sel` as an expression ("LIST" for
    /// IN's, "SCALAR" for a value's or EXISTS') and make the lines pushed
    /// until [`Self::close_subquery`] its children.
    pub fn open_subquery(&mut self, kind: &'static str, sel: &ast::Select<'_>) -> SubqueryLine {
        if !self.wanted {
            return SubqueryLine { at: None, id: 0, saved: self.parent };
        }
        let id = self.select_id(sel);
        let at = self.lines.len();
        self.lines.push((0, self.parent, kind.to_string(), 0));
        let saved = self.set_parent(Some(at));
        SubqueryLine { at: Some(at), id, saved }
    }

    /// Drop the lines `text` recorded directly under the heading `line`.
    pub fn drop_children(&mut self, line: &SubqueryLine, text: &str) {
        if let Some(at) = line.at {
            let parent = at as i32 + 1;
            let mut i = at + 1;
            while i < self.lines.len() {
                if self.lines[i].1 == parent && self.lines[i].2 == text {
                    debug_assert!(!self.lines.iter().any(|l| l.1 == i as i32 + 1), "a line dropped has no children");
                    self.lines.remove(i);
                    // (Parents after it are line numbers + 1: shift them.)
                    for l in self.lines.iter_mut().skip(i) {
                        if l.1 > i as i32 + 1 {
                            l.1 -= 1;
                        }
                    }
                } else {
                    i += 1;
                }
            }
        }
    }

    /// Complete a subquery's heading once it is known whether the
    /// subquery reads the enclosing row (`correlated`: it then runs for
    /// each row, and SQLite says "CORRELATED").
    pub fn close_subquery(&mut self, line: SubqueryLine, correlated: bool) {
        if let Some(at) = line.at {
            if let Some(l) = self.lines.get_mut(at) {
                let kind = std::mem::take(&mut l.2);
                l.2 = format!("{}{kind} SUBQUERY {}", if correlated { "CORRELATED " } else { "" }, line.id);
            }
            self.parent = line.saved;
        }
    }

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
