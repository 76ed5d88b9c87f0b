//! The receipt of a message posted to Claude Code's socket: the
//! session's transcript, read from where it ended before the post. The
//! session records a peer message as a `queue-operation` `enqueue` holding
//! its text, then, once a turn takes it, a `user` record whose
//! `origin.kind` is `"peer"` and whose text holds it. One that comes while
//! a turn runs may be taken into that turn instead: a `remove` whose
//! `reason` is `"absorbed_mid_turn"`, then an `attachment` whose origin
//! sits under `attachment.origin`; that is a delivery, not a drop. A
//! session that bypasses permissions and does not accept peer messages
//! holds each for the person's approval and says so in a `system` record
//! ("Held peer message ...") quoting the message's start with its square
//! brackets taken out. The message is found by its pane header (which
//! ends with its id), never by position. The transcript is the agent's
//! file: lines are read whole, at most `MAX_READ` bytes a look, and a line
//! that is not JSON is skipped.

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

/// How a `system` record saying the session holds a peer message for
/// the person's approval starts.
pub(crate) const HELD_RECORD: &str = "Held peer message";

/// The queue removal that means a running turn took the message in.
const ABSORBED: &str = "absorbed_mid_turn";

/// The pane header `marker` as a held record quotes it: without its
/// square brackets.
pub(crate) fn held_quote(marker: &str) -> String {
    marker.chars().filter(|c| !matches!(c, '[' | ']')).collect()
}

/// What one transcript line says of the message `marker` names.
fn read_line(line: &[u8], marker: &str) -> Option<Confirmation> {
    let text = std::str::from_utf8(line).ok()?;
    let quote = held_quote(marker);
    if !text.contains(marker) && !text.contains(&quote) {
        return None;
    }
    let record: Value = serde_json::from_str(text).ok()?;
    let kind = record.get("type").and_then(Value::as_str)?;
    let field = |v: &Value, name: &str| v.get(name).and_then(Value::as_str).map(str::to_owned);
    // A message taken before the turn ended is an attachment with the
    // origin inside it.
    let origin = record
        .get("origin")
        .or_else(|| record.get("attachment").and_then(|a| a.get("origin")));
    let peer = origin.and_then(|o| field(o, "kind")).as_deref() == Some("peer");
    let state = record.get("state").and_then(Value::as_str);
    match kind {
        "queue-operation" => {
            let op = record.get("operation").and_then(Value::as_str)?;
            match op {
                "enqueue" => Some(Confirmation::Accepted),
                "remove" if field(&record, "reason").as_deref() == Some(ABSORBED) => {
                    Some(Confirmation::Delivered(ConfirmedBy::Transcript))
                }
                "remove" | "popAll" | "clear" => Some(Confirmation::Dropped),
                _ => None,
            }
        }
        "system" => {
            let content = field(&record, "content")?;
            // The quote opens the preview: a later message quoting this
            // one's header further on is not this one.
            (content.starts_with(HELD_RECORD) && content.contains(&format!("\u{ab}{quote}")))
                .then_some(Confirmation::AwaitingApproval)
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

    /// A `system` record as Claude Code 2.1.330 writes it on holding the
    /// message `marker` names.
    fn held(marker: &str) -> String {
        let quote = held_quote(marker);
        format!(
            "{{\"type\":\"system\",\"subtype\":\"informational\",\"content\":\"{HELD_RECORD} \u{2014} from an unidentified session [verified pid 16381]; preview: \u{ab}{quote}: hi\u{bb} \u{2026}[1 line, 52 chars total \u{2014} expand to review before approving] \u{2014} not delivered to Claude (1 held).\",\"level\":\"warning\"}}\n"
        )
    }

    #[test]
    fn a_held_record_quoting_the_header_is_awaiting_approval_until_it_is_taken() {
        let text = held(MARKER);
        assert!(
            !text.contains(MARKER),
            "the record quotes it without brackets"
        );
        assert_eq!(look_at(&text).state, Confirmation::AwaitingApproval);
        let other = held(&MARKER.replace("9c2c68bd", "00000000"));
        assert_eq!(look_at(&other).state, Confirmation::Unconfirmed);
        // Approved: queued, then taken as a turn's input.
        let approved = format!("{text}{}{}", enqueue(), taken("user", "peer"));
        assert_eq!(
            look_at(&approved).state,
            Confirmation::Delivered(ConfirmedBy::Transcript)
        );
        // A system record that is not a hold says nothing of it.
        let note = text.replace(HELD_RECORD, "Released 1 held message");
        assert_eq!(look_at(&note).state, Confirmation::Unconfirmed);
    }

    #[test]
    fn an_absorbed_removal_and_its_nested_origin_are_each_a_delivery() {
        let absorbed = enqueue().replace(
            "\"operation\":\"enqueue\"",
            "\"operation\":\"remove\",\"reason\":\"absorbed_mid_turn\"",
        );
        let attachment = format!(
            "{{\"type\":\"attachment\",\"attachment\":{{\"type\":\"queued_command\",\"prompt\":\"{MARKER} hi\",\"origin\":{{\"kind\":\"peer\",\"from\":\"unknown\"}}}}}}\n"
        );
        let delivered = Confirmation::Delivered(ConfirmedBy::Transcript);
        assert_eq!(
            look_at(&format!("{}{absorbed}{attachment}", enqueue())).state,
            delivered
        );
        // Each alone is the agent's word that a turn took it.
        assert_eq!(
            look_at(&format!("{}{absorbed}", enqueue())).state,
            delivered
        );
        assert_eq!(
            look_at(&format!("{}{attachment}", enqueue())).state,
            delivered
        );
        let typed = attachment.replace("\"peer\"", "\"human\"");
        assert_eq!(
            look_at(&format!("{}{typed}", enqueue())).state,
            Confirmation::Accepted
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
