//! Reading an agent's screen into one state (idle, typing, busy, dialog,
//! unknown), by the rules of its profile. The screen is one
//! `capture-pane -p -J -e` capture: each row keeps its SGR attribute
//! sequences for `ansi` patterns, and the same row without them is the
//! text `plain` patterns see. Screen contents are untrusted: they are only
//! matched, never printed from here.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use regex::Regex;
use serde::Serialize;

use crate::config::{InputBox, Marker};

/// What an agent's screen shows, as far as delivery is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ScreenState {
    /// The input box is empty and the agent waits for a prompt.
    Idle,
    /// The input box holds text swarm did not put there.
    Typing,
    /// The agent works; it queues what is submitted meanwhile.
    Busy,
    /// A permission prompt, menu or question: Enter would pick an option.
    Dialog,
    /// The screen matches none of the profile's rules.
    Unknown,
}

impl ScreenState {
    /// The lower-case name (`idle`, `typing`, ...).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ScreenState::Idle => "idle",
            ScreenState::Typing => "typing",
            ScreenState::Busy => "busy",
            ScreenState::Dialog => "dialog",
            ScreenState::Unknown => "unknown",
        }
    }
}

impl fmt::Display for ScreenState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One reading of a screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The state.
    pub state: ScreenState,
    /// The input box's text (empty when it shows only a placeholder);
    /// `None` when no box is on screen.
    pub box_text: Option<String>,
}

impl Reading {
    /// True when a message may be typed now: the box is on screen and
    /// empty, and no dialog is open (a busy agent queues the message).
    pub(crate) fn is_safe(&self) -> bool {
        matches!(self.state, ScreenState::Idle | ScreenState::Busy)
            && self.box_text.as_deref().is_some_and(str::is_empty)
    }

    /// Why nothing may be typed into `agent`'s pane now, in words a person
    /// understands; `None` when it is safe.
    pub(crate) fn hold_reason(&self, agent: &str) -> Option<String> {
        if self.is_safe() {
            return None;
        }
        Some(match self.state {
            ScreenState::Dialog => format!(
                "{agent} is asking for permission (a dialog or menu is open, Enter would answer it)"
            ),
            ScreenState::Typing | ScreenState::Busy | ScreenState::Idle => {
                format!("someone is typing in {agent}'s input box")
            }
            ScreenState::Unknown => format!(
                "swarm cannot read {agent}'s screen (no input box where its profile expects one: it may still be starting, or show something its profile does not know)"
            ),
        })
    }
}

/// Where on screen a pattern counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Anywhere,
    Above(usize),
    Below(usize),
    Tail(usize),
}

/// A compiled `Marker`.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    plain: Option<Regex>,
    ansi: Option<Regex>,
    region: Region,
}

impl Pattern {
    /// Compiles a marker; the error is the regular expression's.
    pub(crate) fn new(m: &Marker) -> Result<Pattern, String> {
        let compile = |p: &Option<String>| {
            p.as_deref()
                .map(Regex::new)
                .transpose()
                .map_err(|e| e.to_string())
        };
        let region = match (m.above, m.below, m.tail) {
            (Some(n), _, _) => Region::Above(n),
            (_, Some(n), _) => Region::Below(n),
            (_, _, Some(n)) => Region::Tail(n),
            _ => Region::Anywhere,
        };
        Ok(Pattern {
            plain: compile(&m.plain)?,
            ansi: compile(&m.ansi)?,
            region,
        })
    }

    /// True when the row matches (both patterns, when both are given).
    pub(crate) fn matches(&self, row: &Row) -> bool {
        (self.plain.is_some() || self.ansi.is_some())
            && self.plain.as_ref().is_none_or(|r| r.is_match(&row.plain))
            && self.ansi.as_ref().is_none_or(|r| r.is_match(row.ansi))
    }

    /// The rows this pattern looks at, given the box (if any).
    fn rows(&self, screen: &Screen, found: Option<&Found>) -> Range<usize> {
        let n = screen.rows.len();
        match (self.region, found) {
            (Region::Anywhere, _) => 0..n,
            (Region::Above(k), Some(b)) => b.start.saturating_sub(k)..b.start,
            (Region::Below(k), Some(b)) => b.end..(b.end + k).min(n),
            // Without a box there is nothing to be above or below.
            (Region::Above(_) | Region::Below(_), None) => 0..0,
            (Region::Tail(k), _) => {
                let texts: Vec<usize> = (0..n)
                    .filter(|&i| !screen.rows[i].plain.trim().is_empty())
                    .collect();
                match texts.len().checked_sub(k) {
                    Some(skip) => texts.get(skip).copied().unwrap_or(n)..n,
                    None => 0..n,
                }
            }
        }
    }

    /// True when the pattern looks at attribute sequences.
    pub(crate) fn needs_attributes(&self) -> bool {
        self.ansi.is_some()
    }

    /// The text of the `reset` group of the plain pattern in `row`.
    fn reset(&self, row: &Row) -> Option<String> {
        let caps = self.plain.as_ref()?.captures(&row.plain)?;
        Some(caps.name("reset")?.as_str().trim().to_owned())
    }

    fn found_in(&self, screen: &Screen, found: Option<&Found>) -> bool {
        self.rows(screen, found)
            .any(|i| self.matches(&screen.rows[i]))
    }
}

/// The compiled screen rules of one profile.
#[derive(Clone, Debug)]
pub struct ScreenRules {
    dialog: Vec<Pattern>,
    busy: Vec<Pattern>,
    limit: Vec<Pattern>,
    start: Pattern,
    frame: bool,
    end: Option<Pattern>,
    require: Option<Pattern>,
    indent: usize,
    placeholder: Option<Pattern>,
}

/// Where the input box is: `start` its first row (a frame row when the
/// profile says so), `text` its text rows, `end` the row that ends it (or
/// the screen's end).
#[derive(Clone, Debug)]
struct Found {
    start: usize,
    text: Range<usize>,
    end: usize,
}

impl ScreenRules {
    /// Compiles a profile's markers; `None` when it has no input box (its
    /// screen is not read).
    pub(crate) fn new(
        dialog: &[Marker],
        busy: &[Marker],
        limit: &[Marker],
        input: Option<&InputBox>,
    ) -> Result<Option<ScreenRules>, String> {
        let Some(input) = input else {
            return Ok(None);
        };
        let all = |ms: &[Marker]| ms.iter().map(Pattern::new).collect::<Result<Vec<_>, _>>();
        let one = |m: &Option<Marker>| m.as_ref().map(Pattern::new).transpose();
        Ok(Some(ScreenRules {
            dialog: all(dialog)?,
            busy: all(busy)?,
            limit: all(limit)?,
            start: Pattern::new(&input.start)?,
            frame: input.frame,
            end: one(&input.end)?,
            require: one(&input.require)?,
            indent: input.indent,
            placeholder: one(&input.placeholder)?,
        }))
    }

    /// True when some marker looks at attribute sequences, so the screen
    /// must be captured with them (`capture-pane -e`); without, a capture
    /// of the text alone reads the same and costs tmux about half.
    pub(crate) fn needs_attributes(&self) -> bool {
        self.dialog
            .iter()
            .chain(&self.busy)
            .chain(&self.limit)
            .chain(std::iter::once(&self.start))
            .chain(&self.end)
            .chain(&self.require)
            .chain(&self.placeholder)
            .any(Pattern::needs_attributes)
    }

    /// Reads a screen. A dialog counts only while the input box is not
    /// drawn (every agent measured hides its box behind a dialog), so a
    /// transcript that quotes a dialog never holds messages back.
    pub(crate) fn read(&self, screen: &Screen) -> Reading {
        let Some(found) = self.find_box(screen) else {
            let dialog = self.dialog.iter().any(|p| p.found_in(screen, None));
            return Reading {
                state: if dialog {
                    ScreenState::Dialog
                } else {
                    ScreenState::Unknown
                },
                box_text: None,
            };
        };
        let empty = self
            .placeholder
            .as_ref()
            .zip(screen.rows.get(found.text.start))
            .is_some_and(|(p, row)| p.matches(row));
        let text = if empty {
            String::new()
        } else {
            screen.rows[found.text.clone()]
                .iter()
                .map(|r| {
                    r.plain
                        .chars()
                        .skip(self.indent)
                        .collect::<String>()
                        .trim_end()
                        .to_owned()
                })
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_owned()
        };
        let busy = self.busy.iter().any(|p| p.found_in(screen, Some(&found)));
        let state = if busy {
            ScreenState::Busy
        } else if text.is_empty() {
            ScreenState::Idle
        } else {
            ScreenState::Typing
        };
        Reading {
            state,
            box_text: Some(text),
        }
    }

    /// The usage limit the screen shows, when one of the `limit` markers
    /// matches where it counts: the matching row (sanitised) and the
    /// reset time it printed (the `reset` group), if any.
    pub(crate) fn limit(&self, screen: &Screen) -> Option<(String, Option<String>)> {
        if self.limit.is_empty() {
            return None;
        }
        let found = self.find_box(screen);
        for p in &self.limit {
            for i in p.rows(screen, found.as_ref()) {
                let row = &screen.rows[i];
                if p.matches(row) {
                    let reset = p.reset(row);
                    // A row of a framed menu, without its frame.
                    let line = row
                        .plain
                        .trim_matches(|c: char| c.is_whitespace() || matches!(c, '│' | '┃' | '|'));
                    return Some((crate::support::sanitize::one_line(line), reset));
                }
            }
        }
        None
    }

    /// A fingerprint of the screen without the rows that move by
    /// themselves while the agent works (rows matching a busy marker: its
    /// spinner, its timer, its "esc to interrupt" footer), so that an
    /// unchanged fingerprint means nothing new happened on screen.
    pub(crate) fn quiet_fingerprint(&self, screen: &Screen) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for row in &screen.rows {
            if self.busy.iter().any(|p| p.matches(row)) {
                continue;
            }
            row.plain.hash(&mut h);
        }
        h.finish()
    }

    /// True when a dialog marker matches where it counts, whether or not
    /// an input box is drawn too. `read` lets a drawn box win (a
    /// transcript that quotes a dialog must not hold messages back); a
    /// key that would answer a dialog asks this stricter question, since
    /// a box left over from an earlier frame can stand beside a dialog.
    pub(crate) fn shows_dialog(&self, screen: &Screen) -> bool {
        let found = self.find_box(screen);
        self.dialog
            .iter()
            .any(|p| p.found_in(screen, found.as_ref()))
    }

    /// How many rows above the input box (the agent's transcript) show
    /// `text`; every row when no box is drawn.
    pub(crate) fn rows_above_box_showing(&self, screen: &Screen, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        let end = self.box_start(screen).unwrap_or(screen.rows.len());
        screen.rows[..end]
            .iter()
            .filter(|r| r.plain.contains(text))
            .count()
    }

    /// The row where the input box starts (its frame row, for a framed
    /// box); `None` when no box is drawn. What is above it is the
    /// agent's transcript.
    pub(crate) fn box_start(&self, screen: &Screen) -> Option<usize> {
        self.find_box(screen).map(|b| b.start)
    }

    /// The last box on screen that satisfies the rules.
    fn find_box(&self, screen: &Screen) -> Option<Found> {
        let rows = &screen.rows;
        for start in (0..rows.len()).rev() {
            if !self.start.matches(&rows[start]) {
                continue;
            }
            let first = start + usize::from(self.frame);
            let end = match &self.end {
                Some(end) => {
                    match (first.max(start + 1)..rows.len()).find(|&i| end.matches(&rows[i])) {
                        Some(i) => i,
                        // A framed box must be closed to count.
                        None if self.frame => continue,
                        None => rows.len(),
                    }
                }
                None => rows.len(),
            };
            let text = first.min(end)..end;
            if let Some(require) = &self.require
                && !rows[text.clone()].iter().any(|r| require.matches(r))
            {
                continue;
            }
            return Some(Found { start, text, end });
        }
        None
    }
}

/// One row of a capture, borrowed from it: a row without escape
/// sequences (every row of a capture without `-e`) is its own plain text.
#[derive(Clone, Debug)]
pub(crate) struct Row<'a> {
    plain: Cow<'a, str>,
    ansi: &'a str,
}

impl Row<'_> {
    /// The row's text without escape sequences or trailing spaces.
    pub(crate) fn plain(&self) -> &str {
        &self.plain
    }
}

/// A captured screen, split into rows.
#[derive(Clone, Debug)]
pub(crate) struct Screen<'a> {
    rows: Vec<Row<'a>>,
}

impl<'a> Screen<'a> {
    /// The rows, top to bottom.
    pub(crate) fn rows(&self) -> &[Row<'a>] {
        &self.rows
    }

    /// Parses `capture-pane -p -J -e` output. Trailing spaces are dropped
    /// (rows are padded); other blank characters, such as the no-break
    /// space after Claude Code's prompt sign, are kept.
    pub(crate) fn parse(capture: &'a str) -> Screen<'a> {
        let body = capture.strip_suffix('\n').unwrap_or(capture);
        let rows = body
            .split('\n')
            .map(|line| {
                let ansi = line.trim_end_matches([' ', '\r']);
                let plain = if ansi.contains('\x1b') {
                    Cow::Owned(strip_escapes(ansi).trim_end_matches(' ').to_owned())
                } else {
                    Cow::Borrowed(ansi)
                };
                Row { plain, ansi }
            })
            .collect();
        Screen { rows }
    }
}

/// How many rows of a `capture-pane -p -J -e` capture show `text` (escape
/// sequences aside). An empty `text` is shown nowhere.
pub(crate) fn rows_showing(capture: &str, text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    Screen::parse(capture)
        .rows
        .iter()
        .filter(|r| r.plain.contains(text))
        .count()
}

/// The text of a row without escape sequences (CSI such as SGR, OSC such
/// as hyperlinks, and any other two-byte escape).
fn strip_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_stripped_for_plain_text() {
        assert_eq!(strip_escapes("\x1b[1m›\x1b[0m\x1b[39m hi"), "› hi");
        assert_eq!(
            strip_escapes("a\x1b]8;;http://x\x1b\\b\x1b]8;;\x07c"),
            "abc"
        );
        assert_eq!(strip_escapes("tail\x1b["), "tail");
    }

    #[test]
    fn rows_showing_counts_rows_whatever_their_attributes() {
        let capture = "\x1b[1m[op][12:00][INFO]\x1b[0m: hi\n> \n  [op][12:00][INFO]: again\n";
        assert_eq!(rows_showing(capture, "[op][12:00][INFO]"), 2);
        assert_eq!(rows_showing(capture, "[op][12:01][INFO]"), 0);
        assert_eq!(rows_showing(capture, ""), 0);
    }

    #[test]
    fn rows_keep_the_no_break_space() {
        let s = Screen::parse("❯\u{a0}\x1b[7m \n");
        assert_eq!(s.rows[0].plain, "❯\u{a0}");
    }
}
