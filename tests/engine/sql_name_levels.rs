//! Names and aggregates bind to the query level SQLite binds them to:
//! an aggregate belongs to the innermost query one of its columns comes
//! from, a column to the innermost FROM clause that has it, whatever
//! the text of an enclosing query's expressions. Hand-written cases from
//! every clause, then a seeded generator nesting queries over one table
//! name, each compared with the reference SQLite.

use crate::sql_common::{check_each_unordered, ours_open, run_ours, run_ref, RefDb};

const SETUP: &str = "create table t(g, v); insert into t values (1,1),(1,2),(2,10),(2,20),(3,100);
create table u(g, v, w); insert into u values (1,5,1),(2,6,2),(4,7,3);";

#[test]
fn aggregate_in_subquery_over_same_table_is_the_subquery_own() {
    check_each_unordered(
        SETUP,
        &[
            "SELECT g, sum(v) FROM t GROUP BY g HAVING sum(v) > (SELECT sum(v) FROM t WHERE g = 2)",
            "SELECT g, sum(v) FROM t GROUP BY g HAVING sum(v) > (SELECT sum(v) FROM t t2 WHERE g = 2)",
            "SELECT g, sum(v), (SELECT sum(v) FROM t) FROM t GROUP BY g",
            "SELECT g, count(*), (SELECT count(*) FROM t) FROM t GROUP BY g",
            "SELECT g, max(v), (SELECT max(v) FROM t WHERE t.g < 3) FROM t GROUP BY g",
            "SELECT g, sum(v) FROM t GROUP BY g ORDER BY (SELECT sum(v) FROM t WHERE g = t.g), 1",
            "SELECT g, sum(v) s FROM t GROUP BY g ORDER BY abs(sum(v) - (SELECT sum(v) FROM t)), 1",
            "SELECT sum(v), (SELECT sum(v) FROM u) FROM t",
            "SELECT sum(v), (SELECT sum(t.v) FROM u) FROM t",
            "SELECT g, (SELECT sum(v) FROM t) FROM t GROUP BY g HAVING sum(v) < (SELECT avg(v) FROM t)",
            "SELECT g, sum(v) FROM t GROUP BY g HAVING sum(v) IN (SELECT sum(v) FROM t GROUP BY g)",
            "SELECT g, sum(v) FROM t GROUP BY g HAVING EXISTS (SELECT sum(v) FROM t HAVING sum(v) > 100)",
            "SELECT g, sum(v) FROM t GROUP BY g HAVING sum(v) > (SELECT sum(v) FROM (SELECT * FROM t) WHERE g = 2)",
            "SELECT g, sum(v), (SELECT sum(v) FROM t AS x WHERE x.g = t.g) FROM t GROUP BY g",
            "SELECT g, sum(v), (SELECT sum(t.v) FROM t AS x) FROM t GROUP BY g",
            "SELECT g, sum(v) OVER (), (SELECT sum(v) OVER () FROM t LIMIT 1) FROM t",
            "SELECT g, sum(v), (SELECT sum(v) + sum(t.v) FROM u) FROM t GROUP BY g",
            "SELECT g, sum(v), (SELECT (SELECT sum(v) FROM t)) FROM t GROUP BY g",
            "SELECT g, sum(v), (SELECT (SELECT sum(v) FROM u)) FROM t GROUP BY g",
            "SELECT g, total(v) FROM t GROUP BY g HAVING total(v) = (SELECT total(v) FROM t WHERE g = 1) OR total(v) = (SELECT max(v) FROM t)",
            // An unaliased FROM subquery cannot provide a qualified name.
            "SELECT (SELECT group_concat(t.v) FROM (SELECT 1)) FROM t",
            "SELECT (SELECT sum(t.v) FROM (SELECT 1), (SELECT 2 AS v)) FROM t",
        ],
    );
}

#[test]
fn names_bind_to_their_level_in_every_clause() {
    check_each_unordered(
        SETUP,
        &[
            // ORDER BY and HAVING naming a result alias next to a subquery.
            "SELECT g, sum(v) AS s FROM t GROUP BY g HAVING s > (SELECT sum(v) FROM t WHERE g = 1) ORDER BY s",
            "SELECT g AS v, sum(v) FROM t GROUP BY g ORDER BY (SELECT sum(v) FROM t)",
            // Correlated and uncorrelated subqueries in WHERE, GROUP BY, ORDER BY.
            "SELECT g, v FROM t WHERE v > (SELECT avg(v) FROM t)",
            "SELECT g, v FROM t AS o WHERE v > (SELECT avg(v) FROM t WHERE g = o.g)",
            "SELECT g, v FROM t AS o WHERE v = (SELECT max(v) FROM t WHERE t.g = o.g)",
            "SELECT (SELECT count(*) FROM t WHERE g = o.g) AS c, count(*) FROM t AS o GROUP BY (SELECT count(*) FROM t WHERE g = o.g)",
            "SELECT g, count(*) FROM t AS o GROUP BY g ORDER BY (SELECT sum(v) FROM t WHERE g = o.g)",
            "SELECT g, (SELECT sum(o.v) FROM u) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT sum(o.v + v) FROM u) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT count(*) FROM u WHERE u.v < sum(o.v)) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT max(v) FROM u WHERE u.g = o.g) FROM t AS o GROUP BY g",
            // Window definitions and window calls next to subqueries.
            "SELECT g, v, sum(v) OVER (PARTITION BY g), (SELECT sum(v) FROM t) FROM t",
            "SELECT g, sum(v) OVER (ORDER BY (SELECT sum(v) FROM t WHERE g = o.g), v) FROM t AS o",
            "SELECT g, sum(sum(v)) OVER (), (SELECT sum(v) FROM t) FROM t GROUP BY g",
            // A correlated subquery next to a window call reads the row's columns.
            "SELECT (SELECT o.g), sum(v) OVER () FROM t AS o",
            "SELECT (SELECT min(g + o.g) FROM t), total(v) OVER (PARTITION BY v) FROM t AS o",
            "SELECT g, (SELECT sum(g + o.v) FROM t AS a2), total(o.g) OVER (PARTITION BY v) FROM t AS o ORDER BY g, 2",
            // Several min()/max() of the query, one in a subquery's WHERE:
            // the last in SQLite's order picks the bare column's row.
            "SELECT v, (SELECT min(o.v) FROM t AS a2 WHERE a2.g = (SELECT max(o.g) FROM t)) FROM t AS o",
            "SELECT v, (SELECT max(o.g)) + min(o.v) FROM t AS o",
            "SELECT v, min(v) FROM t HAVING max(g) > 0 ORDER BY max(v)",
            // EXISTS: an aggregate of its own in a nested subquery makes it one row.
            "SELECT v, g FROM t AS o WHERE EXISTS (SELECT (SELECT sum(a2.g)) FROM t AS a2 WHERE 19 < g)",
            "SELECT g FROM t AS o WHERE EXISTS (SELECT count(o.g) FROM t)",
            // Refused where SQLite refuses them, with its message.
            "SELECT g FROM t AS o WHERE EXISTS (SELECT count(o.g) FROM t HAVING 1)",
            "SELECT g FROM t AS o WHERE EXISTS (SELECT count(*) FROM t HAVING count(o.g))",
            "SELECT (SELECT v FROM t WHERE max(o.v) > 1) FROM t AS o",
            "SELECT (SELECT u.v FROM u JOIN u AS u2 ON max(o.v) > 1) FROM t AS o",
            "SELECT g FROM t AS o WHERE (SELECT max(o.v) FROM t HAVING 1) > 1",
            "SELECT 15, max(g) FROM t HAVING EXISTS (SELECT (SELECT max(a2.v) FROM t HAVING total(a2.g) > total(g)) FROM t AS a2)",
            // A result alias named in a subquery stands for the enclosing
            // SELECT's expression: its columns and aggregates, not the
            // subquery's of the same names.
            "SELECT g AS x, v FROM t WHERE (SELECT x FROM t LIMIT 1) = 1",
            "SELECT v + 1 AS x FROM t WHERE (SELECT x FROM u WHERE u.g = 1) > 5",
            "SELECT v + 1 AS x FROM t ORDER BY (SELECT x FROM u WHERE u.g = 1), v",
            "SELECT g, sum(v) AS s FROM t GROUP BY g HAVING (SELECT s FROM t LIMIT 1) > 5",
            "SELECT g, sum(v) AS s FROM t GROUP BY g ORDER BY (SELECT s FROM t LIMIT 1), g",
            "SELECT g AS gg, sum(v) FROM t GROUP BY gg HAVING (SELECT count(*) FROM t WHERE t.g = gg) > 1",
            "SELECT g, max(v) m FROM t GROUP BY g ORDER BY (SELECT max(v) FROM t WHERE g = m), g",
            "SELECT sum(v) AS s FROM t WHERE (SELECT s FROM t) > 1",
            "SELECT (SELECT max(v) FROM t) AS m, g FROM t WHERE (SELECT m + g FROM t AS x WHERE x.g = 1) > 100",
            "SELECT g, sum(v), sum(v) OVER (ORDER BY g) FROM t GROUP BY g HAVING sum(v) > (SELECT sum(v) FROM t WHERE g = 1)",
            // Compound subqueries and derived tables.
            "SELECT g, sum(v) FROM t GROUP BY g HAVING sum(v) IN (SELECT sum(v) FROM t WHERE g = 3 UNION SELECT sum(v) FROM t WHERE g = 1)",
            "SELECT * FROM (SELECT g, sum(v) s FROM t GROUP BY g) WHERE s > (SELECT sum(v) FROM t WHERE g = 1)",
            "WITH c AS (SELECT g, sum(v) s FROM t GROUP BY g) SELECT g, s, (SELECT sum(s) FROM c) FROM c",
        ],
    );
}

#[test]
fn outer_aggregates_inside_from_subqueries_and_ctes_of_a_subquery() {
    // An aggregate over an enclosing query's column written in a derived
    // table (or a CTE body) of a subquery belongs to that enclosing query
    // as anywhere else in the subquery: in the derived table's result
    // columns, HAVING, ORDER BY (with or without LIMIT), compound arms.
    check_each_unordered(
        SETUP,
        &[
            "SELECT g, (SELECT max(s) FROM (SELECT w + sum(o.v) AS s FROM u)) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT max(s) FROM (SELECT sum(o.v) AS s FROM u)) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT count(*) FROM (SELECT w FROM u GROUP BY w HAVING w < sum(o.v) - 7)) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT count(*) FROM (SELECT w FROM u ORDER BY sum(o.v))) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT count(*) FROM (SELECT w FROM u ORDER BY sum(o.v) LIMIT 2)) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT group_concat(w) FROM (SELECT w FROM u ORDER BY (w - sum(o.v)) % 3, w)) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT group_concat(w) FROM (SELECT w FROM u ORDER BY (w - sum(o.v)) % 3, w LIMIT 2)) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT group_concat(w) FROM (SELECT w FROM u UNION ALL SELECT 9 ORDER BY sum(o.v))) FROM t AS o GROUP BY g",
            "SELECT g, EXISTS (SELECT 1 FROM (SELECT w FROM u ORDER BY sum(o.v))) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT group_concat(w) FROM (SELECT w FROM u ORDER BY sum(o.v)) JOIN u AS u2 USING (w)) FROM t AS o GROUP BY g",
            "SELECT g, (WITH c AS (SELECT w FROM u ORDER BY sum(o.v)) SELECT count(*) FROM c) FROM t AS o GROUP BY g",
            "SELECT g, (WITH c AS (SELECT sum(o.v) AS s) SELECT s FROM c) FROM t AS o GROUP BY g",
            "SELECT sum(v), (SELECT count(*) FROM (SELECT w FROM u ORDER BY sum(o.v))) FROM t AS o",
            "SELECT (SELECT count(*) FROM (SELECT w FROM u ORDER BY sum(o.v))) FROM t AS o",
            "SELECT (SELECT s FROM (SELECT sum(o.v) + w AS s FROM u WHERE w = 1)) FROM t AS o",
            "SELECT g, (SELECT count(*) FROM (SELECT w FROM u ORDER BY sum(w))) FROM t AS o GROUP BY g",
            "SELECT g, (SELECT max(w) FROM (SELECT w FROM u WHERE v > sum(o.v))) FROM t AS o GROUP BY g",
            "SELECT g FROM t AS o GROUP BY g HAVING (SELECT count(*) FROM (SELECT w FROM u ORDER BY sum(o.v))) > 2",
            "SELECT g FROM t AS o GROUP BY g ORDER BY (SELECT max(s) FROM (SELECT w - sum(o.v) AS s FROM u)), g",
            // A CTE the subquery does not use is never resolved.
            "SELECT (WITH c AS (SELECT sum(o.v)) SELECT 1) FROM t AS o",
        ],
    );
}

#[test]
fn aggregates_in_trigger_subqueries_bind_to_their_level() {
    check_each_unordered(
        &format!(
            "{SETUP}
             create table log(x, y);
             create trigger tr after insert on t begin
               insert into log select g, sum(v) from t group by g having sum(v) > (select sum(v) from t where g = 2);
               insert into log select new.g, (select sum(v) from t where g = new.g);
             end;
             insert into t values (2, 1000);"
        ),
        &["SELECT * FROM log", "SELECT g, sum(v) FROM t GROUP BY g HAVING sum(v) > (SELECT sum(v) FROM t WHERE g = 2)"],
    );
}

/// A deterministic generator of nested queries over the one table `t`
/// (aliased at some levels only, so that most inner levels hide the
/// outer ones' names), with columns and aggregates at every level.
struct Gen {
    state: u64,
    /// Writing the top query's result columns (where window calls go).
    windows: bool,
    /// The top query's result aliases (`c0`, `c1`, ...) that names may
    /// use (in its WHERE, HAVING and ORDER BY and their subqueries).
    aliases: usize,
    /// Whether queries name result aliases at all.
    with_aliases: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// No aggregate.
    Plain,
    /// Aggregates without GROUP BY: one row.
    Whole,
    /// GROUP BY g.
    Grouped,
}

struct Level {
    alias: Option<String>,
    kind: Kind,
    /// Its WHERE is being written: an aggregate of this level there
    /// (even inside a subquery) is a misuse, which the generator avoids
    /// (the hand-written tests have those).
    in_where: bool,
}

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'s>(&mut self, xs: &[&'s str]) -> &'s str {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// A column of the innermost level (`own`) or of an aliased outer one.
    fn column(&mut self, levels: &[Level], in_aggregate: bool) -> String {
        if self.aliases > 0 && !in_aggregate && self.below(8) == 0 {
            return format!("c{}", self.below(self.aliases as u64));
        }
        let col = self.pick(&["g", "v"]);
        let me = levels.last().unwrap();
        // An outer level's column: only where the value is defined (its
        // group key, or any column inside an aggregate of that level).
        let outer: Vec<&Level> = levels[..levels.len() - 1].iter().filter(|l| l.alias.is_some() && !(in_aggregate && l.in_where)).collect();
        if !outer.is_empty() && self.below(4) == 0 {
            let l = outer[self.below(outer.len() as u64) as usize];
            let col = if in_aggregate || l.kind == Kind::Plain {
                col
            } else if l.kind == Kind::Grouped {
                "g"
            } else {
                ""
            };
            if !col.is_empty() {
                return format!("{}.{col}", l.alias.as_ref().unwrap());
            }
        }
        let col = if in_aggregate || me.kind == Kind::Plain { col } else { "g" };
        match (&me.alias, self.below(3)) {
            (Some(a), 0) => format!("{a}.{col}"),
            (None, 0) => format!("t.{col}"),
            _ => col.to_string(),
        }
    }

    fn aggregate(&mut self, levels: &mut Vec<Level>, depth: usize) -> String {
        let f = self.pick(&["sum", "count", "max", "min", "total", "avg"]);
        if self.below(6) == 0 {
            return "count(*)".to_string();
        }
        let a = self.column(levels, true);
        let arg = match self.below(4) {
            0 => format!("{a} + {}", self.column(levels, true)),
            1 if depth < 2 => format!("{a} * {}", self.scalar(levels, depth + 1)),
            _ => a,
        };
        format!("{f}({arg})")
    }

    /// A value at the innermost level.
    fn value(&mut self, levels: &mut Vec<Level>, depth: usize) -> String {
        let aggregating = levels.last().unwrap().kind != Kind::Plain;
        match self.below(6) {
            0 if depth < 3 => self.scalar(levels, depth + 1),
            1 | 2 if aggregating => self.aggregate(levels, depth),
            3 => self.below(20).to_string(),
            4 if self.windows && !aggregating && levels.len() == 1 => {
                // A window call (its whole partition: no ORDER BY).
                let f = self.pick(&["sum", "max", "count", "total"]);
                let arg = self.column(levels, false);
                let key = self.column(levels, false);
                format!("{f}({arg}) OVER (PARTITION BY {key})")
            }
            _ => {
                if aggregating && levels.last().unwrap().kind == Kind::Whole {
                    self.aggregate(levels, depth)
                } else {
                    self.column(levels, false)
                }
            }
        }
    }

    fn predicate(&mut self, levels: &mut Vec<Level>, depth: usize, allow_aggregate: bool) -> String {
        let saved = levels.last().unwrap().kind;
        if !allow_aggregate {
            levels.last_mut().unwrap().kind = Kind::Plain;
        }
        let op = self.pick(&["<", ">", "=", "<=", "<>"]);
        let lhs = self.value(levels, depth);
        let p = match self.below(5) {
            0 if depth < 3 => format!("{lhs} IN (SELECT {})", self.select_body(levels, depth + 1, false)),
            1 if depth < 3 => format!("EXISTS (SELECT {})", self.select_body(levels, depth + 1, false)),
            _ => format!("{lhs} {op} {}", self.value(levels, depth)),
        };
        levels.last_mut().unwrap().kind = saved;
        p
    }

    /// A scalar subquery: one row (aggregates without GROUP BY).
    fn scalar(&mut self, levels: &mut Vec<Level>, depth: usize) -> String {
        format!("(SELECT {})", self.select_body(levels, depth, true))
    }

    /// `... FROM t ...` of a query one column wide (`one_row`: an
    /// aggregate query without GROUP BY).
    fn select_body(&mut self, levels: &mut Vec<Level>, depth: usize, one_row: bool) -> String {
        let alias = if self.below(3) == 0 { Some(format!("a{depth}")) } else { None };
        let kind = if one_row { Kind::Whole } else { [Kind::Plain, Kind::Whole, Kind::Grouped][self.below(3) as usize] };
        levels.push(Level { alias: alias.clone(), kind, in_where: false });
        let result = if kind == Kind::Plain { self.value(levels, depth) } else { self.aggregate(levels, depth) };
        let mut sql = format!("{result} FROM t");
        if let Some(a) = &alias {
            sql += &format!(" AS {a}");
        }
        if self.below(2) == 0 {
            levels.last_mut().unwrap().in_where = true;
            sql += &format!(" WHERE {}", self.predicate(levels, depth, false));
            levels.last_mut().unwrap().in_where = false;
        }
        if kind == Kind::Grouped {
            sql += " GROUP BY g";
        }
        if kind != Kind::Plain && self.below(2) == 0 {
            sql += &format!(" HAVING {}", self.predicate(levels, depth, true));
        }
        levels.pop();
        sql
    }

    /// A top-level query of two or three result columns.
    fn query(&mut self) -> String {
        let mut levels = Vec::new();
        let alias = if self.below(2) == 0 { Some("o".to_string()) } else { None };
        let kind = [Kind::Plain, Kind::Whole, Kind::Grouped, Kind::Grouped][self.below(4) as usize];
        levels.push(Level { alias: alias.clone(), kind, in_where: false });
        let n = 2 + self.below(2);
        self.windows = true;
        let cols: Vec<String> = (0..n)
            .map(|i| match (i, kind) {
                (0, Kind::Grouped) => "g".to_string(),
                (_, Kind::Plain) => self.value(&mut levels, 1),
                _ => {
                    if self.below(2) == 0 {
                        self.aggregate(&mut levels, 1)
                    } else {
                        self.value(&mut levels, 1)
                    }
                }
            })
            .collect();
        self.windows = false;
        let cols: Vec<String> = cols.into_iter().enumerate().map(|(i, c)| format!("{c} AS c{i}")).collect();
        self.aliases = if self.with_aliases { n as usize } else { 0 };
        let mut sql = format!("SELECT {} FROM t", cols.join(", "));
        if let Some(a) = &alias {
            sql += &format!(" AS {a}");
        }
        if self.below(2) == 0 {
            levels[0].in_where = true;
            sql += &format!(" WHERE {}", self.predicate(&mut levels, 1, false));
            levels[0].in_where = false;
        }
        if kind == Kind::Grouped {
            sql += " GROUP BY g";
        }
        if kind != Kind::Plain && self.below(2) == 0 {
            sql += &format!(" HAVING {}", self.predicate(&mut levels, 1, true));
        }
        if self.below(3) == 0 {
            // (An integer there would name a result column.)
            let term = self.value(&mut levels, 1);
            sql += &format!(" ORDER BY {}", if term.parse::<i64>().is_ok() { "NULL" } else { &term });
        }
        self.aliases = 0;
        sql
    }
}

/// Rows sorted (the generated queries' order is not always defined).
/// `schema.view.column` names a view's column whatever the view's body
/// (SQLAlchemy writes three-part names for views in attached schemas): a
/// view read as a subquery keeps its database, as SQLite's FROM item does;
/// a CTE has none.
#[test]
fn three_part_names_reach_views_read_as_subqueries() {
    check_each_unordered(
        "attach ':memory:' as s;
create table s.t(id integer primary key, name text, value int);
insert into s.t values (1,'a',100),(2,'b',200),(3,'c',300);
create view s.vw as select t.id, t.name from s.t where t.value > 100;
create view s.vo as select id from t order by id limit 5;
create view s.vd as select distinct name from t;
create table m(id); insert into m values (2);
create view vm as select id from m where id > 0;",
        &[
            "select s.vw.id, s.vw.name from s.vw order by s.vw.id",
            "select id from s.vw where s.vw.id > 2",
            "select s.vw.id from s.vw order by 1",
            "select s.vo.id from s.vo",
            "select s.vd.name from s.vd",
            "select main.vm.id from vm",
            "select main.vm.id from main.vm join s.vw on s.vw.id = main.vm.id",
            "select s.vw.* from s.vw",
            // The wrong schema, and an alias, do not name the view.
            "select main.vw.id from s.vw",
            "select s.x.id from s.vw as x",
            "with c as (select 1 as a) select main.c.a from c",
        ],
    );
}

fn sorted(mut o: Vec<crate::sql_common::Outcome>) -> Vec<crate::sql_common::Outcome> {
    for x in o.iter_mut() {
        if let crate::sql_common::Outcome::Rows { rows, .. } = x {
            rows.sort_by_key(|r| format!("{r:?}"));
        }
    }
    o
}

/// Both refuse the statement for a misused aggregate or window function.
/// (Which misused call SQLite names first follows the order it resolves
/// names and generates code for nested subqueries, and whether it names
/// an alias or the call depends on the clause it meets it in; ours may
/// name another one of the same statement.)
fn same_misuse(a: &[crate::sql_common::Outcome], b: &[crate::sql_common::Outcome]) -> bool {
    use crate::sql_common::Outcome::Error;
    match (a, b) {
        ([Error { code: 1, message: x }], [Error { code: 1, message: y }]) => x.starts_with("misuse of ") && y.starts_with("misuse of "),
        _ => false,
    }
}

#[test]
fn generated_nested_queries_over_one_table_match_sqlite() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP));
    // Bounded here; RINGLITE_NAME_LEVELS_QUERIES and _SEED run longer or
    // other series by hand.
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let mut gen = Gen { state: env("RINGLITE_NAME_LEVELS_SEED", 0x5eed_0f1e_7e15), windows: false, aliases: 0, with_aliases: false };
    let mut failures = Vec::new();
    let mut errors = 0;
    let queries = env("RINGLITE_NAME_LEVELS_QUERIES", 4000) as usize;
    for _ in 0..queries {
        let q = gen.query();
        let a = sorted(run_ours(&mut ours, &q));
        let b = sorted(run_ref(&reference, &q));
        if matches!(b.first(), Some(crate::sql_common::Outcome::Error { .. })) {
            errors += 1;
        }
        if a != b && !same_misuse(&a, &b) && failures.len() < 10 {
            failures.push(format!("SQL: {q}\n ours: {a:?}\n ref:  {b:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most generated queries are valid ones (the generator is not
    // exercising only error paths).
    assert!(errors < queries / 4, "{errors} of {queries} queries fail on SQLite");
}

/// With result aliases named in WHERE, HAVING, ORDER BY and their
/// subqueries: every query SQLite runs gives the same rows on ours.
/// (Statements SQLite refuses are not compared here: which message, and
/// whether ours refuses each misused aliased aggregate nested in
/// subqueries, still differ in places; see the report of issue 17.)
#[test]
fn generated_queries_naming_result_aliases_give_sqlite_rows() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP));
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let mut gen = Gen { state: env("RINGLITE_NAME_LEVELS_SEED", 0xa11a5), windows: false, aliases: 0, with_aliases: true };
    let mut failures = Vec::new();
    let mut valid = 0;
    let queries = env("RINGLITE_NAME_LEVELS_QUERIES", 3000) as usize;
    for _ in 0..queries {
        let q = gen.query();
        let b = sorted(run_ref(&reference, &q));
        if matches!(b.first(), Some(crate::sql_common::Outcome::Error { .. })) {
            continue;
        }
        valid += 1;
        let a = sorted(run_ours(&mut ours, &q));
        if a != b && failures.len() < 10 {
            failures.push(format!("SQL: {q}\n ours: {a:?}\n ref:  {b:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(valid > queries / 2, "only {valid} of {queries} queries run on SQLite");
}
