//! The moment being computed by a date/time function: SQLite's `DateTime`.
//!
//! A moment is known in up to three forms at once, each with a validity
//! flag: the Julian day number in milliseconds (`jd`, the canonical form),
//! the calendar date (`y`/`mo`/`d`) and the time of day (`h`/`mi`/`s`).
//! Conversions fill in a missing form from the others; an edit to one form
//! invalidates the others. A bare number not yet known to be a Julian day
//! or a Unix time is held raw in `s` with `raw_s` set until a modifier
//! (`unixepoch`, `julianday`, `auto`) or the first computation decides.
//!
//! Valid Julian days run from 0 (-4713-11-24 12:00:00) to
//! 464269060799999 ms (9999-12-31 23:59:59.999); outside that the moment is
//! in error and the function returns NULL.

/// Largest valid Julian day in milliseconds (9999-12-31 23:59:59.999).
pub const MAX_JD_MS: i64 = 464_269_060_799_999;

/// Julian day (ms) of the Unix epoch, 1970-01-01 00:00:00.
pub const UNIX_EPOCH_JD_MS: i64 = 210_866_760_000_000;

/// Milliseconds per day.
pub const DAY_MS: i64 = 86_400_000;

#[derive(Debug, Clone, Copy, Default)]
pub struct Moment {
    /// Julian day number times 86400000.
    pub jd: i64,
    pub y: i32,
    pub mo: i32,
    pub d: i32,
    pub h: i32,
    pub mi: i32,
    /// Seconds with fraction (or the raw number when `raw_s`).
    pub s: f64,
    /// Time zone offset in minutes given with a text time value.
    pub tz: i32,
    pub valid_jd: bool,
    pub valid_ymd: bool,
    pub valid_hms: bool,
    pub valid_tz: bool,
    pub raw_s: bool,
    pub is_error: bool,
    pub use_subsec: bool,
    pub is_utc: bool,
    pub is_local: bool,
    /// Days the date overflowed its month after month/year arithmetic
    /// (2024-01-31 + 1 month = 2024-02-31 is 2 days past Feb 29): what the
    /// `floor` modifier takes back.
    pub n_floor: i32,
}

pub fn valid_julian_day(jd: i64) -> bool {
    (0..=MAX_JD_MS).contains(&jd)
}

impl Moment {
    fn set_error(&mut self) {
        *self = Moment { is_error: true, ..Moment::default() };
    }

    /// A number given as the time value: a Julian day unless a later
    /// modifier says it is a Unix time.
    pub fn set_raw_number(&mut self, r: f64) {
        self.s = r;
        self.raw_s = true;
        if (0.0..5_373_484.5).contains(&r) {
            self.jd = (r * 86_400_000.0 + 0.5) as i64;
            self.valid_jd = true;
        }
    }

    /// Compute `n_floor` from the (possibly overflowing) calendar date.
    pub fn compute_floor(&mut self) {
        let (y, m, d) = (self.y, self.mo, self.d);
        // Days up to 28 and months of 31 days never overflow.
        self.n_floor = if d <= 28 || (1 << m) & 0x15aa != 0 {
            0
        } else if m != 2 {
            (d == 31) as i32
        } else if y % 4 != 0 || (y % 100 == 0 && y % 400 != 0) {
            d - 28
        } else {
            d - 29
        };
    }

    /// Fill in `jd` from the calendar date and time of day.
    pub fn compute_jd(&mut self) {
        if self.valid_jd {
            return;
        }
        let (mut y, mut m, d) = if self.valid_ymd { (self.y, self.mo, self.d) } else { (2000, 1, 1) };
        if !(-4713..=9999).contains(&y) || self.raw_s {
            self.set_error();
            return;
        }
        if m <= 2 {
            y -= 1;
            m += 12;
        }
        let a = (y + 4800) / 100;
        let b = 38 - a + a / 4;
        let x1 = 36525 * (y + 4716) / 100;
        let x2 = 306001 * (m + 1) / 10000;
        self.jd = (((x1 + x2 + d + b) as f64 - 1524.5) * 86_400_000.0) as i64;
        self.valid_jd = true;
        if self.valid_hms {
            self.jd += (self.h * 3_600_000 + self.mi * 60_000) as i64 + (self.s * 1000.0 + 0.5) as i64;
            if self.valid_tz {
                self.jd -= self.tz as i64 * 60_000;
                self.valid_ymd = false;
                self.valid_hms = false;
                self.valid_tz = false;
            } else if self.h >= 24 {
                // 24:00 is midnight of the next day: re-derive both forms.
                self.valid_ymd = false;
                self.valid_hms = false;
            }
        }
    }

    /// Fill in the calendar date from `jd`.
    pub fn compute_ymd(&mut self) {
        if self.valid_ymd {
            return;
        }
        if !self.valid_jd {
            self.y = 2000;
            self.mo = 1;
            self.d = 1;
        } else if !valid_julian_day(self.jd) {
            self.set_error();
            return;
        } else {
            let z = ((self.jd + 43_200_000) / DAY_MS) as i32;
            let a = ((z as f64 - 1_867_216.25) / 36_524.25) as i32;
            let a = z + 1 + a - a / 4;
            let b = a + 1524;
            let c = ((b as f64 - 122.1) / 365.25) as i32;
            let d = (36525 * (c & 32767)) / 100;
            let e = ((b - d) as f64 / 30.6001) as i32;
            let x1 = (30.6001 * e as f64) as i32;
            self.d = b - d - x1;
            self.mo = if e < 14 { e - 1 } else { e - 13 };
            self.y = if self.mo > 2 { c - 4716 } else { c - 4715 };
        }
        self.valid_ymd = true;
    }

    /// Fill in the time of day from `jd`.
    pub fn compute_hms(&mut self) {
        if self.valid_hms {
            return;
        }
        self.compute_jd();
        let day_ms = ((self.jd + 43_200_000) % DAY_MS) as i32;
        self.s = (day_ms % 60_000) as f64 / 1000.0;
        let day_min = day_ms / 60_000;
        self.mi = day_min % 60;
        self.h = day_min / 60;
        self.raw_s = false;
        self.valid_hms = true;
    }

    pub fn compute_ymd_hms(&mut self) {
        self.compute_ymd();
        self.compute_hms();
    }

    /// Forget every form but `jd`.
    pub fn clear_ymd_hms_tz(&mut self) {
        self.valid_ymd = false;
        self.valid_hms = false;
        self.valid_tz = false;
    }

    /// Days since Monday (0..6).
    pub fn days_after_monday(&self) -> i32 {
        (((self.jd + 43_200_000) / DAY_MS) % 7) as i32
    }

    /// Days since Sunday (0..6).
    pub fn days_after_sunday(&self) -> i32 {
        (((self.jd + 129_600_000) / DAY_MS) % 7) as i32
    }

    /// Days since January 1st of the same year (0..365).
    pub fn days_after_jan01(&self) -> i32 {
        let mut jan01 = *self;
        jan01.valid_jd = false;
        jan01.mo = 1;
        jan01.d = 1;
        jan01.compute_jd();
        ((self.jd - jan01.jd + 43_200_000) / DAY_MS) as i32
    }
}
