//! What an agent printed itself, told apart from what others put on its
//! screen: a prompt shown in its transcript (the profile's `echo`), text
//! swarm typed in (a message's `[sender][time][TYPE]:` header and the rows
//! of its prompt), and code blocks between fences. Print-to-send reads
//! only the rows this leaves (docs/PROFILES.md, "Print-to-send").

use std::sync::OnceLock;

use regex::Regex;
use sha2::{Digest, Sha256};

use crate::agents::screen::{Pattern, Row, Screen};
use crate::config::Echo;

/// Characters an agent puts before a line of its reply (Claude Code's
/// `⏺`/`●`, Codex's `•`, Gemini CLI's `✦`, Markdown list items).
const BULLETS: [char; 7] = ['⏺', '●', '•', '✦', '◆', '*', '-'];

/// What a row of an agent's transcript is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowKind {
    /// Part of a prompt: typed by a person or by swarm.
    Prompt,
    /// A code fence (```` ``` ```` or `~~~`).
    Fence,
    /// Between two fences (or after a fence still open).
    Code,
    /// The agent's own output.
    Own,
}

/// How one profile's transcript shows prompts, compiled.
#[derive(Clone, Debug)]
pub struct PrintRules {
    /// A prompt's first row; `None`: only swarm's headers mark prompts.
    echo: Option<Pattern>,
    /// Spaces that begin each further row of a prompt (0: none follow).
    indent: usize,
}

impl PrintRules {
    /// Compiles a profile's `echo`.
    pub(crate) fn new(echo: Option<&Echo>) -> Result<PrintRules, String> {
        Ok(PrintRules {
            echo: echo.map(|e| Pattern::new(&e.start)).transpose()?,
            indent: echo.map_or(0, |e| e.indent),
        })
    }

    /// True when the echo marker looks at attribute sequences.
    pub(crate) fn needs_attributes(&self) -> bool {
        self.echo.as_ref().is_some_and(Pattern::needs_attributes)
    }

    /// What each row is, top to bottom: part of a prompt shown in the
    /// transcript (the profile's echo, or a row holding swarm's message
    /// header, with the rows that continue it), a code fence, a row
    /// between two fences, or the agent's own output.
    pub(crate) fn classify(&self, rows: &[Row]) -> Vec<RowKind> {
        let prompt: Vec<bool> = self.prompts(rows).iter().map(Option::is_some).collect();
        let fence: Vec<Option<bool>> = rows
            .iter()
            .zip(&prompt)
            .map(|(r, p)| (!p && is_fence(r.plain())).then(|| opens(r.plain())))
            .collect();
        let inside = inside_fences(&fence);
        (0..rows.len())
            .map(|i| {
                if prompt[i] {
                    RowKind::Prompt
                } else if fence[i].is_some() {
                    RowKind::Fence
                } else if inside[i] {
                    RowKind::Code
                } else {
                    RowKind::Own
                }
            })
            .collect()
    }

    /// For each row that belongs to a prompt shown in the transcript, the
    /// row where that prompt starts.
    fn prompts(&self, rows: &[Row]) -> Vec<Option<usize>> {
        let starts = |r: &Row| {
            let echo = self.echo.as_ref().is_some_and(|p| p.matches(r));
            let header = has_header(r.plain());
            (echo || header).then_some(if echo {
                self.indent
            } else {
                self.indent.max(1)
            })
        };
        let mut out = vec![None; rows.len()];
        let mut i = 0;
        while i < rows.len() {
            let Some(indent) = starts(&rows[i]) else {
                i += 1;
                continue;
            };
            let mut last = i;
            if indent > 0 {
                let lead = " ".repeat(indent);
                let mut j = i + 1;
                while j < rows.len() {
                    let t = rows[j].plain();
                    if t.trim().is_empty() {
                        j += 1;
                    } else if t.starts_with(&lead)
                        && !self.echo.as_ref().is_some_and(|p| p.matches(&rows[j]))
                    {
                        last = j;
                        j += 1;
                    } else {
                        break;
                    }
                }
            }
            for slot in &mut out[i..=last] {
                *slot = Some(i);
            }
            i = last + 1;
        }
        out
    }

    /// The `@swarm:` and `@relay:` lines the agent printed itself in
    /// `history` (rows that scrolled off, when read) and `screen` above
    /// its input box (`box_start`, a row of `screen`). A line counts once
    /// a row follows it (the agent has moved past it); its `key` is the
    /// same whenever the same printed line is read again (after a redraw,
    /// a scroll or a resize) and differs for the same text after a later
    /// prompt. `history_complete`: `history` holds every row the pane
    /// kept, so the transcript's start is in sight.
    pub(crate) fn printed(
        &self,
        history: Option<&str>,
        screen: &str,
        box_start: Option<usize>,
        history_complete: bool,
    ) -> Printed {
        let mut text = history
            .unwrap_or_default()
            .trim_end_matches('\n')
            .to_owned();
        if !text.is_empty() {
            text.push('\n');
        }
        let on_screen = Screen::parse(screen);
        let kept = box_start.unwrap_or(on_screen.rows().len());
        for row in on_screen.rows().iter().take(kept) {
            text.push_str(row.plain());
            text.push('\n');
        }
        let all = Screen::parse(&text);
        let rows = all.rows();
        let starts = self.prompts(rows);
        let kinds = self.classify(rows);
        let mut out = Printed::default();
        for (i, row) in rows.iter().enumerate() {
            if kinds[i] != RowKind::Own {
                continue;
            }
            let Some((to, body)) = address(strip_bullet(row.plain())) else {
                continue;
            };
            // An agent that wraps its own reply (Claude Code, Codex) goes
            // on in rows indented to where the text started.
            let column = leading_chars(row.plain(), strip_bullet(row.plain()));
            let more: Vec<&str> = rows[i + 1..]
                .iter()
                .zip(&kinds[i + 1..])
                .take_while(|(r, k)| {
                    let t = r.plain();
                    let indent = t.chars().take_while(|c| *c == ' ').count();
                    **k == RowKind::Own
                        && indent > 0
                        && indent >= column
                        && !t.trim().is_empty()
                        && strip_bullet(t) == t.trim_start()
                        && address(t.trim_start()).is_none()
                })
                .map(|(r, _)| r.plain().trim())
                .collect();
            let last = i + more.len();
            let followed = box_start.is_some()
                || rows[last + 1..]
                    .iter()
                    .any(|r| !r.plain().trim().is_empty());
            if !followed {
                continue;
            }
            let anchor = (0..i)
                .rev()
                .find_map(|j| starts[j])
                .map(|s| rows[s].plain().trim().to_owned())
                .or_else(|| history_complete.then(String::new));
            let Some(anchor) = anchor else {
                out.unanchored = true;
                continue;
            };
            let line = strip_bullet(row.plain()).to_owned();
            let mut h = Sha256::new();
            h.update(anchor.as_bytes());
            h.update([0]);
            h.update(line.as_bytes());
            let key: String = h.finalize()[..12]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            if out.lines.iter().any(|l| l.key == key) {
                continue;
            }
            let mut text = body.to_owned();
            for m in more {
                text.push(' ');
                text.push_str(m);
            }
            out.lines.push(PrintedLine {
                to,
                text,
                line,
                key,
            });
        }
        out
    }
}

/// Who a printed line is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum To {
    /// One agent (or the person, by their sender name).
    Agent(String),
    /// Every other agent (`@swarm:*`).
    Everyone,
}

/// One `@swarm:` line an agent printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PrintedLine {
    /// Its recipient.
    pub to: To,
    /// The message: what follows the address.
    pub text: String,
    /// The whole line as printed.
    pub line: String,
    /// The same for every reading of this printed line (see
    /// `PrintRules::printed`).
    pub key: String,
}

/// What `PrintRules::printed` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Printed {
    /// The lines, top to bottom, each key once.
    pub lines: Vec<PrintedLine>,
    /// Some line had no prompt above it in the rows read: read again with
    /// more history.
    pub unanchored: bool,
}

/// The recipient and text of `@swarm:AGENT text` or `@relay:AGENT text`
/// (`*`: everyone else).
fn address(text: &str) -> Option<(To, &str)> {
    let rest = text
        .strip_prefix("@swarm:")
        .or_else(|| text.strip_prefix("@relay:"))?;
    let (name, body) = rest.split_once(char::is_whitespace)?;
    let body = body.trim();
    if body.is_empty() {
        return None;
    }
    if name == "*" {
        return Some((To::Everyone, body));
    }
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then(|| (To::Agent(name.to_owned()), body))
}

/// The text of a row without its indentation and one leading bullet.
pub(crate) fn strip_bullet(text: &str) -> &str {
    let t = text.trim_start();
    let mut chars = t.chars();
    match (chars.next(), chars.next()) {
        (Some(b), Some(space)) if BULLETS.contains(&b) && space.is_whitespace() => {
            chars.as_str().trim_start()
        }
        _ => t,
    }
}

/// How many characters of `row` come before `rest`, a tail of it.
fn leading_chars(row: &str, rest: &str) -> usize {
    row[..row.len() - rest.len()].chars().count()
}

/// A row that opens or closes a Markdown code block.
fn is_fence(text: &str) -> bool {
    let t = strip_bullet(text);
    t.starts_with("```") || t.starts_with("~~~")
}

/// A fence with an info string (```` ```rust ````): it can only open a
/// block.
fn opens(text: &str) -> bool {
    let t = strip_bullet(text);
    t.get(3..).is_some_and(|info| !info.trim().is_empty())
}

/// For each row, whether it lies between two fences (`fence`: the rows
/// that are fences, and whether each one surely opens a block). When the
/// first fence on screen surely opens, counting from the top is exact.
/// Otherwise a block's top may have scrolled away (never its end), so a
/// row counts as inside when an odd number of fences follows it, and a
/// row after the last fence when the fences on screen are odd in number.
/// Both uncertain cases (a block still open at the bottom, one whose
/// opening fence scrolled off) read as code: a line is never sent only
/// because its block's fence is out of sight, and a line held back while
/// a block is open is read again once it closes.
fn inside_fences(fence: &[Option<bool>]) -> Vec<bool> {
    let mut out = vec![false; fence.len()];
    if fence.iter().flatten().next() == Some(&true) {
        let mut above = 0;
        for (i, f) in fence.iter().enumerate() {
            match f {
                Some(_) => above += 1,
                None => out[i] = above % 2 == 1,
            }
        }
        return out;
    }
    let total = fence.iter().flatten().count();
    let mut below = 0;
    for i in (0..fence.len()).rev() {
        if fence[i].is_some() {
            below += 1;
            continue;
        }
        out[i] = if below == 0 {
            total % 2 == 1
        } else {
            below % 2 == 1
        };
    }
    out
}

/// True when the text holds swarm's header of a delivered message,
/// `[sender][YYYY-mm-dd HH:MM:SS][TYPE]:` (`Message::header`).
fn has_header(text: &str) -> bool {
    static HEADER: OnceLock<Option<Regex>> = OnceLock::new();
    text.contains("][")
        && HEADER
            .get_or_init(|| {
                Regex::new(
                    r"\[[A-Za-z0-9_-]{1,64}\]\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]\[[A-Z0-9-]{1,64}\]:",
                )
                .ok()
            })
            .as_ref()
            .is_some_and(|r| r.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::screen::Screen;
    use crate::config::Marker;

    fn own(rules: &PrintRules, text: &str) -> Vec<String> {
        let screen = Screen::parse(text);
        let rows = screen.rows();
        rules
            .classify(rows)
            .into_iter()
            .zip(rows)
            .filter(|(k, r)| *k == RowKind::Own && !r.plain().is_empty())
            .map(|(_, r)| r.plain().to_owned())
            .collect()
    }

    fn demo() -> PrintRules {
        let echo = Echo {
            start: Marker {
                plain: Some(r"^\[\d\d:\d\d:\d\d\] submission \d+ \(".into()),
                ..Marker::default()
            },
            indent: 2,
        };
        PrintRules::new(Some(&echo)).expect("compiles")
    }

    #[test]
    fn prompts_and_their_lines_are_not_the_agents_own() {
        let screen = "\
[12:00:00] submission 1 (20 bytes):
  @swarm:agent-1 hi

  second paragraph
@swarm:agent-2 mine
  indented, mine too
[12:00:01] submission 2 (9 bytes):
  [agent-0][2026-01-02 03:04:05][INFO]: relayed
  @swarm:agent-3 typed by swarm
";
        assert_eq!(
            own(&demo(), screen),
            ["@swarm:agent-2 mine", "  indented, mine too"]
        );
    }

    #[test]
    fn a_header_marks_swarms_text_without_an_echo_marker() {
        let rules = PrintRules::new(None).expect("compiles");
        let screen = "> [op][2026-01-02 03:04:05][QUESTION]: which?\n  @swarm:x hidden\nmine\n";
        assert_eq!(own(&rules, screen), ["mine"]);
    }

    #[test]
    fn code_blocks_are_not_output_even_when_their_start_scrolled_away() {
        let rules = PrintRules::new(None).expect("compiles");
        let screen = "a\n```\nin\n```\nb\n● ~~~\nin too\n~~~\nc\n";
        assert_eq!(own(&rules, screen), ["a", "b", "c"]);
        // A block still open at the bottom: an info string says the fence
        // opens it; a bare fence may as well close one that scrolled in
        // from above, so the line before it waits until the block closes.
        assert_eq!(own(&rules, "before\n```rust\nin\n"), ["before"]);
        assert_eq!(own(&rules, "before\n```\nin\n"), Vec::<String>::new());
        assert_eq!(own(&rules, "before\n```\nin\n```\n"), ["before"]);
        // A block whose opening fence scrolled off the top: what follows
        // its end reads as code until another fence says otherwise.
        assert_eq!(own(&rules, "in\n```\nafter\n"), Vec::<String>::new());
        assert_eq!(own(&rules, "in\n```\nafter\n```\nx\n```\n"), ["after"]);
    }

    fn keys(p: &Printed) -> Vec<(String, String)> {
        p.lines
            .iter()
            .map(|l| (l.line.clone(), l.key.clone()))
            .collect()
    }

    #[test]
    fn printed_lines_keep_their_key_through_a_redraw_and_a_later_turn_is_new() {
        let turn1 = "\
[12:00:00] submission 1 (30 bytes):
  DEMOPRINT @swarm:agent-1 hi
@swarm:agent-1 hi
```
@swarm:agent-1 in a fence
```
● @swarm:* to all
";
        let first = demo().printed(None, &format!("{turn1}> "), None, false);
        assert!(!first.unanchored);
        assert_eq!(
            first
                .lines
                .iter()
                .map(|l| (l.to.clone(), l.text.as_str()))
                .collect::<Vec<_>>(),
            [
                (To::Agent("agent-1".into()), "hi"),
                (To::Everyone, "to all")
            ]
        );
        // Redrawn: the old screen went to the history, the same rows are
        // drawn again below it.
        let redrawn = demo().printed(Some(turn1), &format!("banner\n\n{turn1}> "), None, false);
        assert_eq!(keys(&redrawn), keys(&first));
        // The same line after a later prompt is another line.
        let later =
            format!("{turn1}[12:00:05] submission 2 (30 bytes):\n  again\n@swarm:agent-1 hi\n> ");
        let again = demo().printed(None, &later, None, false);
        assert_eq!(again.lines.len(), 3);
        assert_ne!(again.lines[2].key, first.lines[0].key);
        assert_eq!(again.lines[2].text, "hi");
    }

    #[test]
    fn a_line_without_a_prompt_in_sight_waits_for_the_history() {
        let screen = "@swarm:agent-1 hi\nmore\n";
        let p = demo().printed(None, screen, None, false);
        assert!(p.unanchored && p.lines.is_empty());
        // The whole history read: the transcript's start is in sight.
        let p = demo().printed(Some(""), screen, None, true);
        assert_eq!(p.lines.len(), 1);
        // The last row may still grow: it waits for a row below it.
        let p = demo().printed(Some(""), "@swarm:agent-1 h", None, true);
        assert!(p.lines.is_empty());
        // Not an address: no name, no text, a bad name.
        for text in [
            "@swarm: hi",
            "@swarm:agent-1",
            "@swarm:a/b hi",
            "say @swarm:x hi",
        ] {
            let p = demo().printed(Some(""), &format!("{text}\n> "), None, true);
            assert!(p.lines.is_empty(), "{text}");
        }
        let p = demo().printed(Some(""), "@relay:Bob hi there\n> ", None, true);
        assert_eq!(p.lines[0].to, To::Agent("Bob".into()));
        assert_eq!(p.lines[0].text, "hi there");
    }

    #[test]
    fn a_line_the_agent_wrapped_itself_is_one_message() {
        let rules = PrintRules::new(None).expect("compiles");
        let screen = "\
⏺ @swarm:agent-2 the schema is ready,
  please review it
  before noon
⏺ Done.
";
        let p = rules.printed(Some(""), screen, None, true);
        assert_eq!(p.lines.len(), 1);
        assert_eq!(
            p.lines[0].text,
            "the schema is ready, please review it before noon"
        );
        // Still being written: the last row may grow.
        let p = rules.printed(Some(""), "⏺ @swarm:agent-2 a\n  b\n", None, true);
        assert!(p.lines.is_empty());
        // Rows less indented than the text, or another address, are not
        // part of it.
        let screen = "  ● @swarm:a one\n  two\n    @swarm:b three\nend\n";
        let p = rules.printed(Some(""), screen, None, true);
        let texts: Vec<&str> = p.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["one", "three"]);
    }

    #[test]
    fn what_is_in_the_input_box_is_not_printed() {
        let screen = "[12:00:00] submission 1 (1 bytes):\n  x\n> @swarm:agent-1 typing\n";
        let p = demo().printed(None, screen, Some(2), false);
        assert!(p.lines.is_empty());
    }

    #[test]
    fn bullets_and_indentation_come_off() {
        assert_eq!(strip_bullet("  ● @swarm:a hi"), "@swarm:a hi");
        assert_eq!(strip_bullet("- x"), "x");
        assert_eq!(strip_bullet("-x"), "-x");
        assert_eq!(strip_bullet("•"), "•");
    }
}
