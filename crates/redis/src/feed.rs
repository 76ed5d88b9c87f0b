//! The activity feed on Redis: the stream `{swarm:NAME}:feed`, one entry
//! per feed line (field `e`: the line's JSON). An append is one `XADD`
//! that also trims the stream to about the kept size, and one `XTRIM` by
//! age; a follower reads with `XREAD BLOCK` from the last id it saw, so
//! it waits on the server instead of polling.

use std::time::Duration;

use swarm_core::{
    FeedCursor, FeedEntry, FeedRead, FeedRetention, FeedStore, StoreError, feed_line_of,
    parse_feed_line,
};

use super::conn::RedisTarget;

/// About how many bytes one feed entry takes, for trimming by size.
const ENTRY_BYTES: u64 = 300;

/// Entries asked for per `XRANGE`.
const PAGE: usize = 1000;

/// The feed of one swarm on Redis.
pub(crate) struct RedisFeed {
    target: RedisTarget,
    retention: FeedRetention,
}

impl RedisFeed {
    /// The feed of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget, retention: FeedRetention) -> RedisFeed {
        RedisFeed { target, retention }
    }
}

/// One stream entry: its id and its fields.
type Entry = (String, Vec<(String, Vec<u8>)>);

/// Adds the entries to `read`, moving its cursor past them.
fn take(read: &mut FeedRead, entries: Vec<Entry>) {
    for (id, fields) in entries {
        match fields
            .iter()
            .find(|(k, _)| k == "e")
            .and_then(|(_, v)| parse_feed_line(v))
        {
            Some(e) => read.entries.push(e),
            None => read.skipped += 1,
        }
        read.cursor = FeedCursor(id);
    }
}

/// The id after which the next page starts (`(id` is exclusive).
fn after(id: &str) -> String {
    format!("({id}")
}

impl FeedStore for RedisFeed {
    fn append(&self, entries: &[FeedEntry]) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut r = self.target.connect()?;
        let key = r.keys.feed();
        let keep = (self.retention.keep_bytes / ENTRY_BYTES).max(100);
        let oldest_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.saturating_sub(self.retention.keep_for).as_millis())
            .unwrap_or(0);
        let mut pipe = redis::pipe();
        for e in entries {
            let mut line = feed_line_of(e);
            line.pop();
            pipe.cmd("XADD")
                .arg(&key)
                .arg("MAXLEN")
                .arg("~")
                .arg(keep)
                .arg("*")
                .arg("e")
                .arg(line)
                .ignore();
        }
        pipe.cmd("XTRIM")
            .arg(&key)
            .arg("MINID")
            .arg("~")
            .arg(format!("{oldest_ms}-0"))
            .ignore();
        r.pipe::<()>(&pipe)
    }

    fn read_all(&self) -> Result<FeedRead, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.feed();
        let mut read = FeedRead {
            cursor: FeedCursor("0-0".into()),
            ..FeedRead::default()
        };
        let mut from = "-".to_owned();
        loop {
            let page: Vec<Entry> = r.query(
                redis::cmd("XRANGE")
                    .arg(&key)
                    .arg(&from)
                    .arg("+")
                    .arg("COUNT")
                    .arg(PAGE),
            )?;
            let n = page.len();
            take(&mut read, page);
            if n < PAGE {
                return Ok(read);
            }
            from = after(&read.cursor.0);
        }
    }

    fn read_after(&self, cursor: &FeedCursor, wait: Duration) -> Result<FeedRead, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.feed();
        let start = if cursor.0.is_empty() {
            "0-0"
        } else {
            cursor.0.as_str()
        };
        let mut read = FeedRead {
            cursor: FeedCursor(start.to_owned()),
            ..FeedRead::default()
        };
        let mut cmd = redis::cmd("XREAD");
        cmd.arg("COUNT").arg(PAGE);
        // BLOCK 0 waits forever: a zero wait asks without blocking.
        if !wait.is_zero() {
            let ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
            cmd.arg("BLOCK").arg(ms);
        }
        cmd.arg("STREAMS").arg(&key).arg(start);
        let got: Option<Vec<(String, Vec<Entry>)>> = r.query(&cmd)?;
        for (_, entries) in got.unwrap_or_default() {
            take(&mut read, entries);
        }
        Ok(read)
    }
}
