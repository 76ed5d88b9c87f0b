//! Timestamps in the two families the state files use: aware UTC
//! (`2026-11-21T13:26:58.589963+00:00`, registry) and naive local
//! (`2026-11-21T13:27:02.029457`, message log), plus Unix seconds.

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

#[cfg(test)]
mod tests {
    use super::*;

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
