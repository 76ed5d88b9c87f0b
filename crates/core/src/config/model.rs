//! The typed configuration: one struct per section, each with the default
//! of every key. Checking happens before a value gets here (see `schema`),
//! so code that reads a `Config` can trust its ranges.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::keys::NOTIFY_EVENTS;

/// Agent programs recognised when the config names none.
pub const DEFAULT_AGENT_COMMANDS: [&str; 5] = ["claude", "claude-code", "codex", "gemini", "aider"];

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Message rate limits.
    pub rate_limiting: RateLimiting,
    /// File locks.
    pub locking: Locking,
    /// Agent discovery.
    pub discovery: Discovery,
    /// Onboarding (accepted for parity).
    pub onboarding: Onboarding,
    /// Web dashboard (`swarm dashboard`).
    pub dashboard: Dashboard,
    /// How messages reach an agent's pane (swarm's own section).
    pub messaging: Messaging,
    /// Which way a message goes into an agent: its own channel or typed
    /// (swarm's own section).
    pub delivery: DeliveryConfig,
    /// Acknowledgements of `--ack` messages (swarm's own section).
    pub acks: Acks,
    /// Rotation and retention of the message log (swarm's own section).
    pub message_log: MessageLogConfig,
    /// Where the shared state lives: files, or a Redis server shared by
    /// several hosts (swarm's own section).
    pub store: StoreConfig,
    /// `swarm launch`: worktrees and what happens around them (swarm's
    /// own section).
    pub launch: Launch,
    /// `swarm merge --queue`: the test every merge must pass (swarm's own
    /// section).
    pub merge: MergeConfig,
    /// How the person is told that an agent needs them (swarm's own
    /// section).
    pub notify: NotifyConfig,
    /// Rotation and retention of the activity feed (swarm's own section).
    pub feed: FeedConfig,
    /// The project's background watcher (swarm's own section).
    pub watcher: WatcherConfig,
    /// What agents may spend (swarm's own section; docs/USAGE.md).
    pub budget: BudgetConfig,
    /// What happens when an agent's usage limit resets (swarm's own
    /// section).
    pub limits: LimitsConfig,
    /// Prices per model over the built-in table (`[prices.MODEL]`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, super::price::Price>,
    /// Agent profiles added or changed by the project (`[profiles.NAME]`),
    /// over the built-in ones.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, super::profile::ProfileSpec>,
    /// Accepted for parity; the project root is found as docs/FORMATS.md says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_root: Option<PathBuf>,
}

/// `[rate_limiting]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimiting {
    /// Messages a sender may send per window (1..=1000).
    pub messages_per_minute: u32,
    /// Window length in seconds (1..=3600).
    pub window_seconds: u32,
    /// Messages the person (the operator) may send per minute (1..=1000).
    pub operator_per_minute: u32,
}

/// `[locking]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Locking {
    /// Seconds after which a lock is stale (60..=86400).
    pub stale_timeout: u32,
    /// Accepted for parity.
    pub auto_cleanup: bool,
    /// Reason recorded when a lock is taken without one.
    pub default_reason: String,
}

/// `[discovery]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Discovery {
    /// Seconds an agent that disappeared stays listed as stale (10..=3600).
    pub stale_threshold: u32,
    /// Accepted for parity (`swarm discover --watch` has its own interval).
    pub auto_refresh_interval: Option<u32>,
    /// Also list agents whose pane works outside this project.
    pub enable_cross_project_coordination: bool,
    /// Program names that are agents (swarm's own key).
    pub agent_commands: Vec<String>,
}

/// `[onboarding]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Onboarding {
    /// Accepted for parity.
    pub enabled: bool,
    /// Extra onboarding messages.
    pub custom_messages: Option<Vec<String>>,
    /// Accepted for parity.
    pub auto_onboard: bool,
}

/// `[dashboard]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Dashboard {
    /// Accepted for parity (unused, as in the original).
    pub enabled: bool,
    /// The default port, 1024..=65535.
    pub port: u32,
    /// The default host (a name or an address).
    pub host: String,
    /// Open a browser when the dashboard starts, when one can be.
    pub auto_open_browser: bool,
    /// Seconds between checks for changes no file event announced; at
    /// least 1.
    pub refresh_interval: u32,
    /// Host names (with an optional port) the dashboard answers to besides
    /// the address it listens on.
    pub allowed_hosts: Vec<String>,
}

/// `[messaging]`: how a message is put into an agent's pane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Messaging {
    /// Milliseconds between pasting a message and pressing Enter
    /// (0..=5000), for every agent. Unset: each agent's profile says
    /// (none for Claude Code and Codex, 100 for Gemini CLI).
    pub delivery_pause_ms: Option<u32>,
    /// Messages longer than this many bytes (256..=10240) are written to a
    /// file and the agent gets a one-line pointer to it.
    pub max_inline_bytes: u32,
    /// Check on screen that a message was submitted, pressing Enter once
    /// more when it was not (never pasting twice).
    pub confirm_delivery: bool,
    /// The sender name of a person: `--from`'s default outside tmux and
    /// the monitor composer's sender. Never an agent's id.
    pub operator: String,
    /// Extra message types besides the built-in ones (upper case, `A-Z`,
    /// `0-9` and `-`).
    pub custom_types: Vec<String>,
    /// The watcher reads what agents print and sends each
    /// `@swarm:AGENT text` line as a message (docs/PROFILES.md).
    pub print_to_send: bool,
    /// Message types that are always urgent (typed into a busy agent's
    /// pane at once); every other type waits for the end of its turn
    /// unless sent with `--urgent`.
    pub urgent_types: Vec<String>,
}

/// `[delivery]`: which way a message goes into an agent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeliveryConfig {
    /// Use an agent's own channel (Claude Code's messaging socket, Codex
    /// CLI's app server) where it has one: `auto`; or type every message
    /// into the pane: `off`.
    pub native: NativeMode,
}

/// Whether swarm uses agents' native channels (`[delivery] native`, and a
/// profile's `native`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NativeMode {
    /// Where the agent has one and it answers.
    #[default]
    Auto,
    /// Never: every message is typed.
    Off,
}

impl NativeMode {
    /// Both must allow it: off when either is off.
    pub fn and(self, other: NativeMode) -> NativeMode {
        if self == NativeMode::Off || other == NativeMode::Off {
            NativeMode::Off
        } else {
            NativeMode::Auto
        }
    }
}

/// `[acks]`: what happens to a message sent with `--ack`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Acks {
    /// Seconds to wait for the acknowledgement before the first retry
    /// (1..=300).
    pub timeout_seconds: u32,
    /// Seconds before each further retry (each 1..=3600); past the end of
    /// the list (and before the escalation) the wait keeps doubling.
    pub retry_delays: Vec<u32>,
    /// Retries before the message is escalated to everyone (0..=10).
    pub max_retries: u32,
}

/// `[message_log]`: rotation of `agent_messages.log` and how much rotated
/// history is kept (docs/MESSAGE_LOG.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MessageLogConfig {
    /// The live log is rotated once larger than this (1 KiB..=1 GiB).
    pub rotate_bytes: u64,
    /// Rotated segments are removed, oldest first, while together larger
    /// than this (0..=1 TiB), unless one holds an unread message.
    pub keep_bytes: u64,
    /// Rotated segments older than this many days (1..=3650) are removed,
    /// unless one holds an unread message.
    pub keep_days: u32,
}

/// `[budget]`: what each agent, and the swarm as a whole, may spend in a
/// period (docs/USAGE.md). Unset limits do not apply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BudgetConfig {
    /// Tokens (input plus output) one agent may spend per period.
    pub agent_tokens: Option<u64>,
    /// US dollars one agent may spend per period.
    pub agent_cost: Option<f64>,
    /// Tokens the whole swarm may spend per period.
    pub swarm_tokens: Option<u64>,
    /// US dollars the whole swarm may spend per period.
    pub swarm_cost: Option<f64>,
    /// What a period is.
    pub period: BudgetPeriod,
    /// What happens to an agent over its budget.
    pub on_exceed: OnExceed,
}

impl BudgetConfig {
    /// Whether any limit is set.
    pub fn any(&self) -> bool {
        self.agent_tokens.is_some()
            || self.agent_cost.is_some()
            || self.swarm_tokens.is_some()
            || self.swarm_cost.is_some()
    }
}

/// The length of a budget period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetPeriod {
    /// A calendar day, local time.
    #[default]
    Day,
    /// The agent's current session: since its process started.
    Session,
}

/// What happens to an agent over its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnExceed {
    /// Messages to it are held (kept in its inbox).
    #[default]
    Hold,
    /// Messages are held and its current turn is stopped.
    Interrupt,
}

/// `[limits]`: agents at their vendor's usage limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// What the watcher does once a limit's reset time has passed.
    pub on_reset: OnReset,
    /// What "resume" types into each agent that showed the limit.
    pub resume_prompt: String,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            on_reset: OnReset::Notify,
            resume_prompt: "continue".into(),
        }
    }
}

/// What happens once a usage limit resets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnReset {
    /// Tell the person; nothing resumes by itself.
    #[default]
    Notify,
    /// Type the resume prompt into each agent that showed the limit, once
    /// its screen is idle; held messages then go in, in order.
    Resume,
    /// Nothing: the agents stay limited until they work again or a person
    /// clears them (`swarm limits clear`).
    Off,
}

/// Where the swarm's shared state lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreBackend {
    /// The state files in the project (the Python tool's shapes).
    #[default]
    Files,
    /// A Redis (or Valkey) server, so that agents on several hosts form
    /// one swarm.
    Redis,
}

/// `[store]`: where the shared state lives (docs/SCALING.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// `files` (the default) or `redis`.
    pub backend: StoreBackend,
    /// The server: `redis://[user:password@]host[:port][/db]`, `rediss://`
    /// for TLS, `unix:///path/to/socket`. Best given as `SWARM_STORE_URL`
    /// so no password sits in a committed file.
    pub url: Option<String>,
    /// The swarm's name: every key is under it, so several swarms share a
    /// server. Default: the project directory's name.
    pub name: Option<String>,
    /// This machine's name in the swarm. Default: the host name.
    pub host: Option<String>,
    /// How long a command waits for the server before it fails
    /// (100..=30000 ms).
    pub timeout_ms: u32,
    /// Certificate authorities (PEM) trusted for a `rediss://` server
    /// besides the system's.
    pub tls_ca_file: Option<String>,
}

/// `[launch]`: each agent in a git worktree of its own (docs/guide/worktrees.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Launch {
    /// Give each launched agent a worktree on a branch of its own, as
    /// `launch --worktrees` does.
    pub worktrees: bool,
    /// A command run with `sh -c` in each new worktree before its agent
    /// starts.
    pub worktree_setup: Option<String>,
    /// Tell the agents involved, once, when a file is changed on two or
    /// more agents' branches.
    pub tell_overlaps: bool,
    /// Ports in each worktree agent's block (`SWARM_PORT` is the first).
    pub ports_per_agent: u16,
}

impl Default for Launch {
    fn default() -> Self {
        Launch {
            worktrees: false,
            worktree_setup: None,
            tell_overlaps: true,
            ports_per_agent: 10,
        }
    }
}

/// `[merge]`: the merge queue (README, Worktrees).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MergeConfig {
    /// Run with `sh -c` on each merge, in a scratch worktree, before the
    /// base branch moves to it.
    pub test_command: Option<String>,
    /// Seconds the test may run on one merge (10..=86400).
    pub test_timeout: u32,
    /// Tell an agent whose queued merge conflicted or failed its test.
    pub tell_agents: bool,
}

impl Default for MergeConfig {
    fn default() -> Self {
        MergeConfig {
            test_command: None,
            test_timeout: 3600,
            tell_agents: true,
        }
    }
}

/// `[notify]`: telling the person that an agent needs them, in tmux and
/// outside it.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NotifyConfig {
    /// A notice on tmux's status line and a marker on the agent's window.
    pub tmux: bool,
    /// A desktop notification (off, with a warning, where there is no
    /// desktop session).
    pub desktop: bool,
    /// A URL each notification is posted to. A secret: taken only from
    /// `SWARM_NOTIFY_WEBHOOK` or the per-user file, never from a
    /// project's file, and never shown in full.
    pub webhook: Option<String>,
    /// A shell command run for each notification, the event in its
    /// environment. A secret, like `webhook`.
    pub command: Option<String>,
    /// The names of the events that are notified (`NOTIFY_EVENTS`).
    pub events: Vec<String>,
    /// At most one notification per agent and event within this many
    /// seconds (0..=86400).
    pub throttle_seconds: u32,
    /// Seconds an agent is busy with nothing new on its screen before it
    /// counts as stuck (5..=86400).
    pub stuck_after: u32,
}

/// Written by hand so that a webhook URL or a command never reaches a
/// debug print whole.
impl std::fmt::Debug for NotifyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = |v: &Option<String>| v.as_ref().map(|_| "(set)");
        f.debug_struct("NotifyConfig")
            .field("tmux", &self.tmux)
            .field("desktop", &self.desktop)
            .field("webhook", &set(&self.webhook))
            .field("command", &set(&self.command))
            .field("events", &self.events)
            .field("throttle_seconds", &self.throttle_seconds)
            .field("stuck_after", &self.stuck_after)
            .finish()
    }
}

/// `[watcher]`: the project's watcher.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WatcherConfig {
    /// Start it in the background when a command needs it and none runs.
    pub autostart: bool,
}

impl Default for WatcherConfig {
    fn default() -> Self {
        WatcherConfig { autostart: true }
    }
}

/// `[feed]`: rotation of `.swarm/feed.jsonl` and how much rotated history
/// is kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FeedConfig {
    /// The live feed is rotated once larger than this (1 KiB..=1 GiB).
    pub rotate_bytes: u64,
    /// Rotated parts are removed, oldest first, while together larger
    /// than this (0..=1 TiB).
    pub keep_bytes: u64,
    /// Rotated parts older than this many days (1..=3650) are removed.
    pub keep_days: u32,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            tmux: true,
            desktop: false,
            webhook: None,
            command: None,
            events: NOTIFY_EVENTS.iter().map(|s| s.to_string()).collect(),
            throttle_seconds: 60,
            stuck_after: 600,
        }
    }
}

impl Default for FeedConfig {
    fn default() -> Self {
        FeedConfig {
            rotate_bytes: 4 * 1024 * 1024,
            keep_bytes: 40 * 1024 * 1024,
            keep_days: 30,
        }
    }
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            backend: StoreBackend::Files,
            url: None,
            name: None,
            host: None,
            timeout_ms: 2000,
            tls_ca_file: None,
        }
    }
}

impl Default for MessageLogConfig {
    fn default() -> Self {
        MessageLogConfig {
            rotate_bytes: 10 * 1024 * 1024,
            keep_bytes: 100 * 1024 * 1024,
            keep_days: 30,
        }
    }
}

impl Default for RateLimiting {
    fn default() -> Self {
        RateLimiting {
            messages_per_minute: 10,
            window_seconds: 60,
            operator_per_minute: 60,
        }
    }
}

impl Default for Locking {
    fn default() -> Self {
        Locking {
            stale_timeout: 300,
            auto_cleanup: false,
            default_reason: "working".into(),
        }
    }
}

impl Default for Discovery {
    fn default() -> Self {
        Discovery {
            stale_threshold: 60,
            auto_refresh_interval: None,
            enable_cross_project_coordination: false,
            agent_commands: DEFAULT_AGENT_COMMANDS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

impl Default for Onboarding {
    fn default() -> Self {
        Onboarding {
            enabled: true,
            custom_messages: None,
            auto_onboard: false,
        }
    }
}

impl Default for Dashboard {
    fn default() -> Self {
        Dashboard {
            enabled: true,
            port: 8080,
            host: "localhost".into(),
            auto_open_browser: true,
            refresh_interval: 1,
            allowed_hosts: Vec::new(),
        }
    }
}

impl Default for Messaging {
    fn default() -> Self {
        Messaging {
            delivery_pause_ms: None,
            max_inline_bytes: 4096,
            confirm_delivery: false,
            operator: "operator".into(),
            custom_types: Vec::new(),
            print_to_send: true,
            urgent_types: Vec::new(),
        }
    }
}

impl Default for Acks {
    fn default() -> Self {
        Acks {
            timeout_seconds: 30,
            retry_delays: vec![60, 120],
            max_retries: 3,
        }
    }
}
