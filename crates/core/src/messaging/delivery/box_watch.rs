//! What confirming a delivery has seen of one input box: the screen just
//! before the paste (`Baseline`) and the looks after Enter (`BoxWatch`).

use std::time::Instant;

use super::EMPTY_SETTLE;
use crate::agents::profile::Profile;
use crate::agents::screen::{Reading, rows_showing};
use crate::log::record::DeliveryOutcome;

/// True when the reading shows text in the input box.
pub(super) fn shows_text(r: &Reading) -> bool {
    r.box_text.as_deref().is_some_and(|t| !t.is_empty())
}

/// The screen just before a paste.
pub(super) struct Baseline {
    /// The capture.
    pub(super) capture: String,
    /// Rows that showed the text's marker (its header).
    pub(super) shown: usize,
    /// Whether the agent was idle (its screen changes only for input).
    pub(super) idle: bool,
    /// The marker.
    pub(super) marker: String,
    /// The agent's profile, which finds its input box (`None`: the box
    /// is not told from the transcript).
    pub(super) profile: Option<Profile>,
}

impl Baseline {
    /// True when `capture` shows the agent took the text: the marker on
    /// more rows than before (the agent put it in its transcript), or, for
    /// an agent that was idle, a screen that changed and shows the marker.
    /// An agent that has not read the paste yet shows the old screen.
    pub(super) fn submitted(&self, capture: &str) -> bool {
        let shown = rows_showing(capture, &self.marker);
        shown > self.shown || (shown > 0 && self.idle && capture != self.capture)
    }

    /// True when `capture` shows the marker in the agent's transcript,
    /// above its input box, on more rows than the whole screen showed it
    /// before the paste: the agent took the text, whatever a box on screen
    /// still shows (a row left over from an earlier frame can look like a
    /// box that holds it).
    pub(super) fn in_transcript(&self, capture: &str) -> bool {
        self.profile
            .as_ref()
            .and_then(|p| p.rows_above_box_showing(capture, &self.marker))
            .is_some_and(|n| n > self.shown)
    }
}

/// What confirming has seen of one input box so far.
pub(super) struct BoxWatch {
    pub(super) seen: bool,
    pub(super) text_in_box: bool,
    empty_since: Option<Instant>,
    pub(super) baseline: Option<Baseline>,
    /// Enter was pressed a second time.
    pressed_again: bool,
}

impl BoxWatch {
    pub(super) fn new(seen: bool, baseline: Option<Baseline>) -> BoxWatch {
        BoxWatch {
            seen,
            text_in_box: false,
            empty_since: None,
            baseline,
            pressed_again: false,
        }
    }

    /// Enter was pressed once more: an empty box counts from now on.
    pub(super) fn pressed_again(&mut self) {
        self.pressed_again = true;
        self.empty_since = None;
    }

    /// The delivery's outcome once confirming is over: whether the text was
    /// seen leaving the box, and whether Enter had to be pressed again.
    pub(super) fn outcome(&self, left_box: bool) -> DeliveryOutcome {
        let outcome = DeliveryOutcome::delivered_confirmed(left_box);
        if self.pressed_again {
            outcome.after_second_enter()
        } else {
            outcome
        }
    }

    /// Takes one look; true when the text has left the box.
    pub(super) fn look(&mut self, reading: Option<&Reading>, capture: Option<&str>) -> bool {
        match reading.and_then(|r| r.box_text.as_deref()) {
            Some("") => {
                self.text_in_box = false;
                if self
                    .baseline
                    .as_ref()
                    .zip(capture)
                    .is_some_and(|(b, c)| b.submitted(c))
                {
                    return true;
                }
                let since = *self.empty_since.get_or_insert_with(Instant::now);
                self.seen || since.elapsed() >= EMPTY_SETTLE
            }
            Some(_) => {
                self.seen = true;
                if self
                    .baseline
                    .as_ref()
                    .zip(capture)
                    .is_some_and(|(b, c)| b.in_transcript(c))
                {
                    self.text_in_box = false;
                    return true;
                }
                self.text_in_box = true;
                self.empty_since = None;
                false
            }
            None => {
                self.empty_since = None;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::screen::ScreenState;

    const MARK: &str = "[operator][2026-11-23 22:15:31][INFO]";

    fn baseline(capture: &str, idle: bool) -> Baseline {
        Baseline {
            capture: capture.to_owned(),
            shown: rows_showing(capture, MARK),
            idle,
            marker: MARK.to_owned(),
            profile: None,
        }
    }

    #[test]
    fn an_unchanged_screen_is_no_sign_of_a_submission() {
        // The same message already on screen: an agent that has not read
        // the paste yet still shows exactly this.
        let before = format!("  {MARK}: hi\n\n> \n");
        assert!(!baseline(&before, true).submitted(&before));
        assert!(!baseline(&before, false).submitted(&before));
    }

    #[test]
    fn the_marker_on_one_more_row_is_a_submission() {
        let before = format!("  {MARK}: hi\n\n> \n");
        let after = format!("  {MARK}: hi\n  {MARK}: hi\n\n> \n");
        assert!(baseline(&before, false).submitted(&after));
    }

    #[test]
    fn a_busy_screen_that_changed_needs_the_marker_on_more_rows() {
        // A busy agent redraws its spinner by itself.
        let before = format!("  {MARK}: hi\n* working 1s\n> \n");
        let after = format!("  {MARK}: hi\n* working 2s\n> \n");
        assert!(!baseline(&before, false).submitted(&after));
        // An idle one redraws only for input.
        assert!(baseline(&before, true).submitted(&after));
    }

    #[test]
    fn a_screen_without_the_marker_is_no_submission() {
        let before = "> \n";
        assert!(!baseline(before, true).submitted("something else\n> \n"));
    }

    #[test]
    fn a_stale_box_beside_the_question_the_text_opened_is_no_text_waiting() {
        // The agent took the text and asks a question, but a row of its
        // previous frame still shows the text in a box.
        let profile = crate::agents::profile::Profiles::default().for_command("swarm-demo");
        let after = format!(
            "[12:00:00] submission 1 (60 bytes):\n  {MARK}: DEMOASK\n> {MARK}: DEMOASK\n\
             ? Do you want to proceed?\n\u{276f} 1. Yes\n  2. No\n  Esc to cancel\n"
        );
        let reading = profile.read(&after).expect("the demo screen is read");
        assert!(shows_text(&reading));
        assert!(profile.shows_dialog(&after));
        let mut with_profile = baseline("> \n", true);
        with_profile.profile = Some(profile.clone());
        let mut watch = BoxWatch::new(false, Some(with_profile));
        assert!(watch.look(Some(&reading), Some(&after)));
        assert!(!watch.text_in_box);

        // A dropped Enter: the text in the box and nowhere above it.
        let dropped = format!("(ignored Enter 1 after a paste)\n> {MARK}: hi\n");
        let reading = profile.read(&dropped).expect("read");
        let mut with_profile = baseline("> \n", true);
        with_profile.profile = Some(profile.clone());
        let mut watch = BoxWatch::new(false, Some(with_profile));
        assert!(!watch.look(Some(&reading), Some(&dropped)));
        assert!(watch.text_in_box);
        assert!(!profile.shows_dialog(&dropped));
    }

    #[test]
    fn an_empty_box_counts_at_once_when_the_transcript_shows_the_text() {
        let before = "> \n";
        let after = format!("  {MARK}: hi\n> \n");
        let empty = Reading {
            state: ScreenState::Idle,
            box_text: Some(String::new()),
        };
        let mut watch = BoxWatch::new(false, Some(baseline(before, true)));
        assert!(!watch.look(Some(&empty), Some(before)));
        assert!(watch.look(Some(&empty), Some(&after)));
        // Without a baseline an empty box must first stay empty a while.
        let mut blind = BoxWatch::new(false, None);
        assert!(!blind.look(Some(&empty), Some(&after)));
    }
}
