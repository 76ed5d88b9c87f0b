//! The inbox: the messages addressed to one agent, and which of them it has
//! read. Only what was shown is ever marked read (the original marked
//! everything, losing whatever `--limit` hid).
//!
//! The read position is the last message shown, by id, in
//! `.swarm/read_cursors.json`; `.swarm/last_read_messages.json` (the
//! Python tool's file: agent id -> timestamp) is kept in step so both tools
//! agree on what is new.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::messaging::message_log::MessageView;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};
use crate::support::time;

/// How far an agent has read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Cursor {
    /// The last message read.
    pub msg_id: String,
    /// Its log timestamp (used when the message has rotated out of the log).
    pub timestamp: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cursors {
    version: u32,
    agents: BTreeMap<String, Cursor>,
}

/// What to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    /// The oldest unread messages, up to the limit.
    New,
    /// The most recent messages, read or not, up to the limit.
    Recent,
}

/// The messages to show, and what was held back.
#[derive(Clone, Debug)]
pub(crate) struct InboxView {
    /// Messages to show, oldest first.
    pub shown: Vec<MessageView>,
    /// Matching messages not shown because of the limit.
    pub held_back: usize,
    /// Unread messages (before this read).
    pub unread: usize,
    /// Where the read position moves to, when it moves.
    pub new_cursor: Option<Cursor>,
}

/// Picks the messages for `agent` from the log (`views`, in log order).
pub(crate) fn select(
    views: &[MessageView],
    agent: &str,
    cursor: Option<&Cursor>,
    selection: Selection,
    limit: usize,
) -> InboxView {
    let mine: Vec<&MessageView> = views.iter().filter(|v| v.entry.is_for(agent)).collect();
    let first_unread = match cursor {
        None => 0,
        Some(c) => match mine.iter().position(|v| v.entry.msg_id == c.msg_id) {
            Some(i) => i + 1,
            // Rotated out of the log: fall back to comparing times.
            None => match time::parse_iso(&c.timestamp) {
                Some(t) => mine
                    .iter()
                    .position(|v| time::parse_iso(&v.entry.timestamp).is_none_or(|ts| ts > t))
                    .unwrap_or(mine.len()),
                None => 0,
            },
        },
    };
    let unread = mine.len() - first_unread;
    let (range, marks_all) = match selection {
        Selection::New => {
            let end = first_unread + unread.min(limit);
            (first_unread..end, true)
        }
        Selection::Recent => {
            let start = mine.len().saturating_sub(limit);
            // Marking read is only honest when every unread one is shown.
            (start..mine.len(), start <= first_unread)
        }
    };
    let held_back = match selection {
        Selection::New => unread - range.len(),
        Selection::Recent => mine.len() - range.len(),
    };
    let new_cursor = (marks_all && !range.is_empty() && range.end > first_unread).then(|| {
        let last = &mine[range.end - 1].entry;
        Cursor {
            msg_id: last.msg_id.clone(),
            timestamp: last.timestamp.clone(),
        }
    });
    InboxView {
        shown: mine[range].iter().map(|v| (*v).clone()).collect(),
        held_back,
        unread,
        new_cursor,
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
            cursors: StateFile::new(paths.swarm_dir().join("read_cursors.json")),
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

    /// Moves `agent`'s read position (never backwards in the log: the caller
    /// only passes positions past the current one). Damaged files are
    /// moved aside before being rewritten.
    pub(crate) fn advance(&self, agent: &str, cursor: &Cursor) -> Result<(), StoreError> {
        let lock = self.cursors.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut all = match self.cursors.read_json::<Cursors>()? {
            Loaded::Valid(c) => c,
            Loaded::Missing => Cursors::default(),
            Loaded::Corrupt(_) => {
                self.cursors.preserve(&lock)?;
                Cursors::default()
            }
        };
        all.version = 1;
        all.agents.insert(agent.to_owned(), cursor.clone());
        let bytes = json::to_vec(&all, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: self.cursors.path().to_owned(),
            source,
        })?;
        self.cursors.write_unsynced(&lock, &bytes)?;
        drop(lock);

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

    fn views(n: usize, to: &str) -> Vec<MessageView> {
        (0..n)
            .map(|i| {
                let m = Message::new(
                    "agent-0".into(),
                    vec![if i % 3 == 2 {
                        "agent-9".into()
                    } else {
                        to.into()
                    }],
                    MessageType::builtin("INFO"),
                    format!("m{i}"),
                );
                MessageView {
                    entry: m.log_entry(&[true]),
                    outcomes: Vec::new(),
                }
            })
            .collect()
    }

    fn contents(v: &InboxView) -> Vec<String> {
        v.shown.iter().map(|m| m.entry.content.clone()).collect()
    }

    #[test]
    fn new_shows_oldest_unread_first_and_marks_only_those() {
        let all = views(9, "agent-1"); // m0 m1 m3 m4 m6 m7 are for agent-1
        let first = select(&all, "agent-1", None, Selection::New, 4);
        assert_eq!(contents(&first), ["m0", "m1", "m3", "m4"]);
        assert_eq!((first.unread, first.held_back), (6, 2));
        let cursor = first.new_cursor.expect("moves");
        let second = select(&all, "agent-1", Some(&cursor), Selection::New, 4);
        assert_eq!(contents(&second), ["m6", "m7"]);
        assert_eq!(second.held_back, 0);
        let third = select(
            &all,
            "agent-1",
            second.new_cursor.as_ref(),
            Selection::New,
            4,
        );
        assert!(third.shown.is_empty() && third.new_cursor.is_none());
    }

    #[test]
    fn recent_marks_read_only_when_nothing_unread_is_hidden() {
        let all = views(9, "agent-1");
        let partial = select(&all, "agent-1", None, Selection::Recent, 3);
        assert_eq!(contents(&partial), ["m4", "m6", "m7"]);
        assert_eq!(partial.held_back, 3);
        assert!(partial.new_cursor.is_none(), "would skip unread m0..m3");
        let whole = select(&all, "agent-1", None, Selection::Recent, 10);
        assert_eq!(
            whole.new_cursor.map(|c| c.msg_id),
            Some(all[7].entry.msg_id.clone())
        );
    }

    #[test]
    fn a_rotated_away_cursor_falls_back_to_time() {
        let all = views(4, "agent-1");
        let gone = Cursor {
            msg_id: "rotated-away".into(),
            timestamp: all[0].entry.timestamp.clone(),
        };
        let v = select(&all, "agent-1", Some(&gone), Selection::New, 10);
        assert!(contents(&v).iter().all(|c| c != "m0"));
    }

    #[test]
    fn cursors_persist_and_python_file_follows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let rs = ReadState::new(&paths);
        assert_eq!(rs.cursor("a").expect("read"), (None, None));
        let c = Cursor {
            msg_id: "x".into(),
            timestamp: "2026-11-21T13:27:06.556070+00:00".into(),
        };
        rs.advance("a", &c).expect("advance");
        assert_eq!(rs.cursor("a").expect("read").0, Some(c));
        let py: Value =
            serde_json::from_str(&std::fs::read_to_string(paths.last_read()).expect("read"))
                .expect("json");
        assert_eq!(py["a"], "2026-11-21T13:27:06.556070+00:00");
    }
}
