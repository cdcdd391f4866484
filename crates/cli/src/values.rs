//! Value parsers for flags: numbers that must be finite and in range, dates.
//! A value refused here is a usage error (exit status 2) naming the flag.

/// A parser for a finite number from `lo` to `hi` (both included).
pub fn float_in(lo: f64, hi: f64) -> impl Fn(&str) -> Result<f64, String> + Clone {
    move |s: &str| {
        let v: f64 = s
            .trim()
            .parse()
            .map_err(|_| format!("'{s}' is not a number"))?;
        if !v.is_finite() || v < lo || v > hi {
            return Err(format!("'{s}' is out of range: {lo} to {hi}"));
        }
        Ok(v)
    }
}

/// A parser for a finite number above `lo` (excluded) up to `hi`.
pub fn float_above(lo: f64, hi: f64) -> impl Fn(&str) -> Result<f64, String> + Clone {
    move |s: &str| {
        let v = float_in(lo, hi)(s)?;
        if v <= lo {
            return Err(format!("'{s}' must be more than {lo} (up to {hi})"));
        }
        Ok(v)
    }
}

/// A PGN date: `YYYY.MM.DD`, with `?` for unknown parts (`2026.??.??`).
pub fn date(s: &str) -> Result<String, String> {
    let bad = || format!("'{s}' is not a date YYYY.MM.DD (use ? for unknown digits: 2026.??.??)");
    let parts: Vec<&str> = s.split('.').collect();
    let [y, m, d] = parts[..] else {
        return Err(bad());
    };
    let field = |t: &str, len: usize, range: std::ops::RangeInclusive<u32>| -> Result<(), String> {
        if t.len() != len {
            return Err(bad());
        }
        if t.chars().all(|c| c == '?') {
            return Ok(());
        }
        match t.parse::<u32>() {
            Ok(v) if t.chars().all(|c| c.is_ascii_digit()) && range.contains(&v) => Ok(()),
            _ => Err(bad()),
        }
    };
    field(y, 4, 0..=9999)?;
    field(m, 2, 1..=12)?;
    field(d, 2, 1..=31)?;
    if let (Ok(y), Ok(m), Ok(d)) = (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>()) {
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let days = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        if d > days[(m - 1) as usize] {
            return Err(format!(
                "'{s}': {y:04}.{m:02} has {} days",
                days[(m - 1) as usize]
            ));
        }
    }
    Ok(s.to_string())
}

/// `WxH` within `lo` to `hi` pixels each way.
pub fn size_in(lo: u32, hi: u32) -> impl Fn(&str) -> Result<(u32, u32), String> + Clone {
    move |s: &str| {
        let bad = || format!("'{s}' is not a size WxH, such as 640x480");
        let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
        let (w, h): (u32, u32) = (
            w.trim().parse().map_err(|_| bad())?,
            h.trim().parse().map_err(|_| bad())?,
        );
        if !(lo..=hi).contains(&w) || !(lo..=hi).contains(&h) {
            return Err(format!(
                "size '{s}' is out of range: {lo} to {hi} pixels each way"
            ));
        }
        Ok((w, h))
    }
}

/// English plural of a count: `1 frame`, `2 frames`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_must_be_finite_and_in_range() {
        let q = float_in(0.0, 60.0);
        assert_eq!(q("0.4"), Ok(0.4));
        for bad in ["NaN", "nan", "inf", "-inf", "-1", "61", "1e300", "x", ""] {
            assert!(q(bad).is_err(), "{bad}");
        }
        let fps = float_above(0.0, 1000.0);
        assert_eq!(fps("1e-300"), Ok(1e-300));
        assert!(fps("0").is_err());
    }

    #[test]
    fn dates_are_validated() {
        for good in [
            "2026.03.07",
            "2024.02.29",
            "????.??.??",
            "2026.??.??",
            "1851.06.21",
        ] {
            assert_eq!(date(good).as_deref(), Ok(good));
        }
        for bad in [
            "garbage",
            "2026-03-07",
            "2026.13.01",
            "2026.02.30",
            "2023.02.29",
            "26.03.07",
            "2026.3.7",
            "2026.03.07.1",
            "",
            "2026.00.10",
            "20a6.01.01",
        ] {
            assert!(date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_are_pluralised() {
        assert_eq!(plural(1, "frame", "frames"), "1 frame");
        assert_eq!(plural(0, "frame", "frames"), "0 frames");
        assert_eq!(plural(2, "change", "changes"), "2 changes");
    }
}
