//! Native delivery: reaching an agent through its own way in instead of
//! typing into its pane. Claude Code listens on a Unix socket named in
//! its session file (`claude/`); Codex CLI runs an app server
//! (`Channel::AppServer`); every other agent, and every agent whose native
//! channel is not there, is typed into (`messaging/delivery.rs`).
//!
//! How a channel is chosen, per message and per recipient (`choose`):
//!
//! 1. `[delivery] native = "off"`, or the agent's profile's `native =
//!    "off"`: typed.
//! 2. A message that must go in mid-turn (`--urgent`, `--interrupt`) to an
//!    agent whose channel cannot interrupt a turn (Claude Code's socket
//!    queues until the turn ends): typed, as before.
//! 3. The agent process found among the pane's processes (never the
//!    pane's own claims alone): Claude Code, or the demo agent playing it,
//!    with a session file of its own pid whose socket is bound and ours:
//!    `Socket`. Codex CLI with an app server: `AppServer`. Anything else:
//!    typed, and the choice says why.
//!
//! A native channel that refuses before anything was written (no session
//! file, socket not bound, connection refused, a protocol error) falls
//! back to typing; once a write succeeded it never does: the message is
//! then the agent's, exactly once, and what its own records say of it
//! (`Confirmation`) is its state. `follow` keeps watching the messages
//! the agent accepted but had not taken yet.

pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod follow;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::agents::agent_matcher::{AgentMatcher, DEMO_AGENT};
use crate::agents::process::ProcessView;
use crate::agents::profile::Profiles;
pub(crate) use crate::config::NativeMode;
use crate::domain::message::Urgency;
use crate::log::record::{ConfirmedBy, DeliveryOutcome, DeliveryStatus, Via};

use crate::usage::locate::{self, AgentHome};
use crate::usage::vendor::UsageSource;
use claude::Inbound;

/// How a message reaches an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Channel {
    /// Claude Code's messaging socket (one JSON line per message).
    Socket,
    /// Codex CLI's app server.
    AppServer,
    /// Typed into the agent's pane.
    Typed,
}

impl Channel {
    /// Its name, as in `swarm agents --json` and the log's `via`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Socket => "socket",
            Channel::AppServer => "app-server",
            Channel::Typed => "typed",
        }
    }

    /// What the log records a delivery through it as.
    pub fn via(self) -> Via {
        match self {
            Channel::Socket => Via::Socket,
            Channel::AppServer => Via::AppServer,
            Channel::Typed => Via::Typed,
        }
    }
}

/// The channel chosen for one agent, why, and where a post goes.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The channel.
    pub channel: Channel,
    /// Why, for a person (`swarm doctor`, `swarm agents --json`).
    pub why: String,
    /// Where a native post goes (`Route::Typed` for typing).
    pub(crate) route: Route,
}

impl Choice {
    /// Typed, with the reason.
    pub(crate) fn typed(why: impl Into<String>) -> Choice {
        Choice {
            channel: Channel::Typed,
            why: why.into(),
            route: Route::Typed,
        }
    }

    /// True when a message goes through the agent's own channel.
    pub fn is_native(&self) -> bool {
        self.channel != Channel::Typed
    }

    /// True when the agent holds what comes on its channel for the
    /// person's approval (Claude Code bypassing permissions without
    /// `crossSessionInbound = "accept"`).
    pub fn holds_for_approval(&self) -> bool {
        matches!(&self.route, Route::Socket(e) if e.inbound == Inbound::Hold)
    }
}

/// Where a native post goes.
#[derive(Clone, Debug)]
pub(crate) enum Route {
    /// Claude Code's socket, found through its session file.
    Socket(claude::Endpoint),
    /// Codex CLI's app server, found through its TUI's command line.
    AppServer(codex::Endpoint),
    /// Typed into the pane.
    Typed,
}

/// What the agent process of a pane tells about its native channel: the
/// agent, what runs, and where its own files are.
#[derive(Clone, Debug)]
pub(crate) struct Recipient {
    /// The agent process (found in the pane).
    pub pid: u32,
    /// Its command as discovery names it (`claude`, `codex`, `swarm-demo`).
    pub command: String,
    /// Where Claude Code keeps its files for it: its `CLAUDE_CONFIG_DIR`,
    /// else `.claude` in its own `HOME`.
    pub claude_dir: Option<PathBuf>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
    /// Its command line (a permission mode given there).
    pub argv: Vec<String>,
    /// The user it runs as, when the process view can tell (its session
    /// file and socket must be that user's).
    pub uid: Option<u32>,
}

impl Recipient {
    /// The agent process of the pane rooted at `pane_pid`, with the facts
    /// `view` gives; `None` when no agent runs there.
    pub(crate) fn of_pane(
        matcher: &AgentMatcher,
        view: &impl ProcessView,
        agent: &str,
        pane_pid: u32,
    ) -> Option<Recipient> {
        let found = matcher.find_in_pane(view, pane_pid)?;
        let command = found.command;
        if !speaks_claude(&command) {
            // Nothing else of it is needed to choose but its command line
            // (a Codex TUI names its app server there).
            return Some(Recipient {
                pid: found.pid,
                command,
                claude_dir: None,
                cwd: None,
                argv: view.argv(found.pid).unwrap_or_default(),
                uid: view.uid(found.pid),
            });
        }
        let home = locate::agent_home(matcher, view, agent, pane_pid)?;
        let argv = view.argv(home.pid).unwrap_or_default();
        let uid = view.uid(home.pid);
        Some(Recipient::from_home(&home, command, argv, uid))
    }

    /// From what the usage reader found of the agent.
    pub(crate) fn from_home(
        home: &AgentHome,
        command: String,
        argv: Vec<String>,
        uid: Option<u32>,
    ) -> Recipient {
        Recipient {
            pid: home.pid,
            command,
            claude_dir: home
                .claude_dir
                .clone()
                .or_else(|| home.home.as_ref().map(|h| h.join(".claude"))),
            cwd: home.cwd.clone(),
            argv,
            uid,
        }
    }

    /// True for an agent that speaks Claude Code's socket protocol.
    fn speaks_claude(&self) -> bool {
        speaks_claude(&self.command)
    }
}

/// True for an agent command that speaks Claude Code's socket protocol
/// (Claude Code, and the demo agent playing it).
fn speaks_claude(command: &str) -> bool {
    UsageSource::of_command(command) == Some(UsageSource::Claude) || command == DEMO_AGENT
}

/// The channel a normal message to `agent`, whose pane's root process is
/// `pane_pid`, would take now under `mode` (`[delivery] native`) and the
/// agent's profile: what `swarm agents --json` and `swarm doctor` show.
pub fn channel_of(
    matcher: &AgentMatcher,
    profiles: &Profiles,
    agent: &str,
    pane_pid: u32,
    mode: NativeMode,
) -> Choice {
    let recipient = matcher
        .processes()
        .survey()
        .ok()
        .and_then(|view| Recipient::of_pane(matcher, &view, agent, pane_pid));
    let mode = recipient
        .as_ref()
        .map_or(mode, |r| mode.and(profiles.for_command(&r.command).native));
    choose(mode, recipient.as_ref(), Urgency::Normal)
}

/// The channel for a message of `urgency` to `recipient` (`None`: no agent
/// found in its pane), under `mode` (the config's and the profile's word
/// together: off when either says off).
pub(crate) fn choose(mode: NativeMode, recipient: Option<&Recipient>, urgency: Urgency) -> Choice {
    if mode == NativeMode::Off {
        return Choice::typed("native delivery is off ([delivery] native = \"off\")");
    }
    let Some(r) = recipient else {
        return Choice::typed("no agent process found in the pane");
    };
    if r.speaks_claude() {
        if !urgency.waits_for_turn() {
            return Choice::typed(
                "an urgent message is typed: Claude Code's socket cannot go in mid-turn",
            );
        }
        return match claude::Endpoint::find(r) {
            Ok(endpoint) => Choice {
                channel: Channel::Socket,
                why: format!(
                    "socket found and bound ({})",
                    endpoint.socket_path().display()
                ),
                route: Route::Socket(endpoint),
            },
            Err(why) => Choice::typed(why),
        };
    }
    if UsageSource::of_command(&r.command) == Some(UsageSource::Codex) {
        // An interrupt stops the turn with the key the profile names, as
        // typed; an urgent message goes into the running turn (steer).
        if urgency == Urgency::Interrupt {
            return Choice::typed("an interrupting message is typed: the turn is stopped first");
        }
        return match codex::Endpoint::of_tui(&r.argv) {
            Ok(endpoint) => Choice {
                channel: Channel::AppServer,
                why: format!("app server of its pane ({})", endpoint.path.display()),
                route: Route::AppServer(endpoint),
            },
            Err(why) => Choice::typed(why),
        };
    }
    Choice::typed(format!("{} has no native channel", r.command))
}

/// What posting a message through a native channel did.
#[derive(Debug)]
pub(crate) enum Post {
    /// The whole message was written: from here on it is the agent's, and
    /// is never typed. `Receipt` finds the agent's record of it.
    Accepted(Receipt),
    /// Nothing was written (no session file, socket not bound, connection
    /// refused, protocol error): typing may go ahead. Why.
    Refused(String),
}

/// What finds the agent's record of a posted message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Receipt {
    /// The channel it went through.
    pub channel: Channel,
    /// The message's id.
    pub msg_id: String,
    /// Its pane header, which the posted text starts with and ends with
    /// the id: how the agent's record of it is found.
    pub marker: String,
    /// The agent's transcript (or other record) that will show it.
    pub record: PathBuf,
    /// How long the record file was before the post: the agent's record
    /// of this message comes after.
    pub offset: u64,
    /// Only part of the message was written (the write failed midway):
    /// the agent may have taken nothing, or a cut message.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut_short: bool,
}

/// What the agent's own records say of a message posted to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Confirmation {
    /// Taken as a turn's input: delivered, confirmed by this.
    Delivered(ConfirmedBy),
    /// Queued by the agent (busy): it takes it when its turn ends.
    Accepted,
    /// The agent holds it for the person's approval.
    AwaitingApproval,
    /// Held for approval and never approved: gone.
    Expired,
    /// Removed from the agent's queue without being taken.
    Dropped,
    /// No record of it yet.
    Unconfirmed,
}

impl Confirmation {
    /// True once nothing more can happen to it.
    pub(crate) fn is_final(self) -> bool {
        matches!(
            self,
            Confirmation::Delivered(_) | Confirmation::Expired | Confirmation::Dropped
        )
    }
}

/// How long a sender waits for the agent's record of a posted message.
pub(crate) const RECEIPT_WAIT: Duration = Duration::from_secs(3);

/// The outcome a confirmation state stands for.
pub(crate) fn outcome_of(
    state: Confirmation,
    inbound: Inbound,
    cut_short: bool,
    via: Via,
) -> DeliveryOutcome {
    let cut = cut_short.then(|| "only part of the message could be written".to_owned());
    match state {
        Confirmation::Delivered(by) => DeliveryOutcome::native(DeliveryStatus::Delivered, via, Some(by), cut),
        Confirmation::Accepted => DeliveryOutcome::native(
            DeliveryStatus::Accepted,
            via,
            None,
            Some("the agent is busy: it takes the message when its turn ends".into()),
        ),
        Confirmation::AwaitingApproval => DeliveryOutcome::native(
            DeliveryStatus::AwaitingApproval,
            via,
            None,
            Some(HOLD_NOTE.into()),
        ),
        // Only the agent's own record of a hold says it holds it: the
        // settings read may be wrong, so they only explain the silence.
        Confirmation::Unconfirmed if inbound == Inbound::Hold => DeliveryOutcome::native(
            DeliveryStatus::Unconfirmed,
            via,
            None,
            Some(format!(
                "written to the agent's socket; no record of it in its transcript within {}s. {HOLD_LIKELY}",
                RECEIPT_WAIT.as_secs()
            )),
        ),
        Confirmation::Unconfirmed => DeliveryOutcome::native(
            DeliveryStatus::Unconfirmed,
            via,
            None,
            Some(cut.unwrap_or_else(|| {
                format!(
                    "written to the agent's socket; no record of it in its transcript within {}s (it is never typed as well)",
                    RECEIPT_WAIT.as_secs()
                )
            })),
        ),
        Confirmation::Expired => DeliveryOutcome::native(
            DeliveryStatus::Expired,
            via,
            None,
            Some("held for the person's approval and never approved".into()),
        ),
        Confirmation::Dropped => DeliveryOutcome::native(
            DeliveryStatus::Dropped,
            via,
            None,
            Some("the agent removed it from its queue without taking it".into()),
        ),
    }
}

/// Why a Claude Code session that wrote nothing of a message may be
/// holding it.
const HOLD_LIKELY: &str = "Its settings suggest it holds messages from other sessions for your \
     approval (it bypasses permissions and its crossSessionInbound setting is not \"accept\")";

/// Why a message waits for the person in a Claude Code session.
const HOLD_NOTE: &str = "Claude Code holds messages from other sessions for your approval here \
     (it bypasses permissions and its crossSessionInbound setting is not \"accept\"): approve it \
     in the agent, or it expires after 5 minutes";
