//! What the A2A commands (cards, tasks, delegate, find-agent, context,
//! memory, learning, resolve-conflict) share: the Python tool's number
//! formats, comma lists, cleaning typed text, stored text for the
//! terminal, and who the command acts as.

use clap::builder::{PossibleValuesParser, TypedValueParser};

use swarm_core::a2a::{Availability, TaskPriority, TaskStatus};
use swarm_core::domain::validate;
use swarm_core::support::sanitize;
use swarm_core::{Error, Result};

use crate::cli::actor;
use crate::cli::context::Context;

/// Longest free text accepted (an objective, a summary, a decision).
pub(crate) const MAX_TEXT_CHARS: usize = 10_000;

/// Prints what reading or writing a store had to say (damaged files,
/// unreadable records) as warnings.
pub(crate) fn warn_notes(ctx: &Context, notes: &[String]) {
    for n in notes {
        ctx.out.warn(&shown(n));
    }
}

/// Python's `{:.1%}`: 0.5 is `50.0%`.
pub(crate) fn percent(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

/// Text from a store file for one line of a terminal: control characters
/// and escape sequences removed, line breaks turned into spaces.
pub(crate) fn shown(text: &str) -> String {
    sanitize::one_line(text)
}

/// Stored items joined with `", "` (Python's `", ".join(items)`), each
/// as `shown` prints it.
pub(crate) fn joined(items: &[String]) -> String {
    items
        .iter()
        .map(|s| shown(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first `n` characters of stored text, as `shown` prints it
/// (Python's `text[:n]`).
pub(crate) fn head(text: &str, n: usize) -> String {
    shown(text).chars().take(n).collect()
}

/// A comma-separated list as typed: each item trimmed and cleaned, empty
/// items dropped (the original kept `" api"` with its space).
pub(crate) fn csv(raw: &str) -> Vec<String> {
    raw.split(',')
        .map(|s| sanitize::one_line(s).trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Free text typed for `what`: control characters removed (line breaks
/// and tabs kept), surrounding whitespace trimmed; it must not be empty.
pub(crate) fn text(what: &str, raw: &str) -> Result<String> {
    let clean = sanitize::strip_controls(raw).trim().to_owned();
    if clean.is_empty() {
        return Err(Error::Invalid(format!("{what} is empty")));
    }
    let len = clean.chars().count();
    if len > MAX_TEXT_CHARS {
        return Err(Error::Invalid(format!(
            "{what} is too long ({len} characters, at most {MAX_TEXT_CHARS})"
        )));
    }
    Ok(clean)
}

/// Optional free text: like `text`, but empty is fine.
pub(crate) fn optional_text(what: &str, raw: Option<&str>) -> Result<String> {
    match raw.map(str::trim) {
        None | Some("") => Ok(String::new()),
        Some(r) => text(what, r),
    }
}

/// An agent id given with `flag`.
pub(crate) fn agent_arg(flag: &str, raw: &str) -> Result<String> {
    validate::agent_id(raw).map_err(|e| Error::Invalid(format!("{flag}: {e}")))
}

/// Longest context id accepted.
pub(crate) const MAX_CONTEXT_ID_CHARS: usize = 64;

/// A context id typed for `what`: 1-64 letters, digits, `.`, `_` or `-`
/// (it is printed in tables and used as a key, so nothing else).
pub(crate) fn context_id(what: &str, raw: &str) -> Result<String> {
    let id = raw.trim();
    let ok = !id.is_empty()
        && id.chars().count() <= MAX_CONTEXT_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(id.to_owned())
    } else {
        Err(Error::Invalid(format!(
            "{what}: {:?} is not a context id (1-{MAX_CONTEXT_ID_CHARS} letters, digits, `.`, `_` or `-`)",
            shown(raw)
        )))
    }
}

/// The agent a command that changes something acts as: `explicit`, or
/// this pane's agent. Inside another agent's pane an explicit id needs
/// `--as-other`, which is recorded in the audit log with `action`.
pub(crate) fn acting_agent(
    ctx: &Context,
    explicit: Option<&str>,
    as_other: bool,
    flag: &str,
    action: &str,
) -> Result<String> {
    let actor = actor::resolve_any(ctx, explicit, as_other, flag)?;
    actor::record_as_other(ctx, &actor, action)?;
    Ok(actor.id)
}

/// The agent a command only reads about: `explicit` (any agent may be
/// looked at), else this pane's agent.
pub(crate) fn subject_agent(ctx: &Context, explicit: Option<&str>, flag: &str) -> Result<String> {
    match explicit {
        Some(id) => agent_arg(flag, id),
        None => Ok(actor::resolve(ctx, None, false, flag)?.id),
    }
}

/// clap parser for a task status (`pending`, ..., `cancelled`).
pub(crate) fn status_parser() -> impl TypedValueParser<Value = TaskStatus> {
    PossibleValuesParser::new(TaskStatus::ALL.map(TaskStatus::as_str))
        .try_map(|s| s.parse::<TaskStatus>())
}

/// clap parser for a task priority (`low`, `normal`, `high`, `critical`).
pub(crate) fn priority_parser() -> impl TypedValueParser<Value = TaskPriority> {
    PossibleValuesParser::new(TaskPriority::ALL.map(TaskPriority::as_str))
        .try_map(|s| s.parse::<TaskPriority>())
}

/// clap parser for an availability (`active`, `busy`, `offline`).
pub(crate) fn availability_parser() -> impl TypedValueParser<Value = Availability> {
    PossibleValuesParser::new(Availability::ALL.map(Availability::as_str))
        .try_map(|s| s.parse::<Availability>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_format_like_python() {
        // '{:.1%}'.format(x) for each x.
        for (x, python) in [
            (0.5, "50.0%"),
            (0.55, "55.0%"),
            (0.0005, "0.1%"),
            (1.0, "100.0%"),
            (0.0, "0.0%"),
            (0.12345, "12.3%"),
        ] {
            assert_eq!(percent(x), python, "{x}");
        }
        // '{:.2f}'.format(x): both round the exact binary value, ties to even.
        for (x, python) in [
            (0.125, "0.12"),
            (0.375, "0.38"),
            (0.6019565217391305, "0.60"),
        ] {
            assert_eq!(format!("{x:.2}"), python);
        }
    }

    #[test]
    fn lists_and_text() {
        assert_eq!(csv("python, api,,\tRust "), ["python", "api", "Rust"]);
        assert!(csv(" , ").is_empty());
        assert_eq!(text("x", "  a\x1b[31mb\n c ").expect("text"), "ab\n c");
        assert!(text("the objective", " \x07 ").is_err());
        assert_eq!(optional_text("x", None).expect("none"), "");
        assert_eq!(head("abc\ndef", 5), "abc d");
        assert_eq!(
            context_id("x", " feature-auth ").expect("id"),
            "feature-auth"
        );
        for bad in ["", "a b", "a/b", "\x1b[0m", &"x".repeat(65)] {
            assert!(context_id("x", bad).is_err(), "{bad:?}");
        }
    }
}
