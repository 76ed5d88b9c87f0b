//! The message log on Redis: the stream `{swarm:NAME}:log`, one entry per
//! record (field `r`: the record as the line the files would hold), and
//! each agent's read cursor as a field of the hash `{swarm:NAME}:cursors`
//! (the cursor as JSON; its position is the stream id of the entry where
//! reading stopped, `segment-offset`).
//!
//! An append is one `MULTI`/`EXEC` of `XADD`s: its records are in order,
//! and no other appender's records fall between them. Reading what is new
//! is one `XRANGE` from the cursor's entry on, so it costs what is new.
//! Advancing a cursor is a `WATCH`ed compare: it moves from where the read
//! began, or only forwards when another read moved it meanwhile. The
//! stream is never trimmed here, so no unread message is lost.

use std::time::Duration;
use swarm_core::inbox::{self, Cursor, PastCursor};
use swarm_core::{
    AppendWatch, InboxView, Located, LogContents, LogFollower, LogPos, LogStore, Record, ScanBatch,
    ScanVisitor, Selection, StoreError, TailBatch, parse_line,
};

use super::conn::{Redis, RedisTarget};

/// Entries asked for per `XRANGE`/`XREVRANGE`.
const PAGE: usize = 500;

/// Records a follower starts with: the most recent ones.
const RECENT: usize = 200;

/// The message log of one swarm on Redis.
pub(crate) struct RedisLog {
    target: RedisTarget,
}

impl RedisLog {
    /// The log of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisLog {
        RedisLog { target }
    }
}

/// A stream id as a log position: its two numbers.
fn position(id: &str) -> Option<LogPos> {
    let (ms, seq) = id.split_once('-')?;
    Some(LogPos {
        segment: ms.parse().ok()?,
        ino: 0,
        offset: seq.parse().ok()?,
    })
}

/// A log position as a stream id.
fn stream_id(at: &LogPos) -> String {
    format!("{}-{}", at.segment, at.offset)
}

/// One stream entry: its id and its fields.
type Entry = (String, Vec<(String, Vec<u8>)>);

/// The record of an entry, `None` when it holds none that parses.
fn record(entry: &Entry) -> Option<Record> {
    let (_, fields) = entry;
    let (_, raw) = fields.iter().find(|(f, _)| f == "r")?;
    parse_line(std::str::from_utf8(raw).ok()?)
}

/// Records with their places, and the entries that held none.
#[derive(Default)]
struct Page {
    records: Vec<Located>,
    skipped: usize,
    /// The id of the last entry read.
    last: Option<String>,
}

impl Page {
    fn push(&mut self, entry: &Entry) {
        match (record(entry), position(&entry.0)) {
            (Some(record), Some(end)) => self.records.push(Located {
                record,
                seg: 0,
                end,
            }),
            _ => self.skipped += 1,
        }
        self.last = Some(entry.0.clone());
    }
}

/// One page (at most `PAGE`) of the log's entries after `after` (`None`:
/// from the start), in order.
fn page_after(r: &mut Redis, after: Option<&str>) -> Result<Vec<Entry>, StoreError> {
    let key = r.keys.log();
    let start = after.map_or_else(|| "-".to_owned(), |id| format!("({id}"));
    r.query(
        redis::cmd("XRANGE")
            .arg(&key)
            .arg(&start)
            .arg("+")
            .arg("COUNT")
            .arg(PAGE),
    )
}

/// Every entry after `after` (`None`: from the start), in order.
fn read_from(r: &mut Redis, after: Option<&str>) -> Result<Page, StoreError> {
    let mut page = Page::default();
    let mut after = after.map(str::to_owned);
    loop {
        let entries = page_after(r, after.as_deref())?;
        for e in &entries {
            page.push(e);
        }
        match entries.last() {
            Some((id, _)) if entries.len() == PAGE => after = Some(id.clone()),
            _ => return Ok(page),
        }
    }
}

/// `agent`'s messages after `cursor`, up to `limit`: one `XRANGE` from the
/// cursor's entry on (from the start for a cursor without a position).
fn new_after(
    r: &mut Redis,
    agent: &str,
    cursor: Option<&Cursor>,
    limit: Option<usize>,
) -> Result<InboxView, StoreError> {
    let at = cursor.and_then(|c| c.at);
    let page = read_from(r, at.as_ref().map(stream_id).as_deref())?;
    let end = page.last.as_deref().and_then(position);
    let mine = page
        .records
        .into_iter()
        .filter(|l| inbox::concerns(&l.record, agent))
        .collect();
    Ok(inbox::pick_new(mine, end, agent, cursor, limit))
}

/// `agent`'s cursor in the hash `key`, and a note when it is damaged
/// (everything then reads as unread: showing a message twice beats hiding
/// one).
fn read_cursor(
    r: &mut Redis,
    key: &str,
    agent: &str,
) -> Result<(Option<Cursor>, Option<String>), StoreError> {
    let raw: Option<Vec<u8>> = r.query(redis::cmd("HGET").arg(key).arg(agent))?;
    Ok(match raw {
        None => (None, None),
        Some(bytes) => match serde_json::from_slice::<Cursor>(&bytes) {
            Ok(c) => (Some(c), None),
            Err(e) => (
                None,
                Some(format!(
                    "the read cursor of {agent} on the store is damaged ({e}); showing every message as unread"
                )),
            ),
        },
    })
}

/// A follower of the stream: each later entry once.
#[derive(Debug)]
struct RedisFollower {
    target: RedisTarget,
    last: Option<String>,
}

impl LogFollower for RedisFollower {
    fn read_new(&mut self) -> Result<TailBatch, StoreError> {
        let mut r = self.target.connect()?;
        let page = read_from(&mut r, self.last.as_deref())?;
        if page.last.is_some() {
            self.last = page.last;
        }
        Ok(TailBatch {
            records: page.records.into_iter().map(|l| l.record).collect(),
            skipped: page.skipped,
            rotated: false,
        })
    }
}

/// Waits for appends with a blocking `XREAD` on the stream, over a
/// connection of its own kept open between waits (opened again after a
/// failure).
struct RedisAppendWatch {
    target: RedisTarget,
    conn: Option<Redis>,
    /// The id of the last entry seen: appends after it wake the wait.
    last: String,
}

impl RedisAppendWatch {
    fn wait_on(&mut self, wait: Duration) -> Result<bool, StoreError> {
        let r = match &mut self.conn {
            Some(r) => r,
            None => self.conn.insert(self.target.connect()?),
        };
        // The block ends well inside the connection's own read timeout,
        // so a quiet stream is never taken for a server that stopped
        // answering.
        let block = wait.min(self.target.timeout() / 2);
        let block = u64::try_from(block.as_millis()).unwrap_or(u64::MAX).max(1);
        let key = r.keys.log();
        let reply: Option<Vec<(String, Vec<Entry>)>> = r.query(
            redis::cmd("XREAD")
                .arg("COUNT")
                .arg(PAGE)
                .arg("BLOCK")
                .arg(block)
                .arg("STREAMS")
                .arg(&key)
                .arg(&self.last),
        )?;
        let newest = reply
            .into_iter()
            .flatten()
            .filter_map(|(_, entries)| entries.last().map(|(id, _)| id.clone()))
            .next_back();
        Ok(match newest {
            Some(id) => {
                self.last = id;
                true
            }
            None => false,
        })
    }
}

impl AppendWatch for RedisAppendWatch {
    fn wait(&mut self, wait: Duration) -> Result<bool, StoreError> {
        let got = self.wait_on(wait);
        if got.is_err() {
            self.conn = None;
        }
        got
    }
}

impl LogStore for RedisLog {
    fn append(&self, records: &[Record]) -> Result<Vec<String>, StoreError> {
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let mut r = self.target.connect()?;
        let key = r.keys.log();
        let mut pipe = redis::pipe();
        pipe.atomic();
        for record in records {
            let line = record.to_line().map_err(|source| StoreError::Encode {
                path: key.clone().into(),
                source,
            })?;
            pipe.cmd("XADD")
                .arg(&key)
                .arg("*")
                .arg("r")
                .arg(line)
                .ignore();
        }
        r.pipe::<()>(&pipe)?;
        Ok(Vec::new())
    }

    fn read_all(&self) -> Result<LogContents, StoreError> {
        let mut r = self.target.connect()?;
        let page = read_from(&mut r, None)?;
        Ok(LogContents {
            records: page.records.into_iter().map(|l| l.record).collect(),
            skipped: page.skipped,
        })
    }

    fn inbox(
        &self,
        agent: &str,
        cursor: Option<&Cursor>,
        selection: &Selection,
        limit: Option<usize>,
    ) -> Result<InboxView, StoreError> {
        let mut r = self.target.connect()?;
        let at = cursor.and_then(|c| c.at);
        match selection {
            Selection::New => new_after(&mut r, agent, cursor, limit),
            Selection::Recent => {
                let want = limit.unwrap_or(usize::MAX);
                let key = r.keys.log();
                let mut found = Vec::new();
                let mut mine = 0usize;
                let mut live_end = None;
                let mut end = "+".to_owned();
                'pages: loop {
                    let entries: Vec<Entry> = r.query(
                        redis::cmd("XREVRANGE")
                            .arg(&key)
                            .arg(&end)
                            .arg("-")
                            .arg("COUNT")
                            .arg(PAGE),
                    )?;
                    for e in &entries {
                        if live_end.is_none() {
                            live_end = position(&e.0);
                        }
                        let Some(place) = position(&e.0) else {
                            continue;
                        };
                        let Some(rec) = record(e).filter(|rec| inbox::concerns(rec, agent)) else {
                            continue;
                        };
                        if matches!(rec, Record::Message(_)) {
                            mine += 1;
                        }
                        found.push(Located {
                            record: rec,
                            seg: 0,
                            end: place,
                        });
                        // One more than shown tells whether older ones exist.
                        if mine > want {
                            break 'pages;
                        }
                    }
                    match entries.last() {
                        Some((id, _)) if entries.len() == PAGE => end = format!("({id}"),
                        _ => break,
                    }
                }
                found.reverse();
                let after = at.map(|at| move |_: usize, end: &LogPos| end.after(&at));
                Ok(inbox::pick_recent(
                    found,
                    live_end,
                    agent,
                    cursor,
                    limit,
                    after.as_ref().map(|f| f as &PastCursor<'_>),
                ))
            }
            Selection::AllHistory { search } => {
                let page = read_from(&mut r, None)?;
                Ok(inbox::pick_history(
                    page.records,
                    agent,
                    cursor,
                    search.as_deref(),
                    limit,
                ))
            }
        }
    }

    fn cursor(&self, agent: &str) -> Result<(Option<Cursor>, Option<String>), StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.cursors();
        read_cursor(&mut r, &key, agent)
    }

    fn advance(&self, agent: &str, to: &Cursor, from: Option<&Cursor>) -> Result<(), StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.cursors();
        let body = serde_json::to_vec(to).map_err(|source| StoreError::Encode {
            path: key.clone().into(),
            source,
        })?;
        r.transaction(std::slice::from_ref(&key), |r| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("HGET").arg(&key).arg(agent))?;
            let previous = raw.and_then(|b| serde_json::from_slice::<Cursor>(&b).ok());
            // Another read moved it meanwhile: only forwards.
            if previous.as_ref() != from
                && let (Some(Cursor { at: Some(was), .. }), Some(now)) = (&previous, to.at)
                && !now.after(was)
            {
                return Ok::<_, StoreError>((None, ()));
            }
            let mut pipe = redis::pipe();
            pipe.cmd("HSET").arg(&key).arg(agent).arg(&body).ignore();
            Ok((Some(pipe), ()))
        })
    }

    fn take_new(
        &self,
        agent: &str,
        limit: Option<usize>,
    ) -> Result<(InboxView, Option<String>), StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.cursors();
        // Read and move under WATCH: of racing takers one commits, the
        // others read again from where it left the cursor.
        r.transaction(std::slice::from_ref(&key), |r| {
            let (cursor, note) = read_cursor(r, &key, agent)?;
            let view = new_after(r, agent, cursor.as_ref(), limit)?;
            let pipe = match &view.new_cursor {
                Some(to) => {
                    let body = serde_json::to_vec(to).map_err(|source| StoreError::Encode {
                        path: key.clone().into(),
                        source,
                    })?;
                    let mut pipe = redis::pipe();
                    pipe.cmd("HSET").arg(&key).arg(agent).arg(body).ignore();
                    Some(pipe)
                }
                None => None,
            };
            Ok::<_, StoreError>((pipe, (view, note)))
        })
    }

    fn scan(
        &self,
        from: Option<&LogPos>,
        visit: &mut ScanVisitor<'_>,
    ) -> Result<Option<Vec<u64>>, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.log();
        // The stream is never trimmed: a position whose entry is gone
        // belongs to a stream that was replaced (a migration with --force).
        let mut after = from.map(stream_id);
        let mut restarted = after.is_none();
        if let Some(id) = &after {
            let found: Vec<Entry> = r.query(redis::cmd("XRANGE").arg(&key).arg(id).arg(id))?;
            if found.is_empty() {
                after = None;
                restarted = true;
            }
        }
        loop {
            let entries = page_after(&mut r, after.as_deref())?;
            let mut page = Page::default();
            for e in &entries {
                page.push(e);
            }
            if page.last.is_some() || restarted {
                visit(ScanBatch {
                    restarted,
                    records: page.records,
                    end: page.last.as_deref().and_then(position),
                })?;
                restarted = false;
            }
            match page.last {
                Some(id) if entries.len() == PAGE => after = Some(id),
                _ => return Ok(None),
            }
        }
    }

    fn identity(&self) -> String {
        format!("redis {}", self.target.name())
    }

    fn append_watch(&self) -> Result<Option<Box<dyn AppendWatch>>, StoreError> {
        // Starts after the newest entry now, so that whatever the caller
        // reads next is all it was woken for before.
        let mut r = self.target.connect()?;
        let key = r.keys.log();
        let newest: Vec<Entry> = r.query(
            redis::cmd("XREVRANGE")
                .arg(&key)
                .arg("+")
                .arg("-")
                .arg("COUNT")
                .arg(1),
        )?;
        let last = newest
            .into_iter()
            .next()
            .map_or_else(|| "0-0".to_owned(), |(id, _)| id);
        Ok(Some(Box::new(RedisAppendWatch {
            target: self.target.clone(),
            conn: Some(r),
            last,
        })))
    }

    fn follow(&self) -> Result<(Box<dyn LogFollower>, TailBatch), StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.log();
        let mut recent: Vec<Entry> = r.query(
            redis::cmd("XREVRANGE")
                .arg(&key)
                .arg("+")
                .arg("-")
                .arg("COUNT")
                .arg(RECENT),
        )?;
        recent.reverse();
        let mut page = Page::default();
        for e in &recent {
            page.push(e);
        }
        let follower = RedisFollower {
            target: self.target.clone(),
            last: page.last.clone(),
        };
        Ok((
            Box::new(follower),
            TailBatch {
                records: page.records.into_iter().map(|l| l.record).collect(),
                skipped: page.skipped,
                rotated: false,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::test_server::TestServer;
    use swarm_core::contracts::log as contract;

    #[test]
    fn the_stream_keeps_the_log_store_contract() {
        let server = TestServer::start();
        contract::appends_in_order_and_shows_each_message_once(&RedisLog::new(
            server.target("one"),
        ));
        contract::racing_appenders_and_readers_lose_nothing(Arc::new(RedisLog::new(
            server.target("race"),
        )));
        contract::racing_takers_take_each_message_once(Arc::new(RedisLog::new(
            server.target("takers"),
        )));
    }

    #[test]
    fn entries_that_hold_no_record_are_counted_not_fatal() {
        let server = TestServer::start();
        let target = server.target("junk");
        let log = RedisLog::new(target.clone());
        let mut r = target.connect().expect("connect");
        let key = r.keys.log();
        r.query::<String>(
            redis::cmd("XADD")
                .arg(&key)
                .arg("*")
                .arg("r")
                .arg("not json"),
        )
        .expect("xadd");
        r.query::<String>(redis::cmd("XADD").arg(&key).arg("*").arg("x").arg("1"))
            .expect("xadd");
        let contents = log.read_all().expect("read");
        assert_eq!((contents.records.len(), contents.skipped), (0, 2));
        r.query::<()>(
            redis::cmd("HSET")
                .arg(r.keys.cursors())
                .arg("agent-1")
                .arg("{"),
        )
        .expect("hset");
        let (cursor, note) = log.cursor("agent-1").expect("cursor");
        assert!(cursor.is_none());
        assert!(note.is_some_and(|n| n.contains("damaged")));
    }

    #[test]
    fn entries_hold_the_lines_the_files_would_and_give_them_back_as_they_were() {
        let server = TestServer::start();
        let target = server.target("lines");
        let log = RedisLog::new(target.clone());
        let lines = [
            r#"{"sender":"agent-3","timestamp":"2026-11-21T13:27:02","msg_type":"x","content":"\u00E9","recipients":["all"],"msg_id":"py","delivery_status":{"agent-1":true},"signature":"s"}"#,
            r#"{"sender": "agent-0", "timestamp": "late", "msg_type": "INFO", "content": "x", "recipients": ["agent-1"], "msg_id": "t"}"#,
            r#"{"event": "delivery", "msg_id": "py", "timestamp": "t", "recipients": [], "outcomes": {}, "more": 1}"#,
        ];
        let records: Vec<Record> = lines
            .iter()
            .map(|l| parse_line(l).expect("a record"))
            .collect();
        log.append(&records).expect("append");
        let back: Vec<String> = log
            .read_all()
            .expect("read")
            .records
            .iter()
            .map(|r| String::from_utf8(r.to_line().expect("line")).expect("utf8"))
            .collect();
        assert_eq!(back, lines);
        // A message swarm logs is stored as the line the files hold.
        let m = swarm_core::Message::new(
            "agent-0".parse().expect("an agent id"),
            vec!["agent-1".parse().expect("an agent id")],
            swarm_core::MessageType::builtin("INFO"),
            "héllo".into(),
        );
        let record = Record::Message(swarm_core::LoggedMessage::new(m));
        log.append(std::slice::from_ref(&record)).expect("append");
        let mut r = target.connect().expect("connect");
        let last: Vec<Entry> = r
            .query(
                redis::cmd("XREVRANGE")
                    .arg(r.keys.log())
                    .arg("+")
                    .arg("-")
                    .arg("COUNT")
                    .arg(1),
            )
            .expect("xrevrange");
        assert_eq!(last[0].1[0].1, record.to_line().expect("line"));
    }

    #[test]
    fn an_append_watch_wakes_for_what_comes_after_it_began_and_only_once() {
        let server = TestServer::start();
        let log = Arc::new(RedisLog::new(server.target("wake")));
        let line = |text: &str| {
            parse_line(&format!(
                r#"{{"sender": "agent-0", "timestamp": "t", "msg_type": "INFO", "content": "{text}", "recipients": ["agent-1"], "msg_id": "{text}"}}"#
            ))
            .expect("a record")
        };
        log.append(&[line("before")]).expect("append");
        let mut watch = log
            .append_watch()
            .expect("watch")
            .expect("a shared log has one");
        // What was there before the watch began does not wake it.
        assert!(!watch.wait(Duration::from_millis(20)).expect("wait"));
        // An append from another client wakes it, whether it lands before
        // the wait or while the wait blocks.
        let appender = {
            let log = Arc::clone(&log);
            let first = line("after");
            std::thread::spawn(move || log.append(&[first]).expect("append"))
        };
        assert!(watch.wait(Duration::from_secs(5)).expect("wait"));
        appender.join().expect("appender");
        // Once seen, it does not wake the next wait.
        assert!(!watch.wait(Duration::from_millis(20)).expect("wait"));
        log.append(&[line("later"), line("later2")])
            .expect("append");
        assert!(watch.wait(Duration::from_secs(5)).expect("wait"));
        assert!(!watch.wait(Duration::from_millis(20)).expect("wait"));
    }

    #[test]
    fn positions_are_stream_ids() {
        let at = position("1700000000000-7").expect("an id");
        assert_eq!((at.segment, at.offset), (1_700_000_000_000, 7));
        assert_eq!(stream_id(&at), "1700000000000-7");
        assert!(position("nope").is_none());
    }
}
