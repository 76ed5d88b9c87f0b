//! Message rate limiting per sender that holds across processes: the
//! sliding window of each sender's recent sends lives in
//! `.swarm/rate_limits.json`, read and updated under its lock.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};
use crate::support::time;

/// At most `max` sends per `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RateLimit {
    /// Sends allowed per window.
    pub max: u32,
    /// The window.
    pub window: Duration,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Windows {
    version: u32,
    /// Unix seconds of each recent send, oldest first, per sender.
    senders: BTreeMap<String, Vec<f64>>,
}

/// What a rate check decided.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Allowed, and recorded as a send.
    Allowed,
    /// Refused; the next send is allowed after this long.
    Limited(Duration),
}

/// The persisted windows of a project.
#[derive(Clone, Debug)]
pub(crate) struct RateLimiter {
    file: StateFile,
}

impl RateLimiter {
    /// The rate-limit state of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> RateLimiter {
        RateLimiter {
            file: StateFile::new(paths.swarm_dir().join("rate_limits.json")),
        }
    }

    /// Records one send by `sender` at `now` if `limit` allows it. A
    /// damaged state file is moved aside and counts as empty (the
    /// returned note says so): it only ever holds the last minute.
    pub(crate) fn check_and_record(
        &self,
        sender: &str,
        limit: RateLimit,
        now: DateTime<Utc>,
    ) -> Result<(Verdict, Option<String>), StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut note = None;
        let mut windows = match self.file.read_json::<Windows>() {
            Ok(Loaded::Valid(w)) => w,
            Ok(Loaded::Missing) => Windows::default(),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                let aside = self.file.preserve(&lock)?;
                note = Some(format!(
                    "{} was damaged ({why}); moved aside{} and started a new rate window",
                    self.file.path().display(),
                    aside
                        .map(|p| format!(" to {}", p.display()))
                        .unwrap_or_default()
                ));
                Windows::default()
            }
            Err(e) => return Err(e),
        };
        let now_s = time::unix_seconds(now);
        let window = limit.window.as_secs_f64();
        // Forget every sender's sends that left the window.
        windows.senders.retain(|_, times| {
            times.retain(|t| t.is_finite() && now_s - *t < window);
            !times.is_empty()
        });
        let times = windows.senders.entry(sender.to_owned()).or_default();
        let verdict = if times.len() >= limit.max as usize {
            let oldest = times.iter().copied().fold(f64::INFINITY, f64::min);
            let wait = (oldest + window - now_s).max(0.0);
            Verdict::Limited(Duration::from_secs_f64(wait))
        } else {
            times.push(now_s);
            Verdict::Allowed
        };
        windows.version = 1;
        let bytes =
            json::to_vec(&windows, Layout::Indent2).map_err(|source| StoreError::Encode {
                path: self.file.path().to_owned(),
                source,
            })?;
        self.file.write_unsynced(&lock, &bytes)?;
        Ok((verdict, note))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration as Span;

    #[test]
    fn allows_up_to_the_limit_then_says_how_long_to_wait() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rl = RateLimiter::new(&Paths::new(dir.path()));
        let limit = RateLimit {
            max: 3,
            window: Duration::from_secs(60),
        };
        let t0 = time::now();
        for i in 0..3 {
            let (v, _) = rl
                .check_and_record("a", limit, t0 + Span::seconds(i))
                .expect("check");
            assert_eq!(v, Verdict::Allowed);
        }
        let (v, _) = rl
            .check_and_record("a", limit, t0 + Span::seconds(10))
            .expect("check");
        match v {
            Verdict::Limited(wait) => {
                assert!((49.0..=50.5).contains(&wait.as_secs_f64()), "{wait:?}")
            }
            other => panic!("{other:?}"),
        }
        // Other senders have their own window; the window slides.
        assert_eq!(
            rl.check_and_record("b", limit, t0).expect("check").0,
            Verdict::Allowed
        );
        assert_eq!(
            rl.check_and_record("a", limit, t0 + Span::seconds(61))
                .expect("check")
                .0,
            Verdict::Allowed
        );
    }

    #[test]
    fn damaged_state_is_moved_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        std::fs::write(paths.swarm_dir().join("rate_limits.json"), "{{{").expect("write");
        let rl = RateLimiter::new(&paths);
        let limit = RateLimit {
            max: 1,
            window: Duration::from_secs(60),
        };
        let (v, note) = rl.check_and_record("a", limit, time::now()).expect("check");
        assert_eq!(v, Verdict::Allowed);
        assert!(note.expect("note").contains("damaged"));
    }
}
