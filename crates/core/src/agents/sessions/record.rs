//! One recorded session: its name, layout, working directory and agents,
//! each with the command it was started with and, where its program lets
//! swarm choose one, the id of its conversation. The shape is the one
//! `.swarm/sessions.json` and the Redis hash hold (docs/FORMATS.md).

use serde::{Deserialize, Serialize};

/// Version of the record's shape.
pub(crate) const VERSION: u32 = 1;

/// Whether a session was left running or stopped by `swarm down`. A
/// session left running whose panes are gone (the tmux server died) is
/// still `Running` here: what runs now is read from tmux, not from this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedState {
    /// Launched or resumed, and not stopped since.
    Running,
    /// Stopped by `swarm down` (its agents' locks were released).
    Stopped,
}

/// One agent of a recorded session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionAgent {
    /// The swarm id its pane had (and gets again on resume).
    pub id: String,
    /// The profile of its program (`claude`, `codex`, `gemini`, `aider`,
    /// `swarm-demo`), or `custom` for a `--cmd` command.
    pub kind: String,
    /// The command that starts it afresh, without any conversation
    /// arguments.
    pub command: String,
    /// The directory its pane works in.
    pub cwd: String,
    /// The id of its conversation, chosen by swarm at launch, when its
    /// program takes one (`None`: it has none, or its program does not
    /// let swarm choose it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
}

/// One recorded session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The tmux session name.
    pub name: String,
    /// Running or stopped, as swarm left it.
    pub state: RecordedState,
    /// The tmux layout of its window.
    pub layout: String,
    /// The project root it was launched in.
    pub cwd: String,
    /// The host it runs on (a shared store holds the sessions of every
    /// host; `None`: the files, one host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Whether a monitor pane was beside the agents.
    #[serde(default)]
    pub monitor: bool,
    /// When it was launched (UTC, ISO 8601).
    pub launched_at: String,
    /// When it was last resumed, if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_at: Option<String>,
    /// When `swarm down` stopped it, if it is stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<String>,
    /// Its agents, in pane order.
    pub agents: Vec<SessionAgent>,
}

impl SessionRecord {
    /// The agent with swarm id `id`.
    pub fn agent(&self, id: &str) -> Option<&SessionAgent> {
        self.agents.iter().find(|a| a.id == id)
    }
}

/// What runs of a recorded session now, read from tmux.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Liveness {
    /// Every agent has a live pane.
    Running,
    /// Some agents have a live pane, others do not.
    PartlyRunning,
    /// No agent has a live pane.
    Stopped,
}

impl Liveness {
    /// The liveness of a session of which `live` of `total` agents run.
    pub(crate) fn of(live: usize, total: usize) -> Liveness {
        if total > 0 && live == total {
            Liveness::Running
        } else if live == 0 {
            Liveness::Stopped
        } else {
            Liveness::PartlyRunning
        }
    }

    /// The word people read (`running`, `partly running`, `stopped`).
    pub fn words(self) -> &'static str {
        match self {
            Liveness::Running => "running",
            Liveness::PartlyRunning => "partly running",
            Liveness::Stopped => "stopped",
        }
    }
}

/// A record for tests: one agent, `agent-0`, of profile `kind`.
#[cfg(any(test, feature = "testing"))]
pub fn sample(name: &str, kind: &str) -> SessionRecord {
    SessionRecord {
        name: name.into(),
        state: RecordedState::Running,
        layout: "tiled".into(),
        cwd: "/p".into(),
        host: None,
        monitor: false,
        launched_at: "2026-11-26T10:00:00Z".into(),
        resumed_at: None,
        stopped_at: None,
        agents: vec![SessionAgent {
            id: "agent-0".into(),
            kind: kind.into(),
            command: kind.into(),
            cwd: "/p".into(),
            conversation: Some("0b8e0c4e-0000-4000-8000-000000000000".into()),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn liveness_counts_live_agents() {
        assert_eq!(Liveness::of(2, 2), Liveness::Running);
        assert_eq!(Liveness::of(1, 2), Liveness::PartlyRunning);
        assert_eq!(Liveness::of(0, 2), Liveness::Stopped);
        assert_eq!(Liveness::of(0, 0), Liveness::Stopped);
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let r = SessionRecord {
            state: RecordedState::Stopped,
            stopped_at: Some("2026-11-26T11:00:00Z".into()),
            ..sample("s", "claude")
        };
        let json = serde_json::to_string(&r).expect("json");
        assert!(json.contains("\"state\":\"stopped\""), "{json}");
        let back: SessionRecord = serde_json::from_str(&json).expect("parse");
        assert_eq!(back, r);
        assert_eq!(
            back.agent("agent-0").map(|a| a.kind.as_str()),
            Some("claude")
        );
    }
}
