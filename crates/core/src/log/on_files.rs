//! `FileLog`: the `LogStore` kept in `agent_messages.log`, the JSON-lines
//! message log and durable inbox.
//!
//! A message is appended before delivery is attempted (from then on it
//! cannot be lost), and its outcome is appended afterwards as a separate
//! delivery record. Appends happen under a sidecar `flock`, in one `write`
//! per batch, so concurrent writers never lose or interleave lines. Past
//! the configured size (10 MiB by default, as in the Python tool) the log
//! is renamed to the next numbered segment under the same lock, so no
//! append is ever dropped by a rotation; old segments are removed by the
//! retention policy (`retention.rs`), never while one holds a message an
//! agent has not read. docs/MESSAGE_LOG.md describes the files.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::time::{Duration, SystemTime};

use crate::log::inbox::{self, Cursor, InboxView, ReadState, Selection};
use crate::log::log_store::{LogFollower, LogStore, ScanBatch, ScanVisitor};
use crate::log::record::{LogContents, LogPos, Record, TailBatch};
use crate::log::retention::{self, LogPolicy, Readers, SegmentVerdict};
use crate::log::segments::{
    INDEX_VERSION, LogIndex, Segment, SegmentKind, SegmentSet, index_file, read_index, summarize,
};
use crate::log::tail::LogTail;
use crate::store::{
    AppendMode, LogFiles, Paths, ReadMeter, StateFile, StateLock, StoreError, open_append,
};
use crate::support::json::{self, Layout};

/// How long an append waits for other writers.
const APPEND_LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// The message log of a project.
#[derive(Clone, Debug)]
pub struct FileLog {
    paths: Paths,
    file: StateFile,
    files: LogFiles,
    policy: LogPolicy,
}

impl FileLog {
    /// The log of the project laid out by `paths`, with the default
    /// rotation and retention.
    pub fn new(paths: &Paths) -> FileLog {
        let path = paths.message_log();
        FileLog {
            paths: paths.clone(),
            files: LogFiles::new(&path),
            file: StateFile::new(path),
            policy: LogPolicy::default(),
        }
    }

    /// The same log with the configured rotation and retention.
    pub(crate) fn with_policy(mut self, policy: LogPolicy) -> FileLog {
        self.policy = policy;
        self
    }

    /// The same log rotating at another size (for tests).
    #[cfg(any(test, feature = "testing"))]
    pub fn with_rotation(mut self, bytes: u64) -> FileLog {
        self.policy.rotate_bytes = bytes;
        self
    }

    /// Appends records as JSON lines in one write, under the log's lock,
    /// rotating first when the log has grown past the limit. A log that
    /// is a symlink is moved aside (never written through); the returned
    /// warnings say so.
    pub fn append(&self, records: &[Record]) -> Result<Vec<String>, StoreError> {
        let path = self.file.path();
        let write_err = |source| StoreError::Write {
            path: path.to_owned(),
            source,
        };
        let mut buf = Vec::with_capacity(512 * records.len());
        for r in records {
            buf.extend(r.to_line().map_err(|source| StoreError::Encode {
                path: path.to_owned(),
                source,
            })?);
            buf.push(b'\n');
        }
        let lock = self.file.lock(APPEND_LOCK_TIMEOUT)?;
        let mut warnings = Vec::new();
        let mut rotate_live = false;
        if let Ok(meta) = fs::symlink_metadata(path) {
            if meta.file_type().is_symlink() || !meta.is_file() {
                if let Some(aside) = self.file.preserve(&lock)? {
                    warnings.push(format!(
                        "{} was not a regular file; moved it to {} and started a new log",
                        path.display(),
                        aside.display()
                    ));
                }
            } else if meta.len() > self.policy.rotate_bytes {
                rotate_live = true;
            }
        }
        // A `.old` from the Python tool is numbered at once: its next
        // rotation would delete it. A missing index is written so that
        // readers need not list the directory.
        if rotate_live
            || LogFiles::stat(&self.files.old())?.is_some()
            || fs::symlink_metadata(self.paths.message_log_index()).is_err()
        {
            self.rotate(&lock, rotate_live)?;
        }
        // Checked again on the opened handle: a FIFO put there since the
        // look above is refused, never waited on.
        let mut file = open_append(path, AppendMode::AppendAndRead)?;
        // A log cut short mid-line (a crash of another tool, a full disk)
        // must not swallow our first line into its torn last one.
        let len = file.metadata().map_err(write_err)?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            file.read_exact_at(&mut last, len - 1).map_err(write_err)?;
            if last[0] != b'\n' {
                buf.insert(0, b'\n');
            }
        }
        file.write_all(&buf).map_err(write_err)?;
        drop(lock);
        Ok(warnings)
    }

    /// Under the log's lock: numbers a `.old`, renames the live log to the
    /// next number when `rotate_live`, summarises segments the index does
    /// not know, removes what the retention policy lets go, and rewrites
    /// the index. Each step leaves the files consistent on its own: a
    /// crash in between leaves an index that readers see is out of date.
    fn rotate(&self, lock: &StateLock, rotate_live: bool) -> Result<(), StoreError> {
        let index = read_index(&self.paths)?;
        let numbers = self.files.numbers()?;
        let mut next = numbers
            .last()
            .map_or(1, |n| n + 1)
            .max(index.as_ref().map_or(1, |i| i.next));
        let old = self.files.old();
        if LogFiles::stat(&old)?.is_some() {
            self.files.rename(lock, &old, &self.files.numbered(next))?;
            next += 1;
        }
        if rotate_live && LogFiles::stat(self.files.current())?.is_some() {
            self.files
                .rename(lock, self.files.current(), &self.files.numbered(next))?;
            next += 1;
        }
        let meter = ReadMeter::default();
        let mut segments = Vec::new();
        for n in self.files.numbers()? {
            let path = self.files.numbered(n);
            let Some(stat) = LogFiles::stat(&path)? else {
                continue;
            };
            let known = index
                .as_ref()
                .and_then(|i| i.segments.iter().find(|s| s.number == n))
                .filter(|s| s.ino == stat.ino && s.bytes == stat.len)
                .cloned();
            let summary = match known {
                Some(s) => s,
                None => match summarize(n, &path, &meter)? {
                    Some(s) => s,
                    None => continue,
                },
            };
            segments.push((summary, stat.modified));
        }
        let readers = Readers::load(&self.paths)?;
        let verdicts = retention::plan(&segments, &self.policy, &readers, SystemTime::now());
        let mut kept = Vec::new();
        for ((summary, _), verdict) in segments.into_iter().zip(verdicts) {
            if verdict.keep {
                kept.push(summary);
            } else {
                self.files
                    .remove(lock, &self.files.numbered(summary.number))?;
            }
        }
        let index = LogIndex {
            version: INDEX_VERSION,
            next,
            segments: kept,
        };
        let file = index_file(&self.paths);
        let bytes = json::to_vec(&index, Layout::Indent2).map_err(|source| StoreError::Encode {
            path: file.path().to_owned(),
            source,
        })?;
        let index_lock = file.lock(APPEND_LOCK_TIMEOUT)?;
        file.write_unsynced(&index_lock, &bytes)
    }

    /// What the retention policy would do with each rotated segment now.
    pub(crate) fn retention(&self) -> Result<Vec<SegmentVerdict>, StoreError> {
        let set = SegmentSet::load(&self.paths)?;
        let meter = ReadMeter::default();
        let mut segments = Vec::new();
        for seg in &set.segments {
            if seg.kind != SegmentKind::Rotated {
                continue;
            }
            let Some(stat) = LogFiles::stat(&seg.path)? else {
                continue;
            };
            let summary = match seg
                .summary
                .clone()
                .filter(|s| s.bytes == stat.len && s.ino == stat.ino)
            {
                Some(s) => s,
                None => match summarize(seg.number, &seg.path, &meter)? {
                    Some(s) => s,
                    None => continue,
                },
            };
            segments.push((summary, stat.modified));
        }
        let readers = Readers::load(&self.paths)?;
        Ok(retention::plan(
            &segments,
            &self.policy,
            &readers,
            SystemTime::now(),
        ))
    }

    /// Reads every segment, oldest first, without locking. A rotation
    /// during the read is noticed (the live log got another number) and
    /// the read retried.
    pub(crate) fn read(&self) -> Result<LogContents, StoreError> {
        for _ in 0..5 {
            let set = SegmentSet::load(&self.paths)?;
            let meter = ReadMeter::default();
            let forward = set.read_forward((0, 0), &meter, &|_| false, &|_| true, &mut |_| true)?;
            let after = SegmentSet::load(&self.paths)?;
            if after.live().number != set.live().number {
                continue;
            }
            return Ok(LogContents {
                records: forward.records.into_iter().map(|l| l.record).collect(),
                skipped: forward.skipped,
            });
        }
        Err(StoreError::Read {
            path: self.file.path().to_owned(),
            source: io::Error::other("the log kept being rotated while it was read"),
        })
    }
}

impl LogStore for FileLog {
    fn append(&self, records: &[Record]) -> Result<Vec<String>, StoreError> {
        FileLog::append(self, records)
    }

    fn read_all(&self) -> Result<LogContents, StoreError> {
        self.read()
    }

    fn inbox(
        &self,
        agent: &str,
        cursor: Option<&Cursor>,
        selection: &Selection,
        limit: Option<usize>,
    ) -> Result<InboxView, StoreError> {
        inbox::read(
            &self.paths,
            agent,
            cursor,
            selection,
            limit,
            &ReadMeter::default(),
        )
    }

    fn cursor(&self, agent: &str) -> Result<(Option<Cursor>, Option<String>), StoreError> {
        ReadState::new(&self.paths).cursor(agent)
    }

    fn advance(&self, agent: &str, to: &Cursor, from: Option<&Cursor>) -> Result<(), StoreError> {
        ReadState::new(&self.paths).advance(agent, to, from)
    }

    fn take_new(
        &self,
        agent: &str,
        limit: Option<usize>,
    ) -> Result<(InboxView, Option<String>), StoreError> {
        ReadState::new(&self.paths).take_new(&self.paths, agent, limit)
    }

    fn scan(
        &self,
        from: Option<&LogPos>,
        visit: &mut ScanVisitor<'_>,
    ) -> Result<Option<Vec<u64>>, StoreError> {
        let set = SegmentSet::load(&self.paths)?;
        let live = LogFiles::stat(&set.live().path)?;
        let ino_of = |i: usize, seg: &Segment| {
            if seg.kind == SegmentKind::Live {
                live.map(|l| l.ino)
            } else {
                seg.ino.or_else(|| {
                    LogFiles::stat(&set.segments[i].path)
                        .ok()
                        .flatten()
                        .map(|s| s.ino)
                })
            }
        };
        // A segment that still has the position's number but is another
        // file (a log moved aside and begun again) makes the position
        // meaningless: everything is read again.
        let (start, mut restarted) = match from {
            None => ((0, 0), true),
            Some(pos) => {
                let replaced = set.segments.iter().enumerate().any(|(i, seg)| {
                    seg.number == pos.segment && ino_of(i, seg).is_some_and(|ino| ino != pos.ino)
                });
                if replaced {
                    ((0, 0), true)
                } else {
                    (set.start_after(pos, live), false)
                }
            }
        };
        let meter = ReadMeter::default();
        let mut end = from.copied().filter(|_| !restarted);
        for i in start.0..set.segments.len() {
            let offset = if i == start.0 { start.1 } else { 0 };
            let mut forward = crate::log::segments::Forward::default();
            set.read_segment(i, offset, &meter, &|_| true, &mut |_| true, &mut forward)?;
            if forward.end.is_some() {
                end = forward.end;
            }
            if forward.records.is_empty() && !restarted {
                continue;
            }
            visit(ScanBatch {
                restarted,
                records: forward.records,
                end,
            })?;
            restarted = false;
        }
        if restarted {
            visit(ScanBatch {
                restarted,
                records: Vec::new(),
                end,
            })?;
        } else if end != from.copied() {
            // Past lines that held no record: the next scan starts there.
            visit(ScanBatch {
                restarted: false,
                records: Vec::new(),
                end,
            })?;
        }
        Ok(Some(set.segments.iter().map(|s| s.number).collect()))
    }

    fn identity(&self) -> String {
        "files".into()
    }

    fn follow(&self) -> Result<(Box<dyn LogFollower>, TailBatch), StoreError> {
        let (tail, batch) = LogTail::open(&self.paths)?;
        Ok((Box::new(tail), batch))
    }

    fn follow_each(
        &self,
        each: &mut dyn FnMut(TailBatch),
    ) -> Result<Box<dyn LogFollower>, StoreError> {
        Ok(Box::new(LogTail::open_each(&self.paths, each)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_appends_in_order_and_shows_each_message_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = FileLog::new(&Paths::new(dir.path()));
        crate::log::log_store::contract::appends_in_order_and_shows_each_message_once(&log);
    }

    #[test]
    fn contract_racing_appenders_and_readers_lose_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = FileLog::new(&Paths::new(dir.path())).with_rotation(4096);
        crate::log::log_store::contract::racing_appenders_and_readers_lose_nothing(Arc::new(log));
    }

    #[test]
    fn contract_racing_takers_take_each_message_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = FileLog::new(&Paths::new(dir.path()));
        crate::log::log_store::contract::racing_takers_take_each_message_once(Arc::new(log));
    }
    use crate::domain::AgentId;
    use crate::domain::message::{Message, MessageType};
    use crate::log::record::{DeliveryOutcome, DeliveryRecord};
    use std::sync::{Arc, Barrier};

    fn id(s: &str) -> AgentId {
        AgentId::parse(s).expect("an agent id")
    }

    fn message(n: usize) -> Message {
        Message::new(
            id(&format!("agent-{}", n % 7)),
            vec![id("agent-1")],
            MessageType::builtin("INFO"),
            format!("message {n} {}", "x".repeat(n % 300)),
        )
    }

    #[test]
    fn appended_messages_and_outcomes_merge_on_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = FileLog::new(&Paths::new(dir.path()));
        let m = message(1);
        log.append(&[Record::logged(&m, &[false])]).expect("append");
        log.append(&[Record::Delivery(DeliveryRecord::new(
            m.msg_id.as_str(),
            &[(
                "agent-1".into(),
                DeliveryOutcome::queued("shell in foreground"),
            )],
            None,
        ))])
        .expect("append");
        log.append(&[Record::Delivery(DeliveryRecord::new(
            m.msg_id.as_str(),
            &[("agent-1".into(), DeliveryOutcome::delivered())],
            None,
        ))])
        .expect("append");
        let contents = log.read().expect("read");
        assert_eq!(contents.records.len(), 3);
        let views = contents.messages();
        assert_eq!(views.len(), 1);
        assert_eq!(
            views[0].outcome_for("agent-1"),
            Some(&DeliveryOutcome::delivered())
        );
    }

    #[test]
    fn a_torn_last_line_does_not_swallow_the_next_message() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        fs::write(paths.message_log(), b"{\"sender\": \"a\", \"timest").expect("write");
        let log = FileLog::new(&paths);
        let m = message(4);
        log.append(&[Record::logged(&m, &[true])]).expect("append");
        let contents = log.read().expect("read");
        assert_eq!((contents.records.len(), contents.skipped), (1, 1));
        assert_eq!(contents.messages()[0].message.msg_id, m.msg_id);
    }

    #[test]
    fn garbage_lines_are_skipped_not_fatal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths);
        fs::write(paths.message_log(), b"not json\n\xff\xfe\n{\"a\": 1}\n\n").expect("write");
        log.append(&[Record::logged(&message(2), &[true])])
            .expect("append");
        let contents = log.read().expect("read");
        assert_eq!((contents.records.len(), contents.skipped), (1, 3));
    }

    #[test]
    fn lines_with_ids_no_agent_could_have_are_skipped_and_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let line = |sender: &str, to: &str, time: &str, id: &str| {
            serde_json::json!({
                "sender": sender, "timestamp": time, "msg_type": "INFO", "content": id,
                "recipients": [to], "msg_id": id,
            })
            .to_string()
        };
        let when = "2026-11-21T13:27:02.029457+00:00";
        let lines = [
            line("agent-0", "agent-1", when, "kept"),
            line("agent 0", "agent-1", when, "bad sender"),
            line("agent-0", "../agent-1", when, "bad recipient"),
            line("agent-0", "agent-1", "not a time", "no time"),
        ];
        fs::write(paths.message_log(), format!("{}\n", lines.join("\n"))).expect("write");
        let contents = FileLog::new(&paths).read().expect("read");
        assert_eq!((contents.records.len(), contents.skipped), (2, 2));
        let views = contents.messages();
        let ids: Vec<&str> = views.iter().map(|v| v.message.msg_id.as_str()).collect();
        assert_eq!(ids, ["kept", "no time"]);
        assert_eq!(
            views[1].message.created,
            crate::domain::Timestamp::UNIX_EPOCH
        );
        assert_eq!(views[1].timestamp, "1970-01-01T00:00:00.000000+00:00");
    }

    #[test]
    fn records_read_from_a_log_are_written_again_as_they_were() {
        let dir = tempfile::tempdir().expect("tempdir");
        let from = Paths::new(dir.path().join("from"));
        let to = Paths::new(dir.path().join("to"));
        for p in [&from, &to] {
            fs::create_dir_all(p.root()).expect("mkdir");
        }
        let swarm_line = Record::logged(&message(1), &[]).to_line().expect("line");
        let text = format!(
            "{}\n{}\n{}\n{}\n",
            String::from_utf8(swarm_line).expect("utf8"),
            r#"{"sender":"agent-3","timestamp":"2026-11-21T13:27:02","msg_type":"x","content":"\u00e9\u00E9","recipients":["all"],"msg_id":"py","task":{"n":1.50},"delivery_status":{"agent-1":false},"success_count":0,"failure_count":1,"extra":[]}"#,
            r#"{"event": "delivery", "msg_id": "py", "timestamp": "yesterday", "recipients": [], "outcomes": {"agent-1": {"status": "delivered", "by": "hand"}}, "more": 1}"#,
            r#"{"sender": "agent-0", "timestamp": "late", "msg_type": "INFO", "content": "x", "recipients": ["agent-1"], "msg_id": "t"}"#,
        );
        fs::write(from.message_log(), &text).expect("write");
        let contents = FileLog::new(&from).read().expect("read");
        assert_eq!((contents.records.len(), contents.skipped), (4, 0));
        FileLog::new(&to).append(&contents.records).expect("append");
        assert_eq!(fs::read_to_string(to.message_log()).expect("read"), text);
        // A delivery record changed since it was read is written anew.
        let Record::Delivery(mut d) = contents.records[2].clone() else {
            unreachable!("a delivery record")
        };
        d.note = Some("changed".into());
        let line = String::from_utf8(Record::Delivery(d).to_line().expect("line")).expect("utf8");
        assert!(line.ends_with("\"note\": \"changed\"}"), "{line}");
    }

    #[test]
    fn a_symlinked_log_is_moved_aside_not_written_through() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let target = dir.path().join("elsewhere");
        fs::write(&target, "keep\n").expect("write");
        std::os::unix::fs::symlink(&target, paths.message_log()).expect("symlink");
        let log = FileLog::new(&paths);
        assert!(log.read().expect("read").records.is_empty());
        let warnings = log
            .append(&[Record::logged(&message(3), &[true])])
            .expect("append");
        assert_eq!(warnings.len(), 1);
        assert_eq!(fs::read_to_string(&target).expect("read"), "keep\n");
        assert_eq!(log.read().expect("read").records.len(), 1);
    }

    #[test]
    fn concurrent_writers_with_rotation_lose_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let threads = 8;
        let per_thread = 150;
        // About 480 KB are written in all: rotating at 40 KB happens about
        // a dozen times mid-run, so the segments must hold every message
        // between them.
        let rotate_at = 40 * 1024;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let paths = paths.clone();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let log = FileLog::new(&paths).with_rotation(rotate_at);
                    barrier.wait();
                    let mut ids = Vec::new();
                    for i in 0..per_thread {
                        let m = message(t * per_thread + i);
                        log.append(&[Record::logged(&m, &[true])]).expect("append");
                        ids.push(m.msg_id.to_string());
                    }
                    ids
                })
            })
            .collect();
        let mut sent: Vec<String> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect();
        let rotated = LogFiles::new(paths.message_log()).numbers().expect("list");
        assert!(rotated.len() >= 5, "only {} rotations", rotated.len());
        let contents = FileLog::new(&paths).read().expect("read");
        assert_eq!(contents.skipped, 0, "a line was torn or interleaved");
        let mut seen: Vec<String> = contents
            .messages()
            .into_iter()
            .map(|v| v.message.msg_id.to_string())
            .collect();
        sent.sort();
        seen.sort();
        assert_eq!(seen, sent, "messages were lost or duplicated");
    }

    fn register(paths: &Paths, ids: &[&str]) {
        let agents: Vec<String> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                format!(
                    r#"{{"id": "{id}", "pane_index": "s:1.{i}", "pid": 1, "status": "active", "last_seen": "2026-11-21T00:00:00+00:00", "session_name": "s", "tmux_pane_id": "%{i}"}}"#
                )
            })
            .collect();
        fs::write(
            paths.registry(),
            format!(
                r#"{{"session_name": "s", "updated_at": "2026-11-21T00:00:00+00:00", "agents": [{}]}}"#,
                agents.join(", ")
            ),
        )
        .expect("registry");
    }

    #[test]
    fn an_unread_message_survives_any_number_of_rotations() {
        use crate::log::inbox::{self, ReadState, Selection};
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        register(&paths, &["agent-1", "agent-2"]);
        // Keep nothing that is not needed: only unread messages hold a
        // segment back.
        let log = FileLog::new(&paths).with_policy(LogPolicy {
            rotate_bytes: 2048,
            keep_bytes: 0,
            keep_age: Duration::from_secs(3600),
        });
        let first = Message::new(
            id("agent-2"),
            vec![id("agent-1")],
            MessageType::builtin("INFO"),
            "read me later".into(),
        );
        log.append(&[Record::logged(&first, &[false])])
            .expect("append");
        let state = ReadState::new(&paths);
        let meter = ReadMeter::default();
        // agent-2 is sent a lot and reads as it goes.
        for round in 0..12 {
            for i in 0..10 {
                let m = Message::new(
                    id("agent-1"),
                    vec![id("agent-2")],
                    MessageType::builtin("INFO"),
                    format!("round {round} message {i} {}", "x".repeat(100)),
                );
                log.append(&[Record::logged(&m, &[true])]).expect("append");
            }
            let (cursor, _) = state.cursor("agent-2").expect("cursor");
            let v = inbox::read(
                &paths,
                "agent-2",
                cursor.as_ref(),
                &Selection::New,
                None,
                &meter,
            )
            .expect("read");
            assert_eq!(v.shown.len(), 10);
            state
                .advance(
                    "agent-2",
                    v.new_cursor.as_ref().expect("moves"),
                    cursor.as_ref(),
                )
                .expect("advance");
        }
        let index = read_index(&paths).expect("index").expect("written");
        assert!(index.next > 6, "only {} rotations", index.next - 1);
        // Read segments went; the one with agent-1's message stayed, and
        // so did only those agent-2 had not read at the last rotation.
        let kept = LogFiles::new(paths.message_log()).numbers().expect("list");
        assert!(kept.contains(&1) && !kept.contains(&2), "kept {kept:?}");
        assert!(kept.len() <= 4, "kept {kept:?}");
        let verdicts = log.retention().expect("retention");
        assert!(verdicts[0].keep && verdicts[0].reason.contains("agent-1"));
        let v = inbox::read(&paths, "agent-1", None, &Selection::New, None, &meter).expect("read");
        assert_eq!(v.shown.len(), 1);
        assert_eq!(v.shown[0].message.msg_id, first.msg_id);
        // Once read, the next rotation lets it go.
        state
            .advance("agent-1", v.new_cursor.as_ref().expect("moves"), None)
            .expect("advance");
        for i in 0..30 {
            log.append(&[Record::logged(&message(i), &[true])])
                .expect("append");
        }
        let kept = LogFiles::new(paths.message_log()).numbers().expect("list");
        assert!(!kept.contains(&1), "kept {kept:?}");
    }

    #[test]
    fn a_python_old_file_is_numbered_not_lost() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let old = message(1);
        let line = String::from_utf8(Record::logged(&old, &[true]).to_line().expect("json"))
            .expect("utf8");
        fs::write(
            dir.path().join("agent_messages.log.old"),
            format!("{line}\n"),
        )
        .expect("write");
        let log = FileLog::new(&paths);
        log.append(&[Record::logged(&message(2), &[true])])
            .expect("append");
        assert!(!dir.path().join("agent_messages.log.old").exists());
        assert!(dir.path().join("agent_messages.log.1").exists());
        let ids: Vec<String> = log
            .read()
            .expect("read")
            .messages()
            .into_iter()
            .map(|v| v.message.msg_id.to_string())
            .collect();
        assert_eq!(ids[0], old.msg_id.as_str());
        assert_eq!(ids.len(), 2);
    }
}
