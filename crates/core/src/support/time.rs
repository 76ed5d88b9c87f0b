//! Timestamps in the two families the state files use: aware UTC
//! (`2026-11-21T13:26:58.589963+00:00`, registry) and naive local
//! (`2026-11-21T13:27:02.029457`, message log), plus Unix seconds, and
//! durations as people type them (`30s`, `10m`, `1h30m`).

use std::time::Duration;

use chrono::{DateTime, Local, NaiveDateTime, SecondsFormat, TimeZone, Utc};

/// The current time.
pub fn now() -> DateTime<Utc> {
    Utc::now()
}

/// `2026-11-21T13:26:58.589963+00:00`: Python's `datetime.now(timezone.utc).isoformat()`.
pub fn utc_iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, false)
}

/// `2026-11-21T13:27:02.029457`: Python's naive `datetime.now().isoformat()`.
pub fn local_naive_iso(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local)
        .naive_local()
        .format("%Y-%m-%dT%H:%M:%S%.6f")
        .to_string()
}

/// Parses either family (and Python's form without fractional seconds).
/// Naive times are taken as local time, as the Python tool writes them.
pub fn parse_iso(s: &str) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    let naive = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
    Local
        .from_local_datetime(&naive)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
}

/// Unix seconds with sub-second precision (lock files' `locked_at`).
pub fn unix_seconds(t: DateTime<Utc>) -> f64 {
    t.timestamp() as f64 + f64::from(t.timestamp_subsec_micros()) / 1e6
}

/// The inverse of `unix_seconds`; `None` for non-finite or absurd values.
pub fn from_unix_seconds(secs: f64) -> Option<DateTime<Utc>> {
    if !secs.is_finite() || secs.abs() > 1e12 {
        return None;
    }
    let whole = secs.floor();
    let micros = ((secs - whole) * 1e6).round() as u32;
    DateTime::from_timestamp(whole as i64, micros.min(999_999) * 1000)
}

/// Seconds from `then` to `now`, never negative (clock skew reads as 0).
pub fn age_seconds(then: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
    ((now - then).num_microseconds().unwrap_or(i64::MAX) as f64 / 1e6).max(0.0)
}

/// A duration for people: `12.3s`, `4m05s`, `2h03m`.
pub fn human_duration(secs: f64) -> String {
    let secs = secs.max(0.0);
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
    let whole = secs as u64;
    if whole < 3600 {
        format!("{}m{:02}s", whole / 60, whole % 60)
    } else {
        format!("{}h{:02}m", whole / 3600, whole % 3600 / 60)
    }
}

/// A time for people, in local time: `12:42:48` on the day of `now`,
/// `Nov 27 12:42` on another day of its year, `2025-11-27 12:42` before.
pub fn for_people(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let (t, now) = (t.with_timezone(&Local), now.with_timezone(&Local));
    if t.date_naive() == now.date_naive() {
        t.format("%H:%M:%S").to_string()
    } else if t.format("%Y").to_string() == now.format("%Y").to_string() {
        t.format("%b %-d %H:%M").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M").to_string()
    }
}

/// A stored time (either family, see `parse_iso`) for people, as
/// `for_people` shows it; text that is no time comes back as it is.
pub fn iso_for_people(iso: &str, now: DateTime<Utc>) -> String {
    parse_iso(iso).map_or_else(|| iso.to_owned(), |t| for_people(t, now))
}

/// How long before `now` `then` was, for people: `just now`, `42 s ago`,
/// `3 min ago`, `2 h ago`, `5 days ago`.
pub fn ago(then: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let secs = age_seconds(then, now) as u64;
    match secs {
        0..5 => "just now".to_owned(),
        5..60 => format!("{secs} s ago"),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86_400 => format!("{} h ago", secs / 3600),
        _ => {
            let days = secs / 86_400;
            format!("{days} day{} ago", if days == 1 { "" } else { "s" })
        }
    }
}

/// Parses an age such as `30s`, `10m`, `2h`, `1d` or `1h30m`; a bare
/// number is seconds.
pub fn parse_duration(input: &str) -> Result<Duration, String> {
    let text = input.trim();
    let bad = || {
        format!(
            "invalid duration {input:?}: use a number with s, m, h or d, such as 30s, 10m, 2h or 1h30m"
        )
    };
    if text.is_empty() {
        return Err(bad());
    }
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let mut total: u64 = 0;
    let mut digits = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c.to_ascii_lowercase() {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(bad()),
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        digits.clear();
        total = n
            .checked_mul(unit)
            .and_then(|s| total.checked_add(s))
            .ok_or_else(bad)?;
    }
    if !digits.is_empty() {
        return Err(bad());
    }
    // Later than anything chrono can subtract from now is no filter a
    // person means; refuse it rather than overflow.
    if total > 100 * 365 * 86_400 {
        return Err(format!("duration {input:?} is longer than 100 years"));
    }
    Ok(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration(" 45 "), Ok(Duration::from_secs(45)));
        assert_eq!(parse_duration("2H"), Ok(Duration::from_secs(7200)));
        for bad in ["", "m", "10x", "1.5h", "-3m", "10m5", "h10"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        assert!(parse_duration("99999999999999999999d").is_err());
        assert!(parse_duration("1000000d").is_err());
    }

    #[test]
    fn times_for_people_are_short() {
        let now = Local
            .with_ymd_and_hms(2026, 11, 28, 12, 45, 48)
            .single()
            .expect("valid")
            .with_timezone(&Utc);
        let t = now - chrono::Duration::seconds(180);
        assert_eq!(for_people(t, now), "12:42:48");
        assert_eq!(ago(t, now), "3 min ago");
        assert_eq!(ago(now, now), "just now");
        assert_eq!(ago(now - chrono::Duration::hours(50), now), "2 days ago");
        assert_eq!(
            for_people(now - chrono::Duration::days(1), now),
            "Nov 27 12:45"
        );
        assert_eq!(iso_for_people("not a time", now), "not a time");
        assert_eq!(iso_for_people(&utc_iso(t), now), "12:42:48");
    }

    #[test]
    fn utc_iso_has_micros_and_offset() {
        let t = DateTime::from_timestamp(1_795_267_578, 589_963_000).expect("valid");
        assert_eq!(utc_iso(t), "2026-11-21T13:26:18.589963+00:00");
        assert_eq!(parse_iso(&utc_iso(t)), Some(t));
    }

    #[test]
    fn parses_python_forms() {
        assert!(parse_iso("2025-11-18T14:30:00+00:00").is_some());
        assert!(parse_iso("2025-11-18T14:30:00.123456+00:00").is_some());
        assert!(parse_iso("2025-11-18T14:30:00.123456").is_some());
        assert!(parse_iso("2025-11-18T14:30:00").is_some());
        assert!(parse_iso("yesterday").is_none());
        assert!(parse_iso("").is_none());
    }

    #[test]
    fn local_naive_round_trips() {
        let t = DateTime::from_timestamp(1_795_267_578, 123_456_000).expect("valid");
        assert_eq!(parse_iso(&local_naive_iso(t)), Some(t));
    }

    #[test]
    fn human_durations() {
        assert_eq!(human_duration(-1.0), "0.0s");
        assert_eq!(human_duration(12.34), "12.3s");
        assert_eq!(human_duration(245.0), "4m05s");
        assert_eq!(human_duration(7380.0), "2h03m");
    }

    #[test]
    fn unix_seconds_round_trip_and_reject_garbage() {
        let t = DateTime::from_timestamp(1_795_267_578, 971_089_000).expect("valid");
        assert_eq!(from_unix_seconds(unix_seconds(t)), Some(t));
        assert_eq!(from_unix_seconds(f64::NAN), None);
        assert_eq!(from_unix_seconds(1e300), None);
    }
}
