//! The words the demo agent reads in what it is given: the question of a
//! message swarm typed in, and the seconds a trigger word names.

use crate::support::sanitize;

/// A question in a message swarm typed in.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Asked<'a> {
    /// Who sent it (an agent id, or the operator).
    pub(crate) sender: &'a str,
    /// The short form of its id.
    pub(crate) id: &'a str,
    /// Its first line, which ends in `?`.
    pub(crate) question: String,
}

/// The question in `text` when it is a message as swarm types it
/// (`[agent-0][2026-11-21 14:30:15][QUESTION][#9c2c68bd]: ready?`, see
/// docs/FORMATS.md) whose first line ends in `?`.
pub(crate) fn question_in(text: &str) -> Option<Asked<'_>> {
    let rest = text.strip_prefix('[')?;
    let (sender, rest) = rest.split_once(']')?;
    let (head, body) = rest.split_once("]: ")?;
    let (_, id) = head.rsplit_once("[#")?;
    let plain_id = |s: &str, extra: u8| {
        !s.is_empty()
            && s.len() <= 64
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == extra)
    };
    if !plain_id(sender, b'_') || !plain_id(id, b'-') || sender.starts_with('-') {
        return None;
    }
    let first = sanitize::one_line(body.lines().next().unwrap_or_default().trim());
    first.ends_with('?').then_some(Asked {
        sender,
        id,
        question: first,
    })
}

/// `DEMOSLEEP<n>` (or another `word` followed by a number) in a
/// submission: the seconds it names (at most 600).
pub(crate) fn seconds_after(text: &str, word: &str) -> Option<u64> {
    let rest = &text[text.find(word)? + word.len()..];
    let digits: String = rest
        .chars()
        .take_while(char::is_ascii_digit)
        .take(4)
        .collect();
    digits.parse::<u64>().ok().map(|n| n.min(600))
}
