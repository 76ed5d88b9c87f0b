//! `LogStore`: the storage seam for messages. A log that only grows, of
//! message records and delivery-outcome records, plus each agent's read
//! cursor into it.
//!
//! What an implementation must guarantee:
//!
//! * `append` writes its records in order, as one unit that no other
//!   appender's records interleave with, and a record once appended is
//!   seen by every later read (of any process, on any host).
//! * A `Cursor` names a point in the log; `inbox` with `Selection::New`
//!   returns the agent's messages after it, oldest first, and costs what is
//!   new, not what the log holds.
//! * `advance` never moves a cursor backwards over a read that got further
//!   meanwhile, so no message is ever skipped.
//! * `take_new` (what `inbox --new` and the MCP server's `read_messages`
//!   use) reads and moves the cursor as one step: of racing readers of one
//!   inbox, each message goes to exactly one. (`inbox` then `advance` are
//!   two steps; racing, they may both show a message.)
//! * Retention never drops a message an agent has not read.
//!
//! The files (`agent_messages.log`, its numbered segments, and
//! `.swarm/read_cursors.json`; docs/FORMATS.md) are the first
//! implementation (`FileLog`, `on_files.rs`). A cursor's position is two
//! numbers (a segment and an offset in it), which is also the shape of a
//! stream entry id on a networked store.

use std::time::Duration;

use crate::log::inbox::{Cursor, InboxView, Selection};
use crate::log::record::{Located, LogContents, LogPos, Record, TailBatch};
use crate::store::StoreError;

/// One step of `LogStore::scan`: the records of one stretch of the log.
#[derive(Debug, Default)]
pub struct ScanBatch {
    /// The position given is no longer in the log (the log was started
    /// afresh, a segment file replaced): these records, and all that
    /// follow, are read from the log's start, and whatever was built from
    /// the records before must go. Only ever set on the first batch.
    pub restarted: bool,
    /// The records, in log order, each with where its line ends.
    pub records: Vec<Located>,
    /// Just past the last complete line read: where the next scan starts.
    pub end: Option<LogPos>,
}

/// The records handed over by `LogStore::scan`.
pub type ScanVisitor<'a> = dyn FnMut(ScanBatch) -> Result<(), StoreError> + 'a;

/// Where a project's messages are kept.
pub trait LogStore: Send + Sync {
    /// Appends `records` in order, as one unit; returns notes for people
    /// (a damaged log moved aside, old segments removed).
    fn append(&self, records: &[Record]) -> Result<Vec<String>, StoreError>;

    /// Every kept record, oldest first.
    fn read_all(&self) -> Result<LogContents, StoreError>;

    /// `agent`'s messages, chosen by `selection` (at most `limit`), read
    /// from `cursor` on for `Selection::New`; the view says where the
    /// cursor moves to, which `advance` records.
    fn inbox(
        &self,
        agent: &str,
        cursor: Option<&Cursor>,
        selection: &Selection,
        limit: Option<usize>,
    ) -> Result<InboxView, StoreError>;

    /// Where `agent` has read to (`None`: nothing yet), and a note when the
    /// cursors were damaged (everything then reads as unread: showing a
    /// message twice beats hiding one).
    fn cursor(&self, agent: &str) -> Result<(Option<Cursor>, Option<String>), StoreError>;

    /// Moves `agent`'s cursor from `from` (where the read began) to `to`;
    /// when another read moved it meanwhile, only forwards.
    fn advance(&self, agent: &str, to: &Cursor, from: Option<&Cursor>) -> Result<(), StoreError>;

    /// Reads every record after `from` (from the log's start for `None`),
    /// oldest first, handing them to `visit` one stretch at a time (so
    /// that a long history never sits in memory at once): what an index
    /// kept beside the log catches up with. Returns the numbers of the
    /// segments the log still keeps, or `None` for a store that never
    /// drops a record; an index forgets what it took from any other.
    fn scan(
        &self,
        from: Option<&LogPos>,
        visit: &mut ScanVisitor<'_>,
    ) -> Result<Option<Vec<u64>>, StoreError>;

    /// Which log this is (`files`, or the store and the swarm's name): an
    /// index built from one log is never caught up from another.
    fn identity(&self) -> String;

    /// Starts following the log: the recent records, and a follower that
    /// returns each later record once.
    fn follow(&self) -> Result<(Box<dyn LogFollower>, TailBatch), StoreError>;

    /// `follow`, handing the recent records to `each` in pieces, in order,
    /// rather than in one batch: a reader that keeps only the newest (the
    /// monitor) then never holds a large log whole. A store that reads its
    /// recent records in one piece hands over that one.
    fn follow_each(
        &self,
        each: &mut dyn FnMut(TailBatch),
    ) -> Result<Box<dyn LogFollower>, StoreError> {
        let (follower, batch) = self.follow()?;
        each(batch);
        Ok(follower)
    }

    /// A wait for appends, for a log whose appends no file event
    /// announces (a shared store, read from other hosts): what it returns
    /// wakes the views the moment a record is appended. `None` (the
    /// files): the file events announce them.
    fn append_watch(&self) -> Result<Option<Box<dyn AppendWatch>>, StoreError> {
        Ok(None)
    }

    /// `agent`'s oldest unread messages, up to `limit`, marked read: what
    /// `inbox --new` shows. With a note when the cursors were damaged.
    /// A store that can make the read and the cursor's move one atomic
    /// step does, so that of racing readers of one inbox each message goes
    /// to exactly one; this default takes two steps (a message may then
    /// reach both, none is ever skipped).
    fn take_new(
        &self,
        agent: &str,
        limit: Option<usize>,
    ) -> Result<(InboxView, Option<String>), StoreError> {
        let (cursor, note) = self.cursor(agent)?;
        let view = self.inbox(agent, cursor.as_ref(), &Selection::New, limit)?;
        if let Some(to) = &view.new_cursor {
            self.advance(agent, to, view.from_cursor.as_ref())?;
        }
        Ok((view, note))
    }
}

/// Follows a log from a point on (`LogStore::follow`).
pub trait LogFollower: Send + std::fmt::Debug {
    /// The records appended since the last call (possibly none).
    fn read_new(&mut self) -> Result<TailBatch, StoreError>;
}

/// Waits for records appended to a log (`LogStore::append_watch`).
pub trait AppendWatch: Send {
    /// Waits at most about `wait` for records appended after the ones the
    /// last call saw (at first: after the watch began); true when there
    /// are some. Only says that there are: reading them is the caller's.
    fn wait(&mut self, wait: Duration) -> Result<bool, StoreError>;
}

/// The contract every `LogStore` keeps, as checks any implementation can
/// run (each test module calls them with its own store).
#[cfg(any(test, feature = "testing"))]
pub mod contract {
    use std::sync::{Arc, Barrier};

    use super::*;
    use crate::domain::message::{Message, MessageType};
    use crate::log::log_line::LoggedMessage;
    use crate::log::record::DeliveryRecord;

    fn message(to: &str, text: &str) -> Record {
        Record::Message(LoggedMessage::new(Message::new(
            "agent-9".parse().expect("an agent id"),
            vec![to.parse().expect("an agent id")],
            MessageType::builtin("INFO"),
            text.into(),
        )))
    }

    fn new_for(store: &dyn LogStore, agent: &str) -> Vec<String> {
        let (cursor, _) = store.cursor(agent).expect("cursor");
        let view = store
            .inbox(agent, cursor.as_ref(), &Selection::New, None)
            .expect("inbox");
        if let Some(to) = &view.new_cursor {
            store
                .advance(agent, to, view.from_cursor.as_ref())
                .expect("advance");
        }
        view.shown.into_iter().map(|m| m.message.content).collect()
    }

    /// Appends are read back in order, outcomes merge into their message,
    /// and a cursor shows each message as new exactly once.
    pub fn appends_in_order_and_shows_each_message_once(store: &dyn LogStore) {
        assert!(store.read_all().expect("read").records.is_empty());
        let first = message("agent-1", "one");
        let Record::Message(logged) = &first else {
            unreachable!("a message record")
        };
        let id = logged.message().msg_id.to_string();
        store.append(std::slice::from_ref(&first)).expect("append");
        store
            .append(&[Record::Delivery(DeliveryRecord::new(
                &id,
                &[(
                    "agent-1".into(),
                    crate::log::record::DeliveryOutcome::delivered(),
                )],
                None,
            ))])
            .expect("append outcome");
        store
            .append(&[message("agent-2", "two"), message("agent-1", "three")])
            .expect("append two");
        let views = store.read_all().expect("read").messages();
        let texts: Vec<&str> = views.iter().map(|v| v.message.content.as_str()).collect();
        assert_eq!(texts, ["one", "two", "three"]);
        assert!(
            views[0]
                .outcome_for("agent-1")
                .is_some_and(|o| o.is_delivered())
        );

        assert_eq!(new_for(store, "agent-1"), ["one", "three"]);
        assert!(new_for(store, "agent-1").is_empty(), "shown once");
        store.append(&[message("agent-1", "four")]).expect("append");
        assert_eq!(new_for(store, "agent-1"), ["four"]);
        assert_eq!(new_for(store, "agent-2"), ["two"]);

        let (mut follower, _) = store.follow().expect("follow");
        assert!(follower.read_new().expect("tail").records.is_empty());
        store.append(&[message("agent-2", "five")]).expect("append");
        let batch = follower.read_new().expect("tail");
        assert_eq!(batch.records, [message_like(&batch.records[0], "five")]);
    }

    fn message_like(r: &Record, text: &str) -> Record {
        match r {
            Record::Message(m) if m.message().content == text => r.clone(),
            other => panic!("expected the message {text:?}, got {other:?}"),
        }
    }

    /// Racing appenders lose nothing, and racing readers of one agent
    /// between them show every message (none is skipped by a cursor moved
    /// past it).
    pub fn racing_appenders_and_readers_lose_nothing(store: Arc<dyn LogStore>) {
        const WRITERS: usize = 4;
        const EACH: usize = 25;
        let start = Arc::new(Barrier::new(WRITERS + 2));
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let store = Arc::clone(&store);
                let start = Arc::clone(&start);
                std::thread::spawn(move || {
                    start.wait();
                    for i in 0..EACH {
                        store
                            .append(&[message("agent-1", &format!("{w}-{i}"))])
                            .expect("append");
                    }
                })
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let store = Arc::clone(&store);
                let start = Arc::clone(&start);
                std::thread::spawn(move || {
                    start.wait();
                    let mut seen = Vec::new();
                    for _ in 0..20 {
                        seen.extend(new_for(store.as_ref(), "agent-1"));
                    }
                    seen
                })
            })
            .collect();
        for w in writers {
            w.join().expect("writer");
        }
        let mut seen: Vec<String> = readers
            .into_iter()
            .flat_map(|r| r.join().expect("reader"))
            .collect();
        seen.extend(new_for(store.as_ref(), "agent-1"));
        let total = store.read_all().expect("read").messages().len();
        assert_eq!(total, WRITERS * EACH, "every append kept");
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), WRITERS * EACH, "a message was never shown");
    }

    /// For a store whose `take_new` is atomic: racing readers of one inbox
    /// between them take every message exactly once.
    pub fn racing_takers_take_each_message_once(store: Arc<dyn LogStore>) {
        const MESSAGES: usize = 60;
        for i in 0..MESSAGES {
            store
                .append(&[message("agent-1", &format!("m{i}"))])
                .expect("append");
        }
        let start = Arc::new(Barrier::new(4));
        let takers: Vec<_> = (0..4)
            .map(|_| {
                let store = Arc::clone(&store);
                let start = Arc::clone(&start);
                std::thread::spawn(move || {
                    start.wait();
                    let mut seen = Vec::new();
                    loop {
                        let (view, _) = store.take_new("agent-1", Some(3)).expect("take");
                        if view.shown.is_empty() {
                            return seen;
                        }
                        seen.extend(view.shown.into_iter().map(|v| v.message.content));
                    }
                })
            })
            .collect();
        let mut seen: Vec<String> = takers
            .into_iter()
            .flat_map(|t| t.join().expect("taker"))
            .collect();
        assert_eq!(seen.len(), MESSAGES, "each message taken once: {seen:?}");
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), MESSAGES, "none taken twice");
    }
}
