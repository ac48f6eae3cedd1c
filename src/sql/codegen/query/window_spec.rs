//! Window function calls as written: which function each is, its window
//! with a named base window folded in (SQLite's rules on what a window may
//! add to its base), its frame, and SQLite's parse-time frame check.
//! `window.rs` compiles them; `window_frame.rs` steps RANGE/GROUPS frames.

use crate::error::{Error, Result};
use crate::sql::codegen::query::window_frame::{Bound, Exclude, FrameOffset, ValueFrame};
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::walk;
use crate::sql::model::expr_shape::window_of;
use crate::sql::parse::{unquote, unquoted};
use crate::util::ascii::AsciiLower;
use crate::vdbe::func::{FuncDef, FuncKind};
use sqlite3_parser::ast::{self, Expr, Over, SortOrder, SortedColumn, Window};
use std::sync::Arc;

/// What a window function call computes.
pub(super) enum WinKind {
    RowNumber,
    Rank,
    DenseRank,
    FirstValue,
    LastValue,
    NthValue,
    Lag,
    Lead,
    PercentRank,
    CumeDist,
    Ntile,
    Agg(Arc<FuncDef>),
}

/// Which rows a frame covers, for the frames supported.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Frame {
    /// From the partition start through the current row's last peer.
    ToPeers,
    /// From the partition start through the current row (ROWS).
    ToRow,
    /// The whole partition.
    Partition,
    /// ROWS BETWEEN with row offsets (negative: preceding; `None`:
    /// unbounded), evaluated row by row.
    Rows(Option<i64>, Option<i64>),
    /// RANGE or GROUPS with offset bounds, evaluated row by row.
    Value(ValueFrame),
}

/// One window function call of the query, with its window and frame.
pub(super) struct WinCall<'a, 'b> {
    pub(super) key: String,
    pub(super) kind: WinKind,
    pub(super) frame: Frame,
    pub(super) args: Vec<&'a Expr<'b>>,
    /// The last of `args` is a FILTER clause.
    pub(super) filtered: bool,
    pub(super) spec: WinSpec<'a, 'b>,
    /// Offsets of a `Frame::Value` (start, end).
    pub(super) offsets: (Option<FrameOffset<'a, 'b>>, Option<FrameOffset<'a, 'b>>),
    pub(super) result: i32,
    pub(super) acc: i32,
}

/// A window's definition with its base window (`OVER (w ORDER BY x)`)
/// folded in.
#[derive(Clone, Copy)]
pub(super) struct WinSpec<'a, 'b> {
    pub(super) partition_by: Option<&'a [Expr<'b>]>,
    pub(super) order_by: Option<&'a [SortedColumn<'b>]>,
    pub(super) frame_clause: Option<&'a ast::FrameClause<'b>>,
}

/// Fold the base window of `w` (named in `defs`) into its definition,
/// with SQLite's rules on what a window may add to its base.
pub(super) fn resolve_window<'a, 'b>(w: &'a Window<'b>, defs: &'a [ast::WindowDef<'b>]) -> Result<WinSpec<'a, 'b>> {
    resolve_window_at(w, defs, 0)
}

/// [`resolve_window`] `depth` bases down: a chain of bases longer than
/// the WINDOW clause is a cycle, whose end adds nothing (as in SQLite).
fn resolve_window_at<'a, 'b>(w: &'a Window<'b>, defs: &'a [ast::WindowDef<'b>], depth: usize) -> Result<WinSpec<'a, 'b>> {
    let mut spec = WinSpec { partition_by: w.partition_by, order_by: w.order_by, frame_clause: w.frame_clause.as_ref() };
    let Some(base_name) = &w.base else { return Ok(spec) };
    if depth > defs.len() {
        return Ok(WinSpec { partition_by: None, order_by: None, frame_clause: None });
    }
    let n = unquoted(base_name.0);
    let Some(base) = defs.iter().find(|d| unquote(d.name.0).eq_ci(&n)) else {
        return Err(Error::sql(format!("no such window: {n}")));
    };
    let base = resolve_window_at(&base.window, defs, depth + 1)?;
    if spec.partition_by.is_some() {
        return Err(Error::sql(format!("cannot override PARTITION clause of window: {n}")));
    }
    if spec.order_by.is_some() && base.order_by.is_some() {
        return Err(Error::sql(format!("cannot override ORDER BY clause of window: {n}")));
    }
    if base.frame_clause.is_some() {
        return Err(Error::sql(format!("cannot override frame specification of window: {n}")));
    }
    spec.partition_by = base.partition_by;
    spec.order_by = spec.order_by.or(base.order_by);
    Ok(spec)
}

/// SQLite's parse-time check of a frame: it may not start after its end
/// in the order CURRENT ROW < FOLLOWING, PRECEDING < CURRENT ROW.
pub fn check_frame(f: &ast::FrameClause<'_>) -> Result<()> {
    let end_preceding = matches!(f.end, Some(ast::FrameBound::Preceding(_)));
    let end_current = matches!(f.end, None | Some(ast::FrameBound::CurrentRow));
    let bad = match f.start {
        ast::FrameBound::CurrentRow => end_preceding,
        ast::FrameBound::Following(_) => end_preceding || end_current,
        _ => false,
    };
    if bad {
        return Err(Error::sql("unsupported frame specification"));
    }
    Ok(())
}

impl<'b> Compiler<'_> {
    /// The window function calls of `e` (each once, by its text) with
    /// their windows resolved against the WINDOW clause `defs`.
    pub(super) fn collect_windows<'a>(&mut self, e: &'a Expr<'b>, defs: &'a [ast::WindowDef<'b>], out: &mut Vec<WinCall<'a, 'b>>) -> Result<()> {
        let mut found: Vec<&'a Expr<'b>> = Vec::new();
        walk(e, &mut |x| {
            if window_of(x).is_some() {
                found.push(x);
                return false;
            }
            true
        });
        for x in found {
            let key = x.to_string();
            if out.iter().any(|w| w.key == key) {
                continue;
            }
            if let Expr::FunctionCall { name, order_by: Some(_), .. } = x {
                return Err(Error::sql(format!("ORDER BY may not be used with non-aggregate {}()", unquote(name.0))));
            }
            if let Expr::FunctionCall { distinctness: Some(ast::Distinctness::Distinct), .. } = x {
                return Err(Error::sql("DISTINCT is not supported for window functions"));
            }
            let (name, args, over, filter) = match x {
                Expr::FunctionCall { name, args, filter_over: Some(f), .. } => {
                    (unquote(name.0), args.map(|a| a.iter().collect::<Vec<_>>()).unwrap_or_default(), f.over_clause, f.filter_clause)
                }
                Expr::FunctionCallStar { name, filter_over: Some(f) } => (unquote(name.0), Vec::new(), f.over_clause, f.filter_clause),
                _ => continue,
            };
            let window: &'a Window<'b> = match over {
                Some(Over::Window(w)) => w,
                Some(Over::Name(n)) => {
                    let n = unquoted(n.0);
                    match defs.iter().find(|d| unquote(d.name.0).eq_ci(&n)) {
                        Some(d) => &d.window,
                        None => return Err(Error::sql(format!("no such window: {n}"))),
                    }
                }
                None => continue,
            };
            if let Some(f) = &window.frame_clause {
                check_frame(f)?;
            }
            let spec = resolve_window(window, defs)?;
            let offset = |b: &ast::FrameBound<'_>, start: bool| -> Option<Option<i64>> {
                match b {
                    ast::FrameBound::CurrentRow => Some(Some(0)),
                    ast::FrameBound::UnboundedPreceding if start => Some(None),
                    ast::FrameBound::UnboundedFollowing if !start => Some(None),
                    ast::FrameBound::Preceding(e) => e.is_integer().filter(|n| *n >= 0).map(|n| Some(-n)),
                    ast::FrameBound::Following(e) => e.is_integer().filter(|n| *n >= 0).map(Some),
                    _ => None,
                }
            };
            let mut offsets = (None, None);
            // Frames the special walks below cover; every other frame is
            // framed row by row in `window_frame`.
            let special = |f: &ast::FrameClause<'_>| {
                let no_exclude = matches!(f.exclude, None | Some(ast::FrameExclude::NoOthers));
                let rows_offsets = f.mode == ast::FrameMode::Rows
                    && (!matches!(f.start, ast::FrameBound::UnboundedPreceding)
                        || matches!(f.end, Some(ast::FrameBound::Preceding(_) | ast::FrameBound::Following(_))))
                    && offset(&f.start, true).is_some()
                    && f.end.as_ref().is_none_or(|b| offset(b, false).is_some());
                let from_start = matches!(f.start, ast::FrameBound::UnboundedPreceding)
                    && matches!(f.end, None | Some(ast::FrameBound::CurrentRow | ast::FrameBound::UnboundedFollowing));
                no_exclude && (rows_offsets || from_start)
            };
            let frame = match spec.frame_clause {
                None => Frame::ToPeers,
                Some(f) if !special(f) => {
                    let has_offset =
                        [Some(&f.start), f.end.as_ref()].iter().any(|b| matches!(b, Some(ast::FrameBound::Preceding(_) | ast::FrameBound::Following(_))));
                    let rows = f.mode == ast::FrameMode::Rows;
                    let groups = f.mode == ast::FrameMode::Groups || (f.mode == ast::FrameMode::Range && !has_offset);
                    let exclude = match f.exclude {
                        Some(ast::FrameExclude::CurrentRow) => Exclude::CurrentRow,
                        Some(ast::FrameExclude::Group) => Exclude::Group,
                        Some(ast::FrameExclude::Ties) => Exclude::Ties,
                        _ => Exclude::NoOthers,
                    };
                    let order = spec.order_by.unwrap_or(&[]);
                    if !groups && !rows && order.len() != 1 {
                        return Err(Error::sql("RANGE with offset PRECEDING/FOLLOWING requires one ORDER BY expression"));
                    }
                    let bound = |b: &'a ast::FrameBound<'b>, slot: &mut Option<FrameOffset<'a, 'b>>| -> Result<Bound> {
                        Ok(match b {
                            ast::FrameBound::CurrentRow => Bound::Current,
                            ast::FrameBound::UnboundedPreceding | ast::FrameBound::UnboundedFollowing => Bound::Unbounded,
                            ast::FrameBound::Preceding(e) => {
                                *slot = Some(FrameOffset::of(e));
                                Bound::Preceding
                            }
                            ast::FrameBound::Following(e) => {
                                *slot = Some(FrameOffset::of(e));
                                Bound::Following
                            }
                        })
                    };
                    let start = bound(&f.start, &mut offsets.0)?;
                    let end = match &f.end {
                        None => Bound::Current,
                        Some(b) => bound(b, &mut offsets.1)?,
                    };
                    // (RANGE frames have exactly one ORDER BY term here.)
                    let range_term = if !groups && !rows { order.first() } else { None };
                    let descending = range_term.is_some_and(|t| matches!(t.order, Some(SortOrder::Desc)));
                    // NULLs come first for ASC, last for DESC, unless told.
                    let nulls_first = match range_term.and_then(|t| t.nulls) {
                        Some(ast::NullsOrder::First) => true,
                        Some(ast::NullsOrder::Last) => false,
                        None => !descending,
                    };
                    let null_key = range_term.is_some_and(crate::sql::model::query::needs_null_key);
                    Frame::Value(ValueFrame { groups, rows, exclude, descending, nulls_first, null_key, start, end })
                }
                Some(f)
                    if f.mode == ast::FrameMode::Rows
                        && matches!(f.exclude, None | Some(ast::FrameExclude::NoOthers))
                        && (!matches!(f.start, ast::FrameBound::UnboundedPreceding)
                            || matches!(f.end, Some(ast::FrameBound::Preceding(_) | ast::FrameBound::Following(_)))) =>
                {
                    let start = offset(&f.start, true).ok_or_else(|| Error::unsupported("this window frame"))?;
                    let end = match &f.end {
                        None => Some(0),
                        Some(b) => offset(b, false).ok_or_else(|| Error::unsupported("this window frame"))?,
                    };
                    Frame::Rows(start, end)
                }
                Some(f) => {
                    if !matches!(f.exclude, None | Some(ast::FrameExclude::NoOthers)) || !matches!(f.start, ast::FrameBound::UnboundedPreceding) {
                        return Err(Error::unsupported("this window frame"));
                    }
                    match (&f.end, f.mode) {
                        (None | Some(ast::FrameBound::CurrentRow), ast::FrameMode::Rows) => Frame::ToRow,
                        (None | Some(ast::FrameBound::CurrentRow), _) => Frame::ToPeers,
                        (Some(ast::FrameBound::UnboundedFollowing), _) => Frame::Partition,
                        _ => return Err(Error::unsupported("this window frame")),
                    }
                }
            };
            let kind = match name.ascii_lower().as_str() {
                "row_number" if args.is_empty() => WinKind::RowNumber,
                "rank" if args.is_empty() => WinKind::Rank,
                "dense_rank" if args.is_empty() => WinKind::DenseRank,
                "first_value" if args.len() == 1 => WinKind::FirstValue,
                "last_value" if args.len() == 1 => WinKind::LastValue,
                "nth_value" if args.len() == 2 => WinKind::NthValue,
                "lag" if (1..=3).contains(&args.len()) => WinKind::Lag,
                "lead" if (1..=3).contains(&args.len()) => WinKind::Lead,
                "percent_rank" if args.is_empty() => WinKind::PercentRank,
                "cume_dist" if args.is_empty() => WinKind::CumeDist,
                "ntile" if args.len() == 1 => WinKind::Ntile,
                _ => {
                    let def = self.lookup_function(&name, args.len())?;
                    self.check_function_usable(&name, &def)?;
                    match def.kind {
                        FuncKind::Aggregate(_)
                            if !matches!(
                                name.ascii_lower().as_str(),
                                "row_number"
                                    | "rank"
                                    | "dense_rank"
                                    | "percent_rank"
                                    | "cume_dist"
                                    | "ntile"
                                    | "lag"
                                    | "lead"
                                    | "first_value"
                                    | "last_value"
                                    | "nth_value"
                            ) =>
                        {
                            WinKind::Agg(self.bind_call_collation(def, args.iter().copied())?)
                        }
                        FuncKind::Scalar(_) => return Err(Error::sql(format!("{name}() may not be used as a window function"))),
                        _ => return Err(Error::unsupported(&format!("the window function {name}()"))),
                    }
                }
            };
            let result = self.b.reg();
            let acc = self.b.reg();
            // Over a frame walked row by row, first_value, last_value and
            // nth_value are aggregates of the frame's rows.
            if filter.is_some() && !matches!(kind, WinKind::Agg(_)) {
                return Err(Error::sql("FILTER clause may only be used with aggregate window functions"));
            }
            let kind = match kind {
                WinKind::FirstValue | WinKind::LastValue | WinKind::NthValue if matches!(frame, Frame::Value(_) | Frame::Rows(..)) => {
                    WinKind::Agg(self.lookup_function(&name, args.len())?)
                }
                k => k,
            };
            // FILTER: its value is stored as one more argument, and rows
            // where it is not true are not stepped.
            let mut args = args;
            let filtered = filter.is_some();
            if let Some(f) = filter {
                args.push(f);
            }
            // Ranking functions ignore frames.
            let (frame, offsets) = if matches!(
                kind,
                WinKind::RowNumber
                    | WinKind::Rank
                    | WinKind::DenseRank
                    | WinKind::PercentRank
                    | WinKind::CumeDist
                    | WinKind::Ntile
                    | WinKind::Lag
                    | WinKind::Lead
            ) {
                (Frame::ToPeers, (None, None))
            } else {
                (frame, offsets)
            };
            out.push(WinCall { key, kind, frame, args, filtered, spec, offsets, result, acc });
        }
        Ok(())
    }
}
