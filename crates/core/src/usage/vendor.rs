//! The vendors whose usage records swarm reads, one line of their records
//! read into a `Line`, and what a reader must remember between two lines
//! of one file (`Memo`). Each vendor's shape is in its own file beside
//! this one; docs/USAGE.md lists them.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tokens::Tokens;

/// Where usage records come from: a vendor's coding agent whose records
/// swarm can read (the agent program itself, as its hooks know it, is
/// `attention::hook_payload::Vendor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageSource {
    /// Claude Code: `~/.claude/projects/<dir>/<session>.jsonl`.
    Claude,
    /// Codex CLI: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.
    Codex,
    /// Gemini CLI: `~/.gemini/tmp/<project>/chats/session-*.jsonl`.
    Gemini,
}

/// Every source, in the order they are looked for.
pub(crate) const USAGE_SOURCES: [UsageSource; 3] =
    [UsageSource::Claude, UsageSource::Codex, UsageSource::Gemini];

impl UsageSource {
    /// The vendor of an agent command as discovery names it (`claude`,
    /// `claude-code`, `codex`, `gemini`); `None` for any other program.
    pub(crate) fn of_command(command: &str) -> Option<UsageSource> {
        match command {
            "claude" | "claude-code" => Some(UsageSource::Claude),
            "codex" => Some(UsageSource::Codex),
            "gemini" => Some(UsageSource::Gemini),
            _ => None,
        }
    }

    /// Its name, as in `swarm usage --json`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            UsageSource::Claude => "claude",
            UsageSource::Codex => "codex",
            UsageSource::Gemini => "gemini",
        }
    }

    /// Reads one line of this vendor's records, remembering in `memo`
    /// what later lines of the same file need.
    pub(crate) fn read_line(self, line: &[u8], memo: &mut Memo) -> Line {
        let Ok(Value::Object(record)) = serde_json::from_slice::<Value>(line) else {
            return Line::Unknown;
        };
        let record = Value::Object(record);
        match self {
            UsageSource::Claude => super::claude::read(&record, memo),
            UsageSource::Codex => super::codex::read(&record, memo),
            UsageSource::Gemini => super::gemini::read(&record, memo),
        }
    }
}

impl fmt::Display for UsageSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a reader remembers of one file between two lines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Memo {
    /// The model the file's later records use (Codex names it once per
    /// turn, not on its usage records).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The running total the file reported last (Codex reports totals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<Tokens>,
    /// The identity of the last usage record counted, so that a record
    /// written again for the same response is not counted twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
}

/// One line of a vendor's records, read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Line {
    /// Tokens spent by one model call.
    Usage(Usage),
    /// A record that carries no new usage (a prompt, a tool result, a
    /// usage record written again).
    Other,
    /// Not a record in a shape swarm knows: skipped and counted.
    Unknown,
}

/// The tokens of one model call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Usage {
    /// When, Unix seconds (`None` when the record does not say).
    pub time: Option<i64>,
    /// The model, as the vendor names it.
    pub model: String,
    /// The tokens.
    pub tokens: Tokens,
}

/// The model name used when a record does not say which model it was.
pub(crate) const UNKNOWN_MODEL: &str = "unknown";

/// A record's RFC 3339 time (`timestamp`), as Unix seconds.
pub(crate) fn record_time(record: &Value) -> Option<i64> {
    let text = record.get("timestamp")?.as_str()?;
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.timestamp())
}

/// A whole number field, 0 when absent; `None` when present but not a
/// whole number (a shape swarm does not know).
pub(crate) fn count(object: &Value, name: &str) -> Option<u64> {
    match object.get(name) {
        None | Some(Value::Null) => Some(0),
        Some(v) => v.as_u64(),
    }
}

/// A model name, cleaned for display and for a key in the state file.
pub(crate) fn model_name(raw: Option<&str>) -> String {
    let clean: String = raw
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '@'))
        .take(80)
        .collect();
    if clean.is_empty() {
        UNKNOWN_MODEL.to_owned()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn commands_name_vendors() {
        assert_eq!(
            UsageSource::of_command("claude-code"),
            Some(UsageSource::Claude)
        );
        assert_eq!(UsageSource::of_command("codex"), Some(UsageSource::Codex));
        assert_eq!(UsageSource::of_command("gemini"), Some(UsageSource::Gemini));
        assert_eq!(UsageSource::of_command("swarm-demo"), None);
        assert_eq!(model_name(Some("gpt-6.1\u{1b}[31m")), "gpt-6.131m");
        assert_eq!(model_name(None), UNKNOWN_MODEL);
    }

    #[test]
    fn lines_that_are_not_records_are_unknown() {
        for v in USAGE_SOURCES {
            let mut memo = Memo::default();
            for line in [&b"not json"[..], b"[1,2]", b"\"text\"", b"", b"{\"a\":"] {
                assert_eq!(v.read_line(line, &mut memo), Line::Unknown, "{v} {line:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn no_line_panics(line in proptest::collection::vec(any::<u8>(), 0..200)) {
            for v in USAGE_SOURCES {
                let _ = v.read_line(&line, &mut Memo::default());
            }
        }

        #[test]
        fn no_record_panics(s in "\\{\"(type|message|payload|tokens|usage)\":.{0,80}\\}") {
            for v in USAGE_SOURCES {
                let _ = v.read_line(s.as_bytes(), &mut Memo::default());
            }
        }
    }
}
