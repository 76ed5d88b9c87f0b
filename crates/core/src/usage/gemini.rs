//! Gemini CLI's usage records: a chat file's records of type `gemini`
//! carry `model` and `tokens`. Gemini counts cached input inside `input`;
//! its `thoughts` are written tokens besides `output`, and `tool` is
//! prompt spent on tool use.

use serde_json::Value;

use super::tokens::Tokens;
use super::vendor::{Line, Memo, Usage, count, model_name, record_time};

/// Reads one record.
pub(crate) fn read(record: &Value, memo: &mut Memo) -> Line {
    match record.get("type").and_then(Value::as_str) {
        Some("gemini") => {}
        Some(_) => return Line::Other,
        // The session's header and its `$set` updates have no type.
        None if record.get("sessionId").is_some() || record.get("$set").is_some() => {
            return Line::Other;
        }
        None => return Line::Unknown,
    }
    let Some(t) = record.get("tokens").filter(|t| !t.is_null()) else {
        // A reply still being written names its tokens when it is done.
        return Line::Other;
    };
    let (Some(input), Some(output), Some(cached), Some(thoughts), Some(tool)) = (
        t.get("input").and_then(Value::as_u64),
        t.get("output").and_then(Value::as_u64),
        count(t, "cached"),
        count(t, "thoughts"),
        count(t, "tool"),
    ) else {
        return Line::Unknown;
    };
    if let Some(id) = record.get("id").and_then(Value::as_str) {
        if memo.last.as_deref() == Some(id) {
            return Line::Other;
        }
        memo.last = Some(id.to_owned());
    }
    Line::Usage(Usage {
        time: record_time(record),
        model: model_name(record.get("model").and_then(Value::as_str)),
        tokens: Tokens {
            input: input.saturating_sub(cached).saturating_add(tool),
            output: output.saturating_add(thoughts),
            cache_read: cached,
            cache_write: 0,
            reasoning: thoughts,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::vendor::UsageSource;
    use super::*;

    fn line(s: &str, memo: &mut Memo) -> Line {
        UsageSource::Gemini.read_line(s.as_bytes(), memo)
    }

    #[test]
    fn reads_replies() {
        let mut memo = Memo::default();
        let rec = r#"{"id":"a1","timestamp":"2026-11-26T11:00:17.822Z","type":"gemini","content":"x","tokens":{"input":110,"output":5,"cached":100,"thoughts":3,"tool":2,"total":120},"model":"gemini-3.1-pro-preview"}"#;
        let Line::Usage(u) = line(rec, &mut memo) else {
            panic!("not usage");
        };
        assert_eq!(u.model, "gemini-3.1-pro-preview");
        assert_eq!(
            u.tokens,
            Tokens {
                input: 12,
                output: 8,
                cache_read: 100,
                cache_write: 0,
                reasoning: 3
            }
        );
        assert_eq!(line(rec, &mut memo), Line::Other);
        assert_eq!(
            line(r#"{"$set":{"lastUpdated":"x"}}"#, &mut memo),
            Line::Other
        );
        assert_eq!(
            line(r#"{"type":"user","content":[]}"#, &mut memo),
            Line::Other
        );
        let bad = r#"{"type":"gemini","tokens":{"input":"ten","output":5}}"#;
        assert_eq!(line(bad, &mut memo), Line::Unknown);
        assert_eq!(line(r#"{"what":1}"#, &mut memo), Line::Unknown);
    }
}
