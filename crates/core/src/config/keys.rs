//! Every config key in one table: its section, type, allowed range and
//! the comment `config init` writes above it, and the sections with
//! theirs. Checking (`schema.rs`), environment overrides, the template and
//! `config show` are all driven by this table, so a key added to `Config`
//! (`model.rs`) and here is handled everywhere at once (a test keeps the
//! two in step, another holds the table of docs/guide/configuration.md to this one).

/// The names of the events that can be notified (`[notify] events`, and
/// its default: all of them). They are the attention kinds of
/// `attention::event::ATTENTION_KINDS`, which this layer sits below; a
/// test in `notify::settings` keeps the two lists equal.
pub(crate) const NOTIFY_EVENTS: [&str; 9] = [
    "needs_input",
    "finished",
    "exited",
    "turn_failed",
    "stuck",
    "message",
    "budget",
    "limited",
    "limit_reset",
];

/// A key of the config file.
#[derive(Debug)]
pub struct Key {
    /// Its section (`rate_limiting`), empty for a top-level key.
    pub section: &'static str,
    /// Its name within the section.
    pub name: &'static str,
    /// What values it takes.
    pub kind: Kind,
    /// One line (or two) saying what it does, for `config init`.
    pub doc: &'static str,
    /// For keys unset by default: a value to show in the commented-out
    /// template line.
    pub example: Option<&'static str>,
}

/// The values a key takes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A whole number in `min..=max`, or unset.
    OptInt {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// `true` or `false`.
    Bool,
    /// Non-blank text of at most `max_chars` characters.
    Text {
        /// Longest allowed.
        max_chars: usize,
    },
    /// A list of `item`s.
    List(ListKind),
    /// A list of `item`s, or unset.
    OptList(ListKind),
    /// An existing directory, or unset.
    OptDir,
    /// An existing file, or unset.
    OptFile,
    /// A name that could be an agent id (`validate::agent_id`).
    AgentName,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// An amount of money (a number from 0 to `max`), or unset.
    OptAmount {
        /// Largest allowed.
        max: f64,
    },
    /// A server URL (`redis://`, `rediss://`, `unix://`), or unset.
    OptUrl,
    /// A name of 1-64 letters, digits, `.`, `_` and `-`, or unset.
    OptName,
    /// A webhook URL (`validate::webhook_url`), or unset. A secret (see
    /// `Key::is_secret`).
    SecretUrl,
    /// Non-blank text of at most `max_chars` characters, or unset.
    OptText {
        /// Longest allowed.
        max_chars: usize,
    },
    /// A shell command of at most `max_chars` characters, or unset. A
    /// secret (see `Key::is_secret`).
    SecretCommand {
        /// Longest allowed.
        max_chars: usize,
    },
}

/// The shape of a list value.
#[derive(Clone, Copy, Debug)]
pub struct ListKind {
    /// What each element is.
    pub item: Item,
    /// Fewest elements.
    pub min_items: usize,
    /// Most elements.
    pub max_items: usize,
    /// Whether an element may appear twice.
    pub unique: bool,
}

/// An element of a list value.
#[derive(Clone, Copy, Debug)]
pub enum Item {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// Text of at most `max_chars` characters.
    Text {
        /// Longest allowed.
        max_chars: usize,
    },
    /// A program name: no `/`, no whitespace.
    Program,
    /// A custom message type (`validate::message_type_name`).
    MessageType,
    /// One of the listed names.
    Choice(&'static [&'static str]),
}

/// The sections, in file order, with the comment `config init` writes
/// above each.
pub(crate) const SECTIONS: [(&str, &str); 17] = [
    (
        "rate_limiting",
        "Message rate limit per sender, shared by every swarm process.",
    ),
    ("locking", "File locks (`swarm lock`)."),
    ("discovery", "Finding the agent panes (`swarm discover`)."),
    (
        "onboarding",
        "Onboarding messages sent to new agents (kept for the Python tool).",
    ),
    ("dashboard", "Web dashboard settings (`swarm dashboard`)."),
    (
        "messaging",
        "How a message is put into an agent's pane (swarm only).",
    ),
    (
        "delivery",
        "Which way a message goes into an agent: its own channel where it has one, or typed into its pane (swarm only).",
    ),
    (
        "acks",
        "Messages sent with --ack: retries until acknowledged (swarm only).",
    ),
    (
        "message_log",
        "Rotation of agent_messages.log and how much rotated history is kept (swarm only).",
    ),
    (
        "store",
        "Where the shared state lives: the project's files, or one Redis server for agents on several hosts (swarm only).",
    ),
    (
        "launch",
        "`swarm launch`: each agent in a git worktree of its own, and what happens around them (swarm only).",
    ),
    (
        "merge",
        "`swarm merge --queue`: what must pass on a merge before the base branch moves to it (swarm only).",
    ),
    (
        "notify",
        "Telling you when an agent needs you: in tmux, on the desktop, through a webhook or a command (swarm only).",
    ),
    (
        "feed",
        "Rotation of the activity feed, .swarm/feed.jsonl, and how much rotated history is kept (swarm only).",
    ),
    (
        "watcher",
        "The project's watcher, which releases held messages, retries ACKs and raises attention events while nobody types a command (swarm only).",
    ),
    (
        "limits",
        "Agents at their vendor's usage limit: messages to them are held until it resets (swarm only; `swarm limits`).",
    ),
    (
        "budget",
        "What agents may spend, read from their own usage records (swarm only; `swarm usage`). Prices per model: [prices.MODEL] tables with input, output, cache_read, cache_write in dollars per million tokens.",
    ),
];

/// Every key, in file order.
pub const KEYS: &[Key] = &[
    Key {
        section: "",
        name: "project_root",
        kind: Kind::OptDir,
        doc: "Kept for the Python tool; swarm finds the root from --root, $CLAUDESWARM_ROOT or the nearest marker.",
        example: Some("\"/path/to/project\""),
    },
    Key {
        section: "rate_limiting",
        name: "messages_per_minute",
        kind: Kind::Int { min: 1, max: 1000 },
        doc: "Messages one agent may send per window (1-1000). A broadcast counts once.",
        example: None,
    },
    Key {
        section: "rate_limiting",
        name: "window_seconds",
        kind: Kind::Int { min: 1, max: 3600 },
        doc: "Length of the window in seconds (1-3600).",
        example: None,
    },
    Key {
        section: "rate_limiting",
        name: "operator_per_minute",
        kind: Kind::Int { min: 1, max: 1000 },
        doc: "Messages the person (messaging.operator: the terminal, the monitor, the dashboard) may send per minute (1-1000).",
        example: None,
    },
    Key {
        section: "locking",
        name: "stale_timeout",
        kind: Kind::Int {
            min: 60,
            max: 86_400,
        },
        doc: "Seconds after which a lock counts as abandoned and may be taken over (60-86400).",
        example: None,
    },
    Key {
        section: "locking",
        name: "auto_cleanup",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "locking",
        name: "default_reason",
        kind: Kind::Text { max_chars: 100 },
        doc: "Reason recorded for a lock taken without --reason (at most 100 characters).",
        example: None,
    },
    Key {
        section: "discovery",
        name: "stale_threshold",
        kind: Kind::Int { min: 10, max: 3600 },
        doc: "Seconds an agent whose program exited stays listed as stale (10-3600).",
        example: None,
    },
    Key {
        section: "discovery",
        name: "auto_refresh_interval",
        kind: Kind::OptInt {
            min: 5,
            max: 86_400,
        },
        doc: "Kept for the Python tool; `swarm discover --watch --interval S` refreshes instead (5-86400).",
        example: Some("60"),
    },
    Key {
        section: "discovery",
        name: "enable_cross_project_coordination",
        kind: Kind::Bool,
        doc: "Also list agents whose pane works outside this project.",
        example: None,
    },
    Key {
        section: "discovery",
        name: "agent_commands",
        kind: Kind::List(ListKind {
            item: Item::Program,
            min_items: 0,
            max_items: 100,
            unique: true,
        }),
        doc: "Program names that make a pane an agent (swarm only; never a shell).",
        example: None,
    },
    Key {
        section: "onboarding",
        name: "enabled",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "onboarding",
        name: "custom_messages",
        kind: Kind::OptList(ListKind {
            item: Item::Text { max_chars: 1000 },
            min_items: 0,
            max_items: 100,
            unique: false,
        }),
        doc: "Extra lines sent to every agent when it is onboarded (at most 100, each at most 1000 characters).",
        example: Some("[\"Read COORDINATION.md before you start.\"]"),
    },
    Key {
        section: "onboarding",
        name: "auto_onboard",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "enabled",
        kind: Kind::Bool,
        doc: "Kept for the Python tool.",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "port",
        kind: Kind::Int {
            min: 1024,
            max: 65_535,
        },
        doc: "Port `swarm dashboard` listens on (1024-65535).",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "host",
        kind: Kind::Text { max_chars: 253 },
        doc: "Host `swarm dashboard` listens on: localhost (127.0.0.1 and ::1), an address, or 0.0.0.0 for every interface.",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "auto_open_browser",
        kind: Kind::Bool,
        doc: "Open the dashboard in a browser when it starts (needs a graphical session and xdg-open; `open` on macOS).",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "refresh_interval",
        kind: Kind::Int { min: 1, max: 3600 },
        doc: "Seconds between the dashboard's checks for changes no file event announced (1-3600).",
        example: None,
    },
    Key {
        section: "dashboard",
        name: "allowed_hosts",
        kind: Kind::List(ListKind {
            item: Item::Text { max_chars: 260 },
            min_items: 0,
            max_items: 100,
            unique: true,
        }),
        doc: "Names the dashboard answers to besides the address it listens on (`name` or `name:port`); any other Host header is refused. Read only from SWARM_DASHBOARD_ALLOWED_HOSTS or the per-user file: a project's file is ignored with a warning, since a name in a shared file could let another site's page reach the dashboard (DNS rebinding).",
        example: None,
    },
    Key {
        section: "messaging",
        name: "delivery_pause_ms",
        kind: Kind::OptInt { min: 0, max: 5000 },
        doc: "Milliseconds between pasting a message and pressing Enter, for every agent (0-5000). Unset: each agent's profile says (0 for Claude Code and Codex, 100 for Gemini CLI).",
        example: Some("150"),
    },
    Key {
        section: "messaging",
        name: "max_inline_bytes",
        kind: Kind::Int {
            min: 256,
            max: 10_240,
        },
        doc: "Longer messages go to a file and the agent gets a one-line pointer (256-10240 bytes).",
        example: None,
    },
    Key {
        section: "messaging",
        name: "confirm_delivery",
        kind: Kind::Bool,
        doc: "Check on screen that each message was submitted; press Enter once more if not.",
        example: None,
    },
    Key {
        section: "messaging",
        name: "operator",
        kind: Kind::AgentName,
        doc: "Sender name of a person: the default --from outside tmux, and the monitor's composer (letters, digits, - and _).",
        example: None,
    },
    Key {
        section: "messaging",
        name: "custom_types",
        kind: Kind::List(ListKind {
            item: Item::MessageType,
            min_items: 0,
            max_items: 100,
            unique: true,
        }),
        doc: "Extra message types besides the built-in ones (upper case A-Z, 0-9 and -, e.g. \"DEPLOY-DONE\").",
        example: None,
    },
    Key {
        section: "messaging",
        name: "print_to_send",
        kind: Kind::Bool,
        doc: "Read what agents print: a line `@swarm:AGENT text` (or `@relay:AGENT text`) becomes a message from that agent to AGENT, `@swarm:* text` one to every other agent (for every profile that reads the screen; `print_to_send = false` in a profile turns it off there).",
        example: None,
    },
    Key {
        section: "messaging",
        name: "urgent_types",
        kind: Kind::List(ListKind {
            item: Item::Text { max_chars: 32 },
            min_items: 0,
            max_items: 100,
            unique: true,
        }),
        doc: "Message types that are always urgent: typed into a busy agent's pane at once, where its own input queue takes them mid-turn, instead of when its turn ends (e.g. [\"BLOCKED\"]).",
        example: None,
    },
    Key {
        section: "delivery",
        name: "native",
        kind: Kind::Choice(&["auto", "off"]),
        doc: "\"auto\": a message goes through the agent's own channel where it has one (Claude Code's messaging socket), else it is typed; \"off\": every message is typed into the pane. A profile's `native = \"off\"` turns it off for that agent.",
        example: None,
    },
    Key {
        section: "acks",
        name: "timeout_seconds",
        kind: Kind::Int { min: 1, max: 300 },
        doc: "Seconds to wait for an acknowledgement before the first retry (1-300).",
        example: None,
    },
    Key {
        section: "acks",
        name: "retry_delays",
        kind: Kind::List(ListKind {
            item: Item::Int { min: 1, max: 3600 },
            min_items: 1,
            max_items: 10,
            unique: false,
        }),
        doc: "Seconds before each further retry (each 1-3600); past the list, the wait doubles.",
        example: None,
    },
    Key {
        section: "acks",
        name: "max_retries",
        kind: Kind::Int { min: 0, max: 10 },
        doc: "Retries before an unacknowledged message is broadcast as escalated (0-10).",
        example: None,
    },
    Key {
        section: "message_log",
        name: "rotate_bytes",
        kind: Kind::Int {
            min: 1024,
            max: 1 << 30,
        },
        doc: "The log is renamed to agent_messages.log.<N> once it is larger than this (1 KiB-1 GiB).",
        example: None,
    },
    Key {
        section: "message_log",
        name: "keep_bytes",
        kind: Kind::Int {
            min: 0,
            max: 1 << 40,
        },
        doc: "Rotated segments are removed, oldest first, while together larger than this (0-1 TiB); never one holding a message an agent has not read.",
        example: None,
    },
    Key {
        section: "message_log",
        name: "keep_days",
        kind: Kind::Int { min: 1, max: 3650 },
        doc: "Rotated segments older than this many days are removed (1-3650); never one holding a message an agent has not read.",
        example: None,
    },
    Key {
        section: "store",
        name: "backend",
        kind: Kind::Choice(&["files", "redis"]),
        doc: "\"files\" (the project's state files, the default) or \"redis\" (one Redis or Valkey server shared by every host).",
        example: None,
    },
    Key {
        section: "store",
        name: "url",
        kind: Kind::OptUrl,
        doc: "The Redis server: redis://host:6379, rediss:// (TLS) or unix:///path/redis.sock. Give it as SWARM_STORE_URL when it holds a password.",
        example: Some("\"redis://127.0.0.1:6379\""),
    },
    Key {
        section: "store",
        name: "name",
        kind: Kind::OptName,
        doc: "The swarm's name; every key lives under it, so several swarms can share one server (default: the project directory's name).",
        example: Some("\"my-project\""),
    },
    Key {
        section: "store",
        name: "host",
        kind: Kind::OptName,
        doc: "This machine's name in the swarm (default: the host name); set it for containers.",
        example: Some("\"build-box\""),
    },
    Key {
        section: "store",
        name: "timeout_ms",
        kind: Kind::Int {
            min: 100,
            max: 30_000,
        },
        doc: "How long a command waits for the server before it fails, in milliseconds (100-30000).",
        example: None,
    },
    Key {
        section: "store",
        name: "tls_ca_file",
        kind: Kind::OptFile,
        doc: "A PEM file of certificate authorities trusted for a rediss:// server besides the system's (a server whose certificate your own CA signed); absolute, or relative to the project root.",
        example: Some("\"/etc/swarm/redis-ca.pem\""),
    },
    Key {
        section: "launch",
        name: "worktrees",
        kind: Kind::Bool,
        doc: "Give each launched agent a git worktree of its own (.swarm/worktrees/<id>, branch swarm/<id>), as `launch --worktrees` does.",
        example: None,
    },
    Key {
        section: "launch",
        name: "worktree_setup",
        kind: Kind::OptText { max_chars: 4096 },
        doc: "A command run with `sh -c` in each new worktree before its agent starts ($SWARM_ROOT is the project root); a failure is reported and the agent starts anyway.",
        example: Some("\"cp $SWARM_ROOT/.env . && npm ci\""),
    },
    Key {
        section: "launch",
        name: "tell_overlaps",
        kind: Kind::Bool,
        doc: "When `swarm changes` finds a file changed on two or more agents' branches, tell those agents once.",
        example: None,
    },
    Key {
        section: "launch",
        name: "ports_per_agent",
        kind: Kind::Int { min: 1, max: 1000 },
        doc: "Ports in each worktree agent's block (1-1000): $SWARM_PORT is the first of them, free when the agent started, and no other agent's block overlaps it.",
        example: None,
    },
    Key {
        section: "merge",
        name: "test_command",
        kind: Kind::OptText { max_chars: 4096 },
        doc: "A command run with `sh -c` on each merge of the merge queue, in a scratch worktree, before the base branch moves to it; a merge it fails is not made, and the agent is told the last lines. Unset: the queue merges untested.",
        example: Some("\"cargo test\""),
    },
    Key {
        section: "merge",
        name: "test_timeout",
        kind: Kind::Int {
            min: 10,
            max: 86_400,
        },
        doc: "Seconds the test command may run on one merge (10-86400); then it is stopped, with everything it started, and the merge counts as failed.",
        example: None,
    },
    Key {
        section: "merge",
        name: "tell_agents",
        kind: Kind::Bool,
        doc: "Tell an agent whose queued merge conflicted or failed the test: the conflicting files, or the test's last lines, and how to rebase.",
        example: None,
    },
    Key {
        section: "notify",
        name: "tmux",
        kind: Kind::Bool,
        doc: "A notice on tmux's status line and a marker on the agent's window when it needs you.",
        example: None,
    },
    Key {
        section: "notify",
        name: "desktop",
        kind: Kind::Bool,
        doc: "Also a desktop notification (D-Bus on Linux, the notification centre on macOS); off, with a warning, where there is no desktop session.",
        example: None,
    },
    Key {
        section: "notify",
        name: "webhook",
        kind: Kind::SecretUrl,
        doc: "POST each notification to this http(s) URL (ntfy, Slack, Discord, any JSON receiver). A secret: read only from SWARM_NOTIFY_WEBHOOK or the per-user file ($XDG_CONFIG_HOME/swarm/config.toml, else ~/.config/swarm/config.toml); ignored, with a warning, in a project's file.",
        example: Some("\"https://ntfy.sh/your-secret-topic\""),
    },
    Key {
        section: "notify",
        name: "command",
        kind: Kind::SecretCommand { max_chars: 4096 },
        doc: "Run this shell command (sh -c) for each notification, the event in $SWARM_EVENT_KIND, $SWARM_EVENT_AGENT, $SWARM_EVENT_TEXT, ... A secret, like webhook: read only from SWARM_NOTIFY_COMMAND or the per-user file.",
        example: Some("\"notify-send swarm \\\"$SWARM_EVENT_TEXT\\\"\""),
    },
    Key {
        section: "notify",
        name: "events",
        kind: Kind::List(ListKind {
            item: Item::Choice(&NOTIFY_EVENTS),
            min_items: 0,
            max_items: NOTIFY_EVENTS.len(),
            unique: true,
        }),
        doc: "The events that notify: needs_input (a dialog is open), finished (a turn ended), exited, turn_failed (an API error ended a turn), stuck, message (an agent wrote to you), budget, limited (an agent hit its usage limit), limit_reset (its reset time passed).",
        example: None,
    },
    Key {
        section: "notify",
        name: "throttle_seconds",
        kind: Kind::Int {
            min: 0,
            max: 86_400,
        },
        doc: "At most one notification per agent and event within this many seconds (0-86400; 0 notifies every one).",
        example: None,
    },
    Key {
        section: "notify",
        name: "stuck_after",
        kind: Kind::Int {
            min: 5,
            max: 86_400,
        },
        doc: "Seconds an agent may stay busy with nothing new on its screen before it counts as stuck (5-86400).",
        example: None,
    },
    Key {
        section: "feed",
        name: "rotate_bytes",
        kind: Kind::Int {
            min: 1024,
            max: 1 << 30,
        },
        doc: "The feed is renamed to .swarm/feed.jsonl.<N> once it is larger than this (1 KiB-1 GiB).",
        example: None,
    },
    Key {
        section: "feed",
        name: "keep_bytes",
        kind: Kind::Int {
            min: 0,
            max: 1 << 40,
        },
        doc: "Rotated parts of the feed are removed, oldest first, while together larger than this (0-1 TiB).",
        example: None,
    },
    Key {
        section: "feed",
        name: "keep_days",
        kind: Kind::Int { min: 1, max: 3650 },
        doc: "Rotated parts of the feed older than this many days are removed (1-3650).",
        example: None,
    },
    Key {
        section: "watcher",
        name: "autostart",
        kind: Kind::Bool,
        doc: "Start the watcher in the background when a command needs it (launch, a held message, the monitor, the dashboard) and none runs; it ends by itself once the swarm's panes are gone. Off: run `swarm watch` yourself.",
        example: None,
    },
    Key {
        section: "budget",
        name: "agent_tokens",
        kind: Kind::OptInt {
            min: 1,
            max: 1_000_000_000_000,
        },
        doc: "Tokens (input plus output; cache reads not counted) one agent may spend per period; messages to an agent over it are held.",
        example: Some("2000000"),
    },
    Key {
        section: "budget",
        name: "agent_cost",
        kind: Kind::OptAmount { max: 1_000_000.0 },
        doc: "US dollars one agent may spend per period (models without a price count nothing).",
        example: Some("5.0"),
    },
    Key {
        section: "budget",
        name: "swarm_tokens",
        kind: Kind::OptInt {
            min: 1,
            max: 1_000_000_000_000,
        },
        doc: "Tokens the whole swarm may spend per period; over it, every agent is over its budget.",
        example: Some("10000000"),
    },
    Key {
        section: "budget",
        name: "swarm_cost",
        kind: Kind::OptAmount { max: 1_000_000.0 },
        doc: "US dollars the whole swarm may spend per period.",
        example: Some("25.0"),
    },
    Key {
        section: "budget",
        name: "period",
        kind: Kind::Choice(&["day", "session"]),
        doc: "day: a calendar day, local time; session: since the agent's process started. `swarm budget reset AGENT` starts a new period early.",
        example: None,
    },
    Key {
        section: "budget",
        name: "on_exceed",
        kind: Kind::Choice(&["hold", "interrupt"]),
        doc: "hold: messages to an agent over its budget wait in its inbox (the operator's still go in); interrupt: also stop its current turn as its profile says.",
        example: None,
    },
    Key {
        section: "limits",
        name: "on_reset",
        kind: Kind::Choice(&["notify", "resume", "off"]),
        doc: "When an agent's usage limit resets: notify tells you (nothing resumes by itself); resume types limits.resume_prompt into each agent that showed the limit once its screen is idle, then its held messages go in; off does nothing.",
        example: None,
    },
    Key {
        section: "limits",
        name: "resume_prompt",
        kind: Kind::Text { max_chars: 4096 },
        doc: "What on_reset = \"resume\" types into an agent whose limit reset.",
        example: None,
    },
];

/// Keys that are no secret but that a project's file may not set either:
/// a committed file naming a host its author controls would let that
/// host's pages reach the dashboard through DNS rebinding.
const USER_ONLY: [&str; 1] = ["dashboard.allowed_hosts"];

impl Key {
    /// `section.name`, or `name` for a top-level key.
    pub fn path(&self) -> String {
        if self.section.is_empty() {
            self.name.to_owned()
        } else {
            format!("{}.{}", self.section, self.name)
        }
    }

    /// The environment variable that overrides it,
    /// `SWARM_<SECTION>_<KEY>`; top-level keys have none.
    pub(crate) fn env_var(&self) -> Option<String> {
        if self.section.is_empty() {
            return None;
        }
        Some(format!("SWARM_{}_{}", self.section, self.name).to_ascii_uppercase())
    }

    /// Whether its value is a secret (a webhook URL, a command that runs
    /// code): taken only from the environment or the per-user file, since
    /// a project's file is shared with everyone who can read the project,
    /// and never shown whole.
    pub(crate) fn is_secret(&self) -> bool {
        matches!(self.kind, Kind::SecretUrl | Kind::SecretCommand { .. })
    }

    /// Whether only the environment and the per-user file may set it: the
    /// secrets, and the keys that widen who may reach a server of the
    /// person's (see `USER_ONLY`).
    pub(crate) fn is_user_only(&self) -> bool {
        self.is_secret() || USER_ONLY.contains(&self.path().as_str())
    }

    /// The key at `section.name`.
    pub fn find(section: &str, name: &str) -> Option<&'static Key> {
        KEYS.iter().find(|k| k.section == section && k.name == name)
    }
}
