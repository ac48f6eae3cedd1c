//! JSON paths (`$`, `.label`, `."quoted label"`, `[N]`, `[#]`, `[#-N]`)
//! and the lookups and edits that follow them.
//!
//! Paths are read lazily, one step at a time as the walk needs it, the
//! way SQLite reads them: a malformed step is an error ("bad JSON path")
//! only if the walk gets that far. A label step is read before the value's
//! kind is checked, an index step only once the value is known to be an
//! array, so `$[-1]` is NULL on an object but an error on an array.
//!
//! Edits follow SQLite: `set` and `insert` create missing object members
//! (with the objects and arrays the rest of the path needs) and append to
//! an array at index `len` (`[#]`); `replace` and `set` overwrite
//! existing values; nothing is created under a value of the wrong kind.

use super::node::{ty, Lex, Node};
use crate::error::Error;

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Object member by label: TEXTRAW as written in the path, or TEXTJ
    /// for a quoted label holding escapes.
    Key(Lex),
    /// Array element counted from the start.
    Index(u64),
    /// Array element counted from the end: `[#-N]` (N = 0 is `[#]`).
    FromEnd(u64),
}

pub fn bad_path(path: &[u8]) -> Error {
    Error::sql(format!("bad JSON path: '{}'", String::from_utf8_lossy(path)))
}

/// A path being walked: its text and the position of the next step.
#[derive(Clone)]
pub struct Path<'a> {
    full: &'a [u8],
    pos: usize,
    /// Steps read so far: the depth below the root.
    steps: usize,
}

/// Deepest structure an edit may create (SQLite's JSON_MAX_DEPTH).
const MAX_DEPTH: usize = 1000;

/// What the next step of a path is, given the value it applies to.
enum Next {
    End,
    Step(Step),
    /// The step cannot apply to this value (an index on a non-array).
    NotFound,
}

impl<'a> Path<'a> {
    /// Start walking `text`, which must begin with `$`.
    pub fn new(text: &'a [u8]) -> Result<Path<'a>, Error> {
        let z = crate::vdbe::func::builtins::core::c_str(text);
        if z.first() != Some(&b'$') {
            return Err(bad_path(text));
        }
        Ok(Path { full: z, pos: 1, steps: 0 })
    }

    fn err(&self) -> Error {
        bad_path(self.full)
    }

    pub fn is_root(&self) -> bool {
        self.pos >= self.full.len()
    }

    /// Read the next step as it applies to `node`.
    fn next(&mut self, node: &Node) -> Result<Next, Error> {
        let z = self.full;
        let mut i = self.pos;
        let Some(&c) = z.get(i) else { return Ok(Next::End) };
        match c {
            b'.' => {
                i += 1;
                let label;
                if z.get(i) == Some(&b'"') {
                    let start = i + 1;
                    let mut j = start;
                    while j < z.len() && z[j] != b'"' {
                        if z[j] == b'\\' && j + 1 < z.len() {
                            j += 1;
                        }
                        j += 1;
                    }
                    if j >= z.len() {
                        return Err(self.err());
                    }
                    let text = &z[start..j];
                    label = Lex::new(if text.contains(&b'\\') { ty::TEXTJ } else { ty::TEXTRAW }, text.to_vec());
                    i = j + 1;
                } else {
                    let start = i;
                    while i < z.len() && z[i] != b'.' && z[i] != b'[' {
                        i += 1;
                    }
                    if i == start {
                        return Err(self.err());
                    }
                    label = Lex::new(ty::TEXTRAW, z[start..i].to_vec());
                }
                self.pos = i;
                self.steps += 1;
                Ok(Next::Step(Step::Key(label)))
            }
            b'[' => {
                if !matches!(node, Node::Array(_)) {
                    return Ok(Next::NotFound);
                }
                i += 1;
                let from_end = z.get(i) == Some(&b'#');
                if from_end {
                    i += 1;
                }
                let mut n: u64 = 0;
                let needs_digits = !from_end || z.get(i) == Some(&b'-');
                if from_end && needs_digits {
                    i += 1;
                }
                if needs_digits {
                    let ds = i;
                    while i < z.len() && z[i].is_ascii_digit() {
                        n = n.saturating_mul(10).saturating_add((z[i] - b'0') as u64);
                        i += 1;
                    }
                    if i == ds {
                        return Err(self.err());
                    }
                }
                if z.get(i) != Some(&b']') {
                    return Err(self.err());
                }
                self.pos = i + 1;
                self.steps += 1;
                Ok(Next::Step(if from_end { Step::FromEnd(n) } else { Step::Index(n) }))
            }
            _ => Err(self.err()),
        }
    }

    /// Build the structure the rest of the path describes around `value`
    /// (objects for labels, an array for a first element), reading the
    /// path only as far as it can be built: `None` at a step that cannot
    /// be created (an index other than the first element).
    fn build(&mut self, value: &Node) -> Result<Option<Node>, Error> {
        // Index steps are read as if applied to a new, empty array.
        let empty_array = Node::Array(Vec::new());
        if self.steps > MAX_DEPTH {
            return Err(Error::sql("JSON path too deep"));
        }
        match self.next(&empty_array)? {
            Next::End => Ok(Some(value.clone())),
            Next::NotFound => Ok(None),
            Next::Step(Step::Key(label)) => Ok(self.build(value)?.map(|v| Node::Object(vec![(label, v)]))),
            Next::Step(s) => {
                if array_index(0, &s) != Some(0) {
                    return Ok(None);
                }
                Ok(self.build(value)?.map(|v| Node::Array(vec![v])))
            }
        }
    }
}

fn label_matches(key: &Lex, label: &Lex) -> bool {
    key.same_label(&label.raw, label.ty == ty::TEXTRAW)
}

fn array_index(len: usize, step: &Step) -> Option<usize> {
    match *step {
        Step::Index(n) => usize::try_from(n).ok(),
        Step::FromEnd(n) => (len as u64).checked_sub(n).map(|v| v as usize),
        Step::Key(_) => None,
    }
}

/// The child of `node` a step selects.
fn child<'n>(node: &'n Node, step: &Step) -> Option<&'n Node> {
    match (node, step) {
        (Node::Object(members), Step::Key(label)) => members.iter().find(|(k, _)| label_matches(k, label)).map(|m| &m.1),
        (Node::Array(items), s @ (Step::Index(_) | Step::FromEnd(_))) => items.get(array_index(items.len(), s)?),
        _ => None,
    }
}

fn child_mut<'n>(node: &'n mut Node, step: &Step) -> Option<&'n mut Node> {
    match (node, step) {
        (Node::Object(members), Step::Key(label)) => members.iter_mut().find(|(k, _)| label_matches(k, label)).map(|m| &mut m.1),
        (Node::Array(items), s @ (Step::Index(_) | Step::FromEnd(_))) => {
            let i = array_index(items.len(), s)?;
            items.get_mut(i)
        }
        _ => None,
    }
}

/// The node at `path`, if any.
pub fn lookup<'n>(root: &'n Node, path: &[u8]) -> Result<Option<&'n Node>, Error> {
    let mut p = Path::new(path)?;
    let mut node = root;
    loop {
        match p.next(node)? {
            Next::End => return Ok(Some(node)),
            Next::NotFound => return Ok(None),
            Next::Step(s) => match child(node, &s) {
                Some(c) => node = c,
                None => return Ok(None),
            },
        }
    }
}

/// Where a path leads, with what json_each/json_tree report about it.
pub struct Located<'n> {
    pub node: &'n Node,
    /// JSONB offset identifying the element (an object member is
    /// identified by its label's offset).
    pub id: usize,
    /// JSONB offset of the element's own header.
    pub offset: usize,
}

/// [`lookup`], also reporting JSONB offsets and the last step.
pub fn locate<'n>(root: &'n Node, path: &[u8]) -> Result<Option<Located<'n>>, Error> {
    let mut p = Path::new(path)?;
    let mut at = Located { node: root, id: 0, offset: 0 };
    loop {
        let step = match p.next(at.node)? {
            Next::End => return Ok(Some(at)),
            Next::NotFound => return Ok(None),
            Next::Step(s) => s,
        };
        let node = at.node;
        let mut off = at.offset + super::node::header_len(node.jsonb_payload_size());
        let found = match (node, &step) {
            (Node::Object(members), Step::Key(label)) => {
                let mut hit = None;
                for (k, v) in members {
                    let label_size = super::node::header_len(k.raw.len()) + k.raw.len();
                    if label_matches(k, label) {
                        hit = Some((v, off, off + label_size));
                        break;
                    }
                    off += label_size + v.jsonb_size();
                }
                hit
            }
            (Node::Array(items), s) => array_index(items.len(), s).filter(|&i| i < items.len()).map(|i| {
                let before: usize = items[..i].iter().map(Node::jsonb_size).sum();
                (&items[i], off + before, off + before)
            }),
            _ => None,
        };
        let Some((child, id, offset)) = found else { return Ok(None) };
        at = Located { node: child, id, offset };
    }
}

/// The node at already-parsed `steps` (for `->` with a label or index).
pub fn lookup_steps<'n>(root: &'n Node, steps: &[Step]) -> Option<&'n Node> {
    let mut node = root;
    for s in steps {
        node = child(node, s)?;
    }
    Some(node)
}

/// How an edit treats existing and missing targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditMode {
    /// Create when missing; leave existing alone.
    Insert,
    /// Overwrite when present; never create.
    Replace,
    /// Create or overwrite.
    Set,
}

/// Apply one edit at `path`.
pub fn edit(root: &mut Node, path: &[u8], value: &Node, mode: EditMode) -> Result<(), Error> {
    let mut p = Path::new(path)?;
    let mut node = root;
    loop {
        let step = match p.next(node)? {
            Next::End => {
                if mode != EditMode::Insert {
                    *node = value.clone();
                }
                return Ok(());
            }
            Next::NotFound => return Ok(()),
            Next::Step(s) => s,
        };
        if child(node, &step).is_some() {
            node = child_mut(node, &step).expect("child exists");
            continue;
        }
        if mode == EditMode::Replace {
            return Ok(());
        }
        match (node, &step) {
            (Node::Object(members), Step::Key(label)) => {
                if let Some(v) = p.build(value)? {
                    members.push((label.clone(), v));
                }
            }
            (Node::Array(items), s) if array_index(items.len(), s) == Some(items.len()) => {
                if let Some(v) = p.build(value)? {
                    items.push(v);
                }
            }
            _ => {}
        }
        return Ok(());
    }
}

/// Remove the node at `path`. `Ok(false)` when the path is the root
/// (json_remove then returns NULL).
pub fn remove(root: &mut Node, path: &[u8]) -> Result<bool, Error> {
    let mut p = Path::new(path)?;
    if p.is_root() {
        return Ok(false);
    }
    let mut node = root;
    loop {
        let step = match p.next(node)? {
            Next::End | Next::NotFound => return Ok(true),
            Next::Step(s) => s,
        };
        if child(node, &step).is_none() {
            return Ok(true);
        }
        let mut probe = p.clone();
        let at_end = matches!(probe.next(child(node, &step).expect("child exists"))?, Next::End);
        if at_end {
            match (node, &step) {
                (Node::Object(members), Step::Key(label)) => {
                    if let Some(pos) = members.iter().position(|(k, _)| label_matches(k, label)) {
                        members.remove(pos);
                    }
                }
                (Node::Array(items), s) => {
                    if let Some(i) = array_index(items.len(), s).filter(|&i| i < items.len()) {
                        items.remove(i);
                    }
                }
                _ => {}
            }
            return Ok(true);
        }
        node = child_mut(node, &step).expect("child exists");
    }
}

/// json_array_insert at `path`: the last step must be an array index; the
/// value is inserted before that element (or appended at `len`). Missing
/// parents are created as json_insert would.
pub fn array_insert(root: &mut Node, path: &[u8], value: &Node) -> Result<(), Error> {
    let mut p = Path::new(path)?;
    let not_element = |p: &Path<'_>| Error::sql(format!("not an array element: '{}'", String::from_utf8_lossy(p.full)));
    let mut node = root;
    loop {
        let step = match p.next(node)? {
            Next::End | Next::NotFound => return Ok(()),
            Next::Step(s) => s,
        };
        let mut probe = p.clone();
        let last = probe.is_root();
        if last {
            match (node, &step) {
                (Node::Object(_), Step::Key(_)) => return Err(not_element(&p)),
                (Node::Array(items), s) => {
                    if let Some(i) = array_index(items.len(), s).filter(|&i| i <= items.len()) {
                        items.insert(i, value.clone());
                    }
                }
                _ => {}
            }
            return Ok(());
        }
        if child(node, &step).is_some() {
            node = child_mut(node, &step).expect("child exists");
            continue;
        }
        let creatable = matches!((&*node, &step), (Node::Object(_), Step::Key(_)))
            || matches!(&*node, Node::Array(items) if array_index(items.len(), &step) == Some(items.len()));
        if !creatable {
            return Ok(());
        }
        // Walk what would be created the way SQLite does: a label must be
        // followed (eventually) by an index, since the target is an array
        // element; an index other than the first element creates nothing.
        let ends_at_index = p.full.last() == Some(&b']');
        let mut walk = probe.clone();
        let mut current = step.clone();
        let mut first = true;
        loop {
            match &current {
                Step::Key(_) if !ends_at_index => return Err(not_element(&p)),
                Step::Key(_) => {}
                s => {
                    // The first step is the element being appended; below
                    // it only a first element can be created.
                    if !first && array_index(0, s) != Some(0) {
                        return Ok(());
                    }
                }
            }
            first = false;
            match walk.next(&Node::Array(Vec::new()))? {
                Next::Step(s) => current = s,
                _ => break,
            }
        }
        let built = probe.build(value)?;
        match (node, &step) {
            (Node::Object(members), Step::Key(label)) => {
                if let Some(v) = built {
                    members.push((label.clone(), v));
                }
            }
            (Node::Array(items), _) => {
                if let Some(v) = built {
                    items.push(v);
                }
            }
            _ => {}
        }
        return Ok(());
    }
}
