//! `Notifier`: one event to every outside channel that is on (webhook,
//! command, desktop), for the kinds `[notify] events` names. A
//! long-running process calls `notify`, which never waits, and collects
//! `failures` now and then; a short one calls `deliver_now`, which waits
//! until every channel is done or a deadline passes.

use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Instant;

use crate::attention::event::{EventKind, FeedEntry};

use super::command::ShellCommand;
use super::delivery::{Channel, Delivery};
use super::desktop::Desktop;
use super::settings::NotifySettings;
use super::webhook::{self, Webhook};

/// Sends notifications through the configured channels.
#[derive(Debug)]
pub struct Notifier {
    events: Vec<EventKind>,
    link: Option<String>,
    webhook: Option<Webhook>,
    command: Option<ShellCommand>,
    desktop: Option<Desktop>,
    report: Sender<Delivery>,
    outcomes: Mutex<Receiver<Delivery>>,
}

impl Notifier {
    /// The notifier of `settings`, whose webhook events carry `link` (the
    /// dashboard's URL) when given; with the warnings to show once: a
    /// desktop channel that is on where no desktop can be reached is off.
    pub fn new(settings: &NotifySettings, link: Option<String>) -> (Notifier, Vec<String>) {
        let mut warnings = Vec::new();
        let desktop = match settings.desktop.then(Desktop::detect) {
            None => None,
            Some(Ok(desktop)) => Some(desktop),
            Some(Err(why)) => {
                warnings.push(format!(
                    "notify.desktop is on, but there is no desktop to notify here ({why}); \
                     desktop notifications are off"
                ));
                None
            }
        };
        let (report, outcomes) = mpsc::channel();
        let notifier = Notifier {
            events: settings.events.clone(),
            link,
            webhook: settings.webhook.as_deref().map(Webhook::new),
            command: settings.command.as_deref().map(ShellCommand::new),
            desktop,
            report,
            outcomes: Mutex::new(outcomes),
        };
        (notifier, warnings)
    }

    /// Whether an event of `kind` goes out anywhere: its kind is notified
    /// and a channel is on.
    pub(crate) fn wants(&self, kind: EventKind) -> bool {
        self.events.contains(&kind) && !self.channels().is_empty()
    }

    /// Sends `entry` to every channel that is on, each on a thread of its
    /// own, and returns at once; failures come back through `failures`.
    /// Nothing happens for a kind that is not notified.
    pub(crate) fn notify(&self, entry: &FeedEntry) {
        if self.wants(entry.event) {
            self.start(entry, Instant::now() + webhook::WORST_CASE, &self.report);
        }
    }

    /// The failures of `notify`'s deliveries that ended since the last
    /// call, as `notify_failed` feed entries naming the channel (a
    /// webhook by its host only) and the reason.
    pub(crate) fn failures(&self) -> Vec<FeedEntry> {
        let Ok(outcomes) = self.outcomes.lock() else {
            return Vec::new();
        };
        outcomes
            .try_iter()
            .filter_map(|d| d.failure_entry())
            .collect()
    }

    /// Sends `entry` to every channel that is on and waits until each is
    /// done (a webhook with its retries) or `deadline` passes, for a
    /// process that is about to exit. Returns the failures, as
    /// `failures` does; a channel still busy at the deadline is one.
    pub fn deliver_now(&self, entry: &FeedEntry, deadline: Instant) -> Vec<FeedEntry> {
        if !self.wants(entry.event) {
            return Vec::new();
        }
        let (report, outcomes) = mpsc::channel();
        self.start(entry, deadline, &report);
        drop(report);
        let mut pending = self.channels();
        let mut failures = Vec::new();
        while !pending.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(done) = outcomes.recv_timeout(left) else {
                break;
            };
            pending.retain(|c| *c != done.channel);
            failures.extend(done.failure_entry());
        }
        for channel in pending {
            let late = Delivery::of(channel, entry, Err("not done by its deadline".into()));
            failures.extend(late.failure_entry());
        }
        failures
    }

    /// The channels that are on.
    fn channels(&self) -> Vec<Channel> {
        let webhook = self.webhook.as_ref().map(Webhook::channel);
        let command = self.command.as_ref().map(ShellCommand::channel);
        let desktop = self.desktop.as_ref().map(Desktop::channel);
        [webhook, command, desktop].into_iter().flatten().collect()
    }

    /// Starts every channel's delivery of `entry` in the background.
    fn start(&self, entry: &FeedEntry, deadline: Instant, report: &Sender<Delivery>) {
        if let Some(hook) = &self.webhook {
            hook.send_in_background(entry, self.link.as_deref(), deadline, report);
        }
        if let Some(command) = &self.command {
            command.run_in_background(entry, deadline, report);
        }
        if let Some(desktop) = &self.desktop {
            desktop.show_in_background(entry, report);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::Config;

    fn settings(command: &str, events: &[&str]) -> NotifySettings {
        let mut c = Config::default();
        c.notify.command = Some(command.into());
        c.notify.events = events.iter().map(|e| e.to_string()).collect();
        NotifySettings::from_config(&c)
    }

    fn wait_for_failures(n: &Notifier, count: usize) -> Vec<FeedEntry> {
        let until = Instant::now() + Duration::from_secs(20);
        let mut got = Vec::new();
        while got.len() < count && Instant::now() < until {
            got.extend(n.failures());
            std::thread::sleep(Duration::from_millis(10));
        }
        got
    }

    #[test]
    fn only_the_configured_kinds_go_out_and_failures_come_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let marks = dir.path().join("marks");
        let command = format!(
            "echo \"$SWARM_EVENT_KIND\" >> '{}'; test \"$SWARM_EVENT_KIND\" != stuck",
            marks.display()
        );
        let (n, warnings) = Notifier::new(&settings(&command, &["needs_input", "stuck"]), None);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(n.wants(EventKind::NeedsInput));
        assert!(!n.wants(EventKind::Finished));
        n.notify(&FeedEntry::new(EventKind::Finished, Some("agent-1"), ""));
        n.notify(&FeedEntry::new(EventKind::Stuck, Some("agent-2"), ""));
        let failures = wait_for_failures(&n, 1);
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(failures[0].event, EventKind::NotifyFailed);
        assert_eq!(failures[0].agent.as_deref(), Some("agent-2"));
        assert!(
            failures[0]
                .detail
                .starts_with("command echo … failed for stuck: exited with status 1"),
            "{failures:?}"
        );
        let now = n.deliver_now(
            &FeedEntry::new(EventKind::NeedsInput, Some("agent-3"), ""),
            Instant::now() + Duration::from_secs(20),
        );
        assert!(now.is_empty(), "{now:?}");
        let marks = std::fs::read_to_string(&marks).expect("marks");
        assert_eq!(marks, "stuck\nneeds_input\n", "finished is not notified");
        assert!(n.failures().is_empty());
    }

    #[test]
    fn a_channel_still_busy_at_the_deadline_is_a_failure() {
        let (n, _) = Notifier::new(&settings("sleep 5", &["exited"]), None);
        let started = Instant::now();
        let failures = n.deliver_now(
            &FeedEntry::new(EventKind::Exited, Some("agent-1"), ""),
            Instant::now() + Duration::from_millis(200),
        );
        assert!(started.elapsed() < Duration::from_secs(4));
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0].detail.contains("sleep"), "{failures:?}");
    }

    #[test]
    fn nothing_on_means_nothing_wanted() {
        let (n, _) = Notifier::new(&NotifySettings::from_config(&Config::default()), None);
        assert!(!n.wants(EventKind::NeedsInput));
        assert!(
            n.deliver_now(
                &FeedEntry::new(EventKind::NeedsInput, Some("a"), ""),
                Instant::now()
            )
            .is_empty()
        );
    }
}
