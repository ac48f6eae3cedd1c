//! # Date and time functions (`lang_datefunc`)
//!
//! date, time, datetime, julianday, unixepoch, strftime, timediff and the
//! zero-argument current_date/current_time/current_timestamp.
//!
//! Each call builds a [`moment::Moment`] from the time value (text, or a
//! number: Julian day unless a modifier says Unix time; 'now' when
//! omitted), applies the modifiers ([`modifier`]) and renders it. Any
//! invalid time value or modifier, or a result outside 0000..9999, gives
//! NULL. 'now' is the statement time in `ctx.now_jd_ms`, set by the first
//! function that needs it, so a statement step sees one instant.

mod localtime;
mod modifier;
pub mod moment;
mod parse;

use self::modifier::ModError;
use self::moment::{valid_julian_day, Moment, UNIX_EPOCH_JD_MS};
use self::parse::Parsed;
use super::conv::{value_bytes, value_f64};
use super::{scalar, DETERMINISTIC, VOLATILE};
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::func::{FunctionContext, FunctionRegistry};

/// Register the date/time functions.
pub fn register(r: &mut FunctionRegistry) {
    // Deterministic as far as SQLite is concerned (SQLITE_FUNC_SLOCHNG):
    // 'now' is fixed for a statement.
    let d = DETERMINISTIC;
    scalar(r, "julianday", &[-1], d, |ctx, a| Ok(with_moment(ctx, a)?.map_or(Value::Null, |m| Value::Real(m.jd as f64 / 86_400_000.0))));
    scalar(r, "unixepoch", &[-1], d, |ctx, a| {
        Ok(with_moment(ctx, a)?.map_or(Value::Null, |m| {
            if m.use_subsec {
                Value::Real((m.jd - UNIX_EPOCH_JD_MS) as f64 / 1000.0)
            } else {
                Value::Integer(m.jd / 1000 - UNIX_EPOCH_JD_MS / 1000)
            }
        }))
    });
    scalar(r, "date", &[-1], d, |ctx, a| Ok(with_moment(ctx, a)?.map_or(Value::Null, |m| Value::text(date_text(&m)))));
    scalar(r, "time", &[-1], d, |ctx, a| Ok(with_moment(ctx, a)?.map_or(Value::Null, |m| Value::text(time_text(&m)))));
    scalar(r, "datetime", &[-1], d, |ctx, a| Ok(with_moment(ctx, a)?.map_or(Value::Null, |m| Value::text(format!("{} {}", date_text(&m), time_text(&m))))));
    scalar(r, "strftime", &[-1], d, strftime);
    scalar(r, "timediff", &[2], d, timediff);
    scalar(r, "current_date", &[0], VOLATILE, |ctx, _| Ok(with_moment(ctx, &[])?.map_or(Value::Null, |m| Value::text(date_text(&m)))));
    scalar(r, "current_time", &[0], VOLATILE, |ctx, _| Ok(with_moment(ctx, &[])?.map_or(Value::Null, |m| Value::text(time_text(&m)))));
    scalar(r, "current_timestamp", &[0], VOLATILE, |ctx, _| {
        Ok(with_moment(ctx, &[])?.map_or(Value::Null, |m| Value::text(format!("{} {}", date_text(&m), time_text(&m)))))
    });
}

/// The statement time as a Julian day in milliseconds, fixed on first use.
fn now_jd(ctx: &mut FunctionContext<'_>) -> i64 {
    if let Some(t) = *ctx.now_jd_ms {
        return t;
    }
    let t = match ctx.clock.as_ref().and_then(|c| c.current_time_jd_ms()) {
        Some(t) => t,
        None => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0) + UNIX_EPOCH_JD_MS,
    };
    *ctx.now_jd_ms = Some(t);
    t
}

fn set_now(ctx: &mut FunctionContext<'_>, m: &mut Moment) -> Result<()> {
    ctx.require_pure()?;
    m.jd = now_jd(ctx);
    m.valid_jd = true;
    Ok(())
}

/// Build the moment from `args` (time value then modifiers): `Ok(None)`
/// when the result is NULL.
fn with_moment(ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Option<Moment>> {
    let mut m = Moment::default();
    match args.first().unwrap_or(&Value::Null) {
        _ if args.is_empty() => set_now(ctx, &mut m)?,
        Value::Integer(_) | Value::Real(_) => m.set_raw_number(value_f64(&args[0])),
        Value::Null | Value::Pointer(_) => return Ok(None),
        other => {
            let text = value_bytes(other).unwrap_or_default();
            match parse::parse_time_value(&text, &mut m) {
                Parsed::Ok => {}
                Parsed::Now => set_now(ctx, &mut m)?,
                Parsed::NowSubsec => {
                    m.use_subsec = true;
                    set_now(ctx, &mut m)?;
                }
                Parsed::Invalid => return Ok(None),
            }
        }
    }
    for (i, a) in args.iter().enumerate().skip(1) {
        let Some(z) = value_bytes(a) else { return Ok(None) };
        // The local time zone may change: not usable where results must
        // not.
        let trimmed = crate::vdbe::func::builtins::core::c_str(&z);
        if trimmed.eq_ignore_ascii_case(b"localtime") || trimmed.eq_ignore_ascii_case(b"utc") {
            ctx.require_pure()?;
        }
        match modifier::apply(&z, &mut m, i) {
            Ok(()) => {}
            Err(ModError::Invalid) => return Ok(None),
            Err(ModError::LocalTime) => return Err(Error::sql("local time unavailable")),
        }
    }
    m.compute_jd();
    if m.is_error || !valid_julian_day(m.jd) {
        return Ok(None);
    }
    if args.len() == 1 && m.valid_ymd && m.d > 28 {
        // Normalize an overflowing day (2023-02-31 is 2023-03-03).
        m.valid_ymd = false;
    }
    m.compute_ymd_hms();
    Ok(Some(m))
}

fn date_text(m: &Moment) -> String {
    if m.y < 0 {
        format!("-{:04}-{:02}-{:02}", -m.y, m.mo, m.d)
    } else {
        format!("{:04}-{:02}-{:02}", m.y, m.mo, m.d)
    }
}

fn time_text(m: &Moment) -> String {
    if m.use_subsec {
        let ms = (1000.0 * m.s + 0.5) as i32;
        format!("{:02}:{:02}:{:02}.{:03}", m.h, m.mi, ms / 1000, ms % 1000)
    } else {
        format!("{:02}:{:02}:{:02}", m.h, m.mi, m.s as i32)
    }
}

/// `%.16g` of a double, through the value layer's printf engine.
fn g16(x: f64) -> String {
    let args = [Value::Real(x)];
    let mut pa = crate::value::printf::SqlArgs::new(&args);
    String::from_utf8_lossy(&crate::value::printf::format(b"%.16g", &mut pa).unwrap_or_default()).into_owned()
}

/// The Thursday of the ISO week holding `m`.
fn iso_thursday(m: &Moment) -> Moment {
    let mut y = *m;
    y.jd += (3 - m.days_after_monday()) as i64 * moment::DAY_MS;
    y.valid_ymd = false;
    y.compute_ymd();
    y
}

fn strftime(ctx: &mut FunctionContext<'_>, a: &[Value]) -> Result<Value> {
    let Some(fmt) = a.first().and_then(value_bytes) else { return Ok(Value::Null) };
    let fmt = super::core::c_str(&fmt).to_vec();
    let Some(m) = with_moment(ctx, &a[1..])? else { return Ok(Value::Null) };
    let mut out: Vec<u8> = Vec::with_capacity(fmt.len() + 16);
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        // A '%' ending the format is an unknown conversion: NULL.
        let Some(&cf) = fmt.get(i + 1) else { return Ok(Value::Null) };
        i += 2;
        let piece = match cf {
            b'd' => format!("{:02}", m.d),
            b'e' => format!("{:2}", m.d),
            b'f' => format!("{:06.3}", m.s.min(59.999)),
            b'F' => format!("{:04}-{:02}-{:02}", m.y, m.mo, m.d),
            b'G' => format!("{:04}", iso_thursday(&m).y),
            b'g' => format!("{:02}", iso_thursday(&m).y % 100),
            b'H' => format!("{:02}", m.h),
            b'k' => format!("{:2}", m.h),
            b'I' | b'l' => {
                let mut h = m.h;
                if h > 12 {
                    h -= 12;
                }
                if h == 0 {
                    h = 12;
                }
                if cf == b'I' {
                    format!("{h:02}")
                } else {
                    format!("{h:2}")
                }
            }
            b'j' => format!("{:03}", m.days_after_jan01() + 1),
            b'J' => g16(m.jd as f64 / 86_400_000.0),
            b'm' => format!("{:02}", m.mo),
            b'M' => format!("{:02}", m.mi),
            b'p' => (if m.h >= 12 { "PM" } else { "AM" }).to_string(),
            b'P' => (if m.h >= 12 { "pm" } else { "am" }).to_string(),
            b'R' => format!("{:02}:{:02}", m.h, m.mi),
            b's' => {
                if m.use_subsec {
                    format!("{:.3}", (m.jd - UNIX_EPOCH_JD_MS) as f64 / 1000.0)
                } else {
                    format!("{}", m.jd / 1000 - UNIX_EPOCH_JD_MS / 1000)
                }
            }
            b'S' => format!("{:02}", m.s as i32),
            b'T' => format!("{:02}:{:02}:{:02}", m.h, m.mi, m.s as i32),
            b'u' => {
                let d = m.days_after_sunday();
                format!("{}", if d == 0 { 7 } else { d })
            }
            b'w' => format!("{}", m.days_after_sunday()),
            b'U' => format!("{:02}", (m.days_after_jan01() - m.days_after_sunday() + 7) / 7),
            b'V' => format!("{:02}", iso_thursday(&m).days_after_jan01() / 7 + 1),
            b'W' => format!("{:02}", (m.days_after_jan01() - m.days_after_monday() + 7) / 7),
            b'Y' => format!("{:04}", m.y),
            b'%' => "%".to_string(),
            _ => return Ok(Value::Null),
        };
        out.extend_from_slice(piece.as_bytes());
    }
    Ok(Value::Text(out))
}

/// timediff(A, B): A - B as `±YYYY-MM-DD HH:MM:SS.SSS`, counting whole
/// years and months on the calendar first.
fn timediff(ctx: &mut FunctionContext<'_>, a: &[Value]) -> Result<Value> {
    let Some(mut d1) = with_moment(ctx, &a[0..1])? else { return Ok(Value::Null) };
    let Some(mut d2) = with_moment(ctx, &a[1..2])? else { return Ok(Value::Null) };
    d1.compute_ymd_hms();
    d2.compute_ymd_hms();
    let sign;
    let mut y;
    let mut mo;
    let recompute = |d: &mut Moment| {
        d.valid_jd = false;
        d.compute_jd();
    };
    if d1.jd >= d2.jd {
        sign = '+';
        y = d1.y - d2.y;
        if y != 0 {
            d2.y = d1.y;
            recompute(&mut d2);
        }
        mo = d1.mo - d2.mo;
        if mo < 0 {
            y -= 1;
            mo += 12;
        }
        if mo != 0 {
            d2.mo = d1.mo;
            recompute(&mut d2);
        }
        while d1.jd < d2.jd {
            mo -= 1;
            if mo < 0 {
                mo = 11;
                y -= 1;
            }
            d2.mo -= 1;
            if d2.mo < 1 {
                d2.mo = 12;
                d2.y -= 1;
            }
            recompute(&mut d2);
        }
        d1.jd -= d2.jd;
    } else {
        sign = '-';
        y = d2.y - d1.y;
        if y != 0 {
            d2.y = d1.y;
            recompute(&mut d2);
        }
        mo = d2.mo - d1.mo;
        if mo < 0 {
            y -= 1;
            mo += 12;
        }
        if mo != 0 {
            d2.mo = d1.mo;
            recompute(&mut d2);
        }
        while d1.jd > d2.jd {
            mo -= 1;
            if mo < 0 {
                mo = 11;
                y -= 1;
            }
            d2.mo += 1;
            if d2.mo > 12 {
                d2.mo = 1;
                d2.y += 1;
            }
            recompute(&mut d2);
        }
        d1.jd = d2.jd - d1.jd;
    }
    // Render the remainder as a time after the epoch of day counting.
    d1.jd += 148_699_540_800_000;
    d1.clear_ymd_hms_tz();
    d1.compute_ymd_hms();
    Ok(Value::text(format!("{}{:04}-{:02}-{:02} {:02}:{:02}:{:06.3}", sign, y, mo, d1.d - 1, d1.h, d1.mi, d1.s)))
}
