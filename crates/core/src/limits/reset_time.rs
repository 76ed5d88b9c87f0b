//! The reset time an agent prints at its usage limit, as a moment: the
//! agents print a clock time in the local time zone (`2:40pm`, `2:47 PM`,
//! `14:47`), sometimes with a date (`Nov 29, 2:43pm`, `Nov 29th, 2026
//! 2:48 PM`) and a zone name in parentheses (`(UTC)`). A time without a
//! date is the next time the clock shows it. A time printed to the minute
//! is read as the end of that minute: resuming a few seconds late is
//! harmless, a few seconds early meets the limit again.

use std::sync::OnceLock;

use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone, Utc};
use regex::Regex;

use crate::domain::Timestamp;

/// How far in the past a printed time without a date may be and still be
/// today's (the agent printed it a moment ago, and the clock moved on).
const SLACK_MINUTES: i64 = 2;

fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?ix)
            (?: \b(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+
                (?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+
                (?:(?P<year>\d{4}),?\s+)? )?
            \b(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?
            \s*(?P<ampm>am|pm)?\b
            (?:\s*\((?P<zone>[A-Za-z+\-0-9:]+)\))?",
        )
        .expect("the pattern is valid")
    })
}

/// The moment `text` names, read as the agent printed it at `now`; `None`
/// when it names no clock time. The local time zone applies unless the
/// text names UTC.
pub(crate) fn parse(text: &str, now: Timestamp) -> Option<Timestamp> {
    let caps = pattern().captures(text)?;
    let num = |name: &str| caps.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    let mut hour = num("hour")?;
    let minute = num("minute")?;
    let second = num("second").unwrap_or(59);
    if let Some(ampm) = caps.name("ampm") {
        if !(1..=12).contains(&hour) {
            return None;
        }
        let pm = ampm.as_str().eq_ignore_ascii_case("pm");
        hour = match (hour, pm) {
            (12, false) => 0,
            (12, true) => 12,
            (h, true) => h + 12,
            (h, false) => h,
        };
    }
    let time = NaiveTime::from_hms_opt(hour, minute, second)?;
    let utc = caps
        .name("zone")
        .is_some_and(|z| matches!(z.as_str().to_ascii_uppercase().as_str(), "UTC" | "GMT"));
    if utc {
        resolve(&Utc, now.utc(), time, &caps)
    } else {
        resolve(&chrono::Local, now.utc(), time, &caps)
    }
}

fn resolve<Z: TimeZone>(
    zone: &Z,
    now: DateTime<Utc>,
    time: NaiveTime,
    caps: &regex::Captures<'_>,
) -> Option<Timestamp> {
    let here = now.with_timezone(zone);
    let at = |date: NaiveDate| match zone.from_local_datetime(&date.and_time(time)) {
        LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => Some(t.with_timezone(&Utc)),
        LocalResult::None => None,
    };
    let slack = Duration::minutes(SLACK_MINUTES);
    let moment = match caps.name("month") {
        Some(m) => {
            let month = month_number(m.as_str())?;
            let day = caps.name("day")?.as_str().parse::<u32>().ok()?;
            match caps
                .name("year")
                .and_then(|y| y.as_str().parse::<i32>().ok())
            {
                Some(year) => at(NaiveDate::from_ymd_opt(year, month, day)?)?,
                None => {
                    let this_year = at(NaiveDate::from_ymd_opt(here.year(), month, day)?)?;
                    // A date without a year is the next one (a reset at the
                    // turn of the year).
                    if this_year + Duration::days(1) < now {
                        at(NaiveDate::from_ymd_opt(here.year() + 1, month, day)?)?
                    } else {
                        this_year
                    }
                }
            }
        }
        None => {
            let today = at(here.date_naive())?;
            if today + slack < now {
                at(here.date_naive().succ_opt()?)?
            } else {
                today
            }
        }
    };
    Some(Timestamp::from_utc(moment))
}

fn month_number(name: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let lower = name.get(..3)?.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| *m == lower)
        .and_then(|i| u32::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Timelike as _;

    fn utc(s: &str) -> Timestamp {
        Timestamp::parse_iso(s).expect("test value")
    }

    fn at_utc(text: &str, now: &str) -> Option<String> {
        parse(text, utc(now)).map(|t| t.utc_iso())
    }

    #[test]
    fn reads_each_agents_reset_time_in_utc() {
        let now = "2026-11-28T13:40:10+00:00";
        // Claude Code signed in; its weekly limit with a date.
        assert_eq!(
            at_utc("You've hit your 5-hour limit · resets 2:40pm (UTC)", now).as_deref(),
            Some("2026-11-28T14:40:59.000000+00:00")
        );
        assert_eq!(
            at_utc(
                "You've hit your weekly limit · resets Nov 29, 2:43pm (UTC)",
                now
            )
            .as_deref(),
            Some("2026-11-29T14:43:59.000000+00:00")
        );
        // An hour already past today is tomorrow's.
        assert_eq!(
            at_utc("resets 9:05am (UTC)", now).as_deref(),
            Some("2026-11-29T09:05:59.000000+00:00")
        );
        assert_eq!(
            at_utc("resets 12:00am (UTC)", now).as_deref(),
            Some("2026-11-29T00:00:59.000000+00:00")
        );
        assert_eq!(
            at_utc("resets 12:30pm (UTC)", now).as_deref(),
            Some("2026-11-29T12:30:59.000000+00:00")
        );
    }

    #[test]
    fn reads_times_in_the_local_zone() {
        let now = utc("2026-11-28T13:40:10+00:00");
        let local = now.utc().with_timezone(&chrono::Local);
        let in_an_hour = local + Duration::hours(1);
        let text = format!("try again at {}.", in_an_hour.format("%-I:%M %p"));
        let got = parse(&text, now).expect("a time");
        let want = in_an_hour
            .with_timezone(&Utc)
            .with_second(59)
            .expect("valid");
        assert_eq!(got.utc(), want);
        let demo = format!("resets {}", in_an_hour.format("%H:%M:%S"));
        assert_eq!(
            parse(&demo, now).map(|t| t.utc()),
            Some(in_an_hour.with_timezone(&Utc))
        );
    }

    #[test]
    fn reads_a_date_with_its_year() {
        let now = utc("2026-11-28T13:40:10+00:00");
        let got = parse("or try again at Nov 29th, 2026 2:48 PM.", now).expect("a time");
        let local = got.utc().with_timezone(&chrono::Local);
        assert_eq!(
            local.format("%Y-%m-%d %H:%M").to_string(),
            "2026-11-29 14:48"
        );
    }

    #[test]
    fn names_no_time_when_there_is_none() {
        let now = utc("2026-11-28T13:40:10+00:00");
        assert_eq!(parse("Usage limit reached for all Pro models.", now), None);
        assert_eq!(parse("resets 13:61", now), None);
        assert_eq!(parse("resets 0:30pm", now), None);
        assert_eq!(parse("resets Foo 29, 25:00", now), None);
    }
}
