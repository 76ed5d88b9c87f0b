//! From looks at panes to attention changes: a pure state machine per
//! agent that turns what a watcher sees each round (the screen state, a
//! fingerprint of the screen without its spinner rows, an open dialog)
//! into "this condition opened" and "this condition closed". Which of
//! several watchers gets to raise an opened condition as an event is
//! decided by the shared `EpisodeStore`, not here.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::agents::screen::ScreenState;
use crate::attention::dialog::Dialog;
use crate::attention::event::EventKind;
use crate::domain::Timestamp;
use crate::limits::SeenLimit;

/// What is in an agent's pane, as one look found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Presence {
    /// The agent runs; its screen reads as this state (`None`: its
    /// profile does not read screens).
    Agent(Option<ScreenState>),
    /// The pane is gone, or its process no longer runs.
    Gone,
    /// A shell is in the foreground: the agent exited.
    Shell,
    /// Some other program is in the foreground (the agent may have
    /// started it).
    Other,
}

/// One look at one agent's pane.
#[derive(Clone, Debug)]
pub(crate) struct Look {
    /// The agent.
    pub agent: String,
    /// When the screen was read.
    pub at: Timestamp,
    /// What the pane holds.
    pub presence: Presence,
    /// A fingerprint of the screen without the rows that move by
    /// themselves while an agent works (its spinner and timer rows).
    pub quiet: Option<u64>,
    /// The dialog on screen, when one is open and could be read.
    pub dialog: Option<Dialog>,
    /// Whether messages wait for this agent (held or queued): a turn that
    /// ends with more to come is not finished.
    pub waiting: bool,
    /// The usage limit its screen shows.
    pub limit: Option<SeenLimit>,
    /// The profile that read its screen (`None`: not an agent now).
    pub profile: Option<String>,
    /// Its usage limit is over: it worked again since (its screen changed
    /// and shows no limit), or a person cleared it (`swarm limits clear`).
    pub limit_ended: bool,
    /// When the agent's own prompt hook last reported a prompt taken
    /// (for its pane): an idle screen seen after that is a screen not yet
    /// redrawn, not a finished turn. (Agents whose hooks work raise
    /// `finished` from their end-of-turn hook, before the screen settles;
    /// the screen's own report of the same turn then changes nothing.)
    pub prompted: Option<Timestamp>,
}

/// A condition that opened or closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    /// The agent.
    pub agent: String,
    /// The condition.
    pub kind: EventKind,
    /// Opened (`true`) or closed.
    pub open: bool,
    /// When the look that saw it was taken.
    pub at: Timestamp,
    /// For an opening: what to tell the person.
    pub detail: String,
    /// For a dialog: what it offers.
    pub dialog: Option<Dialog>,
    /// What tells the condition from another of its kind (a dialog's
    /// identity; empty for the others).
    pub key: String,
}

/// How the tracker judges time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timing {
    /// How long an agent must stay idle after working before its turn
    /// counts as finished (a pause between two tool calls is not).
    pub settle: Duration,
    /// How long a busy screen may stay unchanged before the agent counts
    /// as stuck.
    pub stuck_after: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            settle: Duration::from_millis(1500),
            stuck_after: Duration::from_secs(600),
        }
    }
}

/// What the tracker remembers of one agent.
#[derive(Clone, Debug, Default)]
struct Memory {
    /// The conditions this tracker last reported open.
    open: BTreeSet<EventKind>,
    /// Whether it was seen busy since its last finished turn.
    worked: bool,
    /// Since when it has been idle (while `worked`).
    idle_since: Option<Timestamp>,
    /// The screen's fingerprint while busy, and since when it is the same.
    quiet: Option<(u64, Timestamp)>,
    /// The open dialog as last read (`Dialog::identity`): a different one
    /// is a new episode, even when no look fell between the two.
    dialog: Option<String>,
    /// A different dialog seen once: it becomes the new episode when the
    /// next look sees it too (a screen caught half drawn is not a new
    /// dialog).
    next_dialog: Option<String>,
}

/// The conditions the tracker derives, in the order changes are reported.
const TRACKED: [EventKind; 5] = [
    EventKind::Exited,
    EventKind::NeedsInput,
    EventKind::Limited,
    EventKind::Stuck,
    EventKind::Finished,
];

/// Attention state of every agent one watcher looks at.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    timing: Timing,
    agents: BTreeMap<String, Memory>,
}

impl Tracker {
    /// A tracker that judges time by `timing`.
    pub(crate) fn new(timing: Timing) -> Tracker {
        Tracker {
            timing,
            agents: BTreeMap::new(),
        }
    }

    /// Takes one look and returns what opened and closed. The first look
    /// at an agent reports every condition, open or closed, so that a
    /// watcher that starts late closes what another left open.
    pub(crate) fn look(&mut self, look: Look) -> Vec<Change> {
        let first = !self.agents.contains_key(&look.agent);
        let timing = self.timing;
        let memory = self.agents.entry(look.agent.clone()).or_default();
        let state = match &look.presence {
            Presence::Agent(s) => *s,
            _ => None,
        };
        // What the agent has been doing.
        match state {
            Some(ScreenState::Busy) => {
                memory.worked = true;
                memory.idle_since = None;
                memory.quiet = match (memory.quiet, look.quiet) {
                    (Some((old, since)), Some(new)) if old == new => Some((old, since)),
                    (_, Some(new)) => Some((new, look.at)),
                    (_, None) => None,
                };
            }
            Some(ScreenState::Idle) => {
                memory.quiet = None;
                if memory.worked {
                    memory.idle_since.get_or_insert(look.at);
                }
            }
            // A dialog belongs to a turn, even when no look caught the
            // agent busy before it (a quick model answer); answered "no",
            // some agents go straight back to idle, and that ends the turn.
            Some(ScreenState::Dialog) => {
                memory.worked = true;
                memory.quiet = None;
                memory.idle_since = None;
            }
            _ => {
                memory.quiet = None;
                memory.idle_since = None;
            }
        }
        let exited = matches!(look.presence, Presence::Gone | Presence::Shell);
        if exited {
            memory.worked = false;
        }
        let dialog = state == Some(ScreenState::Dialog);
        let stuck = state == Some(ScreenState::Busy)
            && memory
                .quiet
                .is_some_and(|(_, since)| elapsed(since, look.at) >= timing.stuck_after);
        // A prompt the agent took after its screen went idle: it is
        // starting a turn the screen does not show yet.
        let prompted = look
            .prompted
            .is_some_and(|p| memory.idle_since.is_some_and(|since| p >= since));
        let finished_now = state == Some(ScreenState::Idle)
            && memory.worked
            && !look.waiting
            && !prompted
            && memory
                .idle_since
                .is_some_and(|since| elapsed(since, look.at) >= timing.settle);
        // A finished turn stays finished while the agent stays idle; it
        // ends when the agent works, asks or exits again.
        let finished = finished_now
            || (memory.open.contains(&EventKind::Finished) && state == Some(ScreenState::Idle));
        if finished_now {
            memory.worked = false;
            memory.idle_since = None;
        }
        // A limit lasts until the agent works again (or exits, or a person
        // clears it), whether or not its screen still shows it.
        let limited = !look.limit_ended
            && !exited
            && (look.limit.is_some() || memory.open.contains(&EventKind::Limited));
        let mut changes = Vec::new();
        // Another dialog where one was open (answered and asked again
        // between two looks): a new episode, reported with its key.
        let identity = look.dialog.as_ref().map(Dialog::identity);
        let before = memory.dialog.clone();
        let differs = dialog
            && memory.open.contains(&EventKind::NeedsInput)
            && identity.is_some()
            && before.is_some()
            && identity != before;
        let replaced = differs && memory.next_dialog == identity;
        memory.next_dialog = if differs && !replaced {
            identity.clone()
        } else {
            None
        };
        memory.dialog = match (dialog, differs && !replaced) {
            (false, _) => None,
            // Not yet: the open episode stays the one last seen.
            (true, true) => before.clone(),
            (true, false) => identity.clone().or(before.clone()),
        };
        for kind in TRACKED {
            let now_open = match kind {
                EventKind::Exited => exited,
                EventKind::NeedsInput => dialog,
                EventKind::Limited => limited,
                EventKind::Stuck => stuck,
                EventKind::Finished => finished,
                _ => false,
            };
            let was_open = memory.open.contains(&kind);
            let renewed = kind == EventKind::NeedsInput && replaced;
            if now_open == was_open && !first && !renewed {
                continue;
            }
            if now_open {
                memory.open.insert(kind);
            } else {
                memory.open.remove(&kind);
            }
            changes.push(Change {
                agent: look.agent.clone(),
                kind,
                open: now_open,
                at: look.at,
                detail: if now_open {
                    detail(kind, &look, timing)
                } else {
                    String::new()
                },
                dialog: if now_open && kind == EventKind::NeedsInput {
                    look.dialog.clone()
                } else {
                    None
                },
                key: match kind {
                    EventKind::NeedsInput if now_open => identity.clone().unwrap_or_default(),
                    EventKind::NeedsInput => before.clone().unwrap_or_default(),
                    _ => String::new(),
                },
            });
        }
        changes
    }

    /// Forgets agents not in `present` (they left the registry).
    pub(crate) fn retain(&mut self, present: &BTreeSet<String>) -> Vec<String> {
        let gone: Vec<String> = self
            .agents
            .keys()
            .filter(|a| !present.contains(*a))
            .cloned()
            .collect();
        for a in &gone {
            self.agents.remove(a);
        }
        gone
    }
}

/// Seconds from `a` to `b` as a duration (zero when the clock went back).
fn elapsed(a: Timestamp, b: Timestamp) -> Duration {
    (b.utc() - a.utc()).to_std().unwrap_or_default()
}

/// What an opened condition tells the person.
fn detail(kind: EventKind, look: &Look, timing: Timing) -> String {
    match kind {
        EventKind::NeedsInput => match &look.dialog {
            Some(d) if !d.question.is_empty() => d.question.clone(),
            _ => "a dialog is open".into(),
        },
        EventKind::Finished => "its turn ended; it waits for a prompt".into(),
        EventKind::Exited => match look.presence {
            Presence::Shell => "its program ended; a shell is in its pane".into(),
            _ => "its pane or its process is gone".into(),
        },
        EventKind::Stuck => format!(
            "busy with nothing new on its screen for {}",
            crate::support::time::human_duration(timing.stuck_after.as_secs_f64())
        ),
        EventKind::Limited => look
            .limit
            .as_ref()
            .map_or_else(|| "at its usage limit".into(), SeenLimit::detail),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: f64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000.0 + secs).expect("test value")
    }

    fn look(secs: f64, presence: Presence) -> Look {
        Look {
            agent: "agent-1".into(),
            at: at(secs),
            presence,
            quiet: Some(1),
            dialog: None,
            waiting: false,
            limit: None,
            profile: None,
            limit_ended: false,
            prompted: None,
        }
    }

    fn agent(s: ScreenState) -> Presence {
        Presence::Agent(Some(s))
    }

    fn opened(changes: &[Change]) -> Vec<EventKind> {
        changes.iter().filter(|c| c.open).map(|c| c.kind).collect()
    }

    #[test]
    fn the_first_look_reports_every_condition() {
        let mut t = Tracker::default();
        let c = t.look(look(0.0, agent(ScreenState::Idle)));
        assert_eq!(c.len(), TRACKED.len());
        assert!(opened(&c).is_empty());
        assert!(t.look(look(1.0, agent(ScreenState::Idle))).is_empty());
    }

    #[test]
    fn a_dialog_opens_once_and_closes() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Idle)));
        let c = t.look(look(1.0, agent(ScreenState::Dialog)));
        assert_eq!(opened(&c), [EventKind::NeedsInput]);
        assert!(t.look(look(2.0, agent(ScreenState::Dialog))).is_empty());
        let c = t.look(look(3.0, agent(ScreenState::Busy)));
        assert_eq!(c.len(), 1);
        assert!(!c[0].open);
        let c = t.look(look(4.0, agent(ScreenState::Dialog)));
        assert_eq!(opened(&c), [EventKind::NeedsInput], "a new episode");
    }

    #[test]
    fn a_turn_is_finished_after_the_agent_settles() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Idle)));
        assert!(
            t.look(look(1.0, agent(ScreenState::Idle))).is_empty(),
            "never worked"
        );
        t.look(look(2.0, agent(ScreenState::Busy)));
        assert!(
            t.look(look(3.0, agent(ScreenState::Idle))).is_empty(),
            "not settled yet"
        );
        let c = t.look(look(4.6, agent(ScreenState::Idle)));
        assert_eq!(opened(&c), [EventKind::Finished]);
        assert!(
            t.look(look(6.0, agent(ScreenState::Idle))).is_empty(),
            "once"
        );
        let c = t.look(look(7.0, agent(ScreenState::Busy)));
        assert_eq!(c.len(), 1);
        assert!(!c[0].open, "working again ends the episode");
    }

    #[test]
    fn another_dialog_between_two_looks_is_a_new_episode() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Idle)));
        let ask = |secs: f64, context: &str| {
            let mut l = look(secs, agent(ScreenState::Dialog));
            l.dialog = crate::attention::dialog::read_dialog(&format!(
                "{context}\n? Do you want to proceed?\n❯ 1. Yes\n  2. No\n"
            ));
            l
        };
        assert_eq!(opened(&t.look(ask(1.0, "first"))), [EventKind::NeedsInput]);
        assert!(t.look(ask(2.0, "first")).is_empty(), "the same dialog");
        assert!(
            t.look(ask(2.5, "first ⠋ (3s)")).is_empty(),
            "a spinner beside it"
        );
        assert!(
            t.look(ask(2.7, "half drawn")).is_empty(),
            "a different dialog seen once is not yet another"
        );
        assert!(t.look(ask(2.8, "first")).is_empty(), "the first one again");
        assert!(t.look(ask(3.0, "second")).is_empty(), "seen once");
        let c = t.look(ask(3.5, "second"));
        assert_eq!(c.len(), 1);
        assert!(c[0].open && c[0].kind == EventKind::NeedsInput);
        assert!(c[0].key.contains("second"), "{:?}", c[0].key);
    }

    #[test]
    fn a_dialog_answered_back_to_idle_is_a_finished_turn() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Idle)));
        assert_eq!(
            opened(&t.look(look(1.0, agent(ScreenState::Dialog)))),
            [EventKind::NeedsInput]
        );
        let c = t.look(look(2.0, agent(ScreenState::Idle)));
        assert!(opened(&c).is_empty(), "not settled yet: {c:?}");
        let c = t.look(look(5.0, agent(ScreenState::Idle)));
        assert_eq!(opened(&c), [EventKind::Finished]);
        assert!(t.look(look(6.0, agent(ScreenState::Idle))).is_empty());
    }

    #[test]
    fn a_short_pause_between_two_steps_is_not_finished() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Busy)));
        t.look(look(1.0, agent(ScreenState::Idle)));
        t.look(look(2.0, agent(ScreenState::Busy)));
        let c = t.look(look(2.9, agent(ScreenState::Idle)));
        assert!(opened(&c).is_empty());
    }

    #[test]
    fn waiting_messages_keep_a_turn_from_finishing() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Busy)));
        t.look(look(1.0, agent(ScreenState::Idle)));
        let mut l = look(5.0, agent(ScreenState::Idle));
        l.waiting = true;
        assert!(opened(&t.look(l)).is_empty());
        assert_eq!(
            opened(&t.look(look(6.0, agent(ScreenState::Idle)))),
            [EventKind::Finished]
        );
    }

    #[test]
    fn an_idle_screen_after_the_prompt_hook_is_no_finished_turn() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Busy)));
        t.look(look(1.0, agent(ScreenState::Idle)));
        // The prompt hook reported a prompt taken while the screen still
        // shows the idle box.
        let prompted = |secs: f64, s: ScreenState| Look {
            prompted: Some(at(1.2)),
            ..look(secs, agent(s))
        };
        assert!(opened(&t.look(prompted(3.0, ScreenState::Idle))).is_empty());
        t.look(prompted(3.5, ScreenState::Busy));
        // The turn it started ends: finished, as for any agent.
        t.look(prompted(4.0, ScreenState::Idle));
        let c = t.look(prompted(6.0, ScreenState::Idle));
        assert_eq!(opened(&c), [EventKind::Finished]);
    }

    #[test]
    fn exits_and_returns() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Idle)));
        let c = t.look(look(1.0, Presence::Shell));
        assert_eq!(opened(&c), [EventKind::Exited]);
        assert!(c[0].detail.contains("shell"));
        assert!(t.look(look(2.0, Presence::Gone)).is_empty());
        let c = t.look(look(3.0, agent(ScreenState::Idle)));
        assert_eq!(c.len(), 1);
        assert!(!c[0].open);
    }

    #[test]
    fn busy_with_an_unchanged_screen_is_stuck() {
        let mut t = Tracker::new(Timing {
            settle: Duration::from_secs(1),
            stuck_after: Duration::from_secs(60),
        });
        t.look(look(0.0, agent(ScreenState::Busy)));
        assert!(opened(&t.look(look(59.0, agent(ScreenState::Busy)))).is_empty());
        let c = t.look(look(61.0, agent(ScreenState::Busy)));
        assert_eq!(opened(&c), [EventKind::Stuck]);
        // The screen moves: no longer stuck.
        let mut l = look(62.0, agent(ScreenState::Busy));
        l.quiet = Some(2);
        let c = t.look(l);
        assert_eq!(c.len(), 1);
        assert!(!c[0].open);
    }

    #[test]
    fn agents_that_left_are_forgotten() {
        let mut t = Tracker::default();
        t.look(look(0.0, agent(ScreenState::Idle)));
        assert_eq!(t.retain(&BTreeSet::new()), ["agent-1"]);
        assert_eq!(
            t.look(look(1.0, agent(ScreenState::Idle))).len(),
            TRACKED.len()
        );
    }
}
