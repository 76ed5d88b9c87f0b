//! Reading an open dialog off an agent's screen: its question and its
//! options, and which option an answer (`2`, `yes`, `no`) stands for.
//! The rules are the shapes the real agents draw (docs/PROFILES.md):
//! options are rows `1. Yes` (numbered, Claude Code, Codex CLI, Gemini
//! CLI) or a column of labels with one marked `❯`, `›` or `●` (Claude
//! Code's tool dialogs that list `No` first); the question is the topmost
//! row ending in `?` in the block above them. Screen text is untrusted:
//! what is read here is cleaned of controls before anyone sees it.

use std::sync::LazyLock;

use regex::Regex;
use sha2::{Digest, Sha256};

use crate::attention::event::DialogOption;
use crate::support::sanitize;

/// A dialog as read from the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dialog {
    /// The question (`Do you want to proceed?`); the row nearest the
    /// options when none ends in `?`.
    pub question: String,
    /// Rows of the dialog above the question or between it and the
    /// options (the command it asks about), at most a few.
    pub context: Vec<String>,
    /// The options, in screen order.
    pub options: Vec<DialogOption>,
    /// Whether the options carry numbers, so that typing one picks it.
    pub numbered: bool,
}

/// What a person's answer stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The option with this number (or position, when not numbered).
    Number(u32),
    /// The option whose label says yes (`Yes`, `Allow once`).
    Yes,
    /// The option whose label says no.
    No,
}

impl Choice {
    /// `1`-`99`, `yes`/`y`, `no`/`n`.
    pub fn parse(raw: &str) -> Option<Choice> {
        let t = raw.trim().to_ascii_lowercase();
        match t.as_str() {
            "yes" | "y" => Some(Choice::Yes),
            "no" | "n" => Some(Choice::No),
            _ => t
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=99).contains(n))
                .map(Choice::Number),
        }
    }
}

/// How to pick an option on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Keys {
    /// Type its digit: the agent picks it at once.
    Digit(u32),
    /// Move the highlight (`Up`/`Down`, this many times), then Enter.
    Move { key: &'static str, times: usize },
}

static OPTION_ROW: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(?P<lead>\s*)(?P<mark>[❯›●>▶→*]\s*)?(?P<num>\d{1,2})[.)]\s+(?P<label>\S.*?)\s*$")
        .ok()
});

static MARKED_ROW: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?P<lead>\s*)(?P<mark>[❯›●▶→])\s+(?P<label>\S.*?)\s*$").ok());

/// The most rows above the options that belong to the dialog.
const BLOCK_ROWS: usize = 10;

/// Reads the dialog at the bottom of a screen (`capture-pane -p -J`
/// output, with or without `-e`); `None` when no options can be found.
pub fn read_dialog(capture: &str) -> Option<Dialog> {
    let rows: Vec<String> = capture.lines().map(unframe).collect();
    // The open dialog is the bottom-most one: an answered dialog of the
    // other shape may still be on screen above it.
    let end = |f: &Found| f.0 + f.1.len();
    let (first, options, numbered) = match (numbered_options(&rows), marked_options(&rows)) {
        (Some(n), Some(m)) if end(&m) > end(&n) => m,
        (Some(n), _) => n,
        (None, m) => m?,
    };
    let (question, context) = question_above(&rows, first);
    Some(Dialog {
        question,
        context,
        options,
        numbered,
    })
}

impl Dialog {
    /// The option an answer stands for, or why there is none.
    pub(crate) fn pick(&self, choice: Choice) -> Result<&DialogOption, String> {
        let found = match choice {
            Choice::Number(n) => self.options.iter().find(|o| o.number == n),
            Choice::Yes => self.options.iter().find(|o| says(&o.label, YES_WORDS)),
            Choice::No => self.options.iter().find(|o| says(&o.label, NO_WORDS)),
        };
        found.ok_or_else(|| {
            let what = match choice {
                Choice::Number(n) => format!("no option {n}"),
                Choice::Yes => "no option that says yes".into(),
                Choice::No => "no option that says no".into(),
            };
            format!(
                "the dialog has {what} (it offers {})",
                self.describe_options()
            )
        })
    }

    /// The keys that pick `option`.
    pub(crate) fn keys_for(&self, option: &DialogOption) -> Keys {
        if self.numbered && option.number <= 9 {
            return Keys::Digit(option.number);
        }
        let at = self.options.iter().position(|o| o == option).unwrap_or(0);
        let from = self.options.iter().position(|o| o.highlighted).unwrap_or(0);
        if at >= from {
            Keys::Move {
                key: "Down",
                times: at - from,
            }
        } else {
            Keys::Move {
                key: "Up",
                times: from - at,
            }
        }
    }

    /// What tells this dialog from another: its question, options and
    /// context with digits, spinner glyphs and punctuation left out, so
    /// that a timer or spinner drawn beside it does not make it a new one.
    pub(crate) fn identity(&self) -> String {
        // Words without digits (a timer's `3s` goes), letters only.
        let letters = |t: &str| -> String {
            t.split_whitespace()
                .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
                .map(|w| {
                    w.chars()
                        .filter(char::is_ascii_alphabetic)
                        .collect::<String>()
                })
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut id = letters(&self.question);
        for o in &self.options {
            id.push('|');
            id.push_str(&letters(&o.label));
        }
        for c in &self.context {
            id.push('|');
            id.push_str(&letters(c));
        }
        id
    }

    /// A short name for what this dialog asks: the same for two reads of
    /// one dialog (wherever the highlight is, whatever a timer beside it
    /// says), different once the question, its context or its options
    /// change. A person answering from afar sends it back, so that an
    /// answer meant for one dialog is never typed into the next.
    pub fn fingerprint(&self) -> String {
        Sha256::digest(self.identity().as_bytes())[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// `1. Yes, 2. No` for messages.
    pub(crate) fn describe_options(&self) -> String {
        self.options
            .iter()
            .map(|o| format!("{}. {}", o.number, o.label))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

const YES_WORDS: &[&str] = &["yes", "allow", "approve", "proceed", "accept", "continue"];
const NO_WORDS: &[&str] = &["no", "deny", "reject", "decline", "don't", "do not"];

/// Whether a label starts with one of `words` as a whole word.
fn says(label: &str, words: &[&str]) -> bool {
    let l = label.trim().to_lowercase();
    words.iter().any(|w| {
        l.strip_prefix(w)
            .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
    })
}

/// A row without escape sequences, frame borders (`│ ... │`) and
/// trailing blanks.
fn unframe(row: &str) -> String {
    let clean = sanitize::one_line(row);
    let t = clean.trim_end();
    let t = t.strip_prefix('│').unwrap_or(t);
    let t = t.strip_suffix('│').unwrap_or(t).trim_end();
    // A frame inside a frame (`│ │ text │ │`).
    let t = match t.trim_start().strip_prefix('│') {
        Some(inner) => inner.strip_suffix('│').unwrap_or(inner).trim_end(),
        None => t,
    };
    t.to_owned()
}

/// A row that only draws: a rule, a frame edge, blank.
fn is_decoration(row: &str) -> bool {
    let t = row.trim();
    t.is_empty()
        || t.chars().all(|c| {
            matches!(
                c,
                '─' | '━'
                    | '╌'
                    | '┄'
                    | '═'
                    | '╭'
                    | '╮'
                    | '╰'
                    | '╯'
                    | '▄'
                    | '▀'
                    | '-'
                    | ' '
            )
        })
}

/// A row that ends a dialog's block going up: a full-width rule.
fn is_rule(row: &str) -> bool {
    let t = row.trim();
    t.chars().count() >= 20 && t.chars().all(|c| matches!(c, '─' | '━' | '▄' | '▀' | '═'))
}

/// The first option's row, the options, whether they are numbered.
type Found = (usize, Vec<DialogOption>, bool);

/// The last run of rows `1. ...`, `2. ...` numbered from 1.
fn numbered_options(rows: &[String]) -> Option<Found> {
    let re = OPTION_ROW.as_ref()?;
    let mut end = rows.len();
    while end > 0 {
        // Find the bottom-most option row, then walk up while the numbers
        // count down to 1.
        let last = rows[..end].iter().rposition(|r| re.is_match(r))?;
        let mut options = Vec::new();
        let mut i = last + 1;
        let mut expect: Option<u32> = None;
        let mut first = last;
        while i > 0 {
            i -= 1;
            let Some(c) = re.captures(&rows[i]) else {
                break;
            };
            let n: u32 = c["num"].parse().ok()?;
            if expect.is_some_and(|e| e != n) {
                break;
            }
            options.push(DialogOption {
                number: n,
                label: c["label"].to_owned(),
                highlighted: c.name("mark").is_some(),
            });
            first = i;
            if n == 1 {
                break;
            }
            expect = Some(n - 1);
        }
        options.reverse();
        if options.first().is_some_and(|o| o.number == 1) && options.len() >= 2 {
            return Some((first, options, true));
        }
        end = last;
    }
    None
}

/// A column of labels with one marked as highlighted (`❯ No` over
/// `  Yes`), the marked row the bottom-most one on screen.
fn marked_options(rows: &[String]) -> Option<Found> {
    let re = MARKED_ROW.as_ref()?;
    let at = rows.iter().rposition(|r| re.is_match(r))?;
    let c = re.captures(&rows[at])?;
    let label_start = c.name("label").map_or(0, |m| m.start());
    let label_col = rows[at][..label_start].chars().count();
    let sibling = |r: &str| -> Option<String> {
        let indent = r.chars().take_while(|c| *c == ' ').count();
        (indent == label_col && !r.trim().is_empty()).then(|| r.trim().to_owned())
    };
    let mut first = at;
    while first > 0 && sibling(&rows[first - 1]).is_some() {
        first -= 1;
    }
    let mut last = at;
    while last + 1 < rows.len() && sibling(&rows[last + 1]).is_some() && !is_footer(&rows[last + 1])
    {
        last += 1;
    }
    if first == last {
        return None;
    }
    let options = (first..=last)
        .enumerate()
        .map(|(k, i)| DialogOption {
            number: k as u32 + 1,
            label: if i == at {
                c["label"].to_owned()
            } else {
                rows[i].trim().to_owned()
            },
            highlighted: i == at,
        })
        .collect();
    Some((first, options, false))
}

/// The hint row under a dialog (`Esc to cancel · Tab to amend`).
fn is_footer(row: &str) -> bool {
    let t = row.trim().to_lowercase();
    t.starts_with("esc ") || t.starts_with("press enter") || t.contains("to cancel")
}

/// How Codex CLI labels the model's explanation of a call it asks about.
const REASON: &str = "Reason:";

/// The question: in the block above the options (up to a full-width
/// rule or `BLOCK_ROWS` rows), the topmost row ending in `?` of the
/// paragraph nearest the options that has one (paragraphs are parted by
/// empty rows: whatever was on screen before the dialog, a message that
/// asked something, stays out); the others are its context.
fn question_above(rows: &[String], first: usize) -> (String, Vec<String>) {
    // Each row with its paragraph, counted from the options up.
    let mut block: Vec<(&str, usize)> = Vec::new();
    let mut paragraph = 0;
    let mut i = first;
    while i > 0 && block.len() < BLOCK_ROWS {
        i -= 1;
        let r = &rows[i];
        if is_rule(r) {
            break;
        }
        if r.trim().is_empty() {
            if !block.is_empty() {
                paragraph += 1;
            }
            continue;
        }
        if is_decoration(r) {
            continue;
        }
        block.push((r.trim(), paragraph));
    }
    block.reverse();
    // A paragraph that opens with `Reason:` is the model's own words about
    // the call (Codex CLI), which may ask something too: not the question.
    let explained: Vec<usize> = block
        .iter()
        .enumerate()
        .filter(|(k, (r, p))| r.starts_with(REASON) && (*k == 0 || block[k - 1].1 != *p))
        .map(|(_, (_, p))| *p)
        .collect();
    let asks = |r: &str, p: usize| r.ends_with('?') && !explained.contains(&p);
    let nearest = block
        .iter()
        .filter(|(r, p)| asks(r, *p))
        .map(|(_, p)| *p)
        .min();
    let q = nearest.and_then(|p| {
        block
            .iter()
            .position(|(r, para)| *para == p && asks(r, *para))
    });
    let block: Vec<&str> = block.into_iter().map(|(r, _)| r).collect();
    let (question, rest) = match q {
        Some(k) => (block[k].to_owned(), [&block[..k], &block[k + 1..]].concat()),
        None => match block.split_last() {
            Some((last, rest)) => ((*last).to_owned(), rest.to_vec()),
            None => (String::new(), Vec::new()),
        },
    };
    let question = question
        .strip_prefix("? ")
        .map(str::to_owned)
        .unwrap_or(question);
    let context = rest
        .into_iter()
        .rev()
        .take(4)
        .rev()
        .map(str::to_owned)
        .collect();
    (question, context)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: &str = "\
❯ run a tool MOCKTOOLx
  Making canary
  ⎿  $ touch /work/scratch/canary/canary-claude-x
────────────────────────────────────────────────────────────────────────
 Bash command
 Tip: auto mode handles these prompts for you — choose \"switch to auto mode\" below
 make canary
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 touch /work/scratch/canary/canary-claude-x
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to /work/scratch/canary from this project
   3. Yes, and switch to auto mode · auto mode handles these prompts for you
   4. No
 Esc to cancel · Tab to amend
";

    const CLAUDE_NO_FIRST: &str = "\
────────────────────────────────────────────────────────────────────────
 Bash command
 make canary
 Auto mode can't check actions in this session, so this one needs your approval
 Do you want to proceed?
 ❯ No
   Yes
 Esc to cancel · Tab to amend
";

    const CODEX: &str = "\
› run a tool MOCKTOOLx MOCKESC
• Running touch /work/scratch/canary/canary-codex-x
  Would you like to run the following command?
  Environment: local
  Reason: Do you want to create the canary file?
  $ touch /work/scratch/canary/canary-codex-x
› 1. Yes, proceed (y)
  2. Yes, and don't ask again for commands that start with `touch /work/scratch/canary/canary-codex-x` (p)
  3. No, and tell Codex what to do differently (esc)
  Press enter to confirm or esc to cancel
";

    const GEMINI: &str = "\
╭────────────────────────────────────────────────────────╮
│ ? Shell  touch /work/scratch/canary/canary-gemini-x     │
│ ╭────────────────────────────────────────────────────╮ │
│ │ touch /work/scratch/canary/canary-gemini-x         │ │
│ ╰────────────────────────────────────────────────────╯ │
│ Allow execution of [Shell]?                             │
│                                                         │
│ ● 1. Allow once                                         │
│   2. Allow for this session                             │
│   3. No, suggest changes (esc)                          │
╰────────────────────────────────────────────────────────╯
";

    #[test]
    fn claude_code_numbered_dialog() {
        let d = read_dialog(CLAUDE).expect("test value");
        assert_eq!(d.question, "Do you want to proceed?");
        assert!(d.numbered);
        assert_eq!(d.options.len(), 4);
        assert!(d.options[0].highlighted);
        assert_eq!(d.pick(Choice::Yes).expect("test value").number, 1);
        assert_eq!(d.pick(Choice::No).expect("test value").number, 4);
        assert_eq!(
            d.keys_for(d.pick(Choice::No).expect("test value")),
            Keys::Digit(4)
        );
        assert!(
            d.context.iter().any(|r| r.contains("touch /work/scratch")),
            "{:?}",
            d.context
        );
    }

    #[test]
    fn claude_code_with_no_listed_first() {
        let d = read_dialog(CLAUDE_NO_FIRST).expect("test value");
        assert_eq!(d.question, "Do you want to proceed?");
        assert!(!d.numbered);
        let labels: Vec<&str> = d.options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, ["No", "Yes"]);
        let yes = d.pick(Choice::Yes).expect("test value");
        assert_eq!(yes.label, "Yes");
        assert_eq!(
            d.keys_for(yes),
            Keys::Move {
                key: "Down",
                times: 1
            }
        );
        assert_eq!(
            d.keys_for(d.pick(Choice::No).expect("test value")),
            Keys::Move {
                key: "Down",
                times: 0
            }
        );
    }

    #[test]
    fn a_reason_that_asks_is_not_codex_s_question() {
        let screen = "\
› run a tool MOCKTOOLno MOCKESC

  Would you like to run the following command?

  Reason: Do you want to create the canary file? It is
  only a test, is that fine?

  $ touch /work/scratch/canary/canary-codex-no

› 1. Yes, proceed (y)
  2. Yes, and don't ask again for commands that start with `touch` (p)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel
";
        let d = read_dialog(screen).expect("test value");
        assert_eq!(d.question, "Would you like to run the following command?");
        assert!(
            d.context.iter().any(|r| r.starts_with("Reason:")),
            "{:?}",
            d.context
        );
    }

    #[test]
    fn codex_dialog_asks_its_own_question() {
        let d = read_dialog(CODEX).expect("test value");
        assert_eq!(d.question, "Would you like to run the following command?");
        assert_eq!(d.options.len(), 3);
        assert_eq!(d.pick(Choice::Yes).expect("test value").number, 1);
        assert_eq!(d.pick(Choice::No).expect("test value").number, 3);
    }

    #[test]
    fn gemini_dialog_inside_a_frame() {
        let d = read_dialog(GEMINI).expect("test value");
        assert_eq!(d.question, "Allow execution of [Shell]?");
        assert_eq!(d.pick(Choice::Yes).expect("test value").label, "Allow once");
        assert_eq!(d.pick(Choice::No).expect("test value").number, 3);
        assert!(d.options[0].highlighted);
    }

    #[test]
    fn answers_parse() {
        assert_eq!(Choice::parse("2"), Some(Choice::Number(2)));
        assert_eq!(Choice::parse("YES"), Some(Choice::Yes));
        assert_eq!(Choice::parse("n"), Some(Choice::No));
        assert_eq!(Choice::parse("0"), None);
        assert_eq!(Choice::parse("maybe"), None);
    }

    #[test]
    fn a_missing_option_is_explained() {
        let d = read_dialog(GEMINI).expect("test value");
        let e = d.pick(Choice::Number(7)).expect_err("no option 7");
        assert!(
            e.contains("no option 7") && e.contains("1. Allow once"),
            "{e}"
        );
    }

    #[test]
    fn the_open_dialog_is_the_bottom_most_one() {
        let screen = "\
? Do you want to proceed?
❯ 1. Yes
  2. No
  Esc to cancel
(answered no)
> again

? Do you want to proceed?
❯ No
  Yes
  Esc to cancel
";
        let d = read_dialog(screen).expect("test value");
        assert!(!d.numbered);
        let labels: Vec<&str> = d.options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, ["No", "Yes"]);
        // And the other way round.
        let screen = "\
? Do you want to proceed?
❯ No
  Yes
(answered no)

? Do you want to proceed?
❯ 1. Yes
  2. No
";
        let d = read_dialog(screen).expect("test value");
        assert!(d.numbered);
        assert_eq!(d.options[1].label, "No");
    }

    #[test]
    fn a_question_asked_on_screen_before_the_dialog_is_not_its_question() {
        let screen = "\
[09:50:17] submission 1 (60 bytes):
  [agent-1][QUESTION]: can I take tests/auth next?

[09:50:18] submission 2 (25 bytes):
  run the migration DEMOASK

? Do you want to proceed?
❯ 1. Yes
  2. No
  Esc to cancel
";
        let d = read_dialog(screen).expect("test value");
        assert_eq!(d.question, "Do you want to proceed?");
        assert!(
            d.context.iter().any(|r| r.contains("DEMOASK")),
            "{:?}",
            d.context
        );
        // A framed dialog keeps what it asks about as context.
        let framed = "\
│ Bash command                          │
│                                       │
│   touch foo                           │
│                                       │
│ Do you want to proceed?               │
│ ❯ 1. Yes                              │
│   2. No                               │
";
        let d = read_dialog(framed).expect("test value");
        assert_eq!(d.question, "Do you want to proceed?");
        assert_eq!(d.context, ["Bash command", "touch foo"]);
    }

    #[test]
    fn a_fingerprint_names_the_dialog_not_its_highlight() {
        let d = read_dialog(CLAUDE).expect("test value");
        let moved = read_dialog(&CLAUDE.replace(" ❯ 1. Yes\n   2.", "   1. Yes\n ❯ 2."))
            .expect("test value");
        assert!(moved.options[1].highlighted);
        assert_eq!(d.fingerprint(), moved.fingerprint());
        assert_eq!(d.fingerprint().len(), 16);
        let other =
            read_dialog(&CLAUDE.replace("canary-claude-x", "canary-claude-y")).expect("test value");
        assert_ne!(d.fingerprint(), other.fingerprint());
        assert_ne!(
            d.fingerprint(),
            read_dialog(CLAUDE_NO_FIRST)
                .expect("test value")
                .fingerprint()
        );
    }

    #[test]
    fn no_dialog_no_options() {
        assert_eq!(read_dialog("> \n\nsome text\n"), None);
        assert!(!says("Nothing", NO_WORDS));
        assert!(says("No, keep manual mode", NO_WORDS));
    }
}
