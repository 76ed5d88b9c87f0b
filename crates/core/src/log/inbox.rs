//! The inbox: the messages addressed to one agent, and which of them it has
//! read. Only what was shown is ever marked read (the original marked
//! everything, losing whatever `--limit` hid).
//!
//! The read position is a place in the log (a segment and a byte offset)
//! with the last message shown, in `.swarm/read_cursors.json`, so that
//! finding what is new reads only what was written since.
//! `.swarm/last_read_messages.json` (the Python tool's file: agent id ->
//! timestamp) is kept in step so both tools agree on what is new.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::log::record::{Located, LogContents, LogPos, MessageView, Record};
use crate::log::segments::{Segment, SegmentSet, mentions};
use crate::store::{
    DEFAULT_LOCK_TIMEOUT, Loaded, LogFiles, Paths, ReadMeter, StateFile, StateLock, StoreError,
};
use crate::support::json::{self, Layout};
use crate::support::time;

/// Version of `.swarm/read_cursors.json` (2 added the log position).
const CURSORS_VERSION: u32 = 2;

/// How far an agent has read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// The last message shown (empty when none was yet).
    #[serde(default)]
    pub msg_id: String,
    /// Its log timestamp (what the Python tool's file records).
    #[serde(default)]
    pub timestamp: String,
    /// Where in the log reading stopped: every message for the agent
    /// before it has been read. Missing in files written before positions
    /// were kept; then the id and the timestamp tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<LogPos>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cursors {
    version: u32,
    agents: BTreeMap<String, Cursor>,
}

/// What to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The oldest unread messages, up to the limit: read from the cursor
    /// on, so it costs what is new.
    New,
    /// The most recent messages, read or not, up to the limit: read from
    /// the end backwards.
    Recent,
    /// Every kept segment, oldest first, optionally only the messages
    /// whose text, sender or type contains `search` (any case). Never
    /// marks anything read.
    AllHistory {
        /// Text to look for.
        search: Option<String>,
    },
}

/// The messages to show, and what was held back.
#[derive(Clone, Debug, Default)]
pub struct InboxView {
    /// Messages to show, oldest first.
    pub shown: Vec<MessageView>,
    /// Matching messages not shown because of the limit (for `Recent`,
    /// 1 means "at least one": older messages are not counted).
    pub held_back: usize,
    /// `Recent` only: older messages exist that were not looked at.
    pub more_older: bool,
    /// Unread messages among those looked at (before this read).
    pub unread: usize,
    /// Where the read position moves to, when it moves.
    pub new_cursor: Option<Cursor>,
    /// The position this read started from (for `ReadState::advance`).
    pub from_cursor: Option<Cursor>,
}

/// One of the agent's messages with where its line ends.
struct Item {
    view: MessageView,
    seg: usize,
    end: LogPos,
}

/// Records that concern `agent`: its messages, and outcomes for it.
pub fn concerns(record: &Record, agent: &str) -> bool {
    match record {
        Record::Message(m) => m.message().is_for(agent),
        Record::Delivery(d) => d.outcomes.contains_key(agent),
    }
}

/// Messages (with outcomes merged in), in log order, each with its place.
fn items(records: Vec<Located>, agent: &str) -> Vec<Item> {
    let places: Vec<(usize, LogPos)> = records
        .iter()
        .filter(|l| matches!(l.record, Record::Message(_)))
        .map(|l| (l.seg, l.end))
        .collect();
    let contents = LogContents {
        records: records.into_iter().map(|l| l.record).collect(),
        skipped: 0,
    };
    contents
        .messages()
        .into_iter()
        .zip(places)
        .filter(|(v, _)| v.message.is_for(agent))
        .map(|(view, (seg, end))| Item { view, seg, end })
        .collect()
}

/// For a cursor without a position: the index of the first unread item,
/// by the last id read, or by time when that message is no longer kept.
fn legacy_first_unread(items: &[Item], cursor: &Cursor) -> usize {
    match items
        .iter()
        .position(|i| i.view.message.msg_id.as_str() == cursor.msg_id)
    {
        Some(i) => i + 1,
        None => match time::parse_iso(&cursor.timestamp) {
            Some(t) => items
                .iter()
                .position(|i| i.view.message.created.utc() > t)
                .unwrap_or(items.len()),
            None => 0,
        },
    }
}

/// Picks the messages for `agent` from the log of `paths`. `meter` counts
/// the bytes of the log that were read.
pub(crate) fn read(
    paths: &Paths,
    agent: &str,
    cursor: Option<&Cursor>,
    selection: &Selection,
    limit: Option<usize>,
    meter: &ReadMeter,
) -> Result<InboxView, StoreError> {
    let set = SegmentSet::load(paths)?;
    let live = LogFiles::stat(&set.live().path)?;
    let prefilter = |line: &[u8]| mentions(line, agent);
    let mut keep = |r: &Record| concerns(r, agent);
    // A rotated segment whose summary shows nothing for the agent holds
    // nothing to show.
    let skip = |seg: &Segment| seg.summary.as_ref().is_some_and(|s| !s.touches(agent));
    match selection {
        Selection::New => {
            let start = match cursor {
                Some(Cursor { at: Some(at), .. }) => set.start_after(at, live),
                _ => (0, 0),
            };
            let fwd = set.read_forward(start, meter, &skip, &prefilter, &mut keep)?;
            Ok(pick_new(fwd.records, fwd.end, agent, cursor, limit))
        }
        Selection::Recent => {
            let limit_n = limit.unwrap_or(usize::MAX);
            let mut found = Vec::new();
            let mut mine = 0usize;
            let live_end = set.read_backward(meter, &prefilter, &mut |l: Located| {
                if !concerns(&l.record, agent) {
                    return true;
                }
                if matches!(&l.record, Record::Message(_)) {
                    mine += 1;
                }
                found.push(l);
                // One more than shown tells whether older ones exist.
                mine <= limit_n
            })?;
            found.reverse();
            let start = match cursor {
                Some(Cursor { at: Some(at), .. }) => Some(set.start_after(at, live)),
                _ => None,
            };
            let after =
                start.map(|(si, so)| move |seg: usize, end: &LogPos| (seg, end.offset) > (si, so));
            Ok(pick_recent(
                found,
                live_end,
                agent,
                cursor,
                limit,
                after.as_ref().map(|f| f as &PastCursor<'_>),
            ))
        }
        Selection::AllHistory { search } => {
            let fwd = set.read_forward((0, 0), meter, &skip, &prefilter, &mut keep)?;
            Ok(pick_history(
                fwd.records,
                agent,
                cursor,
                search.as_deref(),
                limit,
            ))
        }
    }
}

/// Whether a record (its segment index and end) lies past a cursor.
pub type PastCursor<'a> = dyn Fn(usize, &LogPos) -> bool + 'a;

/// The oldest unread messages of `agent` among `records` (the log from the
/// cursor's position on, or all of it for a cursor without one), up to
/// `limit`; `end` is where reading stopped.
pub fn pick_new(
    records: Vec<Located>,
    end: Option<LogPos>,
    agent: &str,
    cursor: Option<&Cursor>,
    limit: Option<usize>,
) -> InboxView {
    let legacy = cursor.filter(|c| c.at.is_none());
    let items = items(records, agent);
    let first = legacy.map_or(0, |c| legacy_first_unread(&items, c));
    let unread = items.len() - first;
    let take = unread.min(limit.unwrap_or(usize::MAX));
    let shown = &items[first..first + take];
    let held_back = unread - take;
    let new_cursor = match shown.last() {
        Some(last) => Some(Cursor {
            msg_id: last.view.message.msg_id.to_string(),
            timestamp: last.view.timestamp.clone(),
            at: Some(if held_back > 0 {
                last.end
            } else {
                end.unwrap_or(last.end)
            }),
        }),
        // Nothing new: the position still moves past what others were
        // sent, so the next read starts from there.
        None => end
            .filter(|end| cursor.and_then(|c| c.at) != Some(*end))
            .map(|end| Cursor {
                msg_id: cursor.map(|c| c.msg_id.clone()).unwrap_or_default(),
                timestamp: cursor.map(|c| c.timestamp.clone()).unwrap_or_default(),
                at: Some(end),
            }),
    };
    InboxView {
        shown: shown.iter().map(|i| i.view.clone()).collect(),
        held_back,
        more_older: false,
        unread,
        new_cursor,
        from_cursor: cursor.cloned(),
    }
}

/// The `limit` most recent messages of `agent`: `found` holds the records
/// that concern it, in log order, with one message more than `limit` when
/// older ones exist; `live_end` is the end of the log. `after` tells
/// whether a record (its segment index and end) lies past the cursor's
/// position, when the cursor has one.
pub fn pick_recent(
    found: Vec<Located>,
    live_end: Option<LogPos>,
    agent: &str,
    cursor: Option<&Cursor>,
    limit: Option<usize>,
    after: Option<&PastCursor<'_>>,
) -> InboxView {
    let limit = limit.unwrap_or(usize::MAX);
    let items = items(found, agent);
    let extra = items.len() > limit;
    let legacy_first = match (cursor, after) {
        (Some(c), None) => legacy_first_unread(&items, c),
        _ => 0,
    };
    let is_unread = |k: usize| match after {
        Some(after) => after(items[k].seg, &items[k].end),
        None => k >= legacy_first,
    };
    let first_shown = items.len() - items.len().min(limit);
    let unread = (0..items.len()).filter(|&k| is_unread(k)).count();
    // Marking read is only honest when no unread one is hidden.
    let marks_all = !(extra && is_unread(0));
    let any_unread_shown = (first_shown..items.len()).any(is_unread);
    let new_cursor = (marks_all && any_unread_shown)
        .then(|| {
            let last = items.last()?;
            Some(Cursor {
                msg_id: last.view.message.msg_id.to_string(),
                timestamp: last.view.timestamp.clone(),
                at: Some(live_end.unwrap_or(last.end)),
            })
        })
        .flatten();
    InboxView {
        shown: items[first_shown..]
            .iter()
            .map(|i| i.view.clone())
            .collect(),
        held_back: usize::from(extra),
        more_older: extra,
        unread,
        new_cursor,
        from_cursor: cursor.cloned(),
    }
}

/// Every message of `agent` among `records` (the whole log), or those
/// whose text, sender or type contains `search` (any case), the last
/// `limit` of them. Marks nothing read.
pub fn pick_history(
    records: Vec<Located>,
    agent: &str,
    cursor: Option<&Cursor>,
    search: Option<&str>,
    limit: Option<usize>,
) -> InboxView {
    let needle = search.map(str::to_lowercase);
    let matching: Vec<MessageView> = items(records, agent)
        .into_iter()
        .map(|i| i.view)
        .filter(|v| {
            needle.as_ref().is_none_or(|n| {
                let m = &v.message;
                [m.content.as_str(), m.sender.as_str(), m.msg_type.as_str()]
                    .iter()
                    .any(|f| f.to_lowercase().contains(n))
            })
        })
        .collect();
    let take = matching.len().min(limit.unwrap_or(usize::MAX));
    let held_back = matching.len() - take;
    InboxView {
        shown: matching[held_back..].to_vec(),
        held_back,
        more_older: false,
        unread: 0,
        new_cursor: None,
        from_cursor: cursor.cloned(),
    }
}

/// The read cursors of a project.
#[derive(Clone, Debug)]
pub(crate) struct ReadState {
    cursors: StateFile,
    python: StateFile,
}

impl ReadState {
    /// The read state of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> ReadState {
        ReadState {
            cursors: StateFile::new(paths.read_cursors()),
            python: StateFile::new(paths.last_read()),
        }
    }

    /// Where `agent` has read to; a damaged file reads as "nothing read"
    /// with a note (showing a message twice beats hiding one).
    pub(crate) fn cursor(
        &self,
        agent: &str,
    ) -> Result<(Option<Cursor>, Option<String>), StoreError> {
        match self.cursors.read_json::<Cursors>()? {
            Loaded::Valid(c) => Ok((c.agents.get(agent).cloned(), None)),
            Loaded::Missing => Ok((None, None)),
            Loaded::Corrupt(why) => Ok((
                None,
                Some(format!(
                    "{} is damaged ({why}); showing every message as unread",
                    self.cursors.path().display()
                )),
            )),
        }
    }

    /// Every agent's cursor; a missing or damaged file reads as none.
    pub(crate) fn all(&self) -> Result<BTreeMap<String, Cursor>, StoreError> {
        Ok(match self.cursors.read_json::<Cursors>()? {
            Loaded::Valid(c) => c.agents,
            Loaded::Missing | Loaded::Corrupt(_) => BTreeMap::new(),
        })
    }

    /// Moves `agent`'s read position from `from` (what the read started
    /// with) to `cursor`. When another read moved it meanwhile, it only
    /// moves forwards: the read that got further wins. (Unconditionally
    /// from `from`, so that a log cut short by hand, where the new
    /// position lies before the old, does not show the same messages
    /// forever.) The Python tool's file follows when the last message read
    /// changed. Damaged files are moved aside before being rewritten.
    pub(crate) fn advance(
        &self,
        agent: &str,
        cursor: &Cursor,
        from: Option<&Cursor>,
    ) -> Result<(), StoreError> {
        let lock = self.cursors.lock(DEFAULT_LOCK_TIMEOUT)?;
        self.advance_under(lock, agent, cursor, from)
    }

    /// `agent`'s oldest unread messages in the log of `paths`, up to
    /// `limit`, read and marked read under the cursors' lock: of racing
    /// takers each message goes to exactly one.
    pub(crate) fn take_new(
        &self,
        paths: &Paths,
        agent: &str,
        limit: Option<usize>,
    ) -> Result<(InboxView, Option<String>), StoreError> {
        let lock = self.cursors.lock(DEFAULT_LOCK_TIMEOUT)?;
        let (cursor, note) = self.cursor(agent)?;
        let view = read(
            paths,
            agent,
            cursor.as_ref(),
            &Selection::New,
            limit,
            &ReadMeter::default(),
        )?;
        if let Some(to) = &view.new_cursor {
            self.advance_under(lock, agent, to, view.from_cursor.as_ref())?;
        }
        Ok((view, note))
    }

    /// `advance` with the cursors' lock already held (released inside).
    fn advance_under(
        &self,
        lock: StateLock,
        agent: &str,
        cursor: &Cursor,
        from: Option<&Cursor>,
    ) -> Result<(), StoreError> {
        let mut all = match self.cursors.read_json::<Cursors>()? {
            Loaded::Valid(c) => c,
            Loaded::Missing => Cursors::default(),
            Loaded::Corrupt(_) => {
                self.cursors.preserve(&lock)?;
                Cursors::default()
            }
        };
        let previous = all.agents.get(agent).cloned();
        if previous.as_ref() != from
            && let (Some(Cursor { at: Some(was), .. }), Some(now)) = (&previous, cursor.at)
            && !now.after(was)
        {
            return Ok(());
        }
        all.version = CURSORS_VERSION;
        all.agents.insert(agent.to_owned(), cursor.clone());
        let bytes = json::to_vec(&all, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: self.cursors.path().to_owned(),
            source,
        })?;
        self.cursors.write_unsynced(&lock, &bytes)?;
        drop(lock);
        if cursor.timestamp.is_empty() || previous.is_some_and(|p| p.timestamp == cursor.timestamp)
        {
            return Ok(());
        }

        let lock = self.python.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut map = match self.python.read_json::<Map<String, Value>>()? {
            Loaded::Valid(m) => m,
            Loaded::Missing => Map::new(),
            Loaded::Corrupt(_) => {
                self.python.preserve(&lock)?;
                Map::new()
            }
        };
        map.insert(agent.to_owned(), Value::String(cursor.timestamp.clone()));
        let bytes = json::to_vec(&map, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: self.python.path().to_owned(),
            source,
        })?;
        self.python.write_unsynced(&lock, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::message::{Message, MessageType};
    use crate::log::on_files::FileLog;

    fn message(to: &str, text: &str) -> Message {
        Message::new(
            "agent-9".parse().expect("an agent id"),
            vec![to.parse().expect("an agent id")],
            MessageType::builtin("INFO"),
            text.into(),
        )
    }

    fn send(log: &FileLog, to: &str, text: &str) {
        log.append(&[Record::logged(&message(to, text), &[true])])
            .expect("append");
    }

    fn contents(v: &InboxView) -> Vec<String> {
        v.shown.iter().map(|m| m.message.content.clone()).collect()
    }

    struct Reader {
        paths: Paths,
        agent: &'static str,
    }

    impl Reader {
        /// Reads as `swarm inbox` does, moves the cursor, and returns what
        /// was shown with the bytes of the log read.
        fn read(&self, selection: Selection, limit: Option<usize>) -> (InboxView, u64) {
            let state = ReadState::new(&self.paths);
            let (cursor, _) = state.cursor(self.agent).expect("cursor");
            let meter = ReadMeter::default();
            let view = read(
                &self.paths,
                self.agent,
                cursor.as_ref(),
                &selection,
                limit,
                &meter,
            )
            .expect("read");
            if let Some(c) = &view.new_cursor {
                state
                    .advance(self.agent, c, view.from_cursor.as_ref())
                    .expect("advance");
            }
            (view, meter.bytes())
        }
    }

    fn rotated(paths: &Paths) -> usize {
        LogFiles::new(paths.message_log())
            .numbers()
            .expect("list")
            .len()
    }

    #[test]
    fn new_shows_oldest_unread_first_and_marks_only_those() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths);
        for i in 0..9 {
            send(
                &log,
                if i % 3 == 2 { "agent-2" } else { "agent-1" },
                &format!("m{i}"),
            );
        }
        let r = Reader {
            paths: paths.clone(),
            agent: "agent-1",
        };
        let (first, _) = r.read(Selection::New, Some(4));
        assert_eq!(contents(&first), ["m0", "m1", "m3", "m4"]);
        assert_eq!((first.unread, first.held_back), (6, 2));
        let (second, _) = r.read(Selection::New, Some(4));
        assert_eq!(contents(&second), ["m6", "m7"]);
        let (third, _) = r.read(Selection::New, Some(4));
        assert!(third.shown.is_empty() && third.new_cursor.is_none());
    }

    #[test]
    fn recent_reads_from_the_end_and_marks_only_when_nothing_unread_is_hidden() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths).with_rotation(4096);
        for i in 0..300 {
            send(&log, "agent-1", &format!("m{i} {}", "x".repeat(100)));
        }
        assert!(rotated(&paths) >= 5);
        let total: u64 = std::fs::read_dir(dir.path())
            .expect("ls")
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("agent_messages.log")
            })
            .map(|e| e.metadata().expect("meta").len())
            .sum();
        let r = Reader {
            paths: paths.clone(),
            agent: "agent-1",
        };
        let (recent, bytes) = r.read(Selection::Recent, Some(3));
        let first: Vec<String> = contents(&recent)
            .iter()
            .map(|c| c.split(' ').next().unwrap_or("").to_owned())
            .collect();
        assert_eq!(first, ["m297", "m298", "m299"]);
        assert!(recent.more_older);
        assert!(recent.new_cursor.is_none(), "would skip unread m0..m296");
        assert!(bytes < total / 4, "read {bytes} of {total} bytes");
        // After reading everything, a recent view marks read again.
        r.read(Selection::New, None);
        send(&log, "agent-1", "late");
        let (recent, _) = r.read(Selection::Recent, Some(3));
        assert_eq!(recent.unread, 1);
        assert!(recent.new_cursor.is_some());
        let (new, _) = r.read(Selection::New, None);
        assert!(new.shown.is_empty());
    }

    #[test]
    fn nothing_new_reads_nothing_of_the_history() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths).with_rotation(8192);
        for i in 0..400 {
            send(&log, "agent-1", &format!("m{i} {}", "x".repeat(200)));
        }
        assert!(rotated(&paths) >= 5);
        let r = Reader {
            paths: paths.clone(),
            agent: "agent-1",
        };
        let (all, _) = r.read(Selection::New, None);
        assert_eq!(all.shown.len(), 400);
        // Nothing new: not one byte of the log is read.
        let (none, bytes) = r.read(Selection::New, Some(10));
        assert!(none.shown.is_empty());
        assert_eq!(bytes, 0);
        // One new message: only its line is read.
        let m = message("agent-1", "one more");
        let line = Record::logged(&m, &[true]).to_line().expect("json").len() as u64 + 1;
        log.append(&[Record::logged(&m, &[true])]).expect("append");
        let (one, bytes) = r.read(Selection::New, Some(10));
        assert_eq!(contents(&one), ["one more"]);
        assert_eq!(bytes, line, "read {bytes} bytes for a {line}-byte line");
        // Traffic between others is read once, then no more.
        for i in 0..50 {
            send(&log, "agent-2", &format!("other {i}"));
        }
        let (none, once) = r.read(Selection::New, Some(10));
        assert!(none.shown.is_empty() && once > 0);
        let (_, again) = r.read(Selection::New, Some(10));
        assert_eq!(again, 0);
    }

    #[test]
    fn an_agent_without_a_cursor_skips_segments_with_nothing_for_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths).with_rotation(8192);
        for i in 0..300 {
            send(&log, "agent-2", &format!("m{i} {}", "x".repeat(200)));
        }
        send(&log, "agent-1", "welcome");
        assert!(rotated(&paths) >= 5);
        let live = std::fs::metadata(paths.message_log()).expect("live").len();
        let r = Reader {
            paths: paths.clone(),
            agent: "agent-1",
        };
        let (v, bytes) = r.read(Selection::New, None);
        assert_eq!(contents(&v), ["welcome"]);
        assert!(bytes <= live, "read {bytes} bytes; the live log has {live}");
    }

    #[test]
    fn all_history_finds_messages_in_rotated_segments() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths).with_rotation(4096);
        send(&log, "agent-1", "the password is in the vault");
        for i in 0..200 {
            send(&log, "agent-1", &format!("m{i} {}", "x".repeat(100)));
        }
        assert!(rotated(&paths) >= 3);
        let r = Reader {
            paths: paths.clone(),
            agent: "agent-1",
        };
        let search = Selection::AllHistory {
            search: Some("VAULT".into()),
        };
        let (found, _) = r.read(search, None);
        assert_eq!(contents(&found), ["the password is in the vault"]);
        assert!(found.new_cursor.is_none());
        let (all, _) = r.read(Selection::AllHistory { search: None }, None);
        assert_eq!(all.shown.len(), 201);
    }

    #[test]
    fn a_cursor_without_a_position_still_works_by_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths);
        let first = message("agent-1", "old");
        log.append(&[Record::logged(&first, &[true])])
            .expect("append");
        send(&log, "agent-1", "new");
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        std::fs::write(
            paths.read_cursors(),
            format!(
                "{{\"version\": 1, \"agents\": {{\"agent-1\": {{\"msg_id\": \"{}\", \"timestamp\": \"x\"}}}}}}",
                first.msg_id
            ),
        )
        .expect("write");
        let r = Reader {
            paths: paths.clone(),
            agent: "agent-1",
        };
        let (v, _) = r.read(Selection::New, None);
        assert_eq!(contents(&v), ["new"]);
        let (v, bytes) = r.read(Selection::New, None);
        assert!(v.shown.is_empty() && bytes == 0);
    }

    #[test]
    fn a_log_cut_short_by_hand_shows_each_message_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths);
        for i in 0..5 {
            send(&log, "agent-1", &format!("before {i}"));
        }
        let r = Reader {
            paths: paths.clone(),
            agent: "agent-1",
        };
        assert_eq!(r.read(Selection::New, None).0.shown.len(), 5);
        std::fs::write(paths.message_log(), "").expect("truncate");
        send(&log, "agent-1", "after");
        assert_eq!(contents(&r.read(Selection::New, None).0), ["after"]);
        assert!(r.read(Selection::New, None).0.shown.is_empty());
    }

    #[test]
    fn cursors_persist_never_go_back_and_python_file_follows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let rs = ReadState::new(&paths);
        assert_eq!(rs.cursor("a").expect("read"), (None, None));
        let at = |offset| LogPos {
            segment: 1,
            ino: 5,
            offset,
        };
        let c = Cursor {
            msg_id: "x".into(),
            timestamp: "2026-11-21T13:27:06.556070+00:00".into(),
            at: Some(at(100)),
        };
        rs.advance("a", &c, None).expect("advance");
        assert_eq!(rs.cursor("a").expect("read").0, Some(c.clone()));
        // A read that started before and got less far loses...
        let behind = Cursor {
            at: Some(at(50)),
            ..c.clone()
        };
        rs.advance("a", &behind, None).expect("advance");
        assert_eq!(rs.cursor("a").expect("read").0, Some(c.clone()));
        // ...but one that started from the stored position (a log cut
        // short by hand) moves it back.
        rs.advance("a", &behind, Some(&c)).expect("advance");
        assert_eq!(rs.cursor("a").expect("read").0, Some(behind));
        let py: Value =
            serde_json::from_str(&std::fs::read_to_string(paths.last_read()).expect("read"))
                .expect("json");
        assert_eq!(py["a"], "2026-11-21T13:27:06.556070+00:00");
    }
}
