//! What an agent printed itself, told apart from what others put on its
//! screen: a prompt shown in its transcript (the profile's `echo`), text
//! swarm typed in (a message's `[sender][time][TYPE]:` header and the rows
//! of its prompt), and code blocks between fences. Print-to-send reads
//! only the rows this leaves (docs/PROFILES.md, "Print-to-send").

// Used once the watcher sends what agents print.
#![allow(dead_code)]

use std::sync::OnceLock;

use regex::Regex;

use crate::agents::screen::{Pattern, Row};
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
pub(crate) struct PrintRules {
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
        let prompt = self.prompts(rows);
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

    /// Which rows belong to a prompt shown in the transcript.
    fn prompts(&self, rows: &[Row]) -> Vec<bool> {
        let starts = |r: &Row| {
            let echo = self.echo.as_ref().is_some_and(|p| p.matches(r));
            let header = has_header(r.plain());
            (echo || header).then_some(if echo {
                self.indent
            } else {
                self.indent.max(1)
            })
        };
        let mut out = vec![false; rows.len()];
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
                *slot = true;
            }
            i = last + 1;
        }
        out
    }
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

    #[test]
    fn bullets_and_indentation_come_off() {
        assert_eq!(strip_bullet("  ● @swarm:a hi"), "@swarm:a hi");
        assert_eq!(strip_bullet("- x"), "x");
        assert_eq!(strip_bullet("-x"), "-x");
        assert_eq!(strip_bullet("•"), "•");
    }
}
