//! `FileFeed`: the `FeedStore` kept in `.swarm/feed.jsonl`, one JSON object
//! per line, rotated to `.swarm/feed.jsonl.<N>` (numbers never reused, so
//! a follower finds the part it was reading by its inode) and pruned by
//! size and age under the file's lock.

use std::time::{Duration, Instant, SystemTime};

use crate::attention::event::FeedEntry;
use crate::attention::feed::feed_store::{
    FeedCursor, FeedRead, FeedRetention, FeedStore, feed_line_of, parse_lines,
};
use crate::store::{
    AppendFile, DEFAULT_LOCK_TIMEOUT, LogFiles, Paths, ReadMeter, StateFile, StoreError, read_at,
};

/// How often a follower looks for new lines while it waits.
const POLL: Duration = Duration::from_millis(100);

/// The feed files of one project.
#[derive(Clone, Debug)]
pub struct FileFeed {
    files: LogFiles,
    retention: FeedRetention,
}

impl FileFeed {
    /// The feed of `paths`'s project.
    pub fn new(paths: &Paths, retention: FeedRetention) -> FileFeed {
        FileFeed {
            files: LogFiles::new(paths.feed()),
            retention,
        }
    }

    /// Rotates the live file when it is too big, and prunes what is kept.
    fn rotate_if_due(&self) -> Result<(), StoreError> {
        let big = LogFiles::stat(self.files.current())?
            .is_some_and(|s| s.len >= self.retention.rotate_bytes);
        if !big {
            return Ok(());
        }
        let lock = StateFile::new(self.files.current()).lock(DEFAULT_LOCK_TIMEOUT)?;
        // Another writer may have rotated meanwhile.
        let still_big = LogFiles::stat(self.files.current())?
            .is_some_and(|s| s.len >= self.retention.rotate_bytes);
        let mut numbers = self.numbers()?;
        if still_big {
            let next = numbers.last().copied().unwrap_or(0) + 1;
            self.files
                .rename(&lock, self.files.current(), &self.files.numbered(next))?;
            numbers.push(next);
        }
        // Newest first: keep while within the size and the age.
        let now = SystemTime::now();
        let mut total = 0u64;
        for n in numbers.into_iter().rev() {
            let path = self.files.numbered(n);
            let Some(stat) = LogFiles::stat(&path)? else {
                continue;
            };
            total += stat.len;
            let old = stat
                .modified
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age > self.retention.keep_for);
            if total > self.retention.keep_bytes || old {
                self.files.remove(&lock, &path)?;
            }
        }
        Ok(())
    }

    /// The numbers of the rotated parts (none before the first write).
    fn numbers(&self) -> Result<Vec<u64>, StoreError> {
        match self.files.numbers() {
            Err(StoreError::Read { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                Ok(Vec::new())
            }
            other => other,
        }
    }

    /// The kept parts, oldest first: (path, inode, length).
    fn parts(&self) -> Result<Vec<(std::path::PathBuf, u64, u64)>, StoreError> {
        let mut out = Vec::new();
        for n in self.numbers()? {
            let path = self.files.numbered(n);
            if let Some(s) = LogFiles::stat(&path)? {
                out.push((path, s.ino, s.len));
            }
        }
        if let Some(s) = LogFiles::stat(self.files.current())? {
            out.push((self.files.current().to_owned(), s.ino, s.len));
        }
        Ok(out)
    }

    /// Reads the parts from (inode, offset) on; from the start of the
    /// oldest part when that part is no longer kept.
    fn read_from(&self, from: Option<(u64, u64)>) -> Result<FeedRead, StoreError> {
        let parts = self.parts()?;
        let start = from.and_then(|(ino, off)| {
            parts
                .iter()
                .position(|(_, i, _)| *i == ino)
                .map(|k| (k, off))
        });
        let (first, mut offset) = match (from, start) {
            (_, Some(s)) => s,
            // The part read last was pruned: everything kept is new.
            (Some(_), None) => (0, 0),
            (None, None) => (0, 0),
        };
        let meter = ReadMeter::default();
        let mut read = FeedRead::default();
        let mut cursor = from.unwrap_or((0, 0));
        for (path, ino, _) in parts.iter().skip(first) {
            let Some((file, stat)) = LogFiles::open(path)? else {
                offset = 0;
                continue;
            };
            if stat.ino != *ino {
                // Rotated between the listing and the open: the next read
                // finds it under its new name.
                break;
            }
            let bytes = read_at(&file, path, offset, stat.len.saturating_sub(offset), &meter)?;
            let (entries, skipped, used) = parse_lines(&bytes);
            read.entries.extend(entries);
            read.skipped += skipped;
            cursor = (stat.ino, offset + used as u64);
            offset = 0;
        }
        read.cursor = encode(cursor);
        Ok(read)
    }
}

fn encode((ino, off): (u64, u64)) -> FeedCursor {
    FeedCursor(format!("{ino}:{off}"))
}

fn decode(c: &FeedCursor) -> Option<(u64, u64)> {
    let (a, b) = c.0.split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

impl FeedStore for FileFeed {
    fn append(&self, entries: &[FeedEntry]) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        self.rotate_if_due()?;
        let lines: Vec<Vec<u8>> = entries.iter().map(feed_line_of).collect();
        AppendFile::new(self.files.current()).append_lines_unsynced(&lines)
    }

    fn read_all(&self) -> Result<FeedRead, StoreError> {
        self.read_from(None)
    }

    fn read_after(&self, cursor: &FeedCursor, wait: Duration) -> Result<FeedRead, StoreError> {
        let deadline = Instant::now() + wait;
        loop {
            let read = match decode(cursor) {
                Some(at) => self.read_from(Some(at))?,
                None => self.read_from(None)?,
            };
            if !read.entries.is_empty() || read.skipped > 0 || Instant::now() >= deadline {
                return Ok(read);
            }
            std::thread::sleep(POLL.min(deadline.saturating_duration_since(Instant::now())));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::event::EventKind;

    fn feed(dir: &std::path::Path, rotate: u64) -> FileFeed {
        FileFeed::new(
            &Paths::new(dir),
            FeedRetention {
                rotate_bytes: rotate,
                ..FeedRetention::default()
            },
        )
    }

    fn entry(i: usize) -> FeedEntry {
        FeedEntry::new(EventKind::Joined, Some("agent-1"), format!("entry {i}"))
    }

    #[test]
    fn appended_entries_read_back_in_order() {
        let tmp = tempfile::tempdir().expect("test value");
        let f = feed(tmp.path(), 1 << 20);
        assert!(f.read_all().expect("test value").entries.is_empty());
        f.append(&[entry(0), entry(1)]).expect("test value");
        let all = f.read_all().expect("test value");
        assert_eq!(all.entries.len(), 2);
        assert_eq!(all.entries[1].detail, "entry 1");
        f.append(&[entry(2)]).expect("test value");
        let more = f
            .read_after(&all.cursor, Duration::ZERO)
            .expect("test value");
        assert_eq!(more.entries.len(), 1);
        assert_eq!(more.entries[0].detail, "entry 2");
        let none = f
            .read_after(&more.cursor, Duration::ZERO)
            .expect("test value");
        assert!(none.entries.is_empty());
    }

    #[test]
    fn a_follower_misses_nothing_across_rotations() {
        let tmp = tempfile::tempdir().expect("test value");
        let f = feed(tmp.path(), 300);
        let mut cursor = f.read_all().expect("test value").cursor;
        let mut seen = Vec::new();
        for i in 0..40 {
            f.append(&[entry(i)]).expect("test value");
            if i % 7 == 0 {
                let r = f.read_after(&cursor, Duration::ZERO).expect("test value");
                seen.extend(r.entries.into_iter().map(|e| e.detail));
                cursor = r.cursor;
            }
        }
        let r = f.read_after(&cursor, Duration::ZERO).expect("test value");
        seen.extend(r.entries.into_iter().map(|e| e.detail));
        let want: Vec<String> = (0..40).map(|i| format!("entry {i}")).collect();
        assert_eq!(seen, want);
        assert!(f.numbers().expect("test value").len() > 3, "it rotated");
    }

    #[test]
    fn damaged_lines_are_skipped_and_counted() {
        let tmp = tempfile::tempdir().expect("test value");
        let f = feed(tmp.path(), 1 << 20);
        f.append(&[entry(0)]).expect("test value");
        AppendFile::new(f.files.current())
            .append_lines_unsynced(&[b"not json".to_vec(), b"{\"event\":\"joined\"}".to_vec()])
            .expect("test value");
        f.append(&[entry(1)]).expect("test value");
        let all = f.read_all().expect("test value");
        assert_eq!(all.entries.len(), 2);
        assert_eq!(all.skipped, 2);
    }

    #[test]
    fn old_parts_are_pruned_by_size() {
        let tmp = tempfile::tempdir().expect("test value");
        let f = FileFeed::new(
            &Paths::new(tmp.path()),
            FeedRetention {
                rotate_bytes: 200,
                keep_bytes: 600,
                keep_for: Duration::from_secs(3600),
            },
        );
        for i in 0..60 {
            f.append(&[entry(i)]).expect("test value");
        }
        let kept: u64 = f.parts().expect("test value").iter().map(|p| p.2).sum();
        assert!(kept < 1200, "{kept}");
        let all = f.read_all().expect("test value");
        assert_eq!(all.entries.last().expect("test value").detail, "entry 59");
    }
}
