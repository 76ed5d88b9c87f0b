//! Which notice each tmux session of the project shows, and which of its
//! windows are marked: the notices (`notice.rs`) of the agents whose panes
//! are in that session, from the panes as tmux lists them.

use std::collections::BTreeMap;

use crate::attention::episodes::episode_store::OpenEpisode;
use crate::attention::notice::{HeldFor, Notice, notices, status_text};
use crate::tmux::{Pane, SessionNotice};

/// The longest notice shown.
const STATUS_CHARS: usize = 100;

/// A window's mark when an agent in it needs the person now (a dialog, an
/// exit, held messages), and when it only has news for them.
const URGENT_MARK: &str = "!";
const NEWS_MARK: &str = "*";

/// The notice of every session holding one of this project's agent panes
/// (`project`: the project's fingerprint, as the panes are labelled), in
/// session order, with every window of it that holds an agent.
pub(crate) fn session_notices(
    panes: &[Pane],
    project: &str,
    open: &[OpenEpisode],
    held: &[HeldFor],
) -> Vec<SessionNotice> {
    let all = notices(open, held);
    let mut sessions: BTreeMap<&str, BTreeMap<u32, Vec<&str>>> = BTreeMap::new();
    for p in panes {
        let (Some(agent), Some(label)) = (&p.agent_label, &p.project_label) else {
            continue;
        };
        if label != project {
            continue;
        }
        sessions
            .entry(p.session.as_str())
            .or_default()
            .entry(p.window_index)
            .or_default()
            .push(agent.as_str());
    }
    sessions
        .into_iter()
        .map(|(session, windows)| {
            let in_session: Vec<&Notice> = all
                .iter()
                .filter(|n| windows.values().any(|a| a.contains(&n.agent.as_str())))
                .collect();
            let marks = windows
                .iter()
                .map(|(w, agents)| {
                    let top = all
                        .iter()
                        .filter(|n| agents.contains(&n.agent.as_str()))
                        .map(|n| n.urgency)
                        .max();
                    let mark = top.map(|u| if u >= 5 { URGENT_MARK } else { NEWS_MARK }.to_owned());
                    (*w, mark)
                })
                .collect();
            SessionNotice {
                session: session.to_owned(),
                text: status_text(&in_session, STATUS_CHARS),
                windows: marks,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::event::EventKind;
    use crate::domain::{PaneId, Timestamp};

    fn pane(id: u32, session: &str, window: u32, agent: &str, project: &str) -> Pane {
        Pane {
            id: format!("%{id}").parse::<PaneId>().expect("test value"),
            pid: 100 + id,
            session: session.into(),
            window_index: window,
            pane_index: 0,
            dead: false,
            agent_label: Some(agent.into()),
            project_label: Some(project.into()),
            current_path: None,
            server: "1:1".into(),
        }
    }

    #[test]
    fn each_session_shows_its_own_agents() {
        let panes = [
            pane(1, "a", 0, "agent-1", "p"),
            pane(2, "a", 1, "agent-2", "p"),
            pane(3, "b", 0, "agent-3", "p"),
            pane(4, "c", 0, "agent-9", "other-project"),
        ];
        let open = [OpenEpisode {
            agent: "agent-2".into(),
            kind: EventKind::NeedsInput,
            episode: 1,
            since: Timestamp::now(),
            detail: "Proceed?".into(),
        }];
        let n = session_notices(&panes, "p", &open, &[]);
        assert_eq!(n.len(), 2);
        assert_eq!(n[0].session, "a");
        assert_eq!(n[0].text.as_deref(), Some("agent-2 needs you: Proceed?"));
        assert_eq!(n[0].windows, [(0, None), (1, Some("!".to_owned()))]);
        assert_eq!(n[1].session, "b");
        assert_eq!(n[1].text, None);
    }
}
