//! `Timestamp`: one instant type for every time swarm keeps. The state files
//! write times three ways (docs/FORMATS.md): Unix seconds as a float (lock
//! files), aware UTC ISO (`2026-11-21T13:26:58.589963+00:00`: the registry,
//! the log lines swarm writes) and naive local ISO
//! (`2026-11-21T13:27:02.029457`: pending ACKs, log lines the Python tool
//! writes). Lock files keep their float seconds as the record's own field
//! (`LockRecord::locked_at`), whose bytes the Python tool compares. A field picks its form with `#[serde(with = ...)]` and one of
//! the adapters below; the value in memory is always the same type.

use std::fmt;

use chrono::{DateTime, Local, Utc};

use crate::support::time;

/// An instant, with microsecond precision (what every format keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// 1970-01-01T00:00:00Z: the time of a message line whose own time
    /// cannot be read (docs/FORMATS.md).
    pub const UNIX_EPOCH: Timestamp = Timestamp(DateTime::<Utc>::UNIX_EPOCH);

    /// Now.
    pub fn now() -> Timestamp {
        Timestamp(time::now())
    }

    /// From a chrono time.
    pub fn from_utc(t: DateTime<Utc>) -> Timestamp {
        Timestamp(t)
    }

    /// The chrono time.
    pub fn utc(self) -> DateTime<Utc> {
        self.0
    }

    /// From Unix seconds; `None` for non-finite or absurd values.
    pub fn from_unix_seconds(secs: f64) -> Option<Timestamp> {
        time::from_unix_seconds(secs).map(Timestamp)
    }

    /// Unix seconds with sub-second precision.
    pub fn unix_seconds(self) -> f64 {
        time::unix_seconds(self.0)
    }

    /// Parses aware or naive ISO 8601 (naive is local time).
    pub fn parse_iso(s: &str) -> Option<Timestamp> {
        time::parse_iso(s).map(Timestamp)
    }

    /// `2026-11-21T13:26:58.589963+00:00`.
    pub fn utc_iso(self) -> String {
        time::utc_iso(self.0)
    }

    /// `2026-11-21T13:27:02.029457`, local time.
    pub fn local_naive_iso(self) -> String {
        time::local_naive_iso(self.0)
    }

    /// `2026-11-21 14:30:15`, local time: what a pane's message header shows.
    pub(crate) fn local_display(self) -> String {
        self.0
            .with_timezone(&Local)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    }

    /// Seconds from `self` to `later`, never negative.
    pub(crate) fn seconds_until(self, later: Timestamp) -> f64 {
        time::age_seconds(self.0, later.0)
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(t: DateTime<Utc>) -> Timestamp {
        Timestamp(t)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.utc_iso())
    }
}

/// Serde adapter: aware UTC ISO 8601 (`2026-11-21T13:26:58.589963+00:00`);
/// reads naive local times too.
pub(crate) mod utc_iso {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::Timestamp;

    /// Writes aware UTC ISO.
    pub(crate) fn serialize<S: Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&t.utc_iso())
    }

    /// Reads either ISO family.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse_iso(&text)
            .ok_or_else(|| D::Error::custom(format!("{text:?} is not an ISO 8601 time")))
    }

    /// The same for an optional time (`null` or missing: `None`).
    pub(crate) mod option {
        use serde::{Deserialize, Deserializer, Serializer, de::Error};

        use super::super::Timestamp;

        /// Writes aware UTC ISO, or `null`.
        pub(crate) fn serialize<S: Serializer>(
            t: &Option<Timestamp>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match t {
                Some(t) => s.serialize_str(&t.utc_iso()),
                None => s.serialize_none(),
            }
        }

        /// Reads either ISO family, or `null`.
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Timestamp>, D::Error> {
            match Option::<String>::deserialize(d)? {
                None => Ok(None),
                Some(text) => Timestamp::parse_iso(&text)
                    .map(Some)
                    .ok_or_else(|| D::Error::custom(format!("{text:?} is not an ISO 8601 time"))),
            }
        }
    }
}

/// Serde adapter: naive local ISO 8601 (`2026-11-21T13:27:02.029457`), as
/// the Python tool writes and compares pending ACK times; reads aware
/// times too.
pub(crate) mod local_naive_iso {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::Timestamp;

    /// Writes naive local ISO.
    pub(crate) fn serialize<S: Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&t.local_naive_iso())
    }

    /// Reads either ISO family.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse_iso(&text)
            .ok_or_else(|| D::Error::custom(format!("{text:?} is not an ISO 8601 time")))
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Forms {
        #[serde(with = "utc_iso")]
        aware: Timestamp,
        #[serde(with = "local_naive_iso")]
        naive: Timestamp,
    }

    #[test]
    fn every_form_round_trips_to_the_same_instant() {
        let t = Timestamp::parse_iso("2026-11-21T13:26:58.589963+00:00").expect("iso");
        let forms = Forms { aware: t, naive: t };
        let text = serde_json::to_string(&forms).expect("encode");
        assert!(
            text.contains("\"aware\":\"2026-11-21T13:26:58.589963+00:00\""),
            "{text}"
        );
        assert!(
            !text.contains("\"naive\":\"2026-11-21T13:26:58.589963+"),
            "{text}"
        );
        let back: Forms = serde_json::from_str(&text).expect("decode");
        assert_eq!(back, forms);
    }

    #[test]
    fn hostile_values_are_errors_not_panics() {
        for bad in [
            r#"{"aware": "yesterday", "naive": "2026-11-21T13:26:58"}"#,
            r#"{"aware": "2026-11-21T13:26:58+00:00", "naive": 5}"#,
            r#"{"aware": 17, "naive": "2026-11-21T13:26:58"}"#,
        ] {
            assert!(serde_json::from_str::<Forms>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_never_go_negative() {
        let a = Timestamp::from_unix_seconds(1000.0).expect("t");
        let b = Timestamp::from_unix_seconds(1002.5).expect("t");
        assert_eq!(a.seconds_until(b), 2.5);
        assert_eq!(b.seconds_until(a), 0.0);
    }
}
