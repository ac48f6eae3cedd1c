//! # The fuzzer's query AST: rendering and one-step simplifications
//!
//! Generated queries are kept as trees, not strings, so the shrinker can
//! drop clauses and replace expressions by their children. Rendering
//! parenthesizes every compound expression, so precedence never changes
//! what a tree means.

use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Column(String),
    Literal(String),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Func(&'static str, Vec<Expr>),
    Agg { name: &'static str, distinct: bool, arg: Option<Box<Expr>> },
    Case { operand: Option<Box<Expr>>, arms: Vec<(Expr, Expr)>, otherwise: Option<Box<Expr>> },
    IsNull(Box<Expr>, bool),
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool),
    InList(Box<Expr>, Vec<Expr>, bool),
    InSelect(Box<Expr>, Box<Select>, bool),
    Exists(Box<Select>, bool),
    Scalar(Box<Select>),
    Collate(Box<Expr>, &'static str),
    Cast(Box<Expr>, &'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Cross,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    pub kind: JoinKind,
    pub table: String,
    pub alias: String,
    pub on: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderTerm {
    pub expr: Expr,
    pub desc: bool,
    /// `Some(true)` NULLS FIRST, `Some(false)` NULLS LAST.
    pub nulls_first: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    pub distinct: bool,
    pub items: Vec<Expr>,
    /// (table, alias) of the first FROM term; `None`: no FROM.
    pub from: Option<(String, String)>,
    pub joins: Vec<Join>,
    pub filter: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    pub order_by: Vec<OrderTerm>,
    pub limit: Option<(u32, Option<u32>)>,
    /// `UNION [ALL]` / `INTERSECT` / `EXCEPT` members, each with as many
    /// items as this one and no ORDER BY/LIMIT of its own; when present,
    /// this select has none either.
    pub compound: Vec<(&'static str, Select)>,
}

impl Expr {
    pub fn render(&self, out: &mut String) {
        match self {
            Expr::Column(c) => out.push_str(c),
            Expr::Literal(l) => out.push_str(l),
            Expr::Unary(op, e) => {
                let _ = write!(out, "({op} ");
                e.render(out);
                out.push(')');
            }
            Expr::Binary(op, a, b) => {
                out.push('(');
                a.render(out);
                let _ = write!(out, " {op} ");
                b.render(out);
                out.push(')');
            }
            Expr::Func(name, args) => {
                let _ = write!(out, "{name}(");
                list(out, args);
                out.push(')');
            }
            Expr::Agg { name, distinct, arg } => {
                let _ = write!(out, "{name}(");
                match arg {
                    None => out.push('*'),
                    Some(a) => {
                        if *distinct {
                            out.push_str("DISTINCT ");
                        }
                        a.render(out);
                    }
                }
                out.push(')');
            }
            Expr::Case { operand, arms, otherwise } => {
                out.push_str("CASE");
                if let Some(o) = operand {
                    out.push(' ');
                    o.render(out);
                }
                for (w, t) in arms {
                    out.push_str(" WHEN ");
                    w.render(out);
                    out.push_str(" THEN ");
                    t.render(out);
                }
                if let Some(e) = otherwise {
                    out.push_str(" ELSE ");
                    e.render(out);
                }
                out.push_str(" END");
            }
            Expr::IsNull(e, not) => {
                out.push('(');
                e.render(out);
                out.push_str(if *not { " IS NOT NULL)" } else { " IS NULL)" });
            }
            Expr::Between(e, lo, hi, not) => {
                out.push('(');
                e.render(out);
                out.push_str(if *not { " NOT BETWEEN " } else { " BETWEEN " });
                lo.render(out);
                out.push_str(" AND ");
                hi.render(out);
                out.push(')');
            }
            Expr::InList(e, items, not) => {
                out.push('(');
                e.render(out);
                out.push_str(if *not { " NOT IN (" } else { " IN (" });
                list(out, items);
                out.push_str("))");
            }
            Expr::InSelect(e, s, not) => {
                out.push('(');
                e.render(out);
                out.push_str(if *not { " NOT IN (" } else { " IN (" });
                s.render(out);
                out.push_str("))");
            }
            Expr::Exists(s, not) => {
                out.push_str(if *not { "(NOT EXISTS (" } else { "(EXISTS (" });
                s.render(out);
                out.push_str("))");
            }
            Expr::Scalar(s) => {
                out.push('(');
                s.render(out);
                out.push(')');
            }
            Expr::Collate(e, c) => {
                out.push('(');
                e.render(out);
                let _ = write!(out, " COLLATE {c})");
            }
            Expr::Cast(e, t) => {
                out.push_str("CAST(");
                e.render(out);
                let _ = write!(out, " AS {t})");
            }
        }
    }

    /// A literal, possibly under unary operators or COLLATE: what SQLite
    /// takes for a column number in ORDER BY when it is an integer.
    pub fn is_literal_form(&self) -> bool {
        match self {
            Expr::Literal(_) => true,
            Expr::Unary(_, e) | Expr::Collate(e, _) => e.is_literal_form(),
            _ => false,
        }
    }

    /// Simpler expressions that could stand in for this one: its
    /// sub-expressions, then NULL.
    pub fn simpler(&self) -> Vec<Expr> {
        let mut out: Vec<Expr> = match self {
            Expr::Column(_) | Expr::Literal(_) => Vec::new(),
            Expr::Unary(_, e) | Expr::IsNull(e, _) | Expr::Collate(e, _) | Expr::Cast(e, _) => vec![(**e).clone()],
            Expr::Binary(_, a, b) => vec![(**a).clone(), (**b).clone()],
            Expr::Func(_, args) => args.clone(),
            Expr::Agg { arg, .. } => arg.iter().map(|a| Expr::Agg { name: "count", distinct: false, arg: Some(a.clone()) }).collect(),
            Expr::Case { operand, arms, otherwise } => {
                let mut v: Vec<Expr> = operand.iter().map(|o| (**o).clone()).collect();
                for (w, t) in arms {
                    v.push(w.clone());
                    v.push(t.clone());
                }
                v.extend(otherwise.iter().map(|o| (**o).clone()));
                v
            }
            Expr::Between(e, lo, hi, _) => vec![(**e).clone(), (**lo).clone(), (**hi).clone()],
            Expr::InList(e, items, _) => {
                let mut v = vec![(**e).clone()];
                if items.len() > 1 {
                    for i in 0..items.len() {
                        let mut fewer = items.clone();
                        fewer.remove(i);
                        if let Expr::InList(e2, _, not) = self {
                            v.push(Expr::InList(e2.clone(), fewer, *not));
                        }
                    }
                }
                v
            }
            Expr::InSelect(e, s, not) => {
                let mut v = vec![(**e).clone()];
                for s2 in s.simpler() {
                    v.push(Expr::InSelect(e.clone(), Box::new(s2), *not));
                }
                v
            }
            Expr::Exists(s, not) => s.simpler().into_iter().map(|s2| Expr::Exists(Box::new(s2), *not)).collect(),
            Expr::Scalar(s) => s.simpler().into_iter().map(|s2| Expr::Scalar(Box::new(s2))).collect(),
        };
        if *self != Expr::Literal("NULL".into()) {
            out.push(Expr::Literal("NULL".into()));
        }
        // Also simplify inside: each child replaced by one of its own
        // simplifications (one level, enough for greedy shrinking).
        out.extend(self.with_simpler_children());
        out
    }

    fn with_simpler_children(&self) -> Vec<Expr> {
        let mut out = Vec::new();
        match self {
            Expr::Binary(op, a, b) => {
                for a2 in a.simpler() {
                    out.push(Expr::Binary(op, Box::new(a2), b.clone()));
                }
                for b2 in b.simpler() {
                    out.push(Expr::Binary(op, a.clone(), Box::new(b2)));
                }
            }
            Expr::Func(name, args) => {
                for i in 0..args.len() {
                    for a2 in args[i].simpler() {
                        let mut v = args.clone();
                        v[i] = a2;
                        out.push(Expr::Func(name, v));
                    }
                }
            }
            Expr::Unary(op, e) => out.extend(e.simpler().into_iter().map(|e2| Expr::Unary(op, Box::new(e2)))),
            _ => {}
        }
        out
    }
}

fn list(out: &mut String, items: &[Expr]) {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        e.render(out);
    }
}

impl Select {
    pub fn render(&self, out: &mut String) {
        out.push_str("SELECT ");
        if self.distinct {
            out.push_str("DISTINCT ");
        }
        list(out, &self.items);
        if let Some((t, a)) = &self.from {
            let _ = write!(out, " FROM {t} AS {a}");
            for j in &self.joins {
                let kw = match j.kind {
                    JoinKind::Inner => "JOIN",
                    JoinKind::Left => "LEFT JOIN",
                    JoinKind::Cross => "CROSS JOIN",
                };
                let _ = write!(out, " {kw} {} AS {}", j.table, j.alias);
                if let Some(on) = &j.on {
                    out.push_str(" ON ");
                    on.render(out);
                }
            }
        }
        if let Some(w) = &self.filter {
            out.push_str(" WHERE ");
            w.render(out);
        }
        if !self.group_by.is_empty() {
            out.push_str(" GROUP BY ");
            list(out, &self.group_by);
        }
        if let Some(h) = &self.having {
            out.push_str(" HAVING ");
            h.render(out);
        }
        if !self.order_by.is_empty() {
            out.push_str(" ORDER BY ");
            for (i, t) in self.order_by.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                t.expr.render(out);
                if t.desc {
                    out.push_str(" DESC");
                }
                match t.nulls_first {
                    Some(true) => out.push_str(" NULLS FIRST"),
                    Some(false) => out.push_str(" NULLS LAST"),
                    None => {}
                }
            }
        }
        for (op, member) in &self.compound {
            let _ = write!(out, " {op} ");
            member.render(out);
        }
        if let Some((n, off)) = self.limit {
            let _ = write!(out, " LIMIT {n}");
            if let Some(o) = off {
                let _ = write!(out, " OFFSET {o}");
            }
        }
    }

    pub fn sql(&self) -> String {
        let mut s = String::new();
        self.render(&mut s);
        s
    }

    /// Whether dropping the ORDER BY could change which rows are returned.
    fn order_matters(&self) -> bool {
        self.limit.is_some()
    }

    /// One-step simplifications, most drastic first.
    pub fn simpler(&self) -> Vec<Select> {
        let mut out = Vec::new();
        let mut push = |s: Select| {
            if s != *self {
                out.push(s)
            }
        };
        for i in (0..self.compound.len()).rev() {
            let mut s = self.clone();
            s.compound.remove(i);
            push(s);
        }
        for (i, (_, member)) in self.compound.iter().enumerate() {
            for m2 in member.simpler() {
                if m2.items.len() == member.items.len() {
                    let mut s = self.clone();
                    s.compound[i].1 = m2;
                    push(s);
                }
            }
        }
        if self.filter.is_some() {
            push(Select { filter: None, ..self.clone() });
        }
        if self.having.is_some() {
            push(Select { having: None, ..self.clone() });
        }
        if self.limit.is_some() {
            push(Select { limit: None, order_by: Vec::new(), ..self.clone() });
        }
        if !self.order_by.is_empty() && !self.order_matters() {
            push(Select { order_by: Vec::new(), ..self.clone() });
        }
        if self.distinct {
            push(Select { distinct: false, ..self.clone() });
        }
        for i in (0..self.joins.len()).rev() {
            let mut s = self.clone();
            s.joins.remove(i);
            push(s);
        }
        for (i, j) in self.joins.iter().enumerate() {
            if j.on.is_some() {
                let mut s = self.clone();
                s.joins[i].on = None;
                s.joins[i].kind = JoinKind::Cross;
                push(s);
            }
        }
        if self.items.len() > 1 && self.group_by.is_empty() && self.order_by.is_empty() && self.compound.is_empty() {
            for i in 0..self.items.len() {
                let mut s = self.clone();
                s.items.remove(i);
                push(s);
            }
        }
        if let Some(w) = &self.filter {
            for w2 in w.simpler() {
                push(Select { filter: Some(w2), ..self.clone() });
            }
        }
        if let Some(h) = &self.having {
            for h2 in h.simpler() {
                push(Select { having: Some(h2), ..self.clone() });
            }
        }
        for (i, j) in self.joins.iter().enumerate() {
            if let Some(on) = &j.on {
                for on2 in on.simpler() {
                    let mut s = self.clone();
                    s.joins[i].on = Some(on2);
                    push(s);
                }
            }
        }
        if self.group_by.is_empty() && self.order_by.is_empty() {
            for i in 0..self.items.len() {
                for e2 in self.items[i].simpler() {
                    let mut s = self.clone();
                    s.items[i] = e2;
                    push(s);
                }
            }
        }
        out
    }
}
