//! # Plots of the open-loop suite
//!
//! Two figures, one panel per (storage, workload), latency on a log axis,
//! one colour per system (ringlite async, SQLite thread per tenant, the
//! best SQLite pool), p99.9 solid and p50 dashed:
//! - `openloop-load`: against the offered load, at the largest tenant
//!   count run;
//! - `openloop-tenants`: against the number of tenants, at the load
//!   nearest 80%.
//!
//! SVG written by hand like the tenants plot ([`crate::plot`]), then
//! converted to PNG by the same tool.

use crate::openloop::Point;
use std::fmt::Write as _;
use std::path::Path;

const W: f64 = 380.0;
const H: f64 = 240.0;
const ML: f64 = 70.0;
const MT: f64 = 40.0;
const MB: f64 = 45.0;
const SYSTEMS: [(&str, &str); 3] = [("ringlite async", "#2ca02c"), ("sqlite thread/tenant", "#1f77b4"), ("sqlite best pool", "#ff7f0e")];

/// Write both figures next to `base` (its file name is replaced);
/// returns the files made.
pub fn write(points: &[Point], base: &Path) -> Vec<String> {
    let mut made = Vec::new();
    let max_n = points.iter().map(|p| p.tenants).max().unwrap_or(0);
    let loads: Vec<f64> = {
        let mut v: Vec<f64> = points.iter().map(|p| p.load).collect();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        v.dedup();
        v
    };
    let near80 = loads.iter().copied().min_by(|a, b| (a - 0.8).abs().partial_cmp(&(b - 0.8).abs()).unwrap_or(std::cmp::Ordering::Equal));
    type Axis = Box<dyn Fn(&Point) -> Option<f64>>;
    let figs: [(&str, Axis, &str, bool); 2] = [
        ("openloop-load", Box::new(move |p: &Point| (p.tenants == max_n).then_some(p.load * 100.0)), "offered load (% of capacity)", false),
        ("openloop-tenants", Box::new(move |p: &Point| (Some(p.load) == near80).then_some(p.tenants as f64)), "tenants (log)", true),
    ];
    for (name, x_of, xlabel, log_x) in figs {
        let svg = render(points, &*x_of, xlabel, log_x, name);
        let path = base.with_file_name(format!("{name}.svg"));
        if std::fs::write(&path, svg).is_ok() {
            made.push(path.display().to_string());
            made.extend(crate::plot::to_png(&path));
        }
    }
    made
}

fn render(points: &[Point], x_of: &dyn Fn(&Point) -> Option<f64>, xlabel: &str, log_x: bool, title: &str) -> String {
    let mut panels: Vec<(String, String)> = Vec::new();
    for p in points {
        let k = (p.storage.clone(), p.mix.clone());
        if !panels.contains(&k) {
            panels.push(k);
        }
    }
    let pts: Vec<(&Point, f64, [f64; 4])> = points
        .iter()
        .filter_map(|p| Some((p, x_of(p)?, p.result.as_ref().ok().filter(|s| s.served > 0)?.pct)))
        .filter(|(_, _, v)| v.iter().all(|x| x.is_finite()))
        .collect();
    let cols = 2usize;
    let rows = panels.len().div_ceil(cols).max(1);
    let (tw, th) = (cols as f64 * (W + ML + 20.0) + 20.0, rows as f64 * (H + MT + MB) + 30.0);
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{tw}" height="{th}" font-family="sans-serif" font-size="11">"#);
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="10" y="18" font-weight="bold">{title}: latency from arrival (µs, log), p99.9 solid, p50 dashed</text>"#);
    for (k, (storage, mix)) in panels.iter().enumerate() {
        let ox = (k % cols) as f64 * (W + ML + 20.0) + ML;
        let oy = (k / cols) as f64 * (H + MT + MB) + MT + 10.0;
        let mine: Vec<&(&Point, f64, [f64; 4])> = pts.iter().filter(|(p, _, _)| &p.storage == storage && &p.mix == mix).collect();
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{storage}, {mix}</text>"#, ox + W / 2.0, oy - 8.0);
        let _ = writeln!(s, r#"<rect x="{ox}" y="{oy}" width="{W}" height="{H}" fill="none" stroke="black"/>"#);
        if mine.is_empty() {
            continue;
        }
        let fx = |x: f64| if log_x { x.max(1.0).log10() } else { x };
        let (x0, x1) = mine.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (_, x, _)| (a.min(fx(*x)), b.max(fx(*x))));
        let (x0, x1) = if x1 > x0 { (x0, x1) } else { (x0 - 1.0, x1 + 1.0) };
        let vals = mine.iter().flat_map(|(_, _, v)| [v[0], v[2]]).filter(|v| *v > 0.0);
        let lo = vals.clone().fold(f64::INFINITY, f64::min).max(1.0).log10().floor();
        let hi = vals.fold(1.0f64, f64::max).log10().ceil().max(lo + 1.0);
        let x = |v: f64| ox + (fx(v) - x0) / (x1 - x0) * W;
        let y = |v: f64| oy + H - (v.max(1e-3).log10() - lo) / (hi - lo) * H;
        for e in lo as i32..=hi as i32 {
            let yy = y(10f64.powi(e));
            let _ = writeln!(
                s,
                r##"<line x1="{ox}" x2="{}" y1="{yy}" y2="{yy}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">1e{e}</text>"##,
                ox + W,
                ox - 5.0,
                yy + 4.0
            );
        }
        let mut xs: Vec<f64> = mine.iter().map(|(_, x, _)| *x).collect();
        xs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        xs.dedup();
        for xv in &xs {
            let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">{xv}</text>"#, x(*xv), oy + H + 15.0);
        }
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">{xlabel}</text>"#, ox + W / 2.0, oy + H + 32.0);
        for (i, (sys, color)) in SYSTEMS.iter().enumerate() {
            let mut line: Vec<(f64, [f64; 4])> = mine.iter().filter(|(p, _, _)| p.system == *sys).map(|(_, x, v)| (*x, *v)).collect();
            line.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
            for (q, dash) in [(2usize, ""), (0, r#" stroke-dasharray="5,4""#)] {
                let path: Vec<String> = line.iter().map(|(xv, v)| format!("{:.1},{:.1}", x(*xv), y(v[q]))).collect();
                if !path.is_empty() {
                    let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#, path.join(" "));
                }
            }
            let ly = oy + 14.0 + i as f64 * 14.0;
            let _ = writeln!(
                s,
                r#"<line x1="{}" x2="{}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"/><text x="{}" y="{}">{sys}</text>"#,
                ox + 6.0,
                ox + 24.0,
                ox + 28.0,
                ly + 4.0
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
