//! Dates and times from the system clock, in the forms the records use: PGN's
//! `YYYY.MM.DD` for a game's date, the same with the time of day for when an
//! arbiter acted or a lock was taken. Always UTC: a record carries no time zone.

use std::time::{SystemTime, UNIX_EPOCH};

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    date_text(now_secs())
}

/// The wall-clock time now, `YYYY.MM.DD HH:MM:SS UTC`.
pub fn utc_now() -> String {
    utc_text(now_secs())
}

/// Seconds since 1970; a clock set before then reads as 1970-01-01 rather than failing.
fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn date_text(secs: u64) -> String {
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

fn utc_text(secs: u64) -> String {
    let s = secs % 86_400;
    format!(
        "{} {:02}:{:02}:{:02} UTC",
        date_text(secs),
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn times_read_as_utc() {
        assert_eq!(utc_text(0), "1970.01.01 00:00:00 UTC");
        assert_eq!(utc_text(951_782_400 + 3_723), "2000.02.29 01:02:03 UTC");
    }

    #[test]
    fn dates_are_pgn_dates() {
        assert_eq!(date_text(0), "1970.01.01");
        assert_eq!(date_text(20_786 * 86_400 + 86_399), "2026.11.29");
    }
}
