//! The receipt of a message posted to Claude Code's socket: the
//! session's transcript, read from where it ended before the post. The
//! session records a peer message as a `queue-operation` `enqueue` holding
//! its text, then, once a turn takes it, a `user` record (or, taken while
//! busy, an `attachment`) whose `origin.kind` is `"peer"` and whose text
//! holds it. The message is found by its pane header (which ends with its
//! id), never by position. The transcript is the agent's file: lines are
//! read whole, at most `MAX_READ` bytes a look, and a line that is not
//! JSON is skipped.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

use crate::log::record::ConfirmedBy;
use crate::native::Confirmation;

/// The most of a transcript read in one look.
const MAX_READ: u64 = 32 << 20;

/// The longest transcript line read (longer ones are skipped: a peer
/// message's record is small).
const MAX_LINE: usize = 1 << 20;

/// What one look at a transcript found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Look {
    /// The message's state after this look.
    pub state: Confirmation,
    /// Where the next look starts: just past the last whole line read.
    pub next: u64,
}

/// Looks at `transcript` from byte `from` for the message whose pane
/// header is `marker`; `before` is what earlier looks found.
pub(crate) fn look(transcript: &Path, from: u64, marker: &str, before: Confirmation) -> Look {
    let unchanged = Look {
        state: before,
        next: from,
    };
    let Ok(mut file) = std::fs::File::open(transcript) else {
        return unchanged;
    };
    let len = file.metadata().map_or(0, |m| m.len());
    // A transcript shorter than before was replaced: read it all.
    let from = if len < from { 0 } else { from };
    if file.seek(SeekFrom::Start(from)).is_err() {
        return unchanged;
    }
    let mut reader = BufReader::new(file.take(MAX_READ));
    let mut state = before;
    let mut next = from;
    let mut line = Vec::new();
    loop {
        line.clear();
        let Ok(n) = reader.read_until(b'\n', &mut line) else {
            break;
        };
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        next += n as u64;
        if line.len() > MAX_LINE {
            continue;
        }
        if let Some(found) = read_line(&line, marker) {
            state = later(state, found);
        }
        if state.is_final() {
            break;
        }
    }
    Look { state, next }
}

/// What one transcript line says of the message `marker` names.
fn read_line(line: &[u8], marker: &str) -> Option<Confirmation> {
    let text = std::str::from_utf8(line).ok()?;
    if !text.contains(marker) {
        return None;
    }
    let record: Value = serde_json::from_str(text).ok()?;
    let kind = record.get("type").and_then(Value::as_str)?;
    let peer = record
        .get("origin")
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str)
        == Some("peer");
    let state = record.get("state").and_then(Value::as_str);
    match kind {
        "queue-operation" => {
            let op = record.get("operation").and_then(Value::as_str)?;
            match op {
                "enqueue" => Some(Confirmation::Accepted),
                "remove" | "popAll" | "clear" => Some(Confirmation::Dropped),
                _ => None,
            }
        }
        _ if state == Some("held") => Some(Confirmation::AwaitingApproval),
        _ if state == Some("dropped") => Some(
            if record.get("outcome").and_then(Value::as_str) == Some("expired") {
                Confirmation::Expired
            } else {
                Confirmation::Dropped
            },
        ),
        "user" | "attachment" if peer => Some(Confirmation::Delivered(ConfirmedBy::Transcript)),
        _ => None,
    }
}

/// The state after `before` once `found` was seen: taken beats
/// everything, a removal beats being queued.
fn later(before: Confirmation, found: Confirmation) -> Confirmation {
    if before.is_final() { before } else { found }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKER: &str = "[operator][2026-12-01 10:00:00][INFO][#9c2c68bd]";

    fn enqueue() -> String {
        format!(
            "{{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"content\":\"{MARKER} hi\"}}\n"
        )
    }

    fn taken(kind: &str, origin: &str) -> String {
        format!(
            "{{\"type\":\"{kind}\",\"origin\":{{\"kind\":\"{origin}\"}},\"message\":{{\"role\":\"user\",\"content\":\"Another Claude session sent a message:\\n{MARKER} hi\"}}}}\n"
        )
    }

    fn look_at(text: &str) -> Look {
        let dir = tempfile::tempdir().expect("as set up");
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, text).expect("as set up");
        look(&path, 0, MARKER, Confirmation::Unconfirmed)
    }

    #[test]
    fn a_peer_record_holding_the_id_is_the_receipt() {
        let dequeue = "{\"type\":\"queue-operation\",\"operation\":\"dequeue\"}\n";
        let text = format!("{}{dequeue}{}", enqueue(), taken("user", "peer"));
        let found = look_at(&text);
        assert_eq!(
            found.state,
            Confirmation::Delivered(ConfirmedBy::Transcript)
        );
        assert_eq!(found.next, text.len() as u64);
        assert_eq!(
            look_at(&format!("{}{}", enqueue(), taken("attachment", "peer"))).state,
            Confirmation::Delivered(ConfirmedBy::Transcript)
        );
    }

    #[test]
    fn queued_is_accepted_and_a_typed_prompt_is_no_receipt() {
        assert_eq!(look_at(&enqueue()).state, Confirmation::Accepted);
        let typed = taken("user", "human");
        assert_eq!(
            look_at(&format!("{}{typed}", enqueue())).state,
            Confirmation::Accepted
        );
        let other = taken("user", "peer").replace("9c2c68bd", "00000000");
        assert_eq!(look_at(&other).state, Confirmation::Unconfirmed);
    }

    #[test]
    fn a_removal_without_a_take_is_dropped() {
        let removed = enqueue().replace("enqueue", "remove");
        assert_eq!(
            look_at(&format!("{}{removed}", enqueue())).state,
            Confirmation::Dropped
        );
    }

    #[test]
    fn half_lines_and_junk_are_not_read() {
        let text = format!("not json {MARKER}\n{}", taken("user", "peer"));
        let half = &text[..text.len() - 1];
        let found = look_at(half);
        assert_eq!(found.state, Confirmation::Unconfirmed);
        assert_eq!(found.next, (text.find('\n').expect("as set up") + 1) as u64);
    }
}
