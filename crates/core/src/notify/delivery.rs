//! One channel's delivery of one event: which channel (`Channel`), how it
//! went (`Delivery`), the `notify_failed` feed entry a failure becomes,
//! and running a delivery on a thread of its own so that nobody waits
//! for a slow server or command.

use std::fmt;
use std::sync::mpsc::Sender;
use std::thread;

use crate::attention::event::{EventKind, FeedEntry};

/// Which way a notification went out, named as a failure may show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Channel {
    /// The webhook, by its host only: its path is often the secret.
    Webhook {
        /// `ntfy.sh`, `127.0.0.1:8080`.
        host: String,
    },
    /// A desktop notification.
    Desktop,
    /// The configured command, by its program only.
    Command {
        /// Its first word.
        program: String,
    },
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Webhook { host } => write!(f, "webhook to {host}"),
            Channel::Desktop => f.write_str("desktop notification"),
            Channel::Command { program } => write!(f, "command {program}"),
        }
    }
}

/// How one channel's delivery of one event went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Delivery {
    /// The channel.
    pub channel: Channel,
    /// The event's kind.
    pub event: EventKind,
    /// The agent it was about.
    pub agent: Option<String>,
    /// Done, or why not (never a whole webhook URL).
    pub result: Result<(), String>,
}

impl Delivery {
    /// The outcome of delivering `entry` through `channel`.
    pub(super) fn of(channel: Channel, entry: &FeedEntry, result: Result<(), String>) -> Delivery {
        Delivery {
            channel,
            event: entry.event,
            agent: entry.agent.clone(),
            result,
        }
    }

    /// The feed line that records a failure, about the same agent:
    /// `webhook to ntfy.sh failed for needs_input: the server answered
    /// 500 (4 attempts)`. `None` for a delivery that worked.
    pub(super) fn failure_entry(&self) -> Option<FeedEntry> {
        let reason = self.result.as_ref().err()?;
        Some(FeedEntry::new(
            EventKind::NotifyFailed,
            self.agent.as_deref(),
            format!("{} failed for {}: {reason}", self.channel, self.event),
        ))
    }
}

/// Runs `work` (one channel's delivery of `entry`) on a thread of its own
/// and sends how it went on `report`; when no thread can be started, that
/// is the failure, sent at once. Never waits for `work`.
pub(super) fn in_background(
    channel: Channel,
    entry: &FeedEntry,
    report: &Sender<Delivery>,
    work: impl FnOnce() -> Result<(), String> + Send + 'static,
) {
    let done = Delivery::of(channel.clone(), entry, Ok(()));
    let tx = report.clone();
    let spawned = thread::Builder::new().name("notify".into()).spawn(move || {
        let result = work();
        // The receiver may be gone (the notifier dropped): nobody is
        // left to tell.
        let _ = tx.send(Delivery { result, ..done });
    });
    if let Err(e) = spawned {
        let _ = report.send(Delivery::of(
            channel,
            entry,
            Err(format!("could not start a thread: {e}")),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_failure_becomes_a_notify_failed_line_about_the_same_agent() {
        let e = FeedEntry::new(EventKind::NeedsInput, Some("agent-1"), "Proceed?");
        let d = Delivery::of(
            Channel::Webhook {
                host: "ntfy.sh".into(),
            },
            &e,
            Err("the server answered 500 (4 attempts)".into()),
        );
        let f = d.failure_entry().expect("a failure");
        assert_eq!(f.event, EventKind::NotifyFailed);
        assert_eq!(f.agent.as_deref(), Some("agent-1"));
        assert_eq!(
            f.detail,
            "webhook to ntfy.sh failed for needs_input: the server answered 500 (4 attempts)"
        );
        assert_eq!(
            Delivery::of(Channel::Desktop, &e, Ok(())).failure_entry(),
            None
        );
    }

    #[test]
    fn background_work_reports_how_it_went() {
        let (tx, rx) = mpsc::channel();
        let e = FeedEntry::new(EventKind::Finished, Some("agent-2"), "");
        let program = Channel::Command {
            program: "false".into(),
        };
        in_background(program.clone(), &e, &tx, || {
            Err("exited with status 1".into())
        });
        let d = rx.recv().expect("reported");
        assert_eq!(d.channel, program);
        assert_eq!(d.result, Err("exited with status 1".into()));
    }
}
