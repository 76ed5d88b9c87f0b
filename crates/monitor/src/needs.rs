//! Who needs the person, as the monitor shows it: each agent's most
//! urgent need (an open attention episode, messages held for it, a dialog
//! on its screen that the watcher has not raised yet), on the scale the
//! tmux status line and the dashboard use (`attention::notice::notice_urgency`);
//! the agents in that order, each with its mark; and which waiting dialog
//! the answer keys act on.

use chrono::{DateTime, Utc};

use swarm_core::{AgentRecord, EventKind, HELD_URGENCY, notice_urgency};

use super::state::MonitorState;

/// An agent's most urgent need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Need {
    /// Higher is more urgent.
    pub urgency: u8,
    /// Since when (`None`: seen on its screen only, newest).
    pub since: Option<DateTime<Utc>>,
    /// A few words (`needs you`), empty for held messages (the row says
    /// those already).
    pub headline: &'static str,
    /// What it asks or says.
    pub detail: String,
    /// It waits in a dialog: the answer keys can answer it.
    pub asks: bool,
}

/// The mark of an agent that needs the person now (a dialog, an exit,
/// held messages) and of one that only has news for them, as tmux's
/// window marks (`attention::status`).
pub(crate) const URGENT_MARK: char = '!';
/// See `URGENT_MARK`.
pub(crate) const NEWS_MARK: char = '*';
/// The mark of the agent whose dialog the answer keys act on.
pub(crate) const SELECTED_MARK: char = '▶';

impl MonitorState {
    /// What `agent` needs most, if anything.
    pub(crate) fn need_of(&self, agent: &str) -> Option<Need> {
        let mut needs: Vec<Need> = self
            .episodes
            .iter()
            .filter(|e| e.agent == agent && e.kind.is_attention())
            .map(|e| Need {
                urgency: notice_urgency(e.kind),
                since: Some(e.since.utc()),
                headline: e.kind.headline(),
                detail: e.detail.clone(),
                asks: e.kind == EventKind::NeedsInput,
            })
            .collect();
        let screen = self.screens.get(agent);
        if let Some(s) = screen.filter(|s| s.state == "dialog")
            && !needs.iter().any(|n| n.asks)
        {
            needs.push(Need {
                urgency: notice_urgency(EventKind::NeedsInput),
                since: None,
                headline: EventKind::NeedsInput.headline(),
                detail: s
                    .dialog
                    .as_ref()
                    .map(|d| d.question.clone())
                    .unwrap_or_default(),
                asks: true,
            });
        }
        if let Some(s) = screen.filter(|s| s.held > 0) {
            needs.push(Need {
                urgency: HELD_URGENCY,
                since: s
                    .held_for
                    .and_then(|d| chrono::Duration::from_std(d).ok())
                    .map(|d| self.now - d),
                headline: "",
                detail: String::new(),
                asks: false,
            });
        }
        // The most urgent; of equals, the oldest.
        needs
            .into_iter()
            .min_by_key(|n| (std::cmp::Reverse(n.urgency), n.since.is_none(), n.since))
    }

    /// The registered agents, those who need the person first (most
    /// urgent first, then oldest first, so that a new dialog never jumps
    /// ahead of one already waiting), the others in registry order.
    pub(crate) fn agent_order(&self) -> Vec<(&AgentRecord, Option<Need>)> {
        let list = self
            .status
            .registry
            .as_ref()
            .map(|r| r.agents.as_slice())
            .unwrap_or_default();
        let mut agents: Vec<(&AgentRecord, Option<Need>)> = list
            .iter()
            .map(|a| (a, self.need_of(a.id.as_str())))
            .collect();
        agents.sort_by_key(|(_, n)| match n {
            Some(n) => (std::cmp::Reverse(n.urgency), n.since.is_none(), n.since),
            None => (std::cmp::Reverse(0), true, None),
        });
        agents
    }

    /// The agents waiting in a dialog, in the order shown.
    pub(crate) fn waiting(&self) -> Vec<String> {
        self.agent_order()
            .into_iter()
            .filter(|(_, n)| n.as_ref().is_some_and(|n| n.asks))
            .map(|(a, _)| a.id.to_string())
            .collect()
    }

    /// The agent whose dialog the answer keys act on: the one chosen with
    /// Tab while it still waits, else the one that has waited longest.
    pub(crate) fn answering(&self) -> Option<String> {
        let waiting = self.waiting();
        self.selected
            .clone()
            .filter(|s| waiting.contains(s))
            .or_else(|| waiting.into_iter().next())
    }

    /// Chooses the next (or, `back`, the previous) waiting agent.
    pub(crate) fn select_next(&mut self, back: bool) -> Option<String> {
        let waiting = self.waiting();
        if waiting.is_empty() {
            return None;
        }
        let at = self
            .answering()
            .and_then(|a| waiting.iter().position(|w| *w == a))
            .unwrap_or(0);
        let n = waiting.len();
        let next = if back { (at + n - 1) % n } else { (at + 1) % n };
        self.selected = Some(waiting[next].clone());
        self.selected.clone()
    }

    /// The mark before an agent's row: selected, urgent, news or none.
    pub(crate) fn mark_of(
        &self,
        agent: &str,
        need: Option<&Need>,
        answering: Option<&str>,
    ) -> char {
        if answering == Some(agent) {
            return SELECTED_MARK;
        }
        match need {
            Some(n) if n.urgency >= HELD_URGENCY => URGENT_MARK,
            Some(_) => NEWS_MARK,
            None => ' ',
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{AgentScreen, ScreenDialog};
    use chrono::FixedOffset;
    use swarm_core::OpenEpisode;
    use swarm_core::{AgentId, Timestamp};
    use swarm_core::{AgentStatus, Registry};

    const NOW: f64 = 1_795_267_578.0;

    fn state(agents: &[&str]) -> MonitorState {
        let now = swarm_core::support::time::from_unix_seconds(NOW).expect("time");
        let mut s = MonitorState::new("/p".into(), now, FixedOffset::east_opt(0).expect("utc"));
        let mut reg = Registry::empty(String::new());
        reg.agents = agents
            .iter()
            .map(|id| AgentRecord {
                id: AgentId::parse(id).expect("an agent id"),
                pane_index: "s:0.0".into(),
                pid: 1,
                status: AgentStatus::Active,
                last_seen: String::new(),
                session_name: "s".into(),
                tmux_pane_id: None,
                host: None,
            })
            .collect();
        s.set_registry(Some(reg));
        s
    }

    fn open(agent: &str, kind: EventKind, ago: f64, detail: &str) -> OpenEpisode {
        OpenEpisode {
            agent: agent.into(),
            kind,
            episode: 1,
            since: Timestamp::from_unix_seconds(NOW - ago).expect("time"),
            detail: detail.into(),
        }
    }

    fn screen(agent: &str, state: &str, held: usize) -> AgentScreen {
        AgentScreen {
            agent: agent.into(),
            state: state.into(),
            held,
            held_reason: (held > 0).then(|| "someone is typing".into()),
            held_for: (held > 0).then(|| std::time::Duration::from_secs(30)),
            dialog: (state == "dialog").then(|| ScreenDialog {
                question: "Proceed?".into(),
                options: vec![(1, "Yes".into()), (2, "No".into())],
                fingerprint: "f".into(),
            }),
            limited: None,
        }
    }

    fn order(s: &MonitorState) -> Vec<String> {
        s.agent_order()
            .into_iter()
            .map(|(a, _)| a.id.to_string())
            .collect()
    }

    #[test]
    fn who_needs_the_person_comes_first_most_urgent_then_oldest() {
        let mut s = state(&[
            "agent-0", "agent-1", "agent-2", "agent-3", "agent-4", "agent-5",
        ]);
        s.set_episodes(vec![
            open("agent-5", EventKind::Finished, 300.0, ""),
            open("agent-4", EventKind::Stuck, 200.0, ""),
            open(
                "agent-1",
                EventKind::NeedsInput,
                100.0,
                "Run the migration?",
            ),
            open("agent-2", EventKind::Exited, 90.0, "its pane shows a shell"),
            open("agent-3", EventKind::NeedsInput, 50.0, "Delete the branch?"),
            open("agent-4", EventKind::Message, 10.0, "done?"),
        ]);
        s.set_screens(vec![screen("agent-0", "idle", 2)]);
        // Dialogs (oldest first), the exit, held messages, then the
        // message (agent-4's most urgent), the finished turn; nobody else.
        assert_eq!(
            order(&s),
            [
                "agent-1", "agent-3", "agent-2", "agent-0", "agent-4", "agent-5"
            ]
        );
        assert_eq!(s.waiting(), ["agent-1", "agent-3"]);
        assert_eq!(s.answering().as_deref(), Some("agent-1"));
        let need = s.need_of("agent-4").expect("a need");
        assert_eq!(
            (need.headline, need.detail.as_str()),
            ("wrote to you", "done?")
        );
        // Marks: the selected dialog, urgent, news, none.
        let mark = |s: &MonitorState, id: &str| {
            s.mark_of(id, s.need_of(id).as_ref(), s.answering().as_deref())
        };
        assert_eq!(mark(&s, "agent-1"), SELECTED_MARK);
        assert_eq!(mark(&s, "agent-3"), URGENT_MARK);
        assert_eq!(mark(&s, "agent-0"), URGENT_MARK, "held messages");
        assert_eq!(mark(&s, "agent-5"), NEWS_MARK);
        s.set_episodes(Vec::new());
        s.set_screens(Vec::new());
        assert_eq!(mark(&s, "agent-5"), ' ');
        assert_eq!(
            order(&s),
            [
                "agent-0", "agent-1", "agent-2", "agent-3", "agent-4", "agent-5"
            ]
        );
    }

    #[test]
    fn the_answer_keys_answer_the_marked_dialog_and_name_it() {
        use crate::state::{Action, Answering, Level, Reply};
        use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let press =
            |s: &mut MonitorState, c: KeyCode| s.handle_key(KeyEvent::new(c, KeyModifiers::NONE));
        let mut s = state(&["agent-0", "agent-1"]);
        assert_eq!(press(&mut s, KeyCode::Char('y')), Action::None);
        assert_eq!(
            s.notice.as_ref().map(|n| n.level),
            Some(Level::Warn),
            "nobody waits"
        );
        s.set_episodes(vec![open(
            "agent-1",
            EventKind::NeedsInput,
            5.0,
            "Proceed?",
        )]);
        s.set_screens(vec![screen("agent-1", "dialog", 0)]);
        let answering = |reply| {
            Action::Answer(Answering {
                agent: "agent-1".into(),
                reply,
                dialog: Some("f".into()),
            })
        };
        assert_eq!(press(&mut s, KeyCode::Char('n')), answering(Reply::No));
        assert_eq!(press(&mut s, KeyCode::Char('y')), answering(Reply::Yes));
        assert_eq!(
            press(&mut s, KeyCode::Char('2')),
            answering(Reply::Option(2))
        );
        assert_eq!(press(&mut s, KeyCode::Char('x')), answering(Reply::Cancel));
        assert!(
            s.notice
                .as_ref()
                .is_some_and(|n| n.text.contains("answering agent-1")),
            "{:?}",
            s.notice
        );
        // `0` is no option; Esc still quits.
        assert_eq!(press(&mut s, KeyCode::Char('0')), Action::None);
        assert_eq!(press(&mut s, KeyCode::Esc), Action::Quit);
    }

    #[test]
    fn tab_moves_the_answer_keys_between_waiting_dialogs() {
        let mut s = state(&["agent-0", "agent-1", "agent-2"]);
        assert_eq!(s.select_next(false), None, "nobody waits");
        s.set_episodes(vec![open("agent-2", EventKind::NeedsInput, 60.0, "A?")]);
        // A dialog on screen the watcher has not raised yet waits too,
        // after those it has.
        s.set_screens(vec![screen("agent-0", "dialog", 0)]);
        assert_eq!(s.waiting(), ["agent-2", "agent-0"]);
        assert_eq!(s.need_of("agent-0").expect("a need").detail, "Proceed?");
        assert_eq!(s.select_next(false).as_deref(), Some("agent-0"));
        assert_eq!(s.answering().as_deref(), Some("agent-0"));
        assert_eq!(s.select_next(false).as_deref(), Some("agent-2"));
        assert_eq!(s.select_next(true).as_deref(), Some("agent-0"));
        // The chosen one's dialog goes: the keys fall back to the first.
        s.set_screens(Vec::new());
        assert_eq!(s.answering().as_deref(), Some("agent-2"));
    }
}
