//! # JSON functions (`json1`)
//!
//! json, json_valid, json_type, json_extract, `->`, `->>`, json_array,
//! json_object, json_insert/replace/set/remove, json_array_insert,
//! json_patch, json_quote, json_array_length, json_error_position,
//! json_pretty, and the json_group_array/json_group_object aggregates;
//! and the jsonb_* forms of those that build JSON, which return JSONB.
//!
//! Inputs: TEXT is parsed as JSON (JSON5 accepted), numbers as their text,
//! BLOBs as JSONB ([`jsonb`]); anything malformed is the error "malformed
//! JSON". Results that are JSON text carry subtype `J` (74), and arguments
//! carrying it are taken as JSON rather than as strings, which is how
//! nested calls compose. JSONB results of the constructors and of
//! jsonb()/jsonb_extract are byte-identical to SQLite's; the jsonb edit
//! functions produce equivalent JSONB, but SQLite's in-place editing may
//! leave wider size fields than the minimal ones written here.
//! json_each/json_tree are table-valued: [`each::rows`] computes their rows
//! for the SQL layer.

pub mod each;
mod jsonb;
mod node;
mod parse;
mod path;

use self::node::{ty, Lex, Node};
use self::path::{bad_path, EditMode, Step};
use super::conv::value_bytes;
use super::{aggregate, scalar, DETERMINISTIC};
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::func::{AggregateState, FunctionContext, FunctionRegistry};

/// The subtype SQLite gives JSON text (`'J'`).
pub const JSON_SUBTYPE: u32 = 74;

fn malformed() -> Error {
    Error::sql("malformed JSON")
}

/// Register the JSON functions.
pub fn register(r: &mut FunctionRegistry) {
    let mut d = DETERMINISTIC;
    d.subtype = true;
    scalar(r, "json_valid", &[1, 2], d, |_, a| json_valid(a));
    scalar(r, "json_type", &[1, 2], d, |_, a| json_type(a));
    scalar(r, "->", &[2], d, |ctx, a| arrow(ctx, a, true));
    scalar(r, "->>", &[2], d, |ctx, a| arrow(ctx, a, false));
    scalar(r, "json_quote", &[1], d, |ctx, a| {
        let n = arg_node(ctx, a, 0, TextAs::Escaped)?;
        json_result(ctx, Some(n))
    });
    scalar(r, "json_array_length", &[1, 2], d, |_, a| {
        let Some(root) = input(&a[0])? else { return Ok(Value::Null) };
        let node = match a.get(1) {
            None => Some(&root),
            Some(p) => match path_arg(p) {
                None => return Ok(Value::Null),
                Some(text) => path::lookup(&root, &text)?,
            },
        };
        Ok(match node {
            None => Value::Null,
            Some(Node::Array(items)) => Value::Integer(items.len() as i64),
            Some(_) => Value::Integer(0),
        })
    });
    scalar(r, "json_error_position", &[1], d, |_, a| Ok(error_position(&a[0])));
    scalar(r, "json_pretty", &[1, 2], d, |ctx, a| {
        let Some(root) = input(&a[0])? else { return Ok(Value::Null) };
        let indent = match a.get(1) {
            None | Some(Value::Null | Value::Pointer(_)) => b"    ".to_vec(),
            Some(v) => value_bytes(v).map(|b| b.into_owned()).unwrap_or_default(),
        };
        let mut out = Vec::new();
        root.render_pretty(&mut out, &indent, 0);
        ctx.result_subtype = JSON_SUBTYPE;
        Ok(Value::Text(out))
    });
    // The builders, as json_* (text) and jsonb_* (JSONB).
    for (prefix, out) in [("json", Out::Text), ("jsonb", Out::Jsonb)] {
        let name = |n: &str| if n.is_empty() { prefix.to_string() } else { format!("{prefix}_{n}") };
        scalar(r, &name(""), &[1], d, move |ctx, a| emit(ctx, input(&a[0])?, out));
        scalar(r, &name("extract"), &[-1], d, move |ctx, a| json_extract(ctx, a, out));
        scalar(r, &name("array"), &[-1], d, move |ctx, a| {
            let items = (0..a.len()).map(|i| arg_node(ctx, a, i, TextAs::Escaped)).collect::<Result<Vec<_>>>()?;
            emit(ctx, Some(Node::Array(items)), out)
        });
        scalar(r, &name("object"), &[-1], d, move |ctx, a| json_object(ctx, a, out));
        for (n, mode) in [("insert", EditMode::Insert), ("replace", EditMode::Replace), ("set", EditMode::Set)] {
            let fname = name(n);
            let fname2 = fname.clone();
            scalar(r, &fname, &[-1], d, move |ctx, a| json_edit(ctx, a, &fname2, mode, out));
        }
        let fname = name("array_insert");
        let fname2 = fname.clone();
        scalar(r, &fname, &[-1], d, move |ctx, a| json_array_insert(ctx, a, &fname2, out));
        scalar(r, &name("remove"), &[-1], d, move |ctx, a| json_remove(ctx, a, out));
        scalar(r, &name("patch"), &[2], d, move |ctx, a| {
            let (Some(target), Some(patch)) = (input(&a[0])?, input(&a[1])?) else { return Ok(Value::Null) };
            emit(ctx, Some(merge_patch(target, patch)), out)
        });
        aggregate(r, &name("group_array"), &[1], d, true, move || Box::new(GroupArray { items: Default::default(), out }));
        aggregate(r, &name("group_object"), &[2], d, true, move || Box::new(GroupObject { members: Default::default(), out }));
    }
}

/// The JSON document argument: NULL gives `None`.
fn input(v: &Value) -> Result<Option<Node>> {
    match v {
        Value::Null | Value::Pointer(_) => Ok(None),
        Value::Blob(b) => jsonb::decode(b).map(Some).ok_or_else(malformed),
        Value::ZeroBlob(_) => jsonb::decode(&value_bytes(v).unwrap_or_default()).map(Some).ok_or_else(malformed),
        other => {
            let text = value_bytes(other).unwrap_or_default();
            parse::parse(crate::vdbe::func::builtins::core::c_str(&text)).map(|p| Some(p.node)).map_err(|_| malformed())
        }
    }
}

/// Whether a function returns JSON text or JSONB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Out {
    Text,
    Jsonb,
}

/// How SQL text becomes a JSON string: the constructors escape it (TEXT or
/// TEXTJ), the edit functions store it raw (TEXTRAW), as SQLite does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextAs {
    Escaped,
    Raw,
}

/// The result in the requested form: JSON text with the JSON subtype, or
/// a JSONB blob.
fn emit(ctx: &mut FunctionContext<'_>, node: Option<Node>, out: Out) -> Result<Value> {
    match (node, out) {
        (None, _) => Ok(Value::Null),
        (Some(n), Out::Text) => json_result(ctx, Some(n)),
        (Some(n), Out::Jsonb) => Ok(Value::Blob(n.to_jsonb())),
    }
}

/// A JSON text result with the JSON subtype.
fn json_result(ctx: &mut FunctionContext<'_>, node: Option<Node>) -> Result<Value> {
    match node {
        None => Ok(Value::Null),
        Some(n) => {
            ctx.result_subtype = JSON_SUBTYPE;
            Ok(Value::Text(n.to_text()))
        }
    }
}

/// Argument `i` as a JSON value: JSON-subtyped text is parsed, other text
/// becomes a string, blobs must be JSONB.
fn arg_node(ctx: &FunctionContext<'_>, a: &[Value], i: usize, text_as: TextAs) -> Result<Node> {
    let json_subtype = ctx.arg_subtypes.get(i).copied() == Some(JSON_SUBTYPE);
    value_node(&a[i], json_subtype, text_as)
}

fn value_node(v: &Value, json_subtype: bool, text_as: TextAs) -> Result<Node> {
    Ok(match v {
        Value::Null | Value::Pointer(_) => Node::Null,
        Value::Integer(i) => Node::Int(Lex::new(ty::INT, i.to_string())),
        Value::Real(r) if r.is_nan() => Node::Null,
        // Infinity is 9.0e+999 from the constructors but 9e999 from edits.
        Value::Real(r) if r.is_infinite() && text_as == TextAs::Raw => Node::Real(Lex::new(ty::FLOAT, if *r > 0.0 { &b"9e999"[..] } else { b"-9e999" })),
        Value::Real(r) => Node::SqlReal(*r),
        Value::Text(t) => {
            if json_subtype {
                if let Ok(p) = parse::parse(t) {
                    return Ok(p.node);
                }
            }
            match text_as {
                TextAs::Escaped => Node::Str(Lex::text_escaped(t)),
                TextAs::Raw => Node::Str(Lex::new(ty::TEXTRAW, t.clone())),
            }
        }
        Value::Blob(b) => jsonb::decode(b).ok_or_else(|| Error::sql("JSON cannot hold BLOB values"))?,
        Value::ZeroBlob(_) => jsonb::decode(&value_bytes(v).unwrap_or_default()).ok_or_else(|| Error::sql("JSON cannot hold BLOB values"))?,
    })
}

/// A path argument's text: NULL gives `None`.
fn path_arg(v: &Value) -> Option<Vec<u8>> {
    value_bytes(v).map(|b| b.into_owned())
}

fn json_valid(a: &[Value]) -> Result<Value> {
    let flags = match a.get(1) {
        None => 1,
        Some(f) => {
            let f = super::conv::value_i64(f);
            if !(1..=15).contains(&f) {
                return Err(Error::sql("FLAGS parameter to json_valid() must be between 1 and 15"));
            }
            f
        }
    };
    Ok(match &a[0] {
        Value::Null | Value::Pointer(_) => Value::Null,
        Value::Blob(b) if flags & 0x0c != 0 => Value::Integer(jsonb::decode(b).is_some() as i64),
        v @ Value::ZeroBlob(_) if flags & 0x0c != 0 => Value::Integer(jsonb::decode(&value_bytes(v).unwrap_or_default()).is_some() as i64),
        Value::Blob(_) | Value::ZeroBlob(_) => Value::Integer(0),
        other => {
            if flags & 0x03 == 0 {
                return Ok(Value::Integer(0));
            }
            let t = value_bytes(other).unwrap_or_default();
            Value::Integer(match parse::parse(crate::vdbe::func::builtins::core::c_str(&t)) {
                Ok(p) => (!p.json5 || flags & 0x02 != 0) as i64,
                Err(_) => 0,
            })
        }
    })
}

fn json_type(a: &[Value]) -> Result<Value> {
    let Some(root) = input(&a[0])? else { return Ok(Value::Null) };
    let node = match a.get(1) {
        None => Some(&root),
        Some(p) => match path_arg(p) {
            None => return Ok(Value::Null),
            Some(text) => path::lookup(&root, &text)?,
        },
    };
    Ok(node.map_or(Value::Null, |n| Value::text(n.type_name())))
}

fn json_extract(ctx: &mut FunctionContext<'_>, a: &[Value], out: Out) -> Result<Value> {
    if a.len() < 2 {
        return Ok(Value::Null);
    }
    let Some(root) = input(&a[0])? else { return Ok(Value::Null) };
    if a.len() == 2 {
        let Some(text) = path_arg(&a[1]) else { return Ok(Value::Null) };
        return Ok(match path::lookup(&root, &text)? {
            None => Value::Null,
            Some(n @ (Node::Array(_) | Node::Object(_))) => return emit(ctx, Some(n.clone()), out),
            Some(n) => n.to_sql(),
        });
    }
    let mut items = Vec::new();
    for p in &a[1..] {
        let Some(text) = path_arg(p) else { return Ok(Value::Null) };
        items.push(path::lookup(&root, &text)?.cloned().unwrap_or(Node::Null));
    }
    let array = Node::Array(items);
    if out == Out::Jsonb {
        // SQLite assembles several results as JSON text, so JSON5
        // spellings come out in their RFC 8259 form.
        let text = array.to_text();
        return Ok(Value::Blob(parse::parse(&text).map_err(|_| malformed())?.node.to_jsonb()));
    }
    emit(ctx, Some(array), out)
}

/// `->` (JSON result) and `->>` (SQL result). The right operand may be a
/// path, an integer index (negative counts from the end), or a label.
fn arrow(ctx: &mut FunctionContext<'_>, a: &[Value], as_json: bool) -> Result<Value> {
    let Some(root) = input(&a[0])? else { return Ok(Value::Null) };
    let found = match &a[1] {
        Value::Null | Value::Pointer(_) => return Ok(Value::Null),
        Value::Integer(i) => {
            let step = if *i < 0 { Step::FromEnd(i.unsigned_abs()) } else { Step::Index(*i as u64) };
            path::lookup_steps(&root, &[step])
        }
        other => {
            let t = value_bytes(other).unwrap_or_default().into_owned();
            let t = crate::vdbe::func::builtins::core::c_str(&t).to_vec();
            match t.first() {
                Some(b'$') => path::lookup(&root, &t)?,
                Some(b'[') => {
                    let mut p = b"$".to_vec();
                    p.extend_from_slice(&t);
                    path::lookup(&root, &p).map_err(|_| bad_path(&t))?
                }
                Some(_) => {
                    // A bare label X is looked up as the path $."X".
                    let mut p = b"$.\"".to_vec();
                    p.extend_from_slice(&t);
                    p.push(b'"');
                    path::lookup(&root, &p)?
                }
                None => return Err(bad_path(&t)),
            }
        }
    };
    match found {
        None => Ok(Value::Null),
        Some(n) if as_json => json_result(ctx, Some(n.clone())),
        Some(n) => Ok(n.to_sql()),
    }
}

fn json_object(ctx: &mut FunctionContext<'_>, a: &[Value], out: Out) -> Result<Value> {
    if !a.len().is_multiple_of(2) {
        let name = if out == Out::Text { "json_object" } else { "jsonb_object" };
        return Err(Error::sql(format!("{name}() requires an even number of arguments")));
    }
    let mut members = Vec::with_capacity(a.len() / 2);
    for i in (0..a.len()).step_by(2) {
        let Value::Text(label) = &a[i] else {
            let name = if out == Out::Text { "json_object" } else { "jsonb_object" };
            return Err(Error::sql(format!("{name}() labels must be TEXT")));
        };
        members.push((Lex::text_escaped(label), arg_node(ctx, a, i + 1, TextAs::Escaped)?));
    }
    emit(ctx, Some(Node::Object(members)), out)
}

fn json_edit(ctx: &mut FunctionContext<'_>, a: &[Value], name: &str, mode: EditMode, out: Out) -> Result<Value> {
    if a.is_empty() {
        return Ok(Value::Null);
    }
    if a.len().is_multiple_of(2) {
        return Err(Error::sql(format!("{name}() needs an odd number of arguments")));
    }
    let Some(mut root) = input(&a[0])? else { return Ok(Value::Null) };
    for i in (1..a.len()).step_by(2) {
        let Some(text) = path_arg(&a[i]) else { continue };
        let value = arg_node(ctx, a, i + 1, TextAs::Raw)?;
        path::edit(&mut root, &text, &value, mode)?;
    }
    emit(ctx, Some(root), out)
}

fn json_array_insert(ctx: &mut FunctionContext<'_>, a: &[Value], name: &str, out: Out) -> Result<Value> {
    if a.is_empty() {
        return Ok(Value::Null);
    }
    if a.len().is_multiple_of(2) {
        return Err(Error::sql(format!("{name}() needs an odd number of arguments")));
    }
    let Some(mut root) = input(&a[0])? else { return Ok(Value::Null) };
    for i in (1..a.len()).step_by(2) {
        let Some(text) = path_arg(&a[i]) else { continue };
        let value = arg_node(ctx, a, i + 1, TextAs::Raw)?;
        path::array_insert(&mut root, &text, &value)?;
    }
    emit(ctx, Some(root), out)
}

fn json_remove(ctx: &mut FunctionContext<'_>, a: &[Value], out: Out) -> Result<Value> {
    if a.is_empty() {
        return Ok(Value::Null);
    }
    let Some(mut root) = input(&a[0])? else { return Ok(Value::Null) };
    for p in &a[1..] {
        let Some(text) = path_arg(p) else { return Ok(Value::Null) };
        if !path::remove(&mut root, &text)? {
            return Ok(Value::Null);
        }
    }
    emit(ctx, Some(root), out)
}

/// RFC 7396 merge patch.
fn merge_patch(target: Node, patch: Node) -> Node {
    let Node::Object(patch_members) = patch else { return patch };
    let mut members = match target {
        Node::Object(m) => m,
        _ => Vec::new(),
    };
    for (label, value) in patch_members {
        let pos = members.iter().position(|(k, _)| k.decoded() == label.decoded());
        match (value, pos) {
            (Node::Null, Some(p)) => {
                members.remove(p);
            }
            (Node::Null, None) => {}
            (v, Some(p)) => {
                let old = std::mem::replace(&mut members[p].1, Node::Null);
                members[p].1 = merge_patch(old, v);
            }
            (v, None) => members.push((label, merge_patch(Node::Null, v))),
        }
    }
    Node::Object(members)
}

/// 0 for well-formed JSON (JSON5 allowed), else the 1-based character
/// position of the first error.
fn error_position(v: &Value) -> Value {
    match v {
        Value::Null | Value::Pointer(_) => Value::Null,
        Value::Blob(b) => Value::Integer(if jsonb::decode(b).is_some() { 0 } else { 1 }),
        Value::ZeroBlob(_) => Value::Integer(if jsonb::decode(&value_bytes(v).unwrap_or_default()).is_some() { 0 } else { 1 }),
        other => {
            let t = value_bytes(other).unwrap_or_default();
            let t = crate::vdbe::func::builtins::core::c_str(&t);
            match parse::parse(t) {
                Ok(_) => Value::Integer(0),
                Err(off) => {
                    let chars = t[..off.min(t.len())].iter().filter(|&&c| c & 0xc0 != 0x80).count();
                    Value::Integer(chars as i64 + 1)
                }
            }
        }
    }
}

/// json_group_array(X).
struct GroupArray {
    items: std::collections::VecDeque<Node>,
    out: Out,
}

impl AggregateState for GroupArray {
    fn step(&mut self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        let n = arg_node(ctx, args, 0, TextAs::Escaped)?;
        self.items.push_back(n);
        Ok(())
    }
    fn inverse(&mut self, _: &mut FunctionContext<'_>, _: &[Value]) -> Result<()> {
        self.items.pop_front();
        Ok(())
    }
    fn value(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value> {
        emit(ctx, Some(Node::Array(self.items.iter().cloned().collect())), self.out)
    }
    fn finalize(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value> {
        self.value(ctx)
    }
}

/// json_group_object(K, V): rows with a NULL label are skipped.
struct GroupObject {
    members: std::collections::VecDeque<Option<(Lex, Node)>>,
    out: Out,
}

impl AggregateState for GroupObject {
    fn step(&mut self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<()> {
        let member = match value_bytes(&args[0]) {
            None => None,
            Some(label) => Some((Lex::text_escaped(&label), arg_node(ctx, args, 1, TextAs::Escaped)?)),
        };
        self.members.push_back(member);
        Ok(())
    }
    fn inverse(&mut self, _: &mut FunctionContext<'_>, _: &[Value]) -> Result<()> {
        self.members.pop_front();
        Ok(())
    }
    fn value(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value> {
        emit(ctx, Some(Node::Object(self.members.iter().flatten().cloned().collect())), self.out)
    }
    fn finalize(&mut self, ctx: &mut FunctionContext<'_>) -> Result<Value> {
        self.value(ctx)
    }
}
