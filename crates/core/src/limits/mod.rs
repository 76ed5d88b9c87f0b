//! Usage limits: an agent at its vendor's quota is seen on its screen
//! (`SeenLimit`, by its profile's `limit` markers, with the reset time it
//! printed: `reset_time.rs`), its login (`credential.rs`) is recorded as
//! limited with every agent that shares it (`limit_store.rs`), messages to
//! them are held meanwhile, and the watcher deals with the reset
//! (`round.rs`: notify, or type a resume prompt and let the held messages
//! go).

pub(crate) mod credential;
pub(crate) mod limit_store;
pub(crate) mod on_files;
pub(crate) mod reset_time;
pub(crate) mod round;

pub(crate) use credential::Credential;
pub use limit_store::{LimitRecord, LimitStore, Limits, until_for_people};

use crate::agents::profile::Profile;
use crate::domain::Timestamp;

/// A usage limit an agent's screen shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SeenLimit {
    /// The row that shows it (sanitised).
    pub line: String,
    /// When it resets, when the agent printed a time.
    pub until: Option<Timestamp>,
    /// How long after the reset the agent may take to carry on by itself
    /// (its profile's `continues_after_limit_secs`).
    pub continues_after: std::time::Duration,
}

impl SeenLimit {
    /// What the person is told when it opens.
    pub(crate) fn detail(&self) -> String {
        let when = match self.until {
            Some(t) => format!("limited until {}", until_for_people(t)),
            None => "limited, reset unknown".into(),
        };
        format!("{when}: {}", self.line)
    }
}

/// The usage limit `capture` (a screen of an agent of `profile`) shows,
/// read at `now`.
pub(crate) fn seen(profile: &Profile, capture: &str, now: Timestamp) -> Option<SeenLimit> {
    let (line, reset) = profile.limit(capture)?;
    let until = reset.and_then(|r| reset_time::parse(&r, now));
    Some(SeenLimit {
        line,
        until,
        continues_after: profile.continues_after_limit,
    })
}
