//! How the watcher speaks (`Said`, for the terminal or its log) and how
//! its parts do: `Tell` carries what a part did and what went wrong,
//! except a shared store that does not answer, which it keeps for the
//! `Outage` to tell: said once when it starts and once when the store
//! answers again, the rounds between spaced out on
//! `support::poll::Pauses`.

use std::time::Duration;

use crate::error::Error;
use crate::support::poll::{Pauses, Schedule};

/// What the watcher says, for the terminal or its log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// Something it did.
    Did(String),
    /// Something that went wrong (it goes on).
    Warning(String),
}

/// The longest wait before trying an unreachable store again.
const MOST_BACKOFF: Duration = Duration::from_secs(16);

/// The waits between rounds while the store does not answer.
const BACKOFF: Pauses = Pauses::new(Duration::from_secs(1), MOST_BACKOFF);

/// A shared store that stopped answering: said once, tried again with
/// backoff, and said again when it answers.
#[derive(Debug, Default)]
pub(super) struct Outage {
    /// Set while the store does not answer: the waits still to come.
    backoff: Option<Schedule>,
    /// Whether a step of this round found it unreachable.
    this_round: Option<String>,
}

impl Outage {
    /// Whether the store did not answer in the rounds before this one.
    pub(super) fn is_down(&self) -> bool {
        self.backoff.is_some()
    }

    /// Whether a step of this round found the store unreachable.
    pub(super) fn failed_this_round(&self) -> bool {
        self.this_round.is_some()
    }

    /// Takes what a part's `Tell` found of the store: why it did not
    /// answer, if it did not (the first reason of a round is the one told).
    pub(super) fn saw(&mut self, unreachable: Option<String>) {
        if self.this_round.is_none() {
            self.this_round = unreachable;
        }
    }

    /// Ends a round: the wait before the next when the store is down.
    pub(super) fn end_round(&mut self, say: &mut dyn FnMut(Said)) -> Option<Duration> {
        match (self.this_round.take(), &mut self.backoff) {
            (Some(why), None) => {
                say(Said::Warning(format!(
                    "{why}; still watching, trying again with backoff (up to every {}s)",
                    MOST_BACKOFF.as_secs()
                )));
                let mut waits = BACKOFF.schedule();
                let wait = waits.next_pause();
                self.backoff = Some(waits);
                Some(wait)
            }
            (Some(_), Some(waits)) => Some(waits.next_pause()),
            (None, Some(_)) => {
                say(Said::Did("the store answers again".into()));
                self.backoff = None;
                None
            }
            (None, None) => None,
        }
    }
}

/// Where a part of the watcher tells what it did and what went wrong.
pub(super) struct Tell<'t> {
    say: &'t mut dyn FnMut(Said),
    /// Why the store did not answer, when a step found it so.
    unreachable: Option<String>,
}

impl<'t> Tell<'t> {
    /// Tells through `say`.
    pub(super) fn new(say: &'t mut dyn FnMut(Said)) -> Tell<'t> {
        Tell {
            say,
            unreachable: None,
        }
    }

    /// Something a part did.
    pub(super) fn did(&mut self, line: impl Into<String>) {
        (self.say)(Said::Did(line.into()));
    }

    /// Something that went wrong (the watcher goes on).
    pub(super) fn warn(&mut self, line: impl Into<String>) {
        (self.say)(Said::Warning(line.into()));
    }

    /// Sorts a step's error: the store not answering is the outage's to
    /// tell (once, `unreachable`); anything else is a warning about
    /// `what`.
    pub(super) fn failed(&mut self, what: &str, e: &Error) {
        if e.is_store_outage() {
            self.unreachable.get_or_insert_with(|| e.to_string());
        } else {
            self.warn(format!("{what}: {e}"));
        }
    }

    /// Why the store did not answer since the last call, if it did not.
    pub(super) fn unreachable(&mut self) -> Option<String> {
        self.unreachable.take()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::store::StoreError;

    /// What a part told, with the outage it found.
    pub(in crate::watcher) fn heard(part: impl FnOnce(&mut Tell<'_>)) -> (Vec<Said>, Outage) {
        let mut said = Vec::new();
        let mut outage = Outage::default();
        let mut say = |s| said.push(s);
        let mut tell = Tell::new(&mut say);
        part(&mut tell);
        outage.saw(tell.unreachable());
        drop(tell);
        (said, outage)
    }

    fn unreachable() -> Error {
        Error::Store(StoreError::Unreachable {
            url: "redis://store".into(),
            detail: "connection refused".into(),
        })
    }

    #[test]
    fn other_errors_are_warnings_about_what_failed() {
        let (said, outage) = heard(|tell| tell.failed("could not read", &Error::Usage("x".into())));
        assert_eq!(said, [Said::Warning("could not read: x".into())]);
        assert!(!outage.failed_this_round());
    }

    #[test]
    fn an_outage_is_said_once_waited_out_with_growing_pauses_and_its_end_said() {
        let (said, mut outage) = heard(|tell| {
            tell.failed("a", &unreachable());
            tell.failed("b", &unreachable());
        });
        assert!(said.is_empty(), "{said:?}");
        assert!(outage.failed_this_round() && !outage.is_down());
        let mut said = Vec::new();
        let mut say = |s| said.push(s);
        let mut waits = Vec::new();
        for _ in 0..6 {
            outage.this_round = Some(unreachable().to_string());
            waits.push(outage.end_round(&mut say).expect("down").as_secs());
        }
        assert_eq!(waits, [1, 2, 4, 8, 16, 16]);
        assert!(outage.is_down());
        assert_eq!(outage.end_round(&mut say), None);
        assert!(!outage.is_down());
        assert_eq!(outage.end_round(&mut say), None);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            matches!(&said[0], Said::Warning(w) if w.contains("connection refused") && w.contains("up to every 16s")),
            "{said:?}"
        );
        assert_eq!(said[1], Said::Did("the store answers again".into()));
    }
}
