//! `NotifySettings`: what `[notify]` says, in the types the notifier and
//! the watcher use.

use std::fmt;
use std::time::Duration;

use crate::attention::event::EventKind;
use crate::config::Config;
use crate::domain::validate;

/// How the person is told that an agent needs them.
#[derive(Clone, PartialEq)]
pub struct NotifySettings {
    /// A notice on tmux's status line and a marker on the agent's window.
    pub tmux: bool,
    /// A desktop notification.
    pub desktop: bool,
    /// The URL each notification is posted to (a secret).
    pub webhook: Option<String>,
    /// The shell command run for each notification (a secret).
    pub command: Option<String>,
    /// The kinds that are notified, in `[notify] events` order.
    pub events: Vec<EventKind>,
    /// At most one notification per agent and kind within this long;
    /// the caller keeps the times and applies it.
    pub throttle: Duration,
    /// How long an agent may be busy with nothing new on its screen
    /// before it counts as stuck.
    pub stuck_after: Duration,
}

impl NotifySettings {
    /// The settings of `[notify]` (checked by the config: every event
    /// name is a kind).
    pub fn from_config(config: &Config) -> NotifySettings {
        let n = &config.notify;
        NotifySettings {
            tmux: n.tmux,
            desktop: n.desktop,
            webhook: n.webhook.clone(),
            command: n.command.clone(),
            events: n
                .events
                .iter()
                .filter_map(|e| EventKind::parse(e))
                .collect(),
            throttle: Duration::from_secs(u64::from(n.throttle_seconds)),
            stuck_after: Duration::from_secs(u64::from(n.stuck_after)),
        }
    }

    /// Whether events of `kind` are notified at all.
    pub(crate) fn notifies(&self, kind: EventKind) -> bool {
        self.events.contains(&kind)
    }
}

/// Written by hand so that a webhook URL or a command never reaches a
/// debug print whole.
impl fmt::Debug for NotifySettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NotifySettings")
            .field("tmux", &self.tmux)
            .field("desktop", &self.desktop)
            .field(
                "webhook",
                &self.webhook.as_deref().map(validate::redact_secret_url),
            )
            .field("command", &self.command.as_ref().map(|_| "(set)"))
            .field("events", &self.events)
            .field("throttle", &self.throttle)
            .field("stuck_after", &self.stuck_after)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::event::ATTENTION_KINDS;
    use crate::config::keys::NOTIFY_EVENTS;

    #[test]
    fn the_config_names_exactly_the_attention_kinds() {
        let names: Vec<&str> = ATTENTION_KINDS.iter().map(|k| k.as_str()).collect();
        assert_eq!(names, NOTIFY_EVENTS);
    }

    #[test]
    fn settings_follow_the_config() {
        let s = NotifySettings::from_config(&Config::default());
        assert!(s.tmux && !s.desktop);
        assert_eq!(s.events, ATTENTION_KINDS);
        assert_eq!(s.throttle, Duration::from_secs(60));
        assert_eq!(s.stuck_after, Duration::from_secs(600));
        assert!(s.notifies(EventKind::NeedsInput));
        assert!(!s.notifies(EventKind::LockTaken));

        let mut c = Config::default();
        c.notify.events = vec!["stuck".into(), "needs_input".into()];
        c.notify.throttle_seconds = 0;
        c.notify.webhook = Some("https://ntfy.sh/secret-topic".into());
        c.notify.command = Some("curl secret".into());
        let s = NotifySettings::from_config(&c);
        assert_eq!(s.events, [EventKind::Stuck, EventKind::NeedsInput]);
        assert!(!s.notifies(EventKind::Finished));
        assert_eq!(s.throttle, Duration::ZERO);
        let debug = format!("{s:?}");
        assert!(!debug.contains("secret"), "{debug}");
        assert!(debug.contains("https://ntfy.sh/…"), "{debug}");
    }
}
