//! The message log as a sequence of segments, oldest first: the rotated
//! `agent_messages.log.<N>` files, a `.old` left by the Python tool, and
//! the live `agent_messages.log`. `.swarm/message_log.json` (the index)
//! lists the rotated segments with a summary of each (who it holds
//! messages for, up to which byte) and the number the live log gets when
//! it is rotated, so that a reader knows where to start without listing
//! the directory or reading old segments. The index is a cache: the files
//! are the truth, and a stale or missing index is noticed and bypassed.
//! docs/MESSAGE_LOG.md describes the files.
//!
//! A position in the log is a segment (number and inode) and a byte
//! offset in it; read cursors are positions, so reading what is new costs
//! the bytes written since, however long the history.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::domain::AgentId;
use crate::log::record::{Located, LogPos, Record, parse_line};
use crate::store::{FileStat, Loaded, LogFiles, Paths, ReadMeter, StateFile, StoreError, read_at};

/// Version of `.swarm/message_log.json`.
pub(crate) const INDEX_VERSION: u32 = 1;

/// How much is read at a time when reading backwards.
const BACK_CHUNK: u64 = 64 * 1024;

/// `.swarm/message_log.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct LogIndex {
    /// Format version.
    pub version: u32,
    /// The number the live log gets when it is rotated.
    pub next: u64,
    /// The rotated segments, oldest first.
    pub segments: Vec<SegmentSummary>,
}

/// What one rotated segment holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SegmentSummary {
    /// Its number (`agent_messages.log.<number>`).
    pub number: u64,
    /// Its inode, to tell it from a file that took its name.
    pub ino: u64,
    /// Its size when it was summarised.
    pub bytes: u64,
    /// Message lines in it.
    pub messages: u64,
    /// Timestamp of its first and last message.
    pub first: Option<String>,
    /// See `first`.
    pub last: Option<String>,
    /// Per recipient (`all` included): its messages here, and where the
    /// last of them ends. A recipient with only delivery records here has
    /// `messages: 0`.
    pub recipients: BTreeMap<String, Span>,
}

/// One recipient's messages in a segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Span {
    /// How many.
    pub messages: u64,
    /// Byte offset just past the last one.
    pub last_end: u64,
}

impl SegmentSummary {
    /// Whether the segment holds a message for `agent` that ends after
    /// byte `after`.
    pub(crate) fn has_message_for(&self, agent: &str, after: u64) -> bool {
        [agent, "all"].iter().any(|r| {
            self.recipients
                .get(*r)
                .is_some_and(|s| s.messages > 0 && s.last_end > after)
        })
    }

    /// Whether anything in the segment (a message or an outcome) concerns
    /// `agent`.
    pub(crate) fn touches(&self, agent: &str) -> bool {
        self.recipients.contains_key(agent) || self.has_message_for(agent, 0)
    }
}

/// Which file a segment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegmentKind {
    /// `agent_messages.log.<N>`.
    Rotated,
    /// `agent_messages.log.old` (the Python tool's rotation).
    Old,
    /// `agent_messages.log`.
    Live,
}

/// One segment of the log.
#[derive(Clone, Debug)]
pub(crate) struct Segment {
    /// Its number (see `LogPos::segment`).
    pub number: u64,
    /// Which file.
    pub kind: SegmentKind,
    /// Where it is.
    pub path: PathBuf,
    /// Its inode, when known (from the index or a stat).
    pub ino: Option<u64>,
    /// The index's summary, when it has a valid one.
    pub summary: Option<SegmentSummary>,
}

/// What a forward read found.
#[derive(Clone, Debug, Default)]
pub(crate) struct Forward {
    /// Records kept, in log order.
    pub records: Vec<Located>,
    /// Just past the last complete line read (`None` when no segment
    /// exists).
    pub end: Option<LogPos>,
    /// Lines that did not parse.
    pub skipped: usize,
}

/// All the segments of a project's log, oldest first; the last is the
/// live log (which may not exist yet).
#[derive(Clone, Debug)]
pub(crate) struct SegmentSet {
    /// Oldest first.
    pub segments: Vec<Segment>,
}

/// The index file of a project.
pub(crate) fn index_file(paths: &Paths) -> StateFile {
    StateFile::new(paths.message_log_index())
}

/// Reads the index; `None` when it is missing, damaged or of another
/// version.
pub(crate) fn read_index(paths: &Paths) -> Result<Option<LogIndex>, StoreError> {
    Ok(match index_file(paths).read_json::<LogIndex>()? {
        Loaded::Valid(i) if i.version == INDEX_VERSION => Some(i),
        _ => None,
    })
}

impl SegmentSet {
    /// The segments of the log of `paths`. With an up-to-date index this
    /// costs one small file read and two `stat`s of names that do not
    /// exist; otherwise the directory is listed.
    pub(crate) fn load(paths: &Paths) -> Result<SegmentSet, StoreError> {
        let files = LogFiles::new(paths.message_log());
        let index = read_index(paths)?;
        let fresh = match &index {
            Some(i) => i.next > 0 && LogFiles::stat(&files.numbered(i.next))?.is_none(),
            None => false,
        };
        let mut segments = Vec::new();
        let next = if fresh {
            let index = index.unwrap_or_default();
            for s in &index.segments {
                segments.push(Segment {
                    number: s.number,
                    kind: SegmentKind::Rotated,
                    path: files.numbered(s.number),
                    ino: Some(s.ino),
                    summary: Some(s.clone()),
                });
            }
            index.next
        } else {
            let numbers = files.numbers()?;
            for &n in &numbers {
                let path = files.numbered(n);
                let ino = LogFiles::stat(&path)?.map(|s| s.ino);
                let summary = index
                    .as_ref()
                    .and_then(|i| i.segments.iter().find(|s| s.number == n))
                    .filter(|s| Some(s.ino) == ino)
                    .cloned();
                segments.push(Segment {
                    number: n,
                    kind: SegmentKind::Rotated,
                    path,
                    ino,
                    summary,
                });
            }
            let listed_next = numbers.last().map_or(1, |n| n + 1);
            listed_next.max(index.map_or(1, |i| i.next))
        };
        let mut live_number = next;
        if let Some(old) = LogFiles::stat(&files.old())? {
            segments.push(Segment {
                number: next,
                kind: SegmentKind::Old,
                path: files.old(),
                ino: Some(old.ino),
                summary: None,
            });
            live_number += 1;
        }
        segments.push(Segment {
            number: live_number,
            kind: SegmentKind::Live,
            path: files.current().to_owned(),
            ino: None,
            summary: None,
        });
        Ok(SegmentSet { segments })
    }

    /// The live segment.
    pub(crate) fn live(&self) -> &Segment {
        // `load` always pushes the live segment last.
        &self.segments[self.segments.len() - 1]
    }

    /// Where reading what comes after `pos` starts: a segment index and an
    /// offset in it. A segment that is gone counts as read to its end; a
    /// file that took a segment's number but is another file is read from
    /// its start.
    pub(crate) fn start_after(&self, pos: &LogPos, live: Option<FileStat>) -> (usize, u64) {
        let ino_of = |i: usize| {
            let s = &self.segments[i];
            if s.kind == SegmentKind::Live {
                live.map(|l| l.ino)
            } else {
                s.ino
            }
        };
        // Number and inode both: an inode alone may have been reused by a
        // newer file after its segment was removed.
        let found = (0..self.segments.len())
            .find(|&i| ino_of(i) == Some(pos.ino) && self.segments[i].number == pos.segment);
        if let Some(i) = found {
            return (i, pos.offset);
        }
        let i = self
            .segments
            .iter()
            .position(|s| s.number >= pos.segment)
            .unwrap_or(self.segments.len() - 1);
        (i, 0)
    }

    /// Reads forward from segment `from.0` at byte `from.1` to the end of
    /// the live log. Segments for which `skip` says so are passed over
    /// unread; lines for which `prefilter` (on the raw bytes) says no are
    /// not parsed; records for which `keep` says no are dropped.
    pub(crate) fn read_forward(
        &self,
        from: (usize, u64),
        meter: &ReadMeter,
        skip: &dyn Fn(&Segment) -> bool,
        prefilter: &dyn Fn(&[u8]) -> bool,
        keep: &mut dyn FnMut(&Record) -> bool,
    ) -> Result<Forward, StoreError> {
        let mut out = Forward::default();
        for (i, seg) in self.segments.iter().enumerate().skip(from.0) {
            let live = seg.kind == SegmentKind::Live;
            let start = if i == from.0 { from.1 } else { 0 };
            if !live && skip(seg) {
                continue;
            }
            self.read_segment(i, start, meter, prefilter, keep, &mut out)?;
        }
        Ok(out)
    }

    /// Reads segment `i` from byte `start` to its end (for the live log,
    /// to its last complete line) into `out`, moving `out.end` past it.
    pub(crate) fn read_segment(
        &self,
        i: usize,
        start: u64,
        meter: &ReadMeter,
        prefilter: &dyn Fn(&[u8]) -> bool,
        keep: &mut dyn FnMut(&Record) -> bool,
        out: &mut Forward,
    ) -> Result<(), StoreError> {
        let seg = &self.segments[i];
        let live = seg.kind == SegmentKind::Live;
        {
            let Some((file, stat)) = LogFiles::open(&seg.path)? else {
                return Ok(());
            };
            // A file shorter than the position was truncated or replaced:
            // all of it is new.
            let start = if start > stat.len { 0 } else { start };
            let bytes = read_at(&file, &seg.path, start, stat.len - start, meter)?;
            // The live log may be growing: its last line counts only once
            // its newline is written.
            let complete = if live {
                bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1)
            } else {
                bytes.len()
            };
            let mut at = 0;
            for line in bytes[..complete].split_inclusive(|&b| b == b'\n') {
                at += line.len();
                let end = LogPos {
                    segment: seg.number,
                    ino: stat.ino,
                    offset: start + at as u64,
                };
                parse_located(line, i, end, prefilter, keep, out);
            }
            out.end = Some(LogPos {
                segment: seg.number,
                ino: stat.ino,
                offset: start + complete as u64,
            });
        }
        Ok(())
    }

    /// Reads backwards from the end of the live log, newest record first,
    /// handing each kept record to `visit` until it returns false.
    /// Returns the end of the live log's last complete line.
    pub(crate) fn read_backward(
        &self,
        meter: &ReadMeter,
        prefilter: &dyn Fn(&[u8]) -> bool,
        visit: &mut dyn FnMut(Located) -> bool,
    ) -> Result<Option<LogPos>, StoreError> {
        let mut live_end = None;
        for (i, seg) in self.segments.iter().enumerate().rev() {
            let Some((file, stat)) = LogFiles::open(&seg.path)? else {
                continue;
            };
            let mut end = stat.len;
            if seg.kind == SegmentKind::Live {
                // Drop a last line still being written.
                let mut probe = end;
                while probe > 0 {
                    let from = probe.saturating_sub(BACK_CHUNK);
                    let chunk = read_at(&file, &seg.path, from, probe - from, meter)?;
                    if let Some(p) = chunk.iter().rposition(|&b| b == b'\n') {
                        end = from + p as u64 + 1;
                        break;
                    }
                    probe = from;
                    end = from;
                }
                live_end = Some(LogPos {
                    segment: seg.number,
                    ino: stat.ino,
                    offset: end,
                });
            }
            // `carry` holds the start of a line whose beginning lies in
            // an earlier chunk; it begins at `pos`.
            let mut carry: Vec<u8> = Vec::new();
            let mut pos = end;
            while pos > 0 {
                let from = pos.saturating_sub(BACK_CHUNK);
                let mut buf = read_at(&file, &seg.path, from, pos - from, meter)?;
                buf.extend_from_slice(&carry);
                // Lines wholly inside `buf`: after its first newline,
                // unless the chunk starts the file.
                let cut = if from == 0 {
                    0
                } else {
                    match buf.iter().position(|&b| b == b'\n') {
                        Some(p) => p + 1,
                        None => {
                            carry = buf;
                            pos = from;
                            continue;
                        }
                    }
                };
                let body = &buf[cut..];
                let mut lines: Vec<(usize, usize)> = Vec::new();
                let mut s = 0;
                for (j, &b) in body.iter().enumerate() {
                    if b == b'\n' {
                        lines.push((cut + s, cut + j + 1));
                        s = j + 1;
                    }
                }
                if s < body.len() {
                    lines.push((cut + s, buf.len()));
                }
                for &(a, b) in lines.iter().rev() {
                    let endpos = LogPos {
                        segment: seg.number,
                        ino: stat.ino,
                        offset: from + b as u64,
                    };
                    let mut one = Forward::default();
                    parse_located(&buf[a..b], i, endpos, prefilter, &mut |_| true, &mut one);
                    for r in one.records {
                        if !visit(r) {
                            return Ok(live_end);
                        }
                    }
                }
                carry = buf[..cut].to_vec();
                pos = from;
            }
        }
        Ok(live_end)
    }
}

fn parse_located(
    line: &[u8],
    seg: usize,
    end: LogPos,
    prefilter: &dyn Fn(&[u8]) -> bool,
    keep: &mut dyn FnMut(&Record) -> bool,
    out: &mut Forward,
) {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() || !prefilter(trimmed) {
        return;
    }
    let text = match std::str::from_utf8(trimmed) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(trimmed),
    };
    match parse_line(&text) {
        Some(record) => {
            if keep(&record) {
                out.records.push(Located { record, seg, end });
            }
        }
        None => out.skipped += 1,
    }
}

/// True when `line` might concern `agent`: it names it (as a recipient,
/// or as a key of a delivery record's outcomes) or `all`. Agent ids are
/// plain ASCII, so the quoted id appears verbatim in any line about it.
pub(crate) fn mentions(line: &[u8], agent: &str) -> bool {
    let quoted = format!("\"{agent}\"");
    contains(line, quoted.as_bytes()) || contains(line, b"\"all\"")
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Summarises a whole segment file.
pub(crate) fn summarize(
    number: u64,
    path: &std::path::Path,
    meter: &ReadMeter,
) -> Result<Option<SegmentSummary>, StoreError> {
    let Some((file, stat)) = LogFiles::open(path)? else {
        return Ok(None);
    };
    let bytes = read_at(&file, path, 0, stat.len, meter)?;
    let mut summary = SegmentSummary {
        number,
        ino: stat.ino,
        bytes: bytes.len() as u64,
        ..SegmentSummary::default()
    };
    let mut at = 0u64;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        at += line.len() as u64;
        let text = String::from_utf8_lossy(line);
        match parse_line(&text) {
            Some(Record::Message(logged)) => {
                summary.messages += 1;
                if summary.first.is_none() {
                    summary.first = Some(logged.timestamp().to_owned());
                }
                summary.last = Some(logged.timestamp().to_owned());
                let mut seen: Vec<&AgentId> = Vec::new();
                for r in &logged.message().recipients {
                    if seen.contains(&r) {
                        continue;
                    }
                    seen.push(r);
                    let span = summary.recipients.entry(r.to_string()).or_default();
                    span.messages += 1;
                    span.last_end = at;
                }
            }
            Some(Record::Delivery(d)) => {
                for r in d.outcomes.keys() {
                    summary.recipients.entry(r.clone()).or_default();
                }
            }
            None => {}
        }
    }
    Ok(Some(summary))
}
