//! `MonitorState`: everything the live view shows, and how what was read
//! changes it (how keys change it is in `keys.rs`). Pure data: it is fed
//! log records, file snapshots, the time and key presses, and answers
//! with what to do (quit, send a message); it never reads a file, a clock
//! or the terminal itself, so every screen can be built in a test.

use std::collections::{HashMap, VecDeque};

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::layout::Rect;

use swarm_core::support::sanitize;
use swarm_core::{
    DeliveryOutcome, LockView, Message, MessageType, OpenEpisode, PendingEntry, Record, Registry,
    SwarmStatus, TailBatch,
};

use super::changes::Changes;
use super::feed;
use super::feed_message::{AckMark, Activity, FeedMessage, logged_at};
use super::filter::{BaseFilter, ViewFilter};
use super::layout;
use super::spend::{self, AgentSpend, Spending};

/// Messages kept for the feed unless told otherwise.
pub(crate) const DEFAULT_CAPACITY: usize = 100;

/// How long a notice stays in the footer.
const NOTICE_SECONDS: i64 = 10;

/// How serious a notice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Something done.
    Info,
    /// Something to look at.
    Warn,
    /// Something failed.
    Error,
    /// The shared store did not answer. The monitor tells the first such
    /// line of an outage, as an error, and leaves out the rest until the
    /// store answers again.
    Outage,
}

/// A line shown in the footer for a while.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// The text (already one safe line).
    pub text: String,
    /// Its level.
    pub level: Level,
    /// When it was posted.
    pub at: DateTime<Utc>,
}

/// Which field the message composer is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComposeStep {
    /// The recipient: an agent id or `all`.
    To,
    /// The message type.
    Type,
    /// The content.
    Text,
}

/// A message being written in the monitor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compose {
    /// The field being edited.
    pub step: ComposeStep,
    /// Recipient.
    pub to: String,
    /// Type.
    pub msg_type: String,
    /// Content.
    pub text: String,
    /// Why the last Enter was refused.
    pub error: Option<String>,
}

/// What keys are doing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Scrolling and single-key commands.
    Normal,
    /// The help overlay.
    Help,
    /// Typing a search; `before` is restored by Esc.
    Search {
        /// The search text before `/` was pressed.
        before: String,
    },
    /// Writing a message.
    Compose(Compose),
}

/// A message to send, checked: the recipient is an agent id or `all`, the
/// type a valid wire type, the content sanitised and within the size
/// limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// `all` or an agent id.
    pub to: String,
    /// Wire type.
    pub msg_type: String,
    /// Content.
    pub content: String,
}

/// An answer to a dialog, as a key gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The option that says yes (`y`).
    Yes,
    /// The option that says no (`n`).
    No,
    /// The option with this number (`1`-`9`).
    Option(u32),
    /// Cancel the dialog with Escape (`x`).
    Cancel,
}

/// A dialog to answer: whose, how, and which dialog the person saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answering {
    /// The agent.
    pub agent: String,
    /// The answer.
    pub reply: Reply,
    /// The fingerprint of the dialog on its screen when last read, so
    /// that nothing is typed into another one.
    pub dialog: Option<String>,
}

/// What the event loop should do after a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing beyond drawing again.
    None,
    /// Stop the monitor.
    Quit,
    /// Send this message.
    Send(Outgoing),
    /// Answer this dialog.
    Answer(Answering),
}

/// A dialog read off an agent's screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScreenDialog {
    /// Its question.
    pub question: String,
    /// Its options: number (or position) and label, in screen order.
    pub options: Vec<(u32, String)>,
    /// What names it (`attention::dialog::Dialog::fingerprint`).
    pub fingerprint: String,
}

/// What one agent's pane shows, and what is held for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentScreen {
    /// The agent.
    pub agent: String,
    /// `idle`, `typing`, `busy`, `dialog`, ... (see `agents::pane_state`).
    pub state: String,
    /// Messages held back from its pane.
    pub held: usize,
    /// Why (the oldest one's reason).
    pub held_reason: Option<String>,
    /// How long the oldest has waited.
    pub held_for: Option<std::time::Duration>,
    /// The dialog on its screen, when one is open and could be read.
    pub dialog: Option<ScreenDialog>,
    /// "limited until 15:00" (or "limited, reset unknown") while its login
    /// is at its usage limit.
    pub limited: Option<String>,
}

/// Everything the live view shows.
#[derive(Clone, Debug)]
pub struct MonitorState {
    /// The project root, for the header.
    pub project: String,
    /// The sender id of messages written in the monitor.
    pub sender: String,
    /// The time ages are computed against.
    pub now: DateTime<Utc>,
    /// The offset times are shown in.
    pub tz: FixedOffset,
    /// Messages kept.
    pub capacity: usize,
    /// Command-line filters: what is not kept.
    pub base: BaseFilter,
    /// Key filters: what is kept but not shown.
    pub view: ViewFilter,
    /// The feed, oldest first.
    pub messages: VecDeque<FeedMessage>,
    /// Latest message per sender (every message read, kept or not).
    pub activity: HashMap<String, Activity>,
    /// Agents, locks and pending acknowledgements.
    pub status: SwarmStatus,
    /// Locks older than this are stale.
    pub stale_after: std::time::Duration,
    /// Rows scrolled up from the newest message (0 follows new ones).
    pub scroll: usize,
    /// What keys are doing.
    pub mode: Mode,
    /// The latest notice.
    pub notice: Option<Notice>,
    /// Terminal size (columns, rows).
    pub viewport: (u16, u16),
    /// Valid message types (built-in and configured).
    pub known_types: Vec<String>,
    /// Log lines that could not be read as messages.
    pub skipped_lines: usize,
    /// What each agent's pane shows, by agent id (read about every second).
    pub screens: HashMap<String, AgentScreen>,
    /// Who needs the person: the open attention episodes, oldest first
    /// (read each second).
    pub episodes: Vec<OpenEpisode>,
    /// Whether the project's watcher runs on this host (`None`: not
    /// looked at yet).
    pub watcher: Option<bool>,
    /// The agent the answer keys act on, when one was chosen with Tab
    /// (else the one that has waited longest in a dialog).
    pub selected: Option<String>,
    /// Each agent's usage and budget standing, by agent id (read every
    /// few seconds; empty until the first read).
    pub(crate) usage: Spending,
}

impl MonitorState {
    /// An empty state.
    pub fn new(project: String, now: DateTime<Utc>, tz: FixedOffset) -> MonitorState {
        MonitorState {
            project,
            sender: "operator".into(),
            now,
            tz,
            capacity: DEFAULT_CAPACITY,
            base: BaseFilter::default(),
            view: ViewFilter::default(),
            messages: VecDeque::new(),
            activity: HashMap::new(),
            status: SwarmStatus::default(),
            watcher: None,
            stale_after: std::time::Duration::from_secs(300),
            scroll: 0,
            mode: Mode::Normal,
            notice: None,
            viewport: (80, 24),
            known_types: MessageType::all(&[]),
            skipped_lines: 0,
            screens: HashMap::new(),
            episodes: Vec::new(),
            selected: None,
            usage: HashMap::new(),
        }
    }

    /// Moves the clock (ages, the header's time) and lets an old notice
    /// go.
    pub fn set_now(&mut self, now: DateTime<Utc>, tz: FixedOffset) {
        self.now = now;
        self.tz = tz;
        if self
            .notice
            .as_ref()
            .is_some_and(|n| (now - n.at).num_seconds() >= NOTICE_SECONDS)
        {
            self.notice = None;
        }
    }

    /// Records the terminal size.
    pub fn set_viewport(&mut self, width: u16, height: u16) {
        self.viewport = (width, height);
    }

    /// Shows a notice in the footer (made one safe line first).
    pub fn notify(&mut self, level: Level, text: &str) {
        self.notice = Some(Notice {
            text: sanitize::one_line(text),
            level,
            at: self.now,
        });
    }

    /// Takes in new log records: messages that pass the command-line
    /// filters join the feed, delivery records update outcomes, and
    /// acknowledgements and escalations mark the message they answer.
    /// `added`, when given, sees every message that joins; without it,
    /// messages that a long batch would push out again at once are never
    /// prepared for display (the first read of a large log).
    pub fn ingest(
        &mut self,
        records: Vec<Record>,
        mut added: Option<&mut dyn FnMut(&FeedMessage)>,
    ) {
        let width = self.feed_width();
        let mut new_rows = 0;
        let whens: Vec<Option<DateTime<Utc>>> = records
            .iter()
            .map(|r| match r {
                Record::Message(m) => logged_at(m.message()),
                Record::Delivery(_) => None,
            })
            .collect();
        let mut pass_over = if added.is_some() {
            0
        } else {
            let joining = records
                .iter()
                .zip(&whens)
                .filter(|(r, when)| {
                    matches!(r, Record::Message(m) if self.base.matches(m.message(), **when))
                })
                .count();
            joining.saturating_sub(self.capacity)
        };
        for (record, when) in records.into_iter().zip(whens) {
            match record {
                Record::Message(logged) => {
                    self.note_activity(logged.message(), when);
                    self.mark_answered(logged.message());
                    if !self.base.matches(logged.message(), when) {
                        continue;
                    }
                    if pass_over > 0 {
                        pass_over -= 1;
                        continue;
                    }
                    let msg = FeedMessage::new(logged);
                    if self.scroll > 0 && self.view.matches(&msg.message, &msg.haystack) {
                        new_rows += feed::rows(self, &msg, width).len();
                    }
                    if let Some(f) = added.as_mut() {
                        f(&msg);
                    }
                    self.messages.push_back(msg);
                    while self.messages.len() > self.capacity {
                        self.messages.pop_front();
                    }
                }
                Record::Delivery(d) => {
                    let Some(msg) = self.find_mut(&d.msg_id) else {
                        continue;
                    };
                    for (recipient, value) in d.outcomes {
                        let Ok(outcome) = serde_json::from_value::<DeliveryOutcome>(value) else {
                            continue;
                        };
                        match msg.outcomes.iter_mut().find(|(r, _)| *r == recipient) {
                            Some(slot) => slot.1 = Some(outcome),
                            None => msg.outcomes.push((recipient, Some(outcome))),
                        }
                    }
                }
            }
        }
        // Someone reading older messages keeps their place.
        if self.scroll > 0 {
            self.scroll += new_rows;
        }
    }

    fn note_activity(&mut self, message: &Message, when: Option<DateTime<Utc>>) {
        let newer = self
            .activity
            .get(message.sender.as_str())
            .is_none_or(|a| a.at <= when || when.is_none());
        if newer {
            self.activity.insert(
                message.sender.to_string(),
                Activity {
                    at: when,
                    msg_type: message.msg_type.as_str().to_owned(),
                },
            );
        }
    }

    fn mark_answered(&mut self, message: &Message) {
        let Some(parent) = &message.parent_msg_id else {
            return;
        };
        let mark = if message.msg_type.as_str() == "ACK" {
            AckMark::Acknowledged
        } else if message.content.starts_with("[UNACKNOWLEDGED]") {
            AckMark::Escalated
        } else {
            return;
        };
        if let Some(msg) = self.find_mut(parent.as_str()) {
            // A late acknowledgement still counts after an escalation.
            if msg.ack != AckMark::Acknowledged {
                msg.ack = mark;
            }
        }
    }

    fn find_mut(&mut self, msg_id: &str) -> Option<&mut FeedMessage> {
        self.messages
            .iter_mut()
            .rev()
            .find(|m| m.message.msg_id.as_str() == msg_id)
    }

    /// Replaces what the agents' panes show.
    pub fn set_screens(&mut self, screens: Vec<AgentScreen>) {
        self.screens = screens.into_iter().map(|s| (s.agent.clone(), s)).collect();
    }

    /// Replaces what each agent has used.
    pub(crate) fn set_usage(&mut self, usage: Spending) {
        self.usage = usage;
    }

    /// Replaces what each agent has used, as `set_usage`, and returns a
    /// line for each agent whose figures changed (the plain stream's).
    pub fn take_usage(&mut self, usage: Option<Spending>) -> Vec<String> {
        let Some(usage) = usage else {
            return Vec::new();
        };
        let mut changed: Vec<(&String, &AgentSpend)> = usage
            .iter()
            .filter(|(agent, spend)| self.usage.get(*agent) != Some(*spend))
            .collect();
        changed.sort_by(|a, b| a.0.cmp(b.0));
        let lines = changed
            .into_iter()
            .map(|(agent, spend)| spend::plain_words(agent, spend))
            .collect();
        self.usage = usage;
        lines
    }

    /// Replaces the open attention episodes.
    pub fn set_episodes(&mut self, episodes: Vec<OpenEpisode>) {
        self.episodes = episodes;
    }

    /// Replaces the registry.
    pub fn set_registry(&mut self, registry: Option<Registry>) {
        self.status.registry = registry;
    }

    /// Replaces the locks.
    pub fn set_locks(&mut self, locks: Vec<LockView>) {
        self.status.locks = locks;
    }

    /// Replaces the pending acknowledgements.
    pub fn set_acks(&mut self, acks: Vec<PendingEntry>) {
        self.status.acks = acks;
    }

    /// Takes in a piece of the log's first read (`Session::open`), as
    /// `absorb` takes an update's records.
    pub fn absorb_records(&mut self, batch: TailBatch) {
        self.ingest(batch.records, None);
        self.skipped_lines += batch.skipped;
    }

    /// Takes the log records and status files out of a session update
    /// (anything that lends its `Changes`); returns the problems found
    /// reading them, for the caller to show.
    pub fn absorb(
        &mut self,
        update: &mut impl AsMut<Changes>,
        added: Option<&mut dyn FnMut(&FeedMessage)>,
    ) -> Vec<(Level, String)> {
        let update = update.as_mut();
        let mut problems = Vec::new();
        self.ingest(std::mem::take(&mut update.records), added);
        if update.skipped > 0 {
            self.skipped_lines += update.skipped;
            update.skipped = 0;
        }
        if let Some((registry, note)) = update.registry.take() {
            self.set_registry(registry);
            problems.extend(note.map(|n| (Level::Warn, n)));
        }
        if let Some((locks, note)) = update.locks.take() {
            self.set_locks(locks);
            problems.extend(note.map(|n| (Level::Warn, n)));
        }
        if let Some((acks, note)) = update.acks.take() {
            self.set_acks(acks);
            problems.extend(note.map(|n| (Level::Warn, n)));
        }
        if let Some(episodes) = update.episodes.take() {
            self.set_episodes(episodes);
        }
        if let Some(overlaps) = update.overlaps.take() {
            self.status.overlaps = overlaps;
        }
        if let Some(watcher) = update.watcher.take() {
            self.watcher = Some(watcher);
        }
        problems
    }

    /// The pending acknowledgement of a message, if it still waits.
    pub fn pending_ack(&self, msg_id: &str) -> Option<&PendingEntry> {
        self.status
            .acks
            .iter()
            .find(|e| e.msg_id.as_str() == msg_id)
    }

    /// Messages that pass the key filters, oldest first.
    pub fn visible(&self) -> impl DoubleEndedIterator<Item = &FeedMessage> {
        self.messages
            .iter()
            .filter(|m| self.view.matches(&m.message, &m.haystack))
    }

    /// Rows the status panel would like when it sits above the feed.
    pub fn status_rows(&self) -> u16 {
        let agents = self
            .status
            .registry
            .as_ref()
            .map_or(0, |r| r.agents.len())
            .max(1);
        let rows = 3 + agents + self.status.locks.len().max(1) + self.status.acks.len().max(1);
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    pub(super) fn areas(&self) -> layout::Areas {
        let (w, h) = self.viewport;
        layout::areas(Rect::new(0, 0, w, h), self.status_rows())
    }

    pub(super) fn feed_width(&self) -> u16 {
        self.areas().feed.width
    }

    pub(super) fn page(&self) -> usize {
        self.areas().page().max(1)
    }

    pub(super) fn max_scroll(&self) -> usize {
        let width = self.feed_width();
        let total: usize = self
            .visible()
            .map(|m| feed::rows(self, m, width).len())
            .sum();
        total.saturating_sub(self.page())
    }

    pub(super) fn scroll_by(&mut self, up: isize) {
        let max = self.max_scroll();
        let now = self.scroll.min(max);
        self.scroll = now.saturating_add_signed(up).min(max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use swarm_core::AgentId;
    use swarm_core::DeliveryRecord;
    use swarm_core::ack_marker;
    use swarm_core::support::time;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn state() -> MonitorState {
        let now = time::from_unix_seconds(1_795_267_578.0).expect("time");
        MonitorState::new("/p".into(), now, FixedOffset::east_opt(0).expect("utc"))
    }

    fn msg(from: &str, to: &str, kind: &'static str, text: &str) -> Message {
        Message::new(
            from.parse().expect("an agent id"),
            vec![to.parse().expect("an agent id")],
            MessageType::builtin(kind),
            text.into(),
        )
    }

    fn feed_of(s: &MonitorState) -> Vec<String> {
        s.visible().map(|m| m.body.clone()).collect()
    }

    #[test]
    fn the_feed_keeps_the_newest_within_capacity_and_base_filter() {
        let mut s = state();
        s.capacity = 3;
        s.base.types = vec!["BLOCKED".into(), "INFO".into()];
        let records: Vec<Record> = (0..6)
            .map(|i| {
                let kind = if i == 4 { "QUESTION" } else { "INFO" };
                Record::logged(&msg("agent-0", "agent-1", kind, &format!("m{i}")), &[])
            })
            .collect();
        let mut seen = Vec::new();
        s.ingest(
            records,
            Some(&mut |m: &FeedMessage| seen.push(m.body.clone())),
        );
        assert_eq!(seen, ["m0", "m1", "m2", "m3", "m5"]);
        assert_eq!(feed_of(&s), ["m2", "m3", "m5"]);
        // Activity counts every message, kept or not.
        assert_eq!(s.activity["agent-0"].msg_type, "INFO");
    }

    #[test]
    fn a_long_batch_gives_the_same_feed_when_only_the_kept_part_is_prepared() {
        let mut records = Vec::new();
        for i in 0..300 {
            let kind = if i % 7 == 0 { "BLOCKED" } else { "INFO" };
            let mut m = msg(
                &format!("agent-{}", i % 5),
                "agent-9",
                kind,
                &format!("m{i}"),
            );
            m.msg_id = swarm_core::MessageId::from_stored(format!("id-{i}"));
            m.parent_msg_id = (i % 11 == 0 && i > 0)
                .then(|| swarm_core::MessageId::from_stored(format!("id-{}", i - 1)));
            if m.parent_msg_id.is_some() {
                m.msg_type = MessageType::builtin("ACK");
            }
            records.push(Record::logged(&m, &[]));
            records.push(Record::Delivery(DeliveryRecord::new(
                &format!("id-{i}"),
                &[("agent-9".into(), DeliveryOutcome::delivered())],
                None,
            )));
        }
        let mut lazy = state();
        lazy.capacity = 20;
        lazy.base.types = vec!["INFO".into(), "ACK".into()];
        let mut eager = lazy.clone();
        lazy.ingest(records.clone(), None);
        let mut n = 0;
        eager.ingest(records, Some(&mut |_: &FeedMessage| n += 1));
        assert_eq!(lazy.messages, eager.messages);
        assert_eq!(lazy.activity, eager.activity);
        assert_eq!(lazy.messages.len(), 20);
        assert!(n > 200);
    }

    #[test]
    fn outcomes_and_acknowledgements_update_their_message() {
        let mut s = state();
        let mut m = msg("agent-0", "agent-1", "BLOCKED", "need a.py");
        m.requires_ack = true;
        m.content = format!("{} need a.py", ack_marker(m.msg_id.as_str()));
        s.ingest(vec![Record::logged(&m, &[])], None);
        let fm = &s.messages[0];
        assert_eq!((fm.body.as_str(), fm.ack), ("need a.py", AckMark::Asked));
        assert_eq!(fm.outcomes, vec![("agent-1".into(), None)]);
        let queued = DeliveryRecord::new(
            m.msg_id.as_str(),
            &[("agent-1".into(), DeliveryOutcome::queued("shell"))],
            None,
        );
        s.ingest(vec![Record::Delivery(queued)], None);
        assert_eq!(s.messages[0].queued(), 1);
        let mut esc = msg("agent-0", "agent-2", "BLOCKED", "[UNACKNOWLEDGED] x");
        esc.parent_msg_id = Some(m.msg_id.clone());
        s.ingest(vec![Record::logged(&esc, &[true])], None);
        assert_eq!(s.messages[0].ack, AckMark::Escalated);
        let mut ack = msg("agent-1", "agent-0", "ACK", "ACK");
        ack.parent_msg_id = Some(m.msg_id.clone());
        s.ingest(vec![Record::logged(&ack, &[true])], None);
        assert_eq!(s.messages[0].ack, AckMark::Acknowledged);
    }

    #[test]
    fn keys_cycle_filters_and_search() {
        let mut s = state();
        s.ingest(
            vec![
                Record::logged(&msg("agent-0", "agent-1", "INFO", "alpha"), &[]),
                Record::logged(&msg("agent-2", "agent-0", "BLOCKED", "Beta"), &[]),
                Record::logged(&msg("agent-10", "agent-2", "INFO", "gamma"), &[]),
            ],
            None,
        );
        s.handle_key(key(KeyCode::Char('t')));
        assert_eq!(s.view.msg_type.as_deref(), Some("BLOCKED"));
        assert_eq!(feed_of(&s), ["Beta"]);
        s.handle_key(key(KeyCode::Char('t')));
        assert_eq!(s.view.msg_type.as_deref(), Some("INFO"));
        s.handle_key(key(KeyCode::Char('t')));
        assert_eq!(s.view.msg_type, None);
        for want in ["agent-0", "agent-1", "agent-2", "agent-10"] {
            s.handle_key(key(KeyCode::Char('a')));
            assert_eq!(s.view.agent.as_deref(), Some(want));
        }
        s.handle_key(key(KeyCode::Char('a')));
        assert_eq!(s.view.agent, None);

        s.handle_key(key(KeyCode::Char('/')));
        for c in "BET".chars() {
            s.handle_key(key(KeyCode::Char(c)));
        }
        assert_eq!(feed_of(&s), ["Beta"]);
        s.handle_key(key(KeyCode::Esc));
        assert_eq!((s.mode.clone(), feed_of(&s).len()), (Mode::Normal, 3));
        s.handle_key(key(KeyCode::Char('/')));
        s.handle_key(key(KeyCode::Char('m')));
        s.handle_key(key(KeyCode::Enter));
        assert_eq!(feed_of(&s), ["gamma"]);
        s.handle_key(key(KeyCode::Char('c')));
        assert_eq!(feed_of(&s).len(), 3);
        assert_eq!(s.handle_key(key(KeyCode::Char('q'))), Action::Quit);
        assert_eq!(
            s.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Action::Quit
        );
    }

    #[test]
    fn composing_checks_each_field_then_sends() {
        let mut s = state();
        let mut reg = Registry::empty(String::new());
        reg.agents = vec![swarm_core::AgentRecord {
            id: AgentId::numbered(1),
            pane_index: "s:0.0".into(),
            pid: 1,
            status: swarm_core::AgentStatus::Active,
            last_seen: String::new(),
            session_name: "s".into(),
            tmux_pane_id: None,
            host: None,
        }];
        s.set_registry(Some(reg));
        s.handle_key(key(KeyCode::Char('m')));
        let typed = |s: &mut MonitorState, text: &str| {
            for c in text.chars() {
                s.handle_key(key(KeyCode::Char(c)));
            }
        };
        typed(&mut s, "bad id");
        s.handle_key(key(KeyCode::Enter));
        let Mode::Compose(c) = &s.mode else {
            panic!("left compose")
        };
        assert!(c.error.as_deref().is_some_and(|e| e.contains("invalid")));
        s.handle_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        s.handle_key(key(KeyCode::Char('a')));
        s.handle_key(key(KeyCode::Tab));
        let Mode::Compose(c) = &s.mode else {
            panic!("left compose")
        };
        assert_eq!(c.to, "all");
        s.handle_key(key(KeyCode::Tab));
        s.handle_key(key(KeyCode::Enter));
        typed(&mut s, "question");
        s.handle_key(key(KeyCode::Enter));
        s.handle_key(key(KeyCode::Enter));
        let Mode::Compose(c) = &s.mode else {
            panic!("left compose")
        };
        assert!(c.error.as_deref().is_some_and(|e| e.contains("empty")));
        s.handle_paste("is a.py free?\x1b[2J\nthanks");
        assert_eq!(
            s.handle_key(key(KeyCode::Enter)),
            Action::Send(Outgoing {
                to: "agent-1".into(),
                msg_type: "QUESTION".into(),
                content: "is a.py free?\nthanks".into(),
            })
        );
        assert_eq!(s.mode, Mode::Normal);
        s.handle_key(key(KeyCode::Char('m')));
        s.handle_key(key(KeyCode::Esc));
        assert_eq!(s.mode, Mode::Normal);
    }

    #[test]
    fn scrolling_stays_put_while_new_messages_arrive() {
        let mut s = state();
        s.set_viewport(60, 15);
        let batch = |from: usize, n: usize| -> Vec<Record> {
            (from..from + n)
                .map(|i| Record::logged(&msg("agent-0", "agent-1", "INFO", &format!("m{i}")), &[]))
                .collect()
        };
        s.ingest(batch(0, 30), None);
        s.handle_key(key(KeyCode::Up));
        s.handle_key(key(KeyCode::Up));
        assert_eq!(s.scroll, 2);
        s.ingest(batch(30, 3), None);
        assert_eq!(s.scroll, 5);
        s.handle_key(key(KeyCode::End));
        assert_eq!(s.scroll, 0);
        s.ingest(batch(33, 3), None);
        assert_eq!(s.scroll, 0, "following the newest");
        s.handle_key(key(KeyCode::Home));
        let top = s.scroll;
        assert!(top > 0);
        s.handle_key(key(KeyCode::Up));
        assert_eq!(s.scroll, top, "cannot scroll past the oldest");
        s.handle_key(key(KeyCode::PageDown));
        assert!(s.scroll < top);
    }

    #[test]
    fn notices_expire() {
        let mut s = state();
        s.notify(Level::Warn, "careful\x1b[31m\nnow");
        assert_eq!(
            s.notice.as_ref().map(|n| n.text.as_str()),
            Some("careful now")
        );
        let tz = s.tz;
        s.set_now(s.now + chrono::Duration::seconds(NOTICE_SECONDS), tz);
        assert_eq!(s.notice, None);
    }
}
