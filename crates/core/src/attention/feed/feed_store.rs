//! `FeedStore`: the activity feed, an append-only record of what happened
//! in the swarm (attention events, agents joining and leaving, locks,
//! messages held and released, escalations), kept with a retention, and
//! the guarantees any place that keeps it must give.

use std::time::Duration;

use crate::attention::event::FeedEntry;
use crate::store::StoreError;

/// How much of the feed is kept (`[feed]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedRetention {
    /// The live part is rotated once larger than this many bytes.
    pub rotate_bytes: u64,
    /// Rotated parts are dropped, oldest first, while together larger.
    pub keep_bytes: u64,
    /// Rotated parts older than this are dropped.
    pub keep_for: Duration,
}

impl Default for FeedRetention {
    fn default() -> Self {
        FeedRetention {
            rotate_bytes: 4 * 1024 * 1024,
            keep_bytes: 40 * 1024 * 1024,
            keep_for: Duration::from_secs(30 * 24 * 3600),
        }
    }
}

impl FeedRetention {
    /// The retention `[feed]` sets (its ranges checked by the config).
    pub fn from_config(config: &crate::config::Config) -> FeedRetention {
        let f = &config.feed;
        FeedRetention {
            rotate_bytes: f.rotate_bytes,
            keep_bytes: f.keep_bytes,
            keep_for: Duration::from_secs(u64::from(f.keep_days) * 24 * 3600),
        }
    }
}

/// A position in the feed: what a follower has read up to. Opaque to
/// callers; each store writes its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedCursor(pub String);

/// What a read found.
#[derive(Clone, Debug, Default)]
pub struct FeedRead {
    /// The entries, oldest first.
    pub entries: Vec<FeedEntry>,
    /// Lines that are not feed entries (damaged, or written by a newer
    /// swarm in a shape this one does not know): skipped and counted.
    pub skipped: usize,
    /// Where the next read starts.
    pub cursor: FeedCursor,
}

/// Where the feed is kept.
pub trait FeedStore: Send + Sync {
    /// Appends entries, each whole: concurrent writers never interleave
    /// within an entry, and every entry appended before a read started is
    /// in it.
    fn append(&self, entries: &[FeedEntry]) -> Result<(), StoreError>;

    /// Everything kept, oldest first, with the cursor at its end.
    fn read_all(&self) -> Result<FeedRead, StoreError>;

    /// What was appended after `cursor`, oldest first; nothing is missed
    /// across a rotation, as long as the rotated part is still kept.
    /// `wait` bounds how long to wait for something new (zero: answer at
    /// once).
    fn read_after(&self, cursor: &FeedCursor, wait: Duration) -> Result<FeedRead, StoreError>;
}

/// Parses one feed line; `None` for anything that is not an entry.
pub fn parse_feed_line(line: &[u8]) -> Option<FeedEntry> {
    serde_json::from_slice(line).ok()
}

/// The bytes of one feed line (JSON and a newline).
pub fn feed_line_of(entry: &FeedEntry) -> Vec<u8> {
    let mut line = serde_json::to_vec(entry).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Splits a read into whole lines, parsed; an unfinished last line is
/// left for the next read. Returns the entries, the skipped count and the
/// bytes consumed.
pub(crate) fn parse_lines(bytes: &[u8]) -> (Vec<FeedEntry>, usize, usize) {
    let mut entries = Vec::new();
    let mut skipped = 0;
    let mut used = 0;
    while let Some(n) = bytes[used..].iter().position(|b| *b == b'\n') {
        let line = &bytes[used..used + n];
        used += n + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_feed_line(line) {
            Some(e) => entries.push(e),
            None => skipped += 1,
        }
    }
    (entries, skipped, used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn the_default_config_keeps_the_default_retention() {
        assert_eq!(
            FeedRetention::from_config(&Config::default()),
            FeedRetention::default()
        );
        let mut c = Config::default();
        c.feed.keep_days = 2;
        c.feed.rotate_bytes = 2048;
        let r = FeedRetention::from_config(&c);
        assert_eq!(r.keep_for, Duration::from_secs(2 * 86_400));
        assert_eq!(r.rotate_bytes, 2048);
    }
}
