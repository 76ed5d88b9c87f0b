//! Claude Code's usage records: each `assistant` record of a session file
//! carries `message.model` and `message.usage`. A response with several
//! content blocks is written as several records with the same
//! `message.id` and `requestId`; only the first is counted.

use serde_json::Value;

use super::tokens::Tokens;
use super::vendor::{Line, Memo, Usage, count, model_name, record_time};

/// The model name Claude Code gives messages it made up itself (an
/// interrupted turn, an API error shown as a reply): no model call.
const SYNTHETIC: &str = "<synthetic>";

/// Reads one record.
pub(crate) fn read(record: &Value, memo: &mut Memo) -> Line {
    if record.get("type").and_then(Value::as_str) == Some("user") {
        // A new prompt or tool result: the next response is a new call.
        memo.last = None;
    }
    let Some(message) = record.get("message") else {
        return Line::Other;
    };
    let Some(usage) = message.get("usage") else {
        return Line::Other;
    };
    if record.get("type").and_then(Value::as_str) != Some("assistant") || !usage.is_object() {
        return Line::Unknown;
    }
    let model = message.get("model").and_then(Value::as_str);
    if model == Some(SYNTHETIC) {
        return Line::Other;
    }
    let (Some(input), Some(output), Some(cache_write), Some(cache_read)) = (
        usage.get("input_tokens").and_then(Value::as_u64),
        usage.get("output_tokens").and_then(Value::as_u64),
        count(usage, "cache_creation_input_tokens"),
        count(usage, "cache_read_input_tokens"),
    ) else {
        return Line::Unknown;
    };
    let reasoning = usage
        .get("output_tokens_details")
        .and_then(|d| d.get("thinking_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let key = format!(
        "{}:{}",
        message
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        record
            .get("requestId")
            .and_then(Value::as_str)
            .unwrap_or_default()
    );
    // Only a record written again for the same response before the next
    // prompt is the same call: the loopback model stand-in reuses one id.
    if key != ":" && memo.last.as_deref() == Some(key.as_str()) {
        return Line::Other;
    }
    memo.last = Some(key);
    Line::Usage(Usage {
        time: record_time(record),
        model: model_name(model),
        tokens: Tokens {
            input,
            output,
            cache_read,
            cache_write,
            reasoning,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::vendor::UsageSource;
    use super::*;

    fn line(s: &str, memo: &mut Memo) -> Line {
        UsageSource::Claude.read_line(s.as_bytes(), memo)
    }

    #[test]
    fn reads_usage_and_counts_a_response_once() {
        let mut memo = Memo::default();
        let rec = r#"{"type":"assistant","timestamp":"2026-11-26T10:59:29.000Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-opus-5-5","usage":{"input_tokens":10,"cache_creation_input_tokens":3,"cache_read_input_tokens":100,"output_tokens":5,"output_tokens_details":{"thinking_tokens":2}}}}"#;
        let Line::Usage(u) = line(rec, &mut memo) else {
            panic!("not usage");
        };
        assert_eq!(u.model, "claude-opus-5-5");
        assert_eq!(u.time, Some(1_795_690_769));
        assert_eq!(
            u.tokens,
            Tokens {
                input: 10,
                output: 5,
                cache_read: 100,
                cache_write: 3,
                reasoning: 2
            }
        );
        assert_eq!(line(rec, &mut memo), Line::Other);
        assert!(matches!(
            line(&rec.replace("req_1", "req_2"), &mut memo),
            Line::Usage(_)
        ));
        assert_eq!(
            line(r#"{"type":"user","message":{"content":"hi"}}"#, &mut memo),
            Line::Other
        );
        assert!(matches!(
            line(&rec.replace("req_1", "req_2"), &mut memo),
            Line::Usage(_)
        ));
    }

    #[test]
    fn odd_shapes_are_unknown_or_ignored() {
        let mut memo = Memo::default();
        let no_output =
            r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":10}}}"#;
        assert_eq!(line(no_output, &mut memo), Line::Unknown);
        let text_count =
            r#"{"type":"assistant","message":{"usage":{"input_tokens":"10","output_tokens":5}}}"#;
        assert_eq!(line(text_count, &mut memo), Line::Unknown);
        let other_type =
            r#"{"type":"summary","message":{"usage":{"input_tokens":1,"output_tokens":1}}}"#;
        assert_eq!(line(other_type, &mut memo), Line::Unknown);
        let synthetic = r#"{"type":"assistant","message":{"model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}}}"#;
        assert_eq!(line(synthetic, &mut memo), Line::Other);
    }
}
