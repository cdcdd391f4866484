//! Dates and times from the system clock, in the forms the records use: PGN's
//! `YYYY.MM.DD` for a game's date, the same with the time of day for when an
//! arbiter acted or a lock was taken. Always UTC: a record carries no time zone,
//! so jiff is built without its time-zone database.

use jiff::Timestamp;

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    date_text(now())
}

/// The wall-clock time now, `YYYY.MM.DD HH:MM:SS UTC`.
pub fn utc_now() -> String {
    utc_text(now())
}

/// The time now; a clock beyond what a date can say (before -9999 or after 9999)
/// reads as 1970-01-01 rather than failing.
fn now() -> Timestamp {
    Timestamp::try_from(std::time::SystemTime::now()).unwrap_or(Timestamp::UNIX_EPOCH)
}

fn date_text(t: Timestamp) -> String {
    t.strftime("%Y.%m.%d").to_string()
}

fn utc_text(t: Timestamp) -> String {
    t.strftime("%Y.%m.%d %H:%M:%S UTC").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_second(secs).unwrap()
    }

    #[test]
    fn times_read_as_utc() {
        assert_eq!(utc_text(at(0)), "1970.01.01 00:00:00 UTC");
        assert_eq!(utc_text(at(951_782_400 + 3_723)), "2000.02.29 01:02:03 UTC");
        assert_eq!(
            utc_text(at(20_790 * 86_400 + 13 * 3600 + 50 * 60 + 12)),
            "2026.12.03 13:50:12 UTC"
        );
    }

    #[test]
    fn dates_are_pgn_dates() {
        assert_eq!(date_text(at(0)), "1970.01.01");
        assert_eq!(date_text(at(20_786 * 86_400)), "2026.11.29");
        assert_eq!(date_text(at(20_786 * 86_400 + 86_399)), "2026.11.29");
        assert_eq!(date_text(at(11_016 * 86_400)), "2000.02.29");
        assert_eq!(date_text(at(20_790 * 86_400)), "2026.12.03");
        // Before 1970 and before the year 1000: still four digits, still UTC.
        assert_eq!(date_text(at(-86_400)), "1969.12.31");
        assert_eq!(date_text(at(-31_000_000_000)), "0987.08.25");
    }

    #[test]
    fn now_reads_as_a_pgn_date_and_a_utc_time() {
        let (date, time) = (today(), utc_now());
        assert_eq!(date.len(), 10, "{date}");
        assert_eq!(&date[4..5], ".");
        assert!(time.starts_with(&date[..4]), "{time} {date}");
        assert!(time.ends_with(" UTC") && time.len() == 23, "{time}");
    }
}
