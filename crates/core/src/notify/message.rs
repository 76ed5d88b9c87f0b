//! What a notification says, the same on every channel: a title
//! (`swarm: agent-1 needs you`) and one line of text, cleaned of terminal
//! controls and bounded, since the detail is text an agent wrote.

use crate::attention::event::FeedEntry;
use crate::support::sanitize;

/// The most characters of text a notification carries; the whole detail
/// stays in the event itself. Discord refuses a message over 2000.
pub(super) const MAX_TEXT_CHARS: usize = 2000;

/// `swarm: agent-1 needs you`.
pub(super) fn title(entry: &FeedEntry) -> String {
    let who = entry.agent.as_deref().unwrap_or("the swarm");
    sanitize::one_line(&format!("swarm: {who} {}", entry.event.headline()))
}

/// `agent-1 needs you: Do you want to proceed?`, on one line, at most
/// `MAX_TEXT_CHARS` characters.
pub(super) fn text(entry: &FeedEntry) -> String {
    bounded(&sanitize::one_line(&entry.text()), MAX_TEXT_CHARS)
}

/// The detail alone, cleaned and bounded (lines kept).
pub(super) fn detail(entry: &FeedEntry) -> String {
    bounded(&sanitize::strip_controls(&entry.detail), MAX_TEXT_CHARS)
}

/// `text` cut to `max` characters, the cut marked with `…`.
fn bounded(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::event::EventKind;

    #[test]
    fn titles_and_texts_are_clean_and_bounded() {
        let e = FeedEntry::new(
            EventKind::NeedsInput,
            Some("agent-1"),
            "Proceed?\x1b[31m\nyes",
        );
        assert_eq!(title(&e), "swarm: agent-1 needs you");
        assert_eq!(text(&e), "agent-1 needs you: Proceed? yes");
        assert_eq!(detail(&e), "Proceed?\nyes");
        let long = FeedEntry::new(EventKind::Message, Some("a"), "x".repeat(5000));
        assert_eq!(text(&long).chars().count(), MAX_TEXT_CHARS);
        assert!(text(&long).ends_with('…'));
        let swarm = FeedEntry::new(EventKind::Stuck, None, "");
        assert_eq!(title(&swarm), "swarm: the swarm looks stuck");
    }
}
