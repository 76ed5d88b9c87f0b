//! What swarm's one area of a tmux status line says: the most urgent of
//! the notices of a session's agents (an open dialog before held
//! messages, an exit before a finished turn), recomputed from everything
//! still open each time something opens or closes, so that clearing one
//! notice never clears another's.

use crate::attention::episodes::episode_store::OpenEpisode;
use crate::attention::event::EventKind;
use crate::support::sanitize;

/// How urgent held messages are: after a dialog or an exit (which usually
/// hold them anyway), before everything else.
pub const HELD_URGENCY: u8 = 5;

/// One thing the person should know about one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Notice {
    /// The agent.
    pub agent: String,
    /// Higher is more urgent.
    pub urgency: u8,
    /// One line for people.
    pub text: String,
}

/// Messages held for one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeldFor {
    /// The agent.
    pub agent: String,
    /// How many.
    pub count: usize,
}

/// The notices of every agent, most urgent first (oldest first within
/// one urgency, as `open` comes).
pub(crate) fn notices(open: &[OpenEpisode], held: &[HeldFor]) -> Vec<Notice> {
    let mut out: Vec<Notice> = open
        .iter()
        .filter(|e| e.kind.is_attention())
        .map(|e| Notice {
            agent: e.agent.clone(),
            urgency: notice_urgency(e.kind),
            text: if e.detail.is_empty() {
                format!("{} {}", e.agent, e.kind.headline())
            } else {
                format!("{} {}: {}", e.agent, e.kind.headline(), e.detail)
            },
        })
        .chain(held.iter().filter(|h| h.count > 0).map(|h| Notice {
            agent: h.agent.clone(),
            urgency: HELD_URGENCY,
            text: format!(
                "{} message{} for {} waiting",
                h.count,
                if h.count == 1 { "" } else { "s" },
                h.agent
            ),
        }))
        .collect();
    out.sort_by_key(|n| std::cmp::Reverse(n.urgency));
    out
}

/// The status-line text for the notices of one session's agents: the most
/// urgent, cut to `max_chars`, with how many more wait; `None` when there
/// is nothing to say.
pub(crate) fn status_text(notices: &[&Notice], max_chars: usize) -> Option<String> {
    let first = notices.first()?;
    let more = notices.len() - 1;
    let suffix = if more > 0 {
        format!(" (+{more})")
    } else {
        String::new()
    };
    let room = max_chars.saturating_sub(suffix.chars().count()).max(8);
    let clean = sanitize::one_line(&first.text);
    let text: String = if clean.chars().count() > room {
        clean.chars().take(room - 1).chain(['…']).collect()
    } else {
        clean
    };
    Some(format!("{text}{suffix}"))
}

/// How urgent a condition of `kind` is, on the scale shared with held
/// messages (higher first): the order the status line, the monitor and
/// the dashboard all show notices in.
pub fn notice_urgency(kind: EventKind) -> u8 {
    match kind {
        EventKind::NeedsInput => 7,
        EventKind::Exited => 6,
        EventKind::TurnFailed => 5,
        EventKind::Budget => 4,
        EventKind::Message => 3,
        EventKind::Stuck => 2,
        EventKind::Finished => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Timestamp;

    fn open(agent: &str, kind: EventKind, detail: &str) -> OpenEpisode {
        OpenEpisode {
            agent: agent.into(),
            kind,
            episode: 1,
            since: Timestamp::now(),
            detail: detail.into(),
        }
    }

    #[test]
    fn a_dialog_comes_before_held_messages_and_a_finished_turn() {
        let n = notices(
            &[
                open("agent-2", EventKind::Finished, ""),
                open("agent-1", EventKind::NeedsInput, "Do you want to proceed?"),
            ],
            &[HeldFor {
                agent: "agent-3".into(),
                count: 2,
            }],
        );
        let all: Vec<&Notice> = n.iter().collect();
        assert_eq!(
            status_text(&all, 80).expect("test value"),
            "agent-1 needs you: Do you want to proceed? (+2)"
        );
        // The dialog is answered: what is left shows, nothing else cleared.
        let n = notices(
            &[open("agent-2", EventKind::Finished, "")],
            &[HeldFor {
                agent: "agent-3".into(),
                count: 2,
            }],
        );
        let all: Vec<&Notice> = n.iter().collect();
        assert_eq!(
            status_text(&all, 80).expect("test value"),
            "2 messages for agent-3 waiting (+1)"
        );
        assert_eq!(status_text(&[], 80), None);
    }

    #[test]
    fn long_text_is_cut_and_cleaned() {
        let n = notices(
            &[open(
                "agent-1",
                EventKind::NeedsInput,
                &"x\x1b[31m".repeat(50),
            )],
            &[],
        );
        let all: Vec<&Notice> = n.iter().collect();
        let t = status_text(&all, 40).expect("test value");
        assert_eq!(t.chars().count(), 40);
        assert!(t.ends_with('…') && !t.contains('\x1b'));
    }
}
