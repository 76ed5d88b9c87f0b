//! The usage ledger, `.swarm/usage.json` (docs/FORMATS.md): for each
//! agent's record file, how far swarm has read it (the byte offset and the
//! file's identity), what the reader must remember, and what the file has
//! added up to so far, in quarter-hour buckets per model; and for each
//! agent, where its budget period starts. Reading a file again costs only
//! what was appended since; losing the ledger costs one full read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::tokens::Tokens;
use super::vendor::{Line, Memo, UsageSource};

/// The ledger's format version.
pub(crate) const LEDGER_VERSION: u32 = 1;

/// The length of a bucket: a quarter of an hour, so that buckets line up
/// with midnight in every time zone (all offsets are whole quarters).
pub(crate) const BUCKET_SECS: i64 = 15 * 60;

/// The whole ledger.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ledger {
    /// The format version.
    pub version: u32,
    /// Each record file read, by its path.
    pub files: BTreeMap<String, FileCursor>,
    /// Files that belonged to a replaced or cut file: what they added up
    /// to stays counted.
    pub retired: Vec<FileCursor>,
    /// Each agent's budget period.
    pub agents: BTreeMap<String, AgentPeriod>,
    /// Codex files whose session ran in another directory (not any
    /// agent's), by path, with their inode: not looked at again.
    pub elsewhere: BTreeMap<String, u64>,
}

/// How far one record file has been read, and what it added up to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileCursor {
    /// The agent whose records these are.
    pub agent: String,
    /// Whose format.
    pub vendor: Option<UsageSource>,
    /// The session (the file's name without its extension).
    pub session: String,
    /// The file's path (also the key of `Ledger::files`).
    pub path: String,
    /// The file's device.
    pub dev: u64,
    /// The file's inode.
    pub ino: u64,
    /// Bytes read and counted: always the end of a whole line.
    pub offset: u64,
    /// What the reader remembers between lines.
    pub memo: Memo,
    /// Lines in a shape swarm does not know, skipped.
    pub skipped: u64,
    /// When its first usage was written, Unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<i64>,
    /// When its last usage was written, Unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<i64>,
    /// What it added up to, per quarter hour and model, oldest first.
    pub buckets: Vec<Bucket>,
}

/// The tokens of one model in one quarter hour.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Bucket {
    /// The quarter hour's start, Unix seconds.
    pub start: i64,
    /// The model.
    pub model: String,
    /// The tokens.
    pub tokens: Tokens,
}

/// Where an agent's budget period starts, besides the day or the session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentPeriod {
    /// When `swarm budget reset` last started a new period, Unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reset_at: Option<i64>,
    /// What the quarter hour of the reset had counted before it: taken
    /// off, so that a reset counts from the moment it was made.
    pub reset_base: Tokens,
    /// The cost `reset_base` stood for.
    pub reset_base_cost: f64,
    /// When the agent's current process started, Unix seconds (the start
    /// of a `session` period).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_start: Option<i64>,
    /// The start of the period (Unix seconds; 0 for a period with no
    /// start) in which the agent was last told that it is over its
    /// budget: it is told once per period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub told_for: Option<i64>,
}

/// The start of the quarter hour `t` lies in.
pub(crate) fn bucket_of(t: i64) -> i64 {
    t.div_euclid(BUCKET_SECS) * BUCKET_SECS
}

impl FileCursor {
    /// A cursor at the start of a file.
    pub(crate) fn new(
        agent: &str,
        vendor: UsageSource,
        path: &str,
        dev: u64,
        ino: u64,
    ) -> FileCursor {
        let session = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        FileCursor {
            agent: agent.to_owned(),
            vendor: Some(vendor),
            session,
            path: path.to_owned(),
            dev,
            ino,
            ..FileCursor::default()
        }
    }

    /// Reads the whole lines of `bytes` (what follows `offset` in the file)
    /// and moves the offset past them; a last line without its newline is
    /// left for the next read, since its writer may not be done with it.
    /// `fallback` is the time of a record that names none. Returns how
    /// many bytes were consumed.
    pub(crate) fn consume(&mut self, bytes: &[u8], fallback: i64) -> usize {
        let Some(vendor) = self.vendor else {
            return 0;
        };
        let Some(end) = bytes.iter().rposition(|&b| b == b'\n').map(|i| i + 1) else {
            return 0;
        };
        for line in bytes[..end].split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match vendor.read_line(line, &mut self.memo) {
                Line::Usage(u) => self.add(u.time.unwrap_or(fallback), &u.model, u.tokens),
                Line::Other => {}
                Line::Unknown => self.skipped += 1,
            }
        }
        self.offset += end as u64;
        end
    }

    fn add(&mut self, time: i64, model: &str, tokens: Tokens) {
        self.first = Some(self.first.map_or(time, |f| f.min(time)));
        self.last = Some(self.last.map_or(time, |l| l.max(time)));
        let start = bucket_of(time);
        match self
            .buckets
            .iter_mut()
            .find(|b| b.start == start && b.model == model)
        {
            Some(b) => b.tokens += tokens,
            None => {
                self.buckets.push(Bucket {
                    start,
                    model: model.to_owned(),
                    tokens,
                });
                self.buckets
                    .sort_by(|a, b| (a.start, &a.model).cmp(&(b.start, &b.model)));
            }
        }
    }

    /// Its tokens per model, counting buckets that start at or after
    /// `since` (all of them for `None`).
    pub(crate) fn by_model(&self, since: Option<i64>) -> BTreeMap<String, Tokens> {
        let mut out: BTreeMap<String, Tokens> = BTreeMap::new();
        for b in &self.buckets {
            if since.is_none_or(|s| b.start >= bucket_of(s)) {
                *out.entry(b.model.clone()).or_default() += b.tokens;
            }
        }
        out
    }
}

impl Ledger {
    /// The record files of `agent`, live and retired.
    pub fn files_of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a FileCursor> {
        self.files
            .values()
            .chain(self.retired.iter())
            .filter(move |f| f.agent == agent)
    }

    /// Every agent with records.
    pub(crate) fn agents_with_records(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .files
            .values()
            .chain(self.retired.iter())
            .map(|f| f.agent.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_line_up_with_quarter_hours() {
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(899), 0);
        assert_eq!(bucket_of(900), 900);
        assert_eq!(bucket_of(-1), -900);
    }

    #[test]
    fn consumes_whole_lines_only() {
        let mut c = FileCursor::new("agent-1", UsageSource::Gemini, "/h/s.jsonl", 1, 2);
        assert_eq!(c.session, "s");
        let rec = br#"{"id":"a","type":"gemini","tokens":{"input":10,"output":5},"model":"m","timestamp":"2026-11-26T11:00:17Z"}"#;
        let mut bytes = rec.to_vec();
        bytes.extend_from_slice(b"\nnot json\n{\"id\":\"b\",\"type\":\"gem");
        let used = c.consume(&bytes, 0);
        assert_eq!(used, rec.len() + 10);
        assert_eq!(c.offset, used as u64);
        assert_eq!(c.skipped, 1);
        let by = c.by_model(None);
        assert_eq!(by["m"].counted(), 15);
        assert!(c.by_model(Some(2_000_000_000)).is_empty());
        assert_eq!(c.consume(b"partial", 0), 0);
    }
}
