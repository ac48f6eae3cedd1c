//! # Random schemas, data and queries
//!
//! One case: 1-3 tables with 1-4 columns of assorted declared types
//! (hence affinities) and collations, a few indexes, one single-row
//! INSERT per statement (so the shrinker can drop rows one by one), then
//! a few SELECTs. Values lean on the edges: NULL, numeric-looking text,
//! mixed case, trailing spaces, integer extremes.
//!
//! Queries are built so that SQLite's answer is fully determined (the
//! harness compares them as `rowsort`): results are never order-dependent
//! except under `LIMIT`, where the ORDER BY covers every non-literal
//! output column with BINARY collation plus its `typeof`, so ties are only
//! between identical rows; aggregate queries select only GROUP BY keys and aggregates;
//! scalar subqueries are single aggregates; group_concat is not used.

use super::ast::*;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub struct Table {
    pub name: String,
    pub columns: Vec<String>,
}

/// A generated case: setup statements as SQL, then queries as trees.
pub struct Case {
    pub setup: Vec<String>,
    pub queries: Vec<Select>,
}

const TYPES: &[&str] = &["INTEGER", "TEXT", "REAL", "NUMERIC", "BLOB", "", "INT", "VARCHAR(5)"];
const COLLATIONS: &[&str] = &["BINARY", "NOCASE", "RTRIM"];

/// No two literals are equal numbers of different storage classes (like 1
/// and 1.0): in a column without affinity both would be kept as they are,
/// and which of them a group, min() or max() shows would depend on row
/// order.
fn literal(rng: &mut ChaCha8Rng) -> String {
    let choices: &[&str] = &[
        "NULL",
        "0",
        "1",
        "-1",
        "2",
        "3",
        "7",
        "10",
        "-5",
        "100",
        "0.5",
        "-2.25",
        "1e10",
        "9223372036854775807",
        "-9223372036854775808",
        "'a'",
        "'A'",
        "'b'",
        "'abc'",
        "'ABC'",
        "'a '",
        "''",
        "'10'",
        "'3.0'",
        "' 7'",
        "'1e2'",
        "'x'",
        "x'00'",
        "x'41'",
    ];
    choices.choose(rng).unwrap().to_string()
}

fn small_literal(rng: &mut ChaCha8Rng) -> String {
    let choices: &[&str] = &["NULL", "0", "1", "2", "3", "-1", "10", "0.5", "'a'", "'b'", "'A'", "'10'", "''"];
    choices.choose(rng).unwrap().to_string()
}

pub fn generate(rng: &mut ChaCha8Rng) -> Case {
    let mut setup = Vec::new();
    let mut tables = Vec::new();
    for t in 0..rng.gen_range(1..=3) {
        let name = format!("t{t}");
        let ncols = rng.gen_range(1..=4);
        let mut cols = Vec::new();
        let mut defs = Vec::new();
        for c in 0..ncols {
            let col = format!("c{c}");
            let mut def = format!("{col} {}", TYPES.choose(rng).unwrap());
            if rng.gen_bool(0.2) {
                def.push_str(&format!(" COLLATE {}", COLLATIONS.choose(rng).unwrap()));
            }
            defs.push(def.trim_end().to_string());
            cols.push(col);
        }
        setup.push(format!("CREATE TABLE {name}({})", defs.join(", ")));
        for _ in 0..rng.gen_range(0..=7) {
            let vals: Vec<String> = (0..ncols).map(|_| literal(rng)).collect();
            setup.push(format!("INSERT INTO {name} VALUES({})", vals.join(", ")));
        }
        if rng.gen_bool(0.4) {
            let col = cols.choose(rng).unwrap();
            setup.push(format!("CREATE INDEX {name}_i{} ON {name}({col})", setup.len()));
        }
        tables.push(Table { name, columns: cols });
    }
    let queries = (0..rng.gen_range(1..=4)).map(|_| if rng.gen_bool(0.2) { compound(rng, &tables) } else { select(rng, &tables, &[], 0) }).collect();
    Case { setup, queries }
}

/// Column references visible in a scope: "alias.column".
fn scope_columns(tables: &[Table], from: &[(usize, String)]) -> Vec<String> {
    from.iter().flat_map(|(t, alias)| tables[*t].columns.iter().map(move |c| format!("{alias}.{c}"))).collect()
}

fn select(rng: &mut ChaCha8Rng, tables: &[Table], outer: &[String], depth: u32) -> Select {
    let mut from = Vec::new();
    let mut joins = Vec::new();
    let base = rng.gen_range(0..tables.len());
    let alias = format!("a{depth}_0");
    from.push((base, alias.clone()));
    for j in 0..rng.gen_range(0..=if depth == 0 { 2 } else { 1 }) {
        let t = rng.gen_range(0..tables.len());
        let alias = format!("a{depth}_{}", j + 1);
        from.push((t, alias.clone()));
        let kind = *[JoinKind::Inner, JoinKind::Left, JoinKind::Cross].choose(rng).unwrap();
        joins.push(Join { kind, table: tables[t].name.clone(), alias, on: None });
    }
    let mut cols = scope_columns(tables, &from);
    cols.extend(outer.iter().cloned());
    for j in 0..joins.len() {
        if joins[j].kind != JoinKind::Cross {
            let visible = scope_columns(tables, &from[..j + 2]);
            joins[j].on = Some(predicate(rng, tables, &visible, depth));
        }
    }
    let filter = rng.gen_bool(0.6).then(|| predicate(rng, tables, &cols, depth));
    let aggregate = rng.gen_bool(0.3);
    let (items, group_by, having) = if aggregate {
        // Keys compared with BINARY so every row of a group has the same
        // bytes, whatever the column's collation: the key shown is then
        // not an arbitrary pick among NOCASE-equal values.
        let group_by: Vec<Expr> =
            (0..rng.gen_range(0..=2)).map(|_| Expr::Collate(Box::new(Expr::Column(cols.choose(rng).unwrap().clone())), "BINARY")).collect();
        let mut items = group_by.clone();
        for _ in 0..rng.gen_range(1..=2) {
            items.push(aggregate_expr(rng, &cols));
        }
        let having = (!group_by.is_empty() && rng.gen_bool(0.3)).then(|| {
            Expr::Binary(">", Box::new(Expr::Agg { name: "count", distinct: false, arg: None }), Box::new(Expr::Literal(rng.gen_range(0..3).to_string())))
        });
        (items, group_by, having)
    } else {
        ((0..rng.gen_range(1..=3)).map(|_| expr(rng, tables, &cols, depth, 2)).collect(), Vec::new(), None)
    };
    let limit = rng.gen_bool(0.25).then(|| (rng.gen_range(0..5), rng.gen_bool(0.3).then(|| rng.gen_range(0..3))));
    let order_by = if limit.is_some() {
        // Constant items are left out: `ORDER BY (- 5) COLLATE BINARY`
        // would mean "column -5" to SQLite, and a constant orders nothing.
        items
            .iter()
            .filter(|e| !e.is_literal_form())
            .flat_map(|e| {
                let desc = rng.gen_bool(0.5);
                let nulls_first = [None, Some(true), Some(false)].choose(rng).copied().flatten();
                [
                    OrderTerm { expr: Expr::Collate(Box::new(e.clone()), "BINARY"), desc, nulls_first },
                    OrderTerm { expr: Expr::Func("typeof", vec![e.clone()]), desc: false, nulls_first: None },
                ]
            })
            .collect()
    } else {
        Vec::new()
    };
    let distinct = rng.gen_bool(0.15);
    // DISTINCT keeps one of several equal values: see `distinguishable`.
    let items = if distinct && !aggregate { distinguishable(items) } else { items };
    Select { distinct, items, from: Some((tables[base].name.clone(), alias)), joins, filter, group_by, having, order_by, limit, compound: Vec::new() }
}

/// Items for DISTINCT or a compound, which keep one row of several equal
/// ones: compared with BINARY, and each followed by its `typeof`, so equal
/// rows are byte-identical (never 'a' against 'A', or 1 against 1.0).
fn distinguishable(items: Vec<Expr>) -> Vec<Expr> {
    items
        .into_iter()
        .flat_map(|e| {
            let e = match e {
                Expr::Collate(inner, "BINARY") => Expr::Collate(inner, "BINARY"),
                other => Expr::Collate(Box::new(other), "BINARY"),
            };
            [e.clone(), Expr::Func("typeof", vec![e])]
        })
        .collect()
}

/// A compound select: members with the same number of items, compared
/// with BINARY so that which of several NOCASE-equal values survives
/// UNION/INTERSECT/EXCEPT never depends on row order.
fn compound(rng: &mut ChaCha8Rng, tables: &[Table]) -> Select {
    let member = |rng: &mut ChaCha8Rng, width: Option<usize>| {
        let mut s = select(rng, tables, &[], 0);
        s.order_by.clear();
        s.limit = None;
        if let Some(w) = width {
            while s.items.len() < w {
                s.items.push(Expr::Literal(small_literal(rng)));
            }
            s.items.truncate(w);
            if !s.group_by.is_empty() {
                // Items of an aggregate query must stay keys or aggregates.
                s.items = s
                    .items
                    .into_iter()
                    .map(|e| match e {
                        Expr::Column(_) => Expr::Literal("NULL".into()),
                        other => other,
                    })
                    .collect();
            }
        }
        s.items = distinguishable(std::mem::take(&mut s.items));
        s
    };
    let mut head = member(rng, None);
    let width = head.items.len() / 2; // before `distinguishable` doubled it
    for _ in 0..rng.gen_range(1..=2) {
        let op = *["UNION", "UNION ALL", "INTERSECT", "EXCEPT"].choose(rng).unwrap();
        head.compound.push((op, member(rng, Some(width))));
    }
    head
}

fn aggregate_expr(rng: &mut ChaCha8Rng, cols: &[String]) -> Expr {
    // BINARY: min/max between NOCASE-equal values would be order-dependent.
    let col = Box::new(Expr::Collate(Box::new(Expr::Column(cols.choose(rng).unwrap().clone())), "BINARY"));
    match rng.gen_range(0..6) {
        0 => Expr::Agg { name: "count", distinct: false, arg: None },
        1 => Expr::Agg { name: "count", distinct: rng.gen_bool(0.5), arg: Some(col) },
        2 => Expr::Agg { name: "min", distinct: false, arg: Some(col) },
        3 => Expr::Agg { name: "max", distinct: false, arg: Some(col) },
        4 => Expr::Agg { name: "total", distinct: false, arg: Some(col) },
        _ => Expr::Agg { name: "sum", distinct: rng.gen_bool(0.3), arg: Some(col) },
    }
}

fn predicate(rng: &mut ChaCha8Rng, tables: &[Table], cols: &[String], depth: u32) -> Expr {
    let a = Box::new(expr(rng, tables, cols, depth, 1));
    match rng.gen_range(0..10) {
        0 => Expr::IsNull(a, rng.gen_bool(0.5)),
        1 => Expr::Between(a, Box::new(Expr::Literal(small_literal(rng))), Box::new(Expr::Literal(small_literal(rng))), rng.gen_bool(0.3)),
        2 => Expr::InList(a, (0..rng.gen_range(1..=3)).map(|_| Expr::Literal(small_literal(rng))).collect(), rng.gen_bool(0.3)),
        3 if depth < 1 => {
            let sub = single_column_select(rng, tables, cols, depth + 1);
            Expr::InSelect(a, Box::new(sub), rng.gen_bool(0.3))
        }
        4 if depth < 1 => Expr::Exists(Box::new(select(rng, tables, cols, depth + 1)), rng.gen_bool(0.3)),
        5 => {
            let b = predicate(rng, tables, cols, depth);
            let c = predicate(rng, tables, cols, depth);
            Expr::Binary(if rng.gen_bool(0.5) { "AND" } else { "OR" }, Box::new(b), Box::new(c))
        }
        6 => Expr::Binary(
            if rng.gen_bool(0.5) { "LIKE" } else { "GLOB" },
            a,
            Box::new(Expr::Literal(["'a%'", "'%b'", "'A*'", "'_'", "'1%'"].choose(rng).unwrap().to_string())),
        ),
        _ => {
            let op = *["=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"].choose(rng).unwrap();
            Expr::Binary(op, a, Box::new(expr(rng, tables, cols, depth, 1)))
        }
    }
}

/// A one-column subquery whose rows do not depend on evaluation order.
fn single_column_select(rng: &mut ChaCha8Rng, tables: &[Table], outer: &[String], depth: u32) -> Select {
    let mut s = select(rng, tables, outer, depth);
    s.items.truncate(1);
    s.order_by.clear();
    s.limit = None;
    if !s.group_by.is_empty() {
        s.items = vec![s.group_by[0].clone()];
    }
    s
}

fn expr(rng: &mut ChaCha8Rng, tables: &[Table], cols: &[String], depth: u32, budget: u32) -> Expr {
    if budget == 0 || rng.gen_bool(0.35) {
        return if !cols.is_empty() && rng.gen_bool(0.7) { Expr::Column(cols.choose(rng).unwrap().clone()) } else { Expr::Literal(literal(rng)) };
    }
    let sub = |rng: &mut ChaCha8Rng| Box::new(expr(rng, tables, cols, depth, budget - 1));
    match rng.gen_range(0..12) {
        0..=2 => {
            let op = *["+", "-", "*", "/", "%", "||", "=", "<", "AND", "OR", "&", "<<"].choose(rng).unwrap();
            Expr::Binary(op, sub(rng), sub(rng))
        }
        3 => Expr::Unary(["-", "NOT", "~", "+"].choose(rng).unwrap(), sub(rng)),
        4 => {
            let (name, n) = *[
                ("abs", 1),
                ("coalesce", 2),
                ("nullif", 2),
                ("length", 1),
                ("upper", 1),
                ("lower", 1),
                ("typeof", 1),
                ("ifnull", 2),
                ("max", 2),
                ("min", 2),
                ("instr", 2),
                ("trim", 1),
                ("round", 1),
                ("substr", 2),
                ("hex", 1),
                ("quote", 1),
            ]
            .choose(rng)
            .unwrap();
            Expr::Func(name, (0..n).map(|_| expr(rng, tables, cols, depth, budget - 1)).collect())
        }
        5 => Expr::Case {
            operand: rng.gen_bool(0.4).then(|| sub(rng)),
            arms: (0..rng.gen_range(1..=2)).map(|_| (expr(rng, tables, cols, depth, budget - 1), expr(rng, tables, cols, depth, budget - 1))).collect(),
            otherwise: rng.gen_bool(0.5).then(|| sub(rng)),
        },
        6 => Expr::Collate(sub(rng), COLLATIONS.choose(rng).unwrap()),
        7 => Expr::Cast(sub(rng), ["INTEGER", "TEXT", "REAL", "NUMERIC", "BLOB"].choose(rng).unwrap()),
        8 if depth < 1 => {
            let mut s = select(rng, tables, cols, depth + 1);
            s.items = vec![aggregate_expr(rng, &scope_columns_of(&s, tables))];
            s.group_by.clear();
            s.having = None;
            s.order_by.clear();
            s.limit = None;
            s.distinct = false;
            Expr::Scalar(Box::new(s))
        }
        9 => predicate(rng, tables, cols, depth),
        _ => Expr::Literal(literal(rng)),
    }
}

/// Columns of a subquery's own FROM terms.
fn scope_columns_of(s: &Select, tables: &[Table]) -> Vec<String> {
    let mut terms = Vec::new();
    if let Some((t, a)) = &s.from {
        terms.push((t.clone(), a.clone()));
    }
    terms.extend(s.joins.iter().map(|j| (j.table.clone(), j.alias.clone())));
    terms
        .iter()
        .flat_map(|(t, a)| tables.iter().filter(move |tb| &tb.name == t).flat_map(move |tb| tb.columns.iter().map(move |c| format!("{a}.{c}"))))
        .collect()
}
