//! `LogTail`: follows `agent_messages.log` by byte offset, the way
//! `tail -F` does, so a change costs only the new lines however large the
//! log has grown. A rotation (the log renamed to the next numbered segment
//! and a new one started) or a truncation is noticed; no line is lost or
//! read twice. Opening reads the live log and the newest rotated segment,
//! not the whole history.
//!
//! The tail keeps the file it follows open: an open file stays the same
//! file across a rename, so lines appended just before a rotation are still
//! read from it before moving on to the new log.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::log::record::{TailBatch, parse_line};
use crate::log::segments::SegmentSet;
use crate::store::{Paths, StoreError};

/// The file being followed.
#[derive(Debug)]
struct Followed {
    file: File,
    id: (u64, u64),
    /// Its segment number when it was opened as the live log.
    number: u64,
    /// Bytes read so far (the end of `pending` in the file).
    offset: u64,
    /// The start of a line whose newline has not been written yet.
    pending: Vec<u8>,
}

/// Follows a project's message log.
#[derive(Debug)]
pub(crate) struct LogTail {
    paths: Paths,
    path: PathBuf,
    followed: Option<Followed>,
}

impl LogTail {
    /// Starts following the log of `paths` and returns what the live log
    /// and the newest rotated segment hold (the rotated part first).
    pub(crate) fn open(paths: &Paths) -> Result<(LogTail, TailBatch), StoreError> {
        let mut batch = TailBatch::default();
        let tail = LogTail::open_with(paths, &mut batch, &mut None)?;
        Ok((tail, batch))
    }

    /// `open`, handing what the log holds to `each` a slice at a time (in
    /// order), so that a large log is never held whole.
    pub(crate) fn open_each(
        paths: &Paths,
        each: &mut dyn FnMut(TailBatch),
    ) -> Result<LogTail, StoreError> {
        let mut batch = TailBatch::default();
        let tail = LogTail::open_with(paths, &mut batch, &mut Some(each))?;
        if !batch.records.is_empty() || batch.skipped > 0 {
            each(batch);
        }
        Ok(tail)
    }

    fn open_with(
        paths: &Paths,
        batch: &mut TailBatch,
        each: &mut Each<'_>,
    ) -> Result<LogTail, StoreError> {
        let path = paths.message_log();
        let mut tail = LogTail {
            paths: paths.clone(),
            path,
            followed: None,
        };
        // The live log is opened before the segments are looked up; if a
        // rotation happens in between, start again.
        for _ in 0..5 {
            let set = SegmentSet::load(paths)?;
            tail.followed = open_followed(&tail.path, set.live().number)?;
            let live_now = fs::symlink_metadata(&tail.path)
                .ok()
                .map(|m| (m.dev(), m.ino()));
            if live_now != tail.followed.as_ref().map(|f| f.id) {
                continue;
            }
            let n = set.segments.len();
            if n >= 2 {
                let prev = &set.segments[n - 2];
                if let Some(old) = open_followed(&prev.path, prev.number)?
                    && Some(old.id) != tail.followed.as_ref().map(|f| f.id)
                {
                    read_all(old, &prev.path, batch, each)?;
                }
            }
            break;
        }
        tail.read_new_into(batch, each)?;
        batch.rotated = false;
        Ok(tail)
    }

    /// Reads whatever was appended since the last call.
    pub(crate) fn read_new(&mut self) -> Result<TailBatch, StoreError> {
        let mut batch = TailBatch::default();
        self.read_new_into(&mut batch, &mut None)?;
        Ok(batch)
    }

    fn read_new_into(
        &mut self,
        batch: &mut TailBatch,
        each: &mut Each<'_>,
    ) -> Result<(), StoreError> {
        let Some(followed) = self.followed.as_mut() else {
            // No log yet: start following it once it exists.
            let number = SegmentSet::load(&self.paths)?.live().number;
            self.followed = open_followed(&self.path, number)?;
            return match self.followed {
                Some(_) => self.read_new_into(batch, each),
                None => Ok(()),
            };
        };
        let len = followed
            .file
            .metadata()
            .map_err(|source| read_err(&self.path, source))?
            .len();
        if len < followed.offset {
            // Truncated in place: what is there now is all new.
            followed
                .file
                .seek(SeekFrom::Start(0))
                .map_err(|source| read_err(&self.path, source))?;
            followed.offset = 0;
            followed.pending.clear();
            batch.rotated = true;
        }
        read_lines(followed, &self.path, batch, each)?;
        let current = match fs::symlink_metadata(&self.path) {
            Ok(meta) if meta.is_file() => Some((meta.dev(), meta.ino())),
            // Missing for a moment during a rotation, or replaced by
            // something that is not a log: keep the file we have.
            Ok(_) => None,
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(source) => return Err(read_err(&self.path, source)),
        };
        if current.is_none_or(|id| id == followed.id) {
            return Ok(());
        }
        // Rotated. Every append to the old file happened before the
        // rename (appends and rotation share one lock), so reading it to
        // the end once more now gets its last lines.
        read_lines(followed, &self.path, batch, each)?;
        flush_pending(followed, batch);
        let (left, left_number) = (followed.id, followed.number);
        batch.rotated = true;
        let set = SegmentSet::load(&self.paths)?;
        self.followed = open_followed(&self.path, set.live().number)?;
        let now = self.followed.as_ref().map(|f| f.id);
        // Several rotations since the last read: the segments in between.
        for seg in &set.segments[..set.segments.len() - 1] {
            if seg.number < left_number {
                continue;
            }
            if let Some(between) = open_followed(&seg.path, seg.number)?
                && between.id != left
                && Some(between.id) != now
            {
                read_all(between, &seg.path, batch, each)?;
            }
        }
        if let Some(followed) = self.followed.as_mut() {
            read_lines(followed, &self.path, batch, each)?;
        }
        Ok(())
    }
}

fn read_err(path: &Path, source: io::Error) -> StoreError {
    StoreError::Read {
        path: path.to_owned(),
        source,
    }
}

fn open_followed(path: &Path, number: u64) -> Result<Option<Followed>, StoreError> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        // A symlink: appends move it aside; it holds nothing of ours.
        Err(e) if crate::support::sys::refused_symlink(&e) => return Ok(None),
        Err(source) => return Err(read_err(path, source)),
    };
    let meta = file.metadata().map_err(|source| read_err(path, source))?;
    if !meta.is_file() {
        // A FIFO or a directory where the log should be: reading it
        // could block or fail forever.
        return Ok(None);
    }
    Ok(Some(Followed {
        file,
        id: (meta.dev(), meta.ino()),
        number,
        offset: 0,
        pending: Vec::new(),
    }))
}

fn read_all(
    mut followed: Followed,
    path: &Path,
    batch: &mut TailBatch,
    each: &mut Each<'_>,
) -> Result<(), StoreError> {
    read_lines(&mut followed, path, batch, each)?;
    flush_pending(&mut followed, batch);
    Ok(())
}

/// Where a first read's records go a slice at a time (`open_each`), or
/// `None`: into the one batch.
type Each<'a> = Option<&'a mut dyn FnMut(TailBatch)>;

/// How much of the file one read takes. The log may be 10 MiB or more
/// when a follower starts; reading it in slices of this size keeps the
/// peak (and so what the allocator keeps afterwards) to the parsed
/// records, not a second copy of the file.
const READ_SLICE: usize = 1 << 20;

/// Reads to the end of the file and parses every complete line; an
/// incomplete last line waits in `pending` for its newline.
fn read_lines(
    followed: &mut Followed,
    path: &Path,
    batch: &mut TailBatch,
    each: &mut Each<'_>,
) -> Result<(), StoreError> {
    let mut bytes = std::mem::take(&mut followed.pending);
    loop {
        let had = bytes.len();
        let n = (&followed.file)
            .take(READ_SLICE as u64)
            .read_to_end(&mut bytes)
            .map_err(|source| read_err(path, source))?;
        followed.offset += n as u64;
        if let Some(i) = bytes[had..].iter().rposition(|&b| b == b'\n') {
            let complete = had + i + 1;
            for line in bytes[..complete].split(|&b| b == b'\n') {
                parse_into(line, batch);
            }
            bytes.drain(..complete);
        }
        if let Some(each) = each.as_deref_mut() {
            each(std::mem::take(batch));
        }
        if n < READ_SLICE {
            break;
        }
    }
    // Only the unfinished line is kept, in a buffer of its own size: a
    // follower lives as long as the monitor or the watcher.
    followed.pending = if bytes.is_empty() {
        Vec::new()
    } else {
        bytes.clone()
    };
    Ok(())
}

/// A last line without a newline, in a file that will not grow any more.
fn flush_pending(followed: &mut Followed, batch: &mut TailBatch) {
    let line = std::mem::take(&mut followed.pending);
    parse_into(&line, batch);
}

fn parse_into(line: &[u8], batch: &mut TailBatch) {
    // Checking UTF-8 whole is much faster than the lossy walk, which only
    // a damaged line needs.
    let text = match std::str::from_utf8(line) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(line),
    };
    if text.trim().is_empty() {
        return;
    }
    match parse_line(&text) {
        Some(r) => batch.records.push(r),
        None => batch.skipped += 1,
    }
}

impl crate::log::log_store::LogFollower for LogTail {
    fn read_new(&mut self) -> Result<TailBatch, StoreError> {
        LogTail::read_new(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::message::{Message, MessageType};
    use crate::log::on_files::FileLog;
    use crate::log::record::Record;
    use std::io::Write;

    fn message(n: usize) -> Message {
        Message::new(
            "agent-0".parse().expect("an agent id"),
            vec!["agent-1".parse().expect("an agent id")],
            MessageType::builtin("INFO"),
            format!("message {n} {}", "x".repeat(200)),
        )
    }

    /// The line the log holds for `m`.
    fn line_of(m: &Message) -> String {
        let bytes = Record::logged(m, &[true]).to_line().expect("json");
        String::from_utf8(bytes).expect("utf8")
    }

    fn ids(batch: &TailBatch) -> Vec<String> {
        batch
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Message(m) => Some(
                    m.message()
                        .content
                        .split(' ')
                        .nth(1)
                        .unwrap_or("")
                        .to_owned(),
                ),
                Record::Delivery(_) => None,
            })
            .collect()
    }

    #[test]
    fn reads_only_what_is_new() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let (mut tail, first) = LogTail::open(&paths).expect("open");
        assert!(first.records.is_empty());
        let log = FileLog::new(&paths);
        log.append(&[Record::logged(&message(0), &[true])])
            .expect("append");
        assert_eq!(ids(&tail.read_new().expect("read")), ["0"]);
        assert!(tail.read_new().expect("read").records.is_empty());
        log.append(&[
            Record::logged(&message(1), &[true]),
            Record::logged(&message(2), &[true]),
        ])
        .expect("append");
        assert_eq!(ids(&tail.read_new().expect("read")), ["1", "2"]);
        let (_, again) = LogTail::open(&paths).expect("open");
        assert_eq!(ids(&again), ["0", "1", "2"]);
    }

    #[test]
    fn a_log_larger_than_a_slice_is_read_whole_and_not_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        // Lines cross every slice boundary, and one line is longer than a
        // slice; the last line has no newline yet.
        let mut f = File::create(paths.message_log()).expect("create");
        let mut written = 0;
        let mut want = Vec::new();
        let mut n = 0;
        while written < 3 * READ_SLICE {
            let mut m = message(n);
            if n == 100 {
                m.content = format!("message {n} {}", "y".repeat(READ_SLICE + 17));
            }
            let line = line_of(&m);
            f.write_all(line.as_bytes()).expect("write");
            f.write_all(b"\n").expect("write");
            written += line.len() + 1;
            want.push(n.to_string());
            n += 1;
        }
        let last = line_of(&message(n));
        let (head, rest) = last.split_at(30);
        f.write_all(head.as_bytes()).expect("write");
        let (mut tail, first) = LogTail::open(&paths).expect("open");
        assert_eq!(ids(&first), want);
        let kept = tail.followed.as_ref().expect("followed").pending.capacity();
        assert!(kept < 1024, "{kept} bytes kept after the first read");
        f.write_all(rest.as_bytes()).expect("write");
        f.write_all(b"\n").expect("write");
        assert_eq!(ids(&tail.read_new().expect("read")), [n.to_string()]);
        assert_eq!(
            tail.followed.as_ref().expect("followed").pending.capacity(),
            0
        );

        // Handed over a slice at a time: the same records, in order, in
        // several pieces, and the follower goes on from the end.
        let mut pieces = 0;
        let mut all = TailBatch::default();
        let mut tail = LogTail::open_each(&paths, &mut |piece| {
            pieces += 1;
            all.records.extend(piece.records);
        })
        .expect("open");
        want.push(n.to_string());
        assert_eq!(ids(&all), want);
        assert!(pieces >= 3, "{pieces} pieces");
        f.write_all(line_of(&message(n + 1)).as_bytes())
            .expect("write");
        f.write_all(b"\n").expect("write");
        assert_eq!(ids(&tail.read_new().expect("read")), [(n + 1).to_string()]);
    }

    #[test]
    fn a_line_written_in_two_parts_is_read_once_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let line = line_of(&message(7));
        let (head, rest) = line.split_at(40);
        let mut f = File::create(paths.message_log()).expect("create");
        f.write_all(b"garbage\n").expect("write");
        f.write_all(head.as_bytes()).expect("write");
        let (mut tail, first) = LogTail::open(&paths).expect("open");
        assert_eq!((first.records.len(), first.skipped), (0, 1));
        f.write_all(rest.as_bytes()).expect("write");
        assert!(tail.read_new().expect("read").records.is_empty());
        f.write_all(b"\n").expect("write");
        assert_eq!(ids(&tail.read_new().expect("read")), ["7"]);
    }

    #[test]
    fn rotation_loses_nothing_and_repeats_nothing() {
        let line = line_of(&message(10));
        // Each log file holds five lines before it is rotated. Reading
        // after every append, every third, and every eighth covers no
        // rotation, one, and two rotations between two reads.
        let rotate_at = (line.len() as u64 + 1) * 9 / 2;
        for every in [1, 3, 8] {
            let dir = tempfile::tempdir().expect("tempdir");
            let paths = Paths::new(dir.path());
            let log = FileLog::new(&paths).with_rotation(rotate_at);
            log.append(&[Record::logged(&message(10), &[true])])
                .expect("append");
            let (mut tail, first) = LogTail::open(&paths).expect("open");
            let mut seen = ids(&first);
            let mut rotations = 0;
            for n in 11..70 {
                log.append(&[Record::logged(&message(n), &[true])])
                    .expect("append");
                if n % every == 0 {
                    let batch = tail.read_new().expect("read");
                    rotations += usize::from(batch.rotated);
                    seen.extend(ids(&batch));
                }
            }
            seen.extend(ids(&tail.read_new().expect("read")));
            let expected: Vec<String> = (10..70).map(|n| n.to_string()).collect();
            assert_eq!(seen, expected, "reading after every {every} appends");
            assert!(rotations >= 3, "only {rotations} rotations were seen");
        }
    }

    #[test]
    fn truncation_starts_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let log = FileLog::new(&paths);
        log.append(&[
            Record::logged(&message(0), &[true]),
            Record::logged(&message(1), &[true]),
        ])
        .expect("append");
        let (mut tail, _) = LogTail::open(&paths).expect("open");
        fs::write(paths.message_log(), "").expect("truncate");
        log.append(&[Record::logged(&message(2), &[true])])
            .expect("append");
        let batch = tail.read_new().expect("read");
        assert!(batch.rotated);
        assert_eq!(ids(&batch), ["2"]);
    }

    #[test]
    fn a_symlinked_log_is_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let target = dir.path().join("elsewhere");
        let line = line_of(&message(1));
        fs::write(&target, format!("{line}\n")).expect("write");
        std::os::unix::fs::symlink(&target, paths.message_log()).expect("symlink");
        let (mut tail, first) = LogTail::open(&paths).expect("open");
        assert!(first.records.is_empty());
        assert!(tail.read_new().expect("read").records.is_empty());
    }
}
