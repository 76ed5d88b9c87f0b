//! `.swarm/pane_states.json`: what the watcher's last round saw in each of
//! this host's agent panes. The watcher looks at every screen once a
//! second anyway; `swarm agents` shows its states while they are fresh
//! instead of listing the panes and capturing every screen again
//! (docs/FORMATS.md). The file is derived: it is written without an fsync,
//! and a missing, damaged, old or mismatched one only means looking anew.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::agents::pane_state::{PaneState, Sight};
use crate::agents::registry::AgentRecord;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::sanitize;
use crate::tmux::Server;

/// How old a round's states may be and still be shown: the watcher
/// looks once a second, so a running watcher's file is always fresher.
pub const FRESH_FOR: Duration = Duration::from_millis(1500);

/// The file's format version.
const VERSION: u32 = 1;

/// The longest state, profile name or reason taken from the file.
const MAX_TEXT: usize = 300;

/// One round's states (the default: none, never fresh).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenStates {
    /// The format's version.
    pub version: u32,
    /// When the round looked, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The socket of the tmux server it looked at.
    pub socket: String,
    /// Each agent of this host the round looked at.
    pub agents: Vec<SeenState>,
}

/// One agent's pane as the round saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenState {
    /// The agent's id.
    pub agent: String,
    /// Its pane, as the registry had it then.
    pub pane: Option<String>,
    /// Its process, as the registry had it then.
    pub pid: u32,
    /// What the pane showed.
    #[serde(flatten)]
    pub state: PaneState,
}

impl SeenState {
    /// What a round saw of `agent`.
    pub(crate) fn of(agent: &AgentRecord, state: PaneState) -> SeenState {
        SeenState {
            agent: agent.id.as_str().to_owned(),
            pane: agent.tmux_pane_id.as_ref().map(|p| p.as_str().to_owned()),
            pid: agent.pid,
            state,
        }
    }

    /// Whether this was seen of `agent` in the pane and process the
    /// registry has for it now.
    fn is_of(&self, agent: &AgentRecord) -> bool {
        self.agent == agent.id.as_str()
            && self.pid == agent.pid
            && self.pane.as_deref() == agent.tmux_pane_id.as_ref().map(|p| p.as_str())
    }
}

/// Fresh states for a listing, and how old they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fresh {
    /// One per agent asked about, in order.
    pub states: Vec<PaneState>,
    /// How long ago the round looked.
    pub age: Duration,
}

impl SeenStates {
    /// A round's states, looked at `at` on the tmux server `server`.
    pub(crate) fn new(at: SystemTime, server: &Server, agents: Vec<SeenState>) -> SeenStates {
        let at_ms = at
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        SeenStates {
            version: VERSION,
            at_ms,
            socket: socket_of(server),
            agents,
        }
    }

    /// Replaces the file (atomically; no fsync: it is rewritten each round).
    pub(crate) fn write(&self, paths: &Paths) -> Result<(), StoreError> {
        let file = StateFile::new(paths.pane_states());
        let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let bytes = serde_json::to_vec(self).map_err(|e| StoreError::Corrupt {
            path: paths.pane_states(),
            reason: e.to_string(),
        })?;
        file.write_unsynced(&lock, &bytes)
    }

    /// The states of `agents`, in order, from the watcher's last round, when
    /// that round looked at most `FRESH_FOR` before `now`, on `server`, and
    /// saw each agent of this host (`here`: this host's name on a shared
    /// store) in the pane and process the registry has for it. Agents of
    /// other hosts read as `remote`, as a look would say. `None`: look anew.
    pub fn fresh_for(
        paths: &Paths,
        server: &Server,
        agents: &[&AgentRecord],
        here: Option<&str>,
        now: SystemTime,
    ) -> Option<Fresh> {
        let Ok(Loaded::Valid(seen)) = StateFile::new(paths.pane_states()).read_json::<SeenStates>()
        else {
            return None;
        };
        if seen.version != VERSION || seen.socket != socket_of(server) {
            return None;
        }
        let now_ms = now.duration_since(UNIX_EPOCH).ok()?.as_millis();
        // A round from the future (a clock set back, a hand-edited file) is
        // not trusted either.
        let age =
            Duration::from_millis(u64::try_from(now_ms.checked_sub(u128::from(seen.at_ms))?).ok()?);
        if age > FRESH_FOR {
            return None;
        }
        let states = agents
            .iter()
            .map(|a| match a.elsewhere(here) {
                Some(there) => Some(PaneState::from_sight(
                    &Sight::Remote(there.to_owned()),
                    a.id.as_str(),
                )),
                None => seen
                    .agents
                    .iter()
                    .find(|s| s.is_of(a))
                    .map(|s| clean(s.state.clone())),
            })
            .collect::<Option<Vec<PaneState>>>()?;
        Some(Fresh { states, age })
    }
}

/// Writes a round's states each round; a failure only makes `swarm
/// agents` look for itself, so it is said once, until writing works again.
#[derive(Debug, Default)]
pub(crate) struct RoundWriter {
    failing: bool,
}

impl RoundWriter {
    /// Writes `states`; a warning to say the first time it fails.
    pub(crate) fn write(&mut self, paths: &Paths, states: &SeenStates) -> Option<String> {
        match states.write(paths) {
            Ok(()) => {
                self.failing = false;
                None
            }
            Err(e) => (!std::mem::replace(&mut self.failing, true)).then(|| {
                format!("could not write the panes' states (swarm agents looks for itself): {e}")
            }),
        }
    }
}

/// How a server is named in the file: its socket's path.
fn socket_of(server: &Server) -> String {
    server.socket_path().to_string_lossy().into_owned()
}

/// A state read from the file, made safe to print: one line each, bounded.
fn clean(state: PaneState) -> PaneState {
    let line = |s: &str| {
        sanitize::one_line(s)
            .chars()
            .take(MAX_TEXT)
            .collect::<String>()
    };
    PaneState {
        state: line(&state.state),
        profile: state.profile.as_deref().map(line),
        deliverable: state.deliverable,
        reason: state.reason.as_deref().map(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::registry::AgentStatus;

    fn agent(id: &str, pane: &str, pid: u32, host: Option<&str>) -> AgentRecord {
        AgentRecord {
            id: id.parse().expect("an agent id"),
            pane_index: format!("s:0.{pid}"),
            pid,
            status: AgentStatus::Active,
            last_seen: String::new(),
            session_name: "s".into(),
            tmux_pane_id: Some(pane.parse().expect("a pane id")),
            host: host.map(str::to_owned),
        }
    }

    fn server() -> Server {
        Server::Named("seen-states-test".into())
    }

    fn idle() -> PaneState {
        PaneState {
            state: "idle".into(),
            profile: Some("claude".into()),
            deliverable: true,
            reason: None,
        }
    }

    #[test]
    fn fresh_states_are_shown_and_old_or_mismatched_ones_are_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        let a0 = agent("agent-0", "%1", 100, None);
        let a1 = agent("agent-1", "%2", 200, None);
        let at = SystemTime::now();
        assert_eq!(
            SeenStates::fresh_for(&paths, &server(), &[&a0], None, at),
            None
        );
        SeenStates::new(
            at,
            &server(),
            vec![SeenState::of(&a0, idle()), SeenState::of(&a1, idle())],
        )
        .write(&paths)
        .expect("write");
        let later = at + Duration::from_millis(400);
        let fresh =
            SeenStates::fresh_for(&paths, &server(), &[&a1, &a0], None, later).expect("fresh");
        assert_eq!(fresh.states, vec![idle(), idle()]);
        assert!(fresh.age >= Duration::from_millis(399), "{:?}", fresh.age);
        // Too old, from the future, or an agent in another pane or process.
        assert_eq!(
            SeenStates::fresh_for(
                &paths,
                &server(),
                &[&a0],
                None,
                at + FRESH_FOR + Duration::from_millis(5)
            ),
            None
        );
        assert_eq!(
            SeenStates::fresh_for(&paths, &server(), &[&a0], None, at - Duration::from_secs(2)),
            None
        );
        let moved = agent("agent-0", "%9", 100, None);
        assert_eq!(
            SeenStates::fresh_for(&paths, &server(), &[&moved], None, later),
            None
        );
        let restarted = agent("agent-1", "%2", 201, None);
        assert_eq!(
            SeenStates::fresh_for(&paths, &server(), &[&a0, &restarted], None, later),
            None
        );
        // Another tmux server's round says nothing of this one's panes.
        let other = Server::Named("another".into());
        assert_eq!(
            SeenStates::fresh_for(&paths, &other, &[&a0], None, later),
            None
        );
        // An agent of another host needs no look of this one.
        let remote = agent("agent-7", "%3", 300, Some("other"));
        let fresh = SeenStates::fresh_for(&paths, &server(), &[&remote, &a0], Some("here"), later)
            .expect("fresh");
        assert_eq!(fresh.states[0].state, "remote");
    }

    #[test]
    fn a_hostile_file_is_refused_or_made_printable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        let a0 = agent("agent-0", "%1", 100, None);
        let now = SystemTime::now();
        for junk in ["", "{", "[]", "{\"version\": 1}", "\u{0}\u{1}"] {
            std::fs::write(paths.pane_states(), junk).expect("write");
            assert_eq!(
                SeenStates::fresh_for(&paths, &server(), &[&a0], None, now),
                None,
                "{junk:?}"
            );
        }
        let mut evil = idle();
        evil.state = format!("idle\x1b[2J\n{}", "x".repeat(5000));
        evil.reason = Some("\x07bell".into());
        SeenStates::new(now, &server(), vec![SeenState::of(&a0, evil)])
            .write(&paths)
            .expect("write");
        let fresh = SeenStates::fresh_for(&paths, &server(), &[&a0], None, now).expect("fresh");
        let s = &fresh.states[0];
        assert!(
            !s.state.contains(['\x1b', '\n']) && s.state.chars().count() <= MAX_TEXT,
            "{s:?}"
        );
        assert!(
            !s.reason.as_deref().unwrap_or_default().contains('\x07'),
            "{s:?}"
        );
    }
}
