//! # The tenants plot (the paper's figure 3)
//!
//! Four panels (p50, p90, p99, p99.9), each latency on a logarithmic axis
//! against the number of tenants, one line per configuration. Written as
//! SVG by hand (a few dozen lines, no font or system dependency), then
//! converted to PNG with `rsvg-convert` (Debian package `librsvg2-bin`)
//! or ImageMagick's `convert` when one is installed.

use crate::tenants::Point;
use std::fmt::Write as _;
use std::path::Path;

const PANEL_W: f64 = 420.0;
const PANEL_H: f64 = 300.0;
const MARGIN_L: f64 = 70.0;
const MARGIN_B: f64 = 45.0;
const MARGIN_T: f64 = 30.0;
const COLORS: [(&str, &str); 4] =
    [("sqlite threads", "#1f77b4"), ("ringlite threads", "#d62728"), ("ringlite async", "#2ca02c"), (crate::tenants::PAPER, "#9467bd")];

/// Write `path.svg` and, if possible, `path.png`; returns the files made.
pub fn write(points: &[Point], path: &Path) -> Vec<String> {
    let svg = render(points);
    let svg_path = path.with_extension("svg");
    let mut made = Vec::new();
    if std::fs::write(&svg_path, svg).is_ok() {
        made.push(svg_path.display().to_string());
        made.extend(to_png(&svg_path));
    }
    made
}

/// Convert an SVG file to PNG beside it; the PNG's name if it worked.
pub fn to_png(svg_path: &Path) -> Option<String> {
    let png = svg_path.with_extension("png");
    // rsvg-convert (Debian: librsvg2-bin) or ImageMagick, whichever runs.
    let rsvg = || std::process::Command::new("rsvg-convert").arg("-o").arg(&png).arg(svg_path).output();
    let magick = || std::process::Command::new("convert").arg(svg_path).arg(&png).output();
    let ran = |r: std::io::Result<std::process::Output>| r.is_ok_and(|o| o.status.success()) && png.exists();
    (ran(rsvg()) || ran(magick())).then(|| png.display().to_string())
}

fn render(points: &[Point]) -> String {
    let ok: Vec<(&Point, [f64; 4])> = points.iter().filter_map(|p| p.result.as_ref().ok().map(|r| (p, *r))).collect();
    let max_n = ok.iter().map(|(p, _)| p.tenants).max().unwrap_or(1).max(1) as f64;
    let vals = ok.iter().flat_map(|(_, r)| r.iter().copied()).filter(|v| *v > 0.0);
    let lo = vals.clone().fold(f64::INFINITY, f64::min).max(0.1).log10().floor();
    let hi = vals.fold(1.0f64, f64::max).log10().ceil().max(lo + 1.0);
    let total_w = 2.0 * (PANEL_W + MARGIN_L) + 50.0;
    let total_h = 2.0 * (PANEL_H + MARGIN_B + MARGIN_T) + 40.0;
    let mut s = String::new();
    let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" font-family="sans-serif" font-size="12">"#);
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for (k, title) in ["p50", "p90", "p99", "p99.9"].iter().enumerate() {
        let ox = (k % 2) as f64 * (PANEL_W + MARGIN_L + 10.0) + MARGIN_L;
        let oy = (k / 2) as f64 * (PANEL_H + MARGIN_B + MARGIN_T) + MARGIN_T + 20.0;
        let x = |n: f64| ox + n / max_n * PANEL_W;
        let y = |v: f64| oy + PANEL_H - (v.max(1e-3).log10() - lo) / (hi - lo) * PANEL_H;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{title} query latency (µs, log scale)</text>"#,
            ox + PANEL_W / 2.0,
            oy - 8.0
        );
        let _ = writeln!(s, r#"<rect x="{ox}" y="{oy}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="black"/>"#);
        for e in lo as i32..=hi as i32 {
            let yy = y(10f64.powi(e));
            let _ = writeln!(
                s,
                r##"<line x1="{ox}" x2="{}" y1="{yy}" y2="{yy}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">1e{e}</text>"##,
                ox + PANEL_W,
                ox - 5.0,
                yy + 4.0
            );
        }
        for n in (0..=max_n as usize).step_by(((max_n as usize) / 10).max(1)) {
            let xx = x(n as f64);
            let _ = writeln!(s, r#"<text x="{xx}" y="{}" text-anchor="middle">{n}</text>"#, oy + PANEL_H + 16.0);
        }
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">tenants</text>"#, ox + PANEL_W / 2.0, oy + PANEL_H + 34.0);
        for (i, (config, color)) in COLORS.iter().enumerate() {
            let pts: Vec<String> = ok.iter().filter(|(p, _)| p.config == *config).map(|(p, r)| format!("{:.1},{:.1}", x(p.tenants as f64), y(r[k]))).collect();
            if !pts.is_empty() {
                let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#, pts.join(" "));
                for p in &pts {
                    let (px, py) = p.split_once(',').unwrap_or(("0", "0"));
                    let _ = writeln!(s, r#"<circle cx="{px}" cy="{py}" r="3" fill="{color}"/>"#);
                }
            }
            let ly = oy + 15.0 + i as f64 * 15.0;
            let note = if pts.is_empty() { " (not measured)" } else { "" };
            let _ = writeln!(
                s,
                r#"<line x1="{}" x2="{}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"/><text x="{}" y="{}">{config}{note}</text>"#,
                ox + 8.0,
                ox + 28.0,
                ox + 32.0,
                ly + 4.0
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
