//! swarm's notice in the status line of each tmux session of the swarm
//! (`notify.tmux`): after each look, the notice of what is open and held
//! (`attention::status`), shown where it changed; swarm's area is added
//! to a session's status formats the first time it has something to say.

use std::collections::{BTreeMap, BTreeSet};

use crate::attention::notice::HeldFor;
use crate::attention::status::session_notices;
use crate::backend::Operator;
use crate::messaging::held::held_store::HeldMessage;
use crate::tmux::{Pane, SessionNotice};

use super::outage::Tell;

/// What the status lines show, as last shown.
#[derive(Debug, Default)]
pub(super) struct StatusLines {
    /// Whether swarm shows notices in tmux at all.
    on: bool,
    /// The notice last shown in each session.
    shown: BTreeMap<String, SessionNotice>,
    /// Sessions whose status formats have swarm's area.
    areas: BTreeSet<String>,
}

impl StatusLines {
    /// Notices in the status lines when `on`.
    pub(super) fn new(on: bool) -> StatusLines {
        StatusLines {
            on,
            ..StatusLines::default()
        }
    }

    /// Shows each session's notice where it changed, over the server's
    /// `panes` and the messages `held` for a safe moment.
    pub(super) fn round(
        &mut self,
        op: &Operator,
        panes: &[Pane],
        held: &[HeldMessage],
        tell: &mut Tell<'_>,
    ) {
        if !self.on {
            return;
        }
        let open = match op.backend.episodes.open() {
            Ok(o) => o,
            Err(e) => return tell.failed("could not read open episodes", &e.into()),
        };
        let project = op.paths.fingerprint();
        let changed = self.changed(session_notices(panes, &project, &open, &held_for(held)));
        if changed.is_empty() {
            return;
        }
        for session in self.without_area(&changed) {
            match op.tmux.add_status_area(&session) {
                Ok(()) => {
                    self.areas.insert(session);
                }
                Err(e) => tell.warn(format!(
                    "could not add swarm's notice to the status line of {session}: {e}"
                )),
            }
        }
        match op.tmux.show_notices(&changed) {
            Ok(()) => {
                for n in changed {
                    self.shown.insert(n.session.clone(), n);
                }
            }
            Err(e) => tell.warn(format!("could not show swarm's notice in tmux: {e}")),
        }
    }

    /// The notices that differ from what their session shows.
    fn changed(&self, notices: Vec<SessionNotice>) -> Vec<SessionNotice> {
        notices
            .into_iter()
            .filter(|n| self.shown.get(&n.session) != Some(n))
            .collect()
    }

    /// The sessions that have something to say and not yet swarm's area.
    fn without_area(&self, changed: &[SessionNotice]) -> Vec<String> {
        changed
            .iter()
            .filter(|n| n.text.is_some() && !self.areas.contains(&n.session))
            .map(|n| n.session.clone())
            .collect()
    }
}

/// Held messages counted per agent.
fn held_for(held: &[HeldMessage]) -> Vec<HeldFor> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for h in held {
        *counts.entry(h.agent.as_str()).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(agent, count)| HeldFor {
            agent: agent.to_owned(),
            count,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{MessageId, Timestamp};

    fn notice(session: &str, text: Option<&str>) -> SessionNotice {
        SessionNotice {
            session: session.into(),
            text: text.map(str::to_owned),
            windows: Vec::new(),
        }
    }

    fn held(agent: &str, seq: u64) -> HeldMessage {
        HeldMessage {
            seq,
            msg_id: MessageId::from_stored(format!("m-{seq}")),
            agent: agent.parse().expect("agent"),
            text: "hi".into(),
            marker: "hi".into(),
            reason: "busy".into(),
            since: Timestamp::now(),
            urgency: Default::default(),
        }
    }

    #[test]
    fn only_what_changed_is_shown_and_an_area_is_added_once_there_is_something_to_say() {
        let mut lines = StatusLines::new(true);
        lines
            .shown
            .insert("s1".into(), notice("s1", Some("agent-1 needs you")));
        lines.areas.insert("s1".into());
        let changed = lines.changed(vec![
            notice("s1", Some("agent-1 needs you")),
            notice("s2", Some("agent-2 finished")),
            notice("s3", None),
        ]);
        let sessions: Vec<&str> = changed.iter().map(|n| n.session.as_str()).collect();
        assert_eq!(sessions, ["s2", "s3"]);
        assert_eq!(lines.without_area(&changed), ["s2"]);
    }

    #[test]
    fn held_messages_are_counted_per_agent() {
        let got = held_for(&[held("agent-2", 1), held("agent-1", 2), held("agent-2", 3)]);
        let counts: Vec<(&str, usize)> = got.iter().map(|h| (h.agent.as_str(), h.count)).collect();
        assert_eq!(counts, [("agent-1", 1), ("agent-2", 2)]);
    }
}
