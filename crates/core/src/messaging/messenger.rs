//! `Messenger`: what a delivery needs (the tmux server, the project's
//! files, the agent recogniser, the settings, and the stores it reads and
//! writes), with the messaging settings from the config. Its operations sit
//! with what they concern: sending and redelivering in `send.rs`, holding
//! and releasing messages in `held/release.rs`, handing deliveries between
//! hosts in `relay/hand_over.rs`.

use super::send::Typed;
use super::wait::Wait;
use crate::domain::message::Urgency;
use crate::limits::LimitStore;
use std::time::Duration;

use crate::acks::AckStore;
use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::profile::Profiles;
use crate::agents::registry::AgentRecord;
use crate::agents::sessions::session_store::SessionStore;
use crate::attention::feed::feed_store::FeedStore;
use crate::log::log_store::LogStore;
use crate::store::Paths;
use crate::tmux::Tmux;

use super::delivery::{DeliverySettings, Target};
use super::held::held_store::HeldStore;
use super::rates::rate_store::{RateLimit, RateStore};
use super::relay::relay_store::Relay;

/// Messaging settings, from the config.
#[derive(Clone, Debug)]
pub struct MessagingSettings {
    /// How each delivery behaves.
    pub delivery: DeliverySettings,
    /// Bodies longer than this (bytes) go to `.swarm/messages/<id>.md` and
    /// the pane gets a one-line pointer.
    pub max_inline_bytes: usize,
    /// Per-sender limit.
    pub rate: RateLimit,
    /// The person's own limit (`rate_limiting.operator_per_minute` over a
    /// minute): the terminal, the monitor and the dashboard send as the
    /// operator, who is not held to an agent's pace.
    pub person_rate: RateLimit,
    /// The person's id (`messaging.operator`): a message to them is kept
    /// in their inbox, never typed anywhere.
    pub person_id: String,
    /// Whether the watcher reads what agents print and sends their
    /// `@swarm:` lines (`messaging.print_to_send`).
    pub print_to_send: bool,
    /// Types that are always urgent (`messaging.urgent_types`), in wire
    /// form.
    pub urgent_types: Vec<String>,
    /// Whether messages go through agents' own channels where they have
    /// one (`[delivery] native`).
    pub native: crate::config::NativeMode,
}

impl Default for MessagingSettings {
    fn default() -> Self {
        MessagingSettings {
            delivery: DeliverySettings::default(),
            max_inline_bytes: 4096,
            rate: RateLimit {
                max: 10,
                window: Duration::from_secs(60),
            },
            person_rate: RateLimit {
                max: 60,
                window: Duration::from_secs(60),
            },
            person_id: "operator".into(),
            print_to_send: true,
            urgent_types: Vec::new(),
            native: crate::config::NativeMode::Auto,
        }
    }
}

impl MessagingSettings {
    /// The settings a project's config gives.
    pub(crate) fn from_config(c: &crate::config::Config) -> MessagingSettings {
        MessagingSettings {
            rate: RateLimit {
                max: c.rate_limiting.messages_per_minute,
                window: Duration::from_secs(u64::from(c.rate_limiting.window_seconds)),
            },
            person_rate: RateLimit {
                max: c.rate_limiting.operator_per_minute,
                window: Duration::from_secs(60),
            },
            delivery: DeliverySettings {
                pause: c
                    .messaging
                    .delivery_pause_ms
                    .map(|ms| Duration::from_millis(u64::from(ms))),
                confirm: c.messaging.confirm_delivery,
                profiles: Profiles::new(&c.profiles),
                ..DeliverySettings::default()
            },
            max_inline_bytes: c.messaging.max_inline_bytes as usize,
            person_id: c.messaging.operator.clone(),
            print_to_send: c.messaging.print_to_send,
            urgent_types: c
                .messaging
                .urgent_types
                .iter()
                .map(|t| t.trim().to_uppercase().replace('_', "-"))
                .collect(),
            native: c.delivery.native,
        }
    }
}

/// The world a delivery needs; its operations are in `send.rs`,
/// `held/release.rs` and `relay/hand_over.rs`.
pub(crate) struct Messenger<'a> {
    /// The tmux server.
    pub tmux: &'a Tmux,
    /// The project's files.
    pub paths: &'a Paths,
    /// Recognises agents in the foreground of panes.
    pub matcher: &'a AgentMatcher,
    /// Settings.
    pub settings: MessagingSettings,
    /// The pending acknowledgements.
    pub acks: &'a dyn AckStore,
    /// Messages held back from panes.
    pub held: &'a dyn HeldStore,
    /// The senders' rate windows.
    pub rates: &'a dyn RateStore,
    /// The message log and the read cursors.
    pub log: &'a dyn LogStore,
    /// Deliveries to the hosts of other agents' panes (`None`: one host).
    pub relay: Option<&'a dyn Relay>,
    /// The recorded sessions: a message to an agent of one that is down
    /// waits for `swarm resume`.
    pub sessions: &'a dyn SessionStore,
    /// Where a message is recorded as sent (`message_sent`) once it is
    /// accepted and before it is typed anywhere, so that what it causes
    /// in a pane (a dialog the watcher raises) comes after it in the feed.
    pub feed: &'a dyn FeedStore,
    /// The logins at their usage limit: messages to their agents are held.
    pub limits: &'a dyn LimitStore,
}

impl Messenger<'_> {
    /// What keeps a message (`typed`; `None`: one already held) out of
    /// `agent`'s pane because its login is at its usage limit: nothing
    /// for an urgent one from the person.
    pub(super) fn limit_wait(&self, agent: &str, typed: Option<&Typed<'_>>) -> Option<Wait> {
        if typed.is_some_and(|t| t.from_person && t.urgency != Urgency::Normal) {
            return None;
        }
        let limits = self.limits.read().ok()?;
        let record = limits.of_agent(agent)?;
        Some(Wait::Limited(format!("{agent} is {}", record.describe())))
    }
}

/// Where a delivery to `a` goes: its pane as the registry has it.
pub(super) fn target_of(a: &AgentRecord) -> Target {
    Target {
        agent: a.id.to_string(),
        pane: a.tmux_pane_id.clone(),
        pane_pid: a.pid,
    }
}
