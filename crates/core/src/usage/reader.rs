//! Reading what was appended to one record file since the last look, into
//! the ledger. A file whose identity changed (replaced) or that is now
//! shorter than what was read (cut) is read again from its start; what
//! its earlier content added up to stays counted, as a retired file.

use std::path::Path;

use crate::store::{self, StoreError};

use super::ledger::{FileCursor, Ledger};
use super::vendor::UsageSource;

/// How much of a file one read takes.
const CHUNK: u64 = 4 << 20;

/// The longest line read: a longer one is skipped and counted.
const MAX_LINE: u64 = 64 << 20;

/// Reads what `path` (of `vendor`, `agent`'s) gained since the ledger's
/// cursor, or all of it for a file not read before. `now` stands for the
/// time of a record that names none. A file that vanished is left as it
/// was counted.
pub(crate) fn read_new(
    ledger: &mut Ledger,
    path: &Path,
    vendor: UsageSource,
    agent: &str,
    now: i64,
) -> Result<(), StoreError> {
    let key = path.to_string_lossy().into_owned();
    let mut chunk = CHUNK;
    loop {
        let offset = ledger.files.get(&key).map_or(0, |c| c.offset);
        let Some((file, bytes)) = store::read_records(path, offset, chunk)? else {
            return Ok(());
        };
        let cursor = ledger
            .files
            .entry(key.clone())
            .or_insert_with(|| FileCursor::new(agent, vendor, &key, file.dev, file.ino));
        cursor.agent = agent.to_owned();
        if (cursor.dev, cursor.ino) != (file.dev, file.ino) || file.len < cursor.offset {
            let fresh = FileCursor::new(agent, vendor, &key, file.dev, file.ino);
            let old = std::mem::replace(cursor, fresh);
            if !old.buckets.is_empty() || old.skipped > 0 {
                ledger.retired.push(old);
            }
            continue;
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let used = cursor.consume(&bytes, now);
        if used > 0 {
            chunk = CHUNK;
            continue;
        }
        // No whole line: the writer is mid-line, or the line is longer
        // than one read.
        if (bytes.len() as u64) < chunk {
            return Ok(());
        }
        if chunk < MAX_LINE {
            chunk *= 2;
            continue;
        }
        cursor.offset += bytes.len() as u64;
        cursor.skipped += 1;
        chunk = CHUNK;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Write;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/usage");

    fn fixture(name: &str) -> Vec<u8> {
        fs::read(format!("{FIXTURES}/{name}")).expect("fixture")
    }

    fn totals(ledger: &Ledger, agent: &str) -> (u64, u64, u64) {
        let mut t = super::super::tokens::Tokens::default();
        for f in ledger.files_of(agent) {
            for tokens in f.by_model(None).values() {
                t += *tokens;
            }
        }
        (
            t.input,
            t.output,
            ledger.files_of(agent).map(|f| f.skipped).sum(),
        )
    }

    /// The real agents' records, captured with the loopback model
    /// stand-in (10 input and 5 output tokens per call, two turns each).
    #[test]
    fn reads_each_vendors_captured_records() {
        let cases = [
            (
                "claude-2.1.330.jsonl",
                UsageSource::Claude,
                "claude-opus-5-5",
            ),
            ("codex-0.169.0.jsonl", UsageSource::Codex, "gpt-6.1-sol"),
            (
                "gemini-0.61.0.jsonl",
                UsageSource::Gemini,
                "gemini-3.1-pro-preview",
            ),
        ];
        for (name, vendor, model) in cases {
            let dir = tempfile::tempdir().expect("tempdir");
            let path = dir.path().join(name);
            fs::write(&path, fixture(name)).expect("write");
            let mut ledger = Ledger::default();
            read_new(&mut ledger, &path, vendor, "agent-1", 0).expect("read");
            assert_eq!(totals(&ledger, "agent-1"), (20, 10, 0), "{name}");
            let cursor = ledger.files.values().next().expect("cursor");
            let models: Vec<&String> = cursor.buckets.iter().map(|b| &b.model).collect();
            assert!(models.iter().all(|m| *m == model), "{name}: {models:?}");
            assert!(cursor.first.is_some_and(|t| t > 1_700_000_000), "{name}");
        }
    }

    #[test]
    fn reads_only_what_was_appended() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        let all = fixture("gemini-0.61.0.jsonl");
        let text = String::from_utf8(all).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        let cut = lines
            .iter()
            .position(|l| l.contains("\"gemini\""))
            .expect("reply")
            + 1;
        fs::write(&path, lines[..cut].join("\n") + "\n").expect("write");
        let mut ledger = Ledger::default();
        read_new(&mut ledger, &path, UsageSource::Gemini, "agent-1", 0).expect("read");
        assert_eq!(totals(&ledger, "agent-1"), (10, 5, 0));
        let offset = ledger.files.values().next().map(|c| c.offset);
        // Read again with nothing new: nothing changes.
        read_new(&mut ledger, &path, UsageSource::Gemini, "agent-1", 0).expect("read");
        assert_eq!(totals(&ledger, "agent-1"), (10, 5, 0));
        // Half a line appended: left for later.
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        let rest = lines[cut..].join("\n") + "\n";
        let (head, tail) = rest.split_at(rest.len() / 2);
        f.write_all(head.as_bytes()).expect("append");
        read_new(&mut ledger, &path, UsageSource::Gemini, "agent-1", 0).expect("read");
        f.write_all(tail.as_bytes()).expect("append");
        f.write_all(b"{\"what\": \"a record of a shape nobody knows\"}\n")
            .expect("append");
        read_new(&mut ledger, &path, UsageSource::Gemini, "agent-1", 0).expect("read");
        assert_eq!(totals(&ledger, "agent-1"), (20, 10, 1));
        let cursor = ledger.files.values().next().expect("cursor");
        assert!(Some(cursor.offset) > offset);
        assert_eq!(cursor.offset, fs::metadata(&path).expect("stat").len());
    }

    #[test]
    fn a_replaced_or_cut_file_is_read_again_and_its_past_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        let claude = fixture("claude-2.1.330.jsonl");
        fs::write(&path, &claude).expect("write");
        let mut ledger = Ledger::default();
        read_new(&mut ledger, &path, UsageSource::Claude, "agent-1", 0).expect("read");
        assert_eq!(totals(&ledger, "agent-1"), (20, 10, 0));
        // Rotated: a new file under the same name.
        let other = dir.path().join("new.jsonl");
        fs::write(&other, &claude).expect("write");
        fs::rename(&other, &path).expect("rename");
        read_new(&mut ledger, &path, UsageSource::Claude, "agent-1", 0).expect("read");
        assert_eq!(totals(&ledger, "agent-1"), (40, 20, 0));
        assert_eq!(ledger.retired.len(), 1);
        // Cut short in place, then written again.
        let text = String::from_utf8(claude).expect("utf-8");
        let first_usage = text
            .lines()
            .position(|l| l.contains("\"usage\""))
            .expect("usage");
        let short: String = text
            .lines()
            .take(first_usage + 1)
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&path, short).expect("truncate");
        read_new(&mut ledger, &path, UsageSource::Claude, "agent-1", 0).expect("read");
        assert_eq!(totals(&ledger, "agent-1"), (50, 25, 0));
        assert_eq!(ledger.retired.len(), 2);
        // Gone: what was counted stays.
        fs::remove_file(&path).expect("remove");
        read_new(&mut ledger, &path, UsageSource::Claude, "agent-1", 0).expect("read");
        assert_eq!(totals(&ledger, "agent-1"), (50, 25, 0));
    }
}
