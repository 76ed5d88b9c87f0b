//! The command channel: `[notify] command` run with `sh -c` for each
//! notification, with no input, its output discarded, stopped after
//! `TIME_LIMIT` (with everything it started: it runs in a process group
//! of its own). A non-zero exit is a failure.
//!
//! The event travels only in environment variables, never in the command's
//! text: its detail was written by an agent and must never become shell
//! syntax. Quote them in the command (`notify-send "$SWARM_EVENT_TITLE"
//! "$SWARM_EVENT_TEXT"`). Terminal controls are removed from every value.
//!
//! | variable | value |
//! | --- | --- |
//! | `SWARM_EVENT_KIND` | the event: `needs_input`, `finished`, `exited`, `turn_failed`, `stuck`, `message`, `budget` |
//! | `SWARM_EVENT_AGENT` | the agent's id (empty for the swarm as a whole) |
//! | `SWARM_EVENT_DETAIL` | the detail: a dialog's question, a message's text (at most 2000 characters) |
//! | `SWARM_EVENT_TEXT` | one readable line: `agent-1 needs you: Do you want to proceed?` |
//! | `SWARM_EVENT_TITLE` | a title: `swarm: agent-1 needs you` |
//! | `SWARM_EVENT_TIME` | when, RFC 3339 in UTC: `2026-11-26T08:00:00.000000+00:00` |
//! | `SWARM_EVENT_EPISODE` | the episode's number (per agent and kind), only when the event has one |
//! | `SWARM_EVENT_JSON` | the whole feed entry as one JSON object (the webhook's body without `text`, `content` and `link`) |

use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use crate::attention::event::FeedEntry;
use crate::config;
use crate::support::child::{Ended, ShellChild};
use crate::support::sanitize;

use super::delivery::{Channel, Delivery, in_background};
use super::message;

/// How long the command may run.
pub(super) const TIME_LIMIT: Duration = Duration::from_secs(30);

/// The configured command.
#[derive(Clone)]
pub(super) struct ShellCommand {
    command: String,
}

impl ShellCommand {
    /// The command `text` (checked by the config: not blank, no NUL).
    pub(super) fn new(text: &str) -> ShellCommand {
        ShellCommand {
            command: text.to_owned(),
        }
    }

    /// The channel, as a failure names it: by the command's program.
    pub(super) fn channel(&self) -> Channel {
        Channel::Command {
            program: config::shown_command(&self.command),
        }
    }

    /// Runs the command for `entry` and waits for it, at most
    /// `TIME_LIMIT` and never past `deadline`; then it is killed.
    pub(super) fn run(&self, entry: &FeedEntry, deadline: Instant) -> Result<(), String> {
        let limit = TIME_LIMIT.min(deadline.saturating_duration_since(Instant::now()));
        let mut child = ShellChild::new(&self.command).env_remove("SWARM_EVENT_EPISODE");
        for (key, value) in environment(entry) {
            child = child.env(key, value);
        }
        let done = child.run(limit).map_err(|e| e.to_string())?;
        match done.ended {
            Ended::Exited(status) if status.success() => Ok(()),
            Ended::Exited(status) => Err(Exit(status).to_string()),
            Ended::Killed => Err(format!(
                "still running after {:.0} s, so it was stopped",
                limit.as_secs_f64()
            )),
        }
    }

    /// `run` on a thread of its own; how it went is sent on `report`.
    pub(super) fn run_in_background(
        &self,
        entry: &FeedEntry,
        deadline: Instant,
        report: &Sender<Delivery>,
    ) {
        let command = self.clone();
        let owned = entry.clone();
        in_background(self.channel(), entry, report, move || {
            command.run(&owned, deadline)
        });
    }
}

/// Written by hand: the command may hold a token.
impl fmt::Debug for ShellCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShellCommand")
            .field("command", &config::shown_command(&self.command))
            .finish()
    }
}

/// The variables that carry `entry` (see the module's comment).
pub(super) fn environment(entry: &FeedEntry) -> Vec<(&'static str, String)> {
    let mut vars = vec![
        ("SWARM_EVENT_KIND", entry.event.as_str().to_owned()),
        (
            "SWARM_EVENT_AGENT",
            sanitize::one_line(entry.agent.as_deref().unwrap_or_default()),
        ),
        ("SWARM_EVENT_DETAIL", message::detail(entry)),
        ("SWARM_EVENT_TEXT", message::text(entry)),
        ("SWARM_EVENT_TITLE", message::title(entry)),
        ("SWARM_EVENT_TIME", entry.time.utc_iso()),
    ];
    if let Some(episode) = entry.episode {
        vars.push(("SWARM_EVENT_EPISODE", episode.to_string()));
    }
    vars.push(("SWARM_EVENT_JSON", entry.to_json().to_string()));
    vars
}

/// How a command ended, in words.
struct Exit(ExitStatus);

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.code(), self.0.signal()) {
            (Some(code), _) => write!(f, "exited with status {code}"),
            (None, Some(signal)) => write!(f, "was ended by signal {signal}"),
            (None, None) => f.write_str("ended abnormally"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::event::EventKind;

    fn event() -> FeedEntry {
        let mut e = FeedEntry::new(
            EventKind::NeedsInput,
            Some("agent-1"),
            "$(touch pwned); `id` \x1b[31m\"quoted\"",
        );
        e.episode = Some(2);
        e
    }

    #[test]
    fn the_event_is_in_the_environment_only() {
        let vars = environment(&event());
        let get = |k: &str| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("{k} missing"))
        };
        assert_eq!(get("SWARM_EVENT_KIND"), "needs_input");
        assert_eq!(get("SWARM_EVENT_AGENT"), "agent-1");
        assert_eq!(get("SWARM_EVENT_DETAIL"), "$(touch pwned); `id` \"quoted\"");
        assert_eq!(get("SWARM_EVENT_EPISODE"), "2");
        assert_eq!(get("SWARM_EVENT_TITLE"), "swarm: agent-1 needs you");
        let json: serde_json::Value = serde_json::from_str(&get("SWARM_EVENT_JSON")).expect("JSON");
        assert_eq!(json["event"], "needs_input");
        let none = FeedEntry::new(EventKind::Finished, Some("a"), "");
        assert!(
            !environment(&none)
                .iter()
                .any(|(k, _)| *k == "SWARM_EVENT_EPISODE")
        );
    }

    #[test]
    fn untrusted_text_never_runs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let cmd = ShellCommand::new(&format!(
            "cd '{}' && printf '%s' \"$SWARM_EVENT_DETAIL\" > out",
            dir.path().display()
        ));
        let deadline = Instant::now() + Duration::from_secs(20);
        cmd.run(&event(), deadline).expect("ran");
        let written = std::fs::read_to_string(&out).expect("out");
        assert_eq!(written, "$(touch pwned); `id` \"quoted\"");
        assert!(!dir.path().join("pwned").exists());
    }

    #[test]
    fn a_failing_or_slow_command_is_a_failure() {
        let deadline = Instant::now() + Duration::from_secs(20);
        let e = ShellCommand::new("exit 3")
            .run(&event(), deadline)
            .expect_err("fails");
        assert_eq!(e, "exited with status 3");
        let started = Instant::now();
        let e = ShellCommand::new("sleep 30; sleep 30")
            .run(&event(), Instant::now() + Duration::from_millis(300))
            .expect_err("too slow");
        assert!(e.starts_with("still running after"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(
            ShellCommand::new("curl -H 'Authorization: t0ken' x").channel(),
            Channel::Command {
                program: "curl …".into()
            }
        );
    }
}
