//! `MessageFeed`: the latest messages of the log, kept in memory and
//! brought up to date by following the log by byte offset (`LogTail`), so
//! that a request costs only the lines written since the last one, however
//! large the log has grown. Each message carries its latest delivery
//! outcome per recipient, merged in from swarm's delivery records.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use swarm_core::{
    Backend, DeliveryOutcome, LogFollower, LoggedMessage, Record, StoreError, TailBatch,
};

/// How many of the latest messages are kept: the largest `limit` the API
/// serves, and the sample its statistics are taken over.
pub(super) const KEPT_MESSAGES: usize = 1000;

/// The latest messages of one project's log.
#[derive(Debug)]
pub(super) struct MessageFeed {
    backend: Arc<Backend>,
    tail: Option<Box<dyn LogFollower>>,
    /// Oldest first, each with its sequence number.
    kept: VecDeque<(u64, LoggedMessage)>,
    /// Message id to the sequence number of the latest message with it.
    by_id: HashMap<String, u64>,
    /// Per message id, the recipients whose latest outcome went through
    /// an agent's own channel or ended in one of its states.
    native: HashMap<String, Map<String, Value>>,
    next_seq: u64,
}

impl MessageFeed {
    /// A feed of the log of `backend`; nothing is read until `refresh`.
    pub(super) fn new(backend: Arc<Backend>) -> MessageFeed {
        MessageFeed {
            backend,
            tail: None,
            kept: VecDeque::new(),
            by_id: HashMap::new(),
            native: HashMap::new(),
            next_seq: 0,
        }
    }

    /// Reads what was written since the last call. The first call reads
    /// the whole log (its rotated part first). After a rotation or a
    /// truncation the log is read again from the start, so the feed always
    /// holds what a fresh read of the files would give. Returns true when
    /// the messages changed.
    pub(super) fn refresh(&mut self) -> Result<bool, StoreError> {
        let batch = match self.tail.as_mut() {
            Some(tail) => tail.read_new()?,
            None => return self.reopen().map(|()| true),
        };
        if batch.rotated {
            self.reopen()?;
            return Ok(true);
        }
        Ok(self.absorb(batch))
    }

    /// The latest `n` messages, oldest first.
    pub(super) fn latest(&self, n: usize) -> impl Iterator<Item = &LoggedMessage> {
        self.kept
            .iter()
            .skip(self.kept.len().saturating_sub(n))
            .map(|(_, e)| e)
    }

    /// How many messages are kept (at most `KEPT_MESSAGES`).
    pub(super) fn len(&self) -> usize {
        self.kept.len()
    }

    /// How many kept messages there are of each type.
    pub(super) fn type_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for (_, e) in &self.kept {
            *counts
                .entry(e.message().msg_type.as_str().to_owned())
                .or_insert(0) += 1;
        }
        counts
    }

    fn reopen(&mut self) -> Result<(), StoreError> {
        self.tail = None;
        self.kept.clear();
        self.by_id.clear();
        // A piece at a time: a large log is never held whole, only the
        // newest `KEPT_MESSAGES`.
        let backend = Arc::clone(&self.backend);
        match backend.log.follow_each(&mut |batch| {
            self.absorb(batch);
        }) {
            Ok(tail) => {
                self.tail = Some(tail);
                Ok(())
            }
            Err(e) => {
                // Nothing half read stays: the next call starts again.
                self.kept.clear();
                self.by_id.clear();
                Err(e)
            }
        }
    }

    fn absorb(&mut self, batch: TailBatch) -> bool {
        let mut changed = false;
        for record in batch.records {
            match record {
                Record::Message(logged) => {
                    let seq = self.next_seq;
                    self.next_seq += 1;
                    self.by_id.insert(logged.message().msg_id.to_string(), seq);
                    self.kept.push_back((seq, logged));
                    if self.kept.len() > KEPT_MESSAGES
                        && let Some((old, e)) = self.kept.pop_front()
                        && self.by_id.get(e.message().msg_id.as_str()) == Some(&old)
                    {
                        self.by_id.remove(e.message().msg_id.as_str());
                        self.native.remove(e.message().msg_id.as_str());
                    }
                    changed = true;
                }
                Record::Delivery(d) => {
                    let Some(entry) = self.entry_mut(&d.msg_id) else {
                        continue;
                    };
                    let mut native = Map::new();
                    let mut later = Vec::new();
                    for (recipient, outcome) in &d.outcomes {
                        let delivered =
                            outcome.get("status").and_then(Value::as_str) == Some("delivered");
                        entry.set_delivered(recipient, delivered);
                        let words = serde_json::from_value::<DeliveryOutcome>(outcome.clone())
                            .ok()
                            .and_then(|o| Some((o.state_words()?, o)));
                        match words {
                            Some((shown, o)) => {
                                native.insert(recipient.clone(), state_json(&o, shown));
                            }
                            None => later.push(recipient.clone()),
                        }
                    }
                    let kept = self.native.entry(d.msg_id.clone()).or_default();
                    for recipient in later {
                        kept.remove(&recipient);
                    }
                    kept.extend(native);
                    if kept.is_empty() {
                        self.native.remove(&d.msg_id);
                    }
                    changed = true;
                }
            }
        }
        changed
    }

    /// A kept message as the API serves it: its line's fields, and, when
    /// any recipient's copy went through an agent's own channel or ended
    /// in one of its states, `delivery`: per such recipient its `status`,
    /// `via`, `confirmed_by` as the log writes them and `shown`, the words
    /// the page shows.
    pub(super) fn to_json(&self, logged: &LoggedMessage) -> Value {
        let mut out = logged.to_json();
        if let Some(native) = self.native.get(logged.message().msg_id.as_str())
            && let Some(fields) = out.as_object_mut()
        {
            fields.insert("delivery".into(), Value::Object(native.clone()));
        }
        out
    }

    fn entry_mut(&mut self, msg_id: &str) -> Option<&mut LoggedMessage> {
        let seq = *self.by_id.get(msg_id)?;
        let front = self.kept.front()?.0;
        let index = usize::try_from(seq.checked_sub(front)?).ok()?;
        self.kept.get_mut(index).map(|(_, e)| e)
    }
}

/// One recipient's state in `delivery`.
fn state_json(o: &DeliveryOutcome, shown: String) -> Value {
    let mut v = json!({"status": o.status.as_str(), "shown": shown});
    if let Some(via) = o.via {
        v["via"] = via.as_str().into();
    }
    if let Some(by) = o.confirmed_by {
        v["confirmed_by"] = by.as_str().into();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use swarm_core::FileLog;
    use swarm_core::Paths;
    use swarm_core::{DeliveryOutcome, DeliveryRecord};
    use swarm_core::{Message, MessageType};

    fn message(n: usize) -> Message {
        let id = |s: &str| s.parse().expect("an agent id");
        Message::new(
            id("agent-0"),
            vec![id("agent-1"), id("agent-2")],
            MessageType::builtin("INFO"),
            format!("message {n}"),
        )
    }

    fn feed_of(paths: &Paths) -> MessageFeed {
        MessageFeed::new(Arc::new(Backend::files(
            paths,
            &swarm_core::Config::default(),
        )))
    }

    fn contents(feed: &MessageFeed, n: usize) -> Vec<String> {
        feed.latest(n)
            .map(|e| e.message().content.clone())
            .collect()
    }

    #[test]
    fn keeps_the_latest_messages_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let mut feed = feed_of(&paths);
        assert!(feed.refresh().expect("refresh"));
        assert_eq!(feed.len(), 0);
        assert!(!feed.refresh().expect("refresh"), "nothing new");
        let log = FileLog::new(&paths);
        let batch: Vec<_> = (0..KEPT_MESSAGES + 5)
            .map(|n| Record::logged(&message(n), &[true, true]))
            .collect();
        log.append(&batch).expect("append");
        assert!(feed.refresh().expect("refresh"));
        assert_eq!(feed.len(), KEPT_MESSAGES);
        assert_eq!(contents(&feed, 2), ["message 1003", "message 1004"]);
        assert_eq!(feed.latest(usize::MAX).count(), KEPT_MESSAGES);
        assert_eq!(feed.type_counts().get("INFO"), Some(&KEPT_MESSAGES));
    }

    #[test]
    fn delivery_records_update_their_message() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths);
        let m = message(1);
        log.append(&[Record::logged(&m, &[false, false])])
            .expect("append");
        let mut feed = feed_of(&paths);
        feed.refresh().expect("refresh");
        let entry = feed.latest(1).next().expect("entry").to_json();
        assert_eq!(
            (&entry["success_count"], &entry["failure_count"]),
            (&0.into(), &2.into())
        );
        log.append(&[Record::Delivery(DeliveryRecord::new(
            m.msg_id.as_str(),
            &[
                ("agent-1".into(), DeliveryOutcome::delivered()),
                (
                    "agent-2".into(),
                    DeliveryOutcome::queued("shell in foreground"),
                ),
            ],
            None,
        ))])
        .expect("append");
        assert!(feed.refresh().expect("refresh"));
        let entry = feed.latest(1).next().expect("entry").to_json();
        assert_eq!(entry["delivery_status"]["agent-1"], Value::Bool(true));
        assert_eq!(entry["delivery_status"]["agent-2"], Value::Bool(false));
        assert_eq!(
            (&entry["success_count"], &entry["failure_count"]),
            (&1.into(), &1.into())
        );
    }

    #[test]
    fn a_rotated_or_truncated_log_is_read_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let line = Record::logged(&message(0), &[true, true])
            .to_line()
            .expect("json");
        let log = FileLog::new(&paths).with_rotation(line.len() as u64 * 3);
        let mut feed = feed_of(&paths);
        for n in 0..10 {
            log.append(&[Record::logged(&message(n), &[true, true])])
                .expect("append");
            feed.refresh().expect("refresh");
        }
        // What a fresh read of the files gives, nothing lost or doubled.
        let mut fresh = feed_of(&paths);
        fresh.refresh().expect("refresh");
        assert_eq!(contents(&feed, 100), contents(&fresh, 100));
        assert_eq!(contents(&feed, 1), ["message 9"]);
        std::fs::write(paths.message_log(), "").expect("truncate");
        let files = swarm_core::LogFiles::new(paths.message_log());
        for n in files.numbers().expect("list") {
            std::fs::remove_file(files.numbered(n)).expect("rm");
        }
        assert!(feed.refresh().expect("refresh"));
        assert_eq!(feed.len(), 0);
    }
}
