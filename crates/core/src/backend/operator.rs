//! `Operator`: what every front door (a command, the monitor, the
//! dashboard, the MCP server) acts on the swarm with: a client of the tmux
//! server, the project's files and shared state, the agent recogniser and
//! the settings the config gives. It is the one place a `Messenger` is
//! built, and it runs the housekeeping (`housekeeping.rs`). What a send
//! means besides typing (the activity feed, the person told of a message
//! to them, the watcher started for a held message) happens in its
//! `send`, so that every front door gets it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::acks::AckSettings;
use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::discovery::Discovery;
use crate::agents::registry::Registry;
use crate::attention::episodes::episode_store::Transition;
use crate::attention::event::{EventKind, FeedEntry};
use crate::config::Config;
use crate::domain::Timestamp;
use crate::error::Result;
use crate::log::record::DeliveryStatus;
use crate::messaging::{MessagingSettings, Messenger, Recipients, SendReport, SendRequest};
use crate::notify::NotifySettings;
use crate::store::Paths;
use crate::support::sanitize;
use crate::tmux::{Server, Tmux};
use crate::usage::{Tally, UsageSettings};

use super::Backend;
use super::watcher_process::{self, Started};

/// The pieces a front door acts with, owned, so that a long-running one
/// can keep them (or hand them to a thread of its own).
#[derive(Debug)]
pub struct Operator {
    /// A client of the tmux server the agents run on.
    pub tmux: Tmux,
    /// The project's files.
    pub paths: Paths,
    /// The project's shared state.
    pub backend: Arc<Backend>,
    /// Recognises agents in panes.
    pub matcher: AgentMatcher,
    /// Delivery and rate-limit settings.
    pub messaging: MessagingSettings,
    /// The ACK retry schedule (its timeout for messages sent with an ACK).
    pub acks: AckSettings,
    /// Message types declared in the config, besides the built-in ones.
    pub custom_types: Vec<String>,
    /// How the person is told.
    pub notify: NotifySettings,
    /// Whether the watcher is started in the background when needed.
    pub autostart: bool,
    /// Budgets and prices.
    pub usage: UsageSettings,
    /// What happens when a usage limit resets.
    pub limits: crate::config::LimitsConfig,
    /// The reason of a lock taken without one (`locking.default_reason`,
    /// on one line: other agents' terminals show it).
    pub default_lock_reason: String,
}

impl Operator {
    /// The operator of the project laid out by `paths`, whose shared state
    /// is `backend` and whose agents run on `server`, set up as `config`
    /// says. Fails only when the agent recogniser cannot be set up (an
    /// unknown `SWARM_PROCESS_BACKEND`).
    pub fn new(
        server: Server,
        paths: Paths,
        backend: Arc<Backend>,
        config: &Config,
    ) -> Result<Operator> {
        Ok(Operator {
            tmux: Tmux::new(server),
            paths,
            backend,
            matcher: AgentMatcher::for_config(config)?,
            messaging: MessagingSettings::from_config(config),
            acks: AckSettings::from_config(config),
            custom_types: config.messaging.custom_types.clone(),
            notify: NotifySettings::from_config(config),
            autostart: config.watcher.autostart,
            usage: UsageSettings::from_config(config),
            limits: config.limits.clone(),
            default_lock_reason: sanitize::one_line(&config.locking.default_reason),
        })
    }

    /// Sends a message (see `Messenger::send`) and does what a send means
    /// besides: the feed records it (and each copy held back), a message
    /// to the person raises a `message` event and tells them as `[notify]`
    /// says, and a held copy makes sure the watcher runs, which types it
    /// in once the pane is safe. Problems with these come back as the
    /// report's warnings; the message itself was sent either way.
    pub fn send(&self, registry: &Registry, mut req: SendRequest) -> Result<SendReport> {
        // A broadcast to a topic goes to its subscribers only.
        if let (Some(topic), Recipients::All { include_self }) = (&req.topic, &req.to) {
            let agents = self
                .backend
                .topics
                .all()?
                .remove(topic)
                .map(|a| a.into_iter().collect())
                .unwrap_or_default();
            req.to = Recipients::Subscribers {
                topic: topic.clone(),
                agents,
                include_self: *include_self,
            };
        }
        let (over, budget_warnings) = self.over_budget(registry, &req);
        req.over_budget = over;
        let mut report = self.messenger().send(registry, req)?;
        report.warnings.extend(budget_warnings);
        let m = &report.message;
        let detail = crate::messaging::feed_detail(m);
        // `message_sent` was written by the messenger before the typing.
        let mut feed = Vec::new();
        let mut held = false;
        for (to, outcome) in &report.outcomes {
            if outcome.status == DeliveryStatus::Held {
                held = true;
                feed.push(
                    FeedEntry::new(
                        EventKind::MessageHeld,
                        Some(to),
                        outcome.reason.clone().unwrap_or_default(),
                    )
                    .with_message(m.msg_id.as_str())
                    .by(m.sender.as_str()),
                );
            }
        }
        let to_person = report.rate_limited.is_none()
            && m.recipients
                .iter()
                .any(|r| r.as_str() == self.messaging.person_id);
        if to_person {
            let entry = FeedEntry::new(EventKind::Message, Some(m.sender.as_str()), detail.clone())
                .with_message(m.msg_id.as_str())
                .by(m.sender.as_str());
            // The status line shows it until the person reads their inbox.
            if let Err(e) = self.backend.episodes.transition(
                m.sender.as_str(),
                EventKind::Message,
                true,
                entry.time,
                &detail,
                "",
            ) {
                report.warnings.push(format!(
                    "could not record the message for the status line: {e}"
                ));
            }
            feed.push(entry);
        }
        // The entry in the feed is the notification's source: the watcher
        // sends it (the one notifier, with its one configuration).
        if let Err(e) = self.backend.feed.append(&feed) {
            report
                .warnings
                .push(format!("could not write the activity feed: {e}"));
        }
        let notified = to_person && self.notifies_outside_tmux(EventKind::Message);
        if held || notified {
            match self.keep_watch() {
                Ok(Some(_)) => {}
                Ok(None) if notified && !self.watcher_runs() => report.warnings.push(
                    "no watcher runs and watcher.autostart is off: nothing is notified until one \
                     runs (`swarm watcher start`)"
                        .into(),
                ),
                Ok(None) => {}
                Err(e) => report.warnings.push(format!(
                    "could not start the watcher that types held messages in and notifies: {e} \
                     (run `swarm watcher start`)"
                )),
            }
        }
        Ok(report)
    }

    /// Records in the activity feed who a registry refresh found joining
    /// and leaving (whoever ran it: the watcher, `discover`, `launch`,
    /// `resume`, `down`), and forgets the episodes and print-to-send
    /// claims of those who left. An agent dropped because it is gone has
    /// exited (`exited`, raised once, before `left`); one stopped on
    /// purpose (`down`: `stopped` is true) only leaves. Returns what could
    /// not be recorded.
    pub fn record_roster(&self, found: &Discovery, stopped: bool) -> Vec<String> {
        self.record_roster_with(found, stopped, &BTreeMap::new())
    }

    /// `record_roster`, with the last lines each agent's screen showed
    /// (the watcher keeps them): an `exited` event carries its agent's.
    pub(crate) fn record_roster_with(
        &self,
        found: &Discovery,
        stopped: bool,
        last_lines: &BTreeMap<String, Vec<String>>,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        let mut entries: Vec<FeedEntry> = found
            .added
            .iter()
            .map(|id| FeedEntry::new(EventKind::Joined, Some(id), ""))
            .collect();
        // An agent that is dropped, or found stale with no agent program
        // left in its pane, has exited, whoever notices first: of every
        // watcher and command that sees it, the one whose report opens the
        // episode raises it (before `left`, for one dropped). A stale
        // agent is looked at by no watcher, so the refresh that finds it
        // so must raise it.
        let now = Timestamp::now();
        let mut exited = |id: &str, detail: &str, entries: &mut Vec<FeedEntry>| match self
            .backend
            .episodes
            .transition(id, EventKind::Exited, true, now, detail, "")
        {
            Ok(Transition::Opened { episode, .. }) => {
                let mut entry = FeedEntry::new(EventKind::Exited, Some(id), detail);
                entry.episode = Some(episode);
                entry.context = last_lines.get(id).cloned().unwrap_or_default();
                entry.host = self.backend.shared_host().map(str::to_owned);
                entries.push(entry);
            }
            Ok(_) => {}
            Err(e) => warnings.push(format!("could not record that {id} exited: {e}")),
        };
        if !stopped {
            for id in &found.exited {
                exited(
                    id,
                    "its program ended; its pane is still open",
                    &mut entries,
                );
            }
        }
        for id in &found.dropped {
            if !stopped {
                exited(id, "its pane or its process is gone", &mut entries);
            }
            entries.push(FeedEntry::new(EventKind::Left, Some(id), ""));
        }
        if !entries.is_empty()
            && let Err(e) = self.backend.feed.append(&entries)
        {
            warnings.push(format!("could not write the activity feed: {e}"));
        }
        if !found.dropped.is_empty()
            && let Err(e) = self
                .backend
                .episodes
                .forget(&found.dropped)
                .and_then(|()| self.backend.printed.forget(&found.dropped))
        {
            warnings.push(format!("could not forget agents that left: {e}"));
        }
        warnings
    }

    /// Whether `kind` is notified through a channel other than the tmux
    /// status line (which every watcher draws anyway).
    pub(crate) fn notifies_outside_tmux(&self, kind: EventKind) -> bool {
        self.notify.notifies(kind)
            && (self.notify.desktop
                || self.notify.webhook.is_some()
                || self.notify.command.is_some())
    }

    /// Whether the project's watcher runs on this host (false when that
    /// cannot be told).
    pub fn watcher_runs(&self) -> bool {
        watcher_process::is_running(&self.paths).unwrap_or(false)
    }

    /// Makes sure the project's watcher runs on this host, starting it in
    /// the background when none does (unless `watcher.autostart` is off).
    pub fn keep_watch(&self) -> Result<Option<Started>> {
        if !self.autostart {
            return Ok(None);
        }
        watcher_process::ensure_running(&self.paths, self.tmux.server()).map(Some)
    }

    /// The usage of this project's agents on this host, with its budget
    /// and prices.
    pub fn tally(&self) -> Tally<'_> {
        Tally {
            paths: &self.paths,
            matcher: &self.matcher,
            settings: &self.usage,
            sessions: &*self.backend.sessions,
        }
    }

    /// A messenger over this project: what sends, redelivers, releases
    /// held messages and hands deliveries between hosts.
    pub(crate) fn messenger(&self) -> Messenger<'_> {
        let backend = &*self.backend;
        Messenger {
            tmux: &self.tmux,
            paths: &self.paths,
            matcher: &self.matcher,
            settings: self.messaging.clone(),
            acks: &*backend.acks,
            held: &*backend.held,
            rates: &*backend.rates,
            log: &*backend.log,
            relay: backend.relay.as_deref(),
            sessions: &*backend.sessions,
            feed: &*backend.feed,
            limits: &*backend.limits,
        }
    }

    /// The registry to act on, empty when there is none or it is damaged,
    /// with what a person should be told about it (entries ignored, the
    /// damage). Fails when the store cannot be read.
    pub fn registry(&self) -> Result<(Registry, Vec<String>)> {
        let store = self.backend.registry.as_ref();
        Ok(store.read()?.or_empty(&store.location()))
    }
}
