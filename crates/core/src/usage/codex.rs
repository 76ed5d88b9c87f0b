//! Codex CLI's usage records: a rollout file's `turn_context` records name
//! the model, and its `event_msg` records of payload type `token_count`
//! carry the session's running total (`info.total_token_usage`). The
//! difference from the total read before is what a call spent, so a total
//! reported twice counts once. Codex counts cached input inside
//! `input_tokens` and reasoning inside `output_tokens`.

use serde_json::Value;

use super::tokens::Tokens;
use super::vendor::{Line, Memo, UNKNOWN_MODEL, Usage, count, model_name, record_time};

/// Reads one record.
pub(crate) fn read(record: &Value, memo: &mut Memo) -> Line {
    let kind = record.get("type").and_then(Value::as_str);
    let payload = record.get("payload");
    match kind {
        Some("turn_context") => {
            if let Some(model) = payload.and_then(|p| p.get("model")).and_then(Value::as_str) {
                memo.model = Some(model_name(Some(model)));
            }
            Line::Other
        }
        Some("event_msg") => {
            let Some(payload) = payload else {
                return Line::Unknown;
            };
            if payload.get("type").and_then(Value::as_str) != Some("token_count") {
                return Line::Other;
            }
            // A token_count without `info` reports rate limits only.
            let Some(info) = payload.get("info").filter(|i| !i.is_null()) else {
                return Line::Other;
            };
            let Some(total) = info.get("total_token_usage").and_then(tokens) else {
                return Line::Unknown;
            };
            let before = memo.total.unwrap_or_default();
            // A total below the last one: the session's count started again.
            let spent = if total.any_below(&before) {
                total
            } else {
                total.less(&before)
            };
            memo.total = Some(total);
            if spent.is_zero() {
                return Line::Other;
            }
            Line::Usage(Usage {
                time: record_time(record),
                model: memo
                    .model
                    .clone()
                    .unwrap_or_else(|| UNKNOWN_MODEL.to_owned()),
                tokens: spent,
            })
        }
        Some(_) => Line::Other,
        None => Line::Unknown,
    }
}

/// One `*_token_usage` object in swarm's kinds.
fn tokens(u: &Value) -> Option<Tokens> {
    let input = u.get("input_tokens")?.as_u64()?;
    let output = u.get("output_tokens")?.as_u64()?;
    let cached = count(u, "cached_input_tokens")?;
    Some(Tokens {
        input: input.saturating_sub(cached),
        output,
        cache_read: cached,
        cache_write: count(u, "cache_write_input_tokens")?,
        reasoning: count(u, "reasoning_output_tokens")?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::vendor::UsageSource;
    use super::*;

    fn line(s: &str, memo: &mut Memo) -> Line {
        UsageSource::Codex.read_line(s.as_bytes(), memo)
    }

    fn count_record(input: u64, cached: u64, output: u64) -> String {
        format!(
            r#"{{"timestamp":"2026-11-26T10:59:52.693Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{input},"cached_input_tokens":{cached},"output_tokens":{output},"reasoning_output_tokens":1,"total_tokens":0}}}}}}}}"#
        )
    }

    #[test]
    fn running_totals_become_what_each_call_spent() {
        let mut memo = Memo::default();
        let ctx = r#"{"type":"turn_context","payload":{"model":"gpt-6.1-sol","cwd":"/p"}}"#;
        assert_eq!(line(ctx, &mut memo), Line::Other);
        let Line::Usage(first) = line(&count_record(10, 0, 5), &mut memo) else {
            panic!("not usage");
        };
        assert_eq!(first.model, "gpt-6.1-sol");
        assert_eq!((first.tokens.input, first.tokens.output), (10, 5));
        // The same total again (Codex reports it more than once): nothing new.
        assert_eq!(line(&count_record(10, 0, 5), &mut memo), Line::Other);
        let Line::Usage(second) = line(&count_record(130, 100, 12), &mut memo) else {
            panic!("not usage");
        };
        assert_eq!(
            second.tokens,
            Tokens {
                input: 20,
                output: 7,
                cache_read: 100,
                cache_write: 0,
                reasoning: 0
            }
        );
        let rate_only =
            r#"{"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{}}}"#;
        assert_eq!(line(rate_only, &mut memo), Line::Other);
        let bad = r#"{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-1}}}}"#;
        assert_eq!(line(bad, &mut memo), Line::Unknown);
        assert_eq!(line(r#"{"payload":{}}"#, &mut memo), Line::Unknown);
    }
}
