//! The demo agent: a tiny stand-in for an agent CLI. It puts its terminal
//! in raw mode, asks for bracketed paste (as Claude Code, Codex and Gemini
//! CLI do), and treats "text, then Enter" as one submission, which it shows
//! with a timestamp and can record as a JSON line. `swarm launch --agent
//! demo` runs it, and the tests read its record to see exactly what an
//! agent received. It can play the states swarm reads on a real agent's
//! screen: text typed into its box, busy (a prompt holding `DEMOSLEEP<n>`;
//! input meanwhile is queued), and a yes/no question (a prompt holding
//! `DEMOASK`) that Enter answers. It prints given lines as its reply (a
//! prompt holding `DEMOPRINT`) and redraws its whole screen (`DEMOREDRAW`),
//! for print-to-send. Its screen lists the words a person uses under its banner. Told
//! its agent id (`Replier`), it answers a message swarm typed in that asks
//! a question by sending the sender a reply with `swarm msg`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

pub use super::demo_conversation::Conversation;
use super::demo_hooks::DemoEvent;
use super::demo_native::DemoNative;
pub use super::demo_native::NativeFaults;
use super::demo_words::{question_in, seconds_after};
use crate::support::sanitize;
use crate::support::sys::{self, RawTerminal};
use crate::support::time;

/// The line the demo agent prints once it is ready for input (after it
/// has asked for bracketed paste); tests wait for it on screen.
pub(crate) const READY_BANNER: &str = "waiting for messages";

/// Bracketed paste start and end markers.
const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// What the input parser makes of the bytes typed or pasted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Enter with text in the input box: one submission.
    Submit {
        /// The text, exactly as received (invalid UTF-8 replaced).
        text: String,
        /// How many bracketed pastes it was made of.
        pastes: u32,
    },
    /// The input box changed (typing, a paste, backspace).
    Edited,
    /// Ctrl-C on an empty input box, or Ctrl-D: quit.
    Quit,
    /// An Enter ignored on purpose (`dropping_enters`); the count since
    /// the last paste.
    EnterIgnored(u32),
    /// Enter on an empty input box.
    EmptyEnter,
    /// The Escape key alone (an escape byte that ends a read).
    Escape,
    /// The Up arrow.
    Up,
    /// The Down arrow.
    Down,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Normal,
    Escape,
    Csi(Vec<u8>),
    Paste(Vec<u8>),
}

/// A byte-level parser for what a terminal application receives:
/// keystrokes, CSI sequences and bracketed pastes. Pasted text never
/// submits on its own, even when it contains newlines; only a separate
/// Enter does.
#[derive(Clone, Debug)]
pub struct InputParser {
    state: State,
    input: Vec<u8>,
    pastes: u32,
    drop_after_paste: u32,
    to_drop: u32,
}

impl Default for InputParser {
    fn default() -> Self {
        InputParser {
            state: State::Normal,
            input: Vec::new(),
            pastes: 0,
            drop_after_paste: 0,
            to_drop: 0,
        }
    }
}

impl InputParser {
    /// A parser that ignores the first `n` Enter presses after each paste,
    /// as an agent does that drops an Enter arriving too soon after a
    /// paste (Gemini CLI below about 50 ms). For testing delivery.
    pub fn dropping_enters(n: u32) -> InputParser {
        InputParser {
            drop_after_paste: n,
            ..InputParser::default()
        }
    }

    /// True when the input box holds a paste.
    fn pasted(&self) -> bool {
        self.pastes > 0
    }

    /// Empties the input box.
    fn clear(&mut self) {
        self.input.clear();
        self.pastes = 0;
    }

    /// The current content of the input box.
    pub fn input(&self) -> String {
        String::from_utf8_lossy(&self.input).into_owned()
    }

    /// Feeds bytes; returns what happened, in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        for &b in bytes {
            if let Some(e) = self.byte(b) {
                events.push(e);
            }
        }
        // An escape byte that ends a read is the Escape key, as terminal
        // programs take it (a sequence arrives in one read).
        if self.state == State::Escape {
            self.state = State::Normal;
            events.push(Event::Escape);
        }
        events
    }

    fn byte(&mut self, b: u8) -> Option<Event> {
        match std::mem::replace(&mut self.state, State::Normal) {
            State::Paste(mut buf) => {
                buf.push(b);
                if buf.ends_with(PASTE_END) {
                    buf.truncate(buf.len() - PASTE_END.len());
                    // Terminals send LF in pastes as CR; `paste-buffer -r`
                    // keeps LF. Either way it is a line break, not Enter.
                    for byte in buf {
                        self.input.push(if byte == b'\r' { b'\n' } else { byte });
                    }
                    self.pastes += 1;
                    self.to_drop = self.drop_after_paste;
                    return Some(Event::Edited);
                }
                self.state = State::Paste(buf);
                None
            }
            State::Escape => {
                if b == b'[' {
                    self.state = State::Csi(Vec::new());
                }
                None
            }
            State::Csi(mut seq) => {
                seq.push(b);
                if (0x40..=0x7e).contains(&b) {
                    if seq == PASTE_START[2..] {
                        self.state = State::Paste(Vec::new());
                    } else if seq == b"A" {
                        return Some(Event::Up);
                    } else if seq == b"B" {
                        return Some(Event::Down);
                    }
                } else if seq.len() < 32 {
                    self.state = State::Csi(seq);
                }
                None
            }
            State::Normal => self.normal(b),
        }
    }

    fn normal(&mut self, b: u8) -> Option<Event> {
        match b {
            b'\r' | b'\n' => {
                if self.input.is_empty() {
                    return Some(Event::EmptyEnter);
                }
                if self.to_drop > 0 {
                    self.to_drop -= 1;
                    return Some(Event::EnterIgnored(self.drop_after_paste - self.to_drop));
                }
                let text = String::from_utf8_lossy(&std::mem::take(&mut self.input)).into_owned();
                let pastes = std::mem::take(&mut self.pastes);
                Some(Event::Submit { text, pastes })
            }
            0x1b => {
                self.state = State::Escape;
                None
            }
            0x03 => {
                if self.input.is_empty() {
                    Some(Event::Quit)
                } else {
                    self.input.clear();
                    self.pastes = 0;
                    Some(Event::Edited)
                }
            }
            0x04 if self.input.is_empty() => Some(Event::Quit),
            0x15 => {
                self.input.clear();
                self.pastes = 0;
                Some(Event::Edited)
            }
            0x7f | 0x08 => {
                // Remove one whole UTF-8 character.
                while let Some(last) = self.input.pop() {
                    if last & 0xc0 != 0x80 {
                        break;
                    }
                }
                Some(Event::Edited)
            }
            b'\t' => {
                self.input.push(b);
                Some(Event::Edited)
            }
            b if b < 0x20 => None,
            b => {
                self.input.push(b);
                Some(Event::Edited)
            }
        }
    }
}

/// A submission that makes the demo agent busy for N seconds
/// (`DEMOSLEEP3`): what it receives meanwhile waits in its queue and is
/// taken afterwards, each as its own turn.
pub(crate) const BUSY_WORD: &str = "DEMOSLEEP";
/// A submission that makes the demo agent ask a yes/no question as the
/// real agents do: numbered options `1. Yes` / `2. No` with the first
/// highlighted, picked by its digit, by Enter on the highlighted one
/// (arrows move it), by `y` or `n`; Escape cancels. The answer is
/// recorded.
pub(crate) const ASK_WORD: &str = "DEMOASK";
/// The same question with unnumbered options, `No` first and highlighted
/// (as Claude Code asks about an MCP tool): only the arrows and Enter pick.
pub(crate) const ASK_NO_FIRST_WORD: &str = "DEMOASKNO";

/// A prompt holding this word makes the agent print what follows it as
/// its reply, one line per ` || `-separated part (`DEMOPRINT @swarm:agent-1
/// hi || done`), as an agent prints `@swarm:` lines (print-to-send).
pub(crate) const PRINT_WORD: &str = "DEMOPRINT";

/// A prompt holding `DEMOLIMIT<n>` makes the agent answer as an agent at
/// its usage limit does: a line with the reset time, n seconds later
/// (`! usage limit reached · resets 14:40:05`), and back to its prompt.
pub(crate) const LIMIT_WORD: &str = "DEMOLIMIT";

/// A prompt holding this word makes the agent clear its screen and draw
/// its transcript again, as a full-screen agent redraws.
pub(crate) const REDRAW_WORD: &str = "DEMOREDRAW";
/// The words that make the demo agent do something, in one short line: it
/// shows it under its banner, and `swarm help launch` prints it.
/// (No longer than the line it replaced: a pane `swarm launch` is still
/// splitting may have three rows, and the banner must not scroll off.)
pub const TRIGGER_WORDS: &str = "Try: DEMOASK (yes/no), DEMOSLEEP5, DEMOLIMIT60, DEMOPRINT a || b, \
     DEMOREDRAW; end with ? for a reply";

/// The question's row.
const QUESTION: &str = "? Do you want to proceed?";
/// The question asked at start with `ask_trust`, as the real agents ask
/// in a directory they have not seen (a new worktree is one).
const TRUST_QUESTION: &str = "? Do you trust the files in this folder?";
/// The row under the options, as the demo profile recognises a dialog.
const DIALOG_FOOTER: &str = "  Esc to cancel";
/// The row drawn above the input box while busy.
const WORKING: &str = "* working (esc to interrupt)";

/// One submission line of the `--record` file.
#[derive(Debug, Serialize)]
struct Record<'a> {
    n: u64,
    at: String,
    /// Unix seconds when the first byte of this submission arrived (for
    /// measuring delivery latency).
    first_byte_unix: f64,
    /// Unix seconds when Enter submitted it.
    submitted_unix: f64,
    /// For a message that came on the socket: Unix seconds when it came
    /// (until `submitted_unix`, the agent's own time).
    #[serde(skip_serializing_if = "Option::is_none")]
    queued_unix: Option<f64>,
    text: &'a str,
    bytes: usize,
    pastes: u32,
}

/// One answer to a question, in the `--record` file.
#[derive(Debug, Serialize)]
struct Answer<'a> {
    at: String,
    answer: &'a str,
}

/// How the demo agent answers questions: the `swarm` program to run and
/// the agent id it sends as.
#[derive(Clone, Debug)]
pub struct Replier<'a> {
    /// The `swarm` executable (`std::env::current_exe()` of `swarm
    /// demo-agent`).
    pub program: &'a Path,
    /// The demo agent's own agent id (`--from`).
    pub agent: &'a str,
}

/// How long a paste the agent is to lose stays on screen (`lose_pastes`):
/// long enough for swarm to see it in the box.
const LOST_PASTE_SHOWN: Duration = Duration::from_millis(400);

/// How long a submission stays drawn in a stale input row (`stale_box`):
/// longer than swarm watches a box after Enter, so that every look it
/// takes meanwhile sees the text there.
const STALE_BOX_SHOWN: Duration = Duration::from_millis(2500);

/// Ways the demo agent misbehaves on purpose, for testing delivery
/// against what real agents do now and then. The default misbehaves in
/// no way.
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    /// Ignore the first N Enter presses after each paste (see
    /// `InputParser::dropping_enters`).
    pub drop_enters: u32,
    /// Show the first N pastes, then lose each in a redraw before Enter.
    pub lose_pastes: u32,
    /// Take the first N submissions (and open what they open, a question
    /// too) but leave each drawn in a stale input row above it for a
    /// moment (`STALE_BOX_SHOWN`), as an agent whose redraw lags behind
    /// its input: a look then finds the text still in a box.
    pub stale_box: u32,
    /// Listen on a messaging socket as Claude Code does (`demo_native`),
    /// misbehaving as these say.
    pub native: Option<NativeFaults>,
}

/// Runs the demo agent on the controlling terminal until Ctrl-C on an empty
/// prompt, Ctrl-D, or the terminal closing. Each submission is shown and,
/// with `record`, appended as a JSON line (one `write`, so concurrent
/// readers never see half a line); with `conversation`, also to the
/// conversation's file. With `ask_trust` it first asks whether to trust
/// the directory (see `TRUST_QUESTION`), answered like any question. With
/// `replier` it answers each question swarm types in (see `question_in`).
pub fn run(
    record: Option<&Path>,
    name: &str,
    faults: Faults,
    conversation: Option<&Conversation<'_>>,
    ask_trust: bool,
    replier: Option<&Replier<'_>>,
) -> io::Result<()> {
    let recorder = match record {
        Some(path) => Some(OpenOptions::new().create(true).append(true).open(path)?),
        None => None,
    };
    let (transcript, earlier) = match conversation {
        Some(c) => {
            let (file, n) = c.open()?;
            (Some(file), n)
        }
        None => (None, 0),
    };
    let native = faults.native.map(DemoNative::start).transpose()?;
    let _raw = RawTerminal::enable()?;
    let mut out = io::stdout().lock();
    // With `ask_trust`, the question stands where the prompt would, drawn
    // with the banner in one write: no look ever sees a prompt first.
    let trust = ask_trust.then_some(Question {
        text: TRUST_QUESTION,
        options: ["Yes", "No"],
        numbered: true,
        at: 0,
    });
    let first = match trust {
        Some(q) => format!("{}\r\n{}", q.text, q.rows()),
        None => "> ".to_owned(),
    };
    // Bracketed paste on, then the banner: once the banner is on screen,
    // the terminal has also processed the mode switch.
    let resumed = match conversation {
        Some(c) if c.resume => format!(
            "resumed conversation {} ({earlier} earlier submission{})\r\n",
            c.id,
            if earlier == 1 { "" } else { "s" }
        ),
        _ => String::new(),
    };
    let banner =
        format!("{name}: swarm demo agent, {READY_BANNER} (Ctrl-C to quit)\r\n{TRIGGER_WORDS}");
    // The line of words stands where a blank line stood: three rows in
    // all, as few as a pane `swarm launch` is still splitting may have, so
    // that the banner never scrolls off.
    write!(out, "\x1b[?2004h\x1b[2J\x1b[H{resumed}{banner}\r\n{first}")?;
    out.flush()?;
    let mut agent = Demo {
        banner,
        replier: replier.map(|r| (r.program.to_path_buf(), r.agent.to_owned())),
        drawn: String::new(),
        out: &mut out,
        recorder,
        transcript,
        parser: InputParser::dropping_enters(faults.drop_enters),
        lose_pastes: faults.lose_pastes,
        stale_box: faults.stale_box,
        count: earlier,
        first_byte: None,
        mode: trust.map_or(Mode::Ready, Mode::Asking),
        queue: std::collections::VecDeque::new(),
        hooks: super::demo_hooks::DemoHooks::from_env(),
        native,
        on_socket: None,
    };
    let result = agent.event_loop();
    let _ = write!(out, "\x1b[?2004l\r\n");
    let _ = out.flush();
    result
}

/// What the demo agent is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Waiting for a prompt.
    Ready,
    /// Working until then; submissions are queued.
    Busy(Instant),
    /// Asking a question (see `ASK_WORD`); anything else typed is
    /// ignored (a paste does nothing, as in the real agents).
    Asking(Question),
}

/// An open question: its options in screen order and the highlighted one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Question {
    /// Its row above the options.
    text: &'static str,
    /// `["Yes", "No"]` or `["No", "Yes"]`.
    options: [&'static str; 2],
    /// Whether the options show their numbers.
    numbered: bool,
    /// The highlighted option.
    at: usize,
}

impl Question {
    /// The options' rows and the footer, as drawn (no line break after
    /// the footer, where the cursor rests).
    fn rows(&self) -> String {
        let mut out = String::new();
        for (i, label) in self.options.iter().enumerate() {
            let mark = if i == self.at { "\u{276f} " } else { "  " };
            if self.numbered {
                out.push_str(&format!("{mark}{}. {label}\r\n", i + 1));
            } else {
                out.push_str(&format!("{mark}{label}\r\n"));
            }
        }
        out.push_str(DIALOG_FOOTER);
        out
    }
}

struct Demo<'a, W: Write> {
    /// The first rows of the screen: the banner and the trigger words.
    banner: String,
    /// The `swarm` program and the agent id to answer questions with.
    replier: Option<(PathBuf, String)>,
    /// The submissions and printed lines shown so far, as drawn (for a
    /// redraw).
    drawn: String,
    out: &'a mut W,
    recorder: Option<File>,
    transcript: Option<File>,
    parser: InputParser,
    /// How many more pastes it shows and then loses in a redraw, like
    /// an agent that redraws its whole screen just after it starts (for
    /// tests).
    lose_pastes: u32,
    /// How many more submissions it leaves drawn in a stale input row
    /// for a moment (for tests; see `Faults::stale_box`).
    stale_box: u32,
    count: u64,
    first_byte: Option<f64>,
    mode: Mode,
    queue: std::collections::VecDeque<(String, u32, f64)>,
    /// The agent hooks it runs (`SWARM_DEMO_HOOKS`).
    hooks: Option<super::demo_hooks::DemoHooks>,
    /// Its messaging socket, session file and transcript, when it has them.
    native: Option<DemoNative>,
    /// When the submission being made came on the socket.
    on_socket: Option<f64>,
}

impl<W: Write> Demo<'_, W> {
    fn event_loop(&mut self) -> io::Result<()> {
        let mut buf = [0u8; 8192];
        loop {
            let busy_until = match self.mode {
                Mode::Busy(until) => Some(until),
                _ => None,
            };
            // A message the running turn takes in at its next step wakes
            // the wait then too.
            let step = self.native.as_ref().and_then(DemoNative::next_step);
            let timeout = [busy_until, step]
                .into_iter()
                .flatten()
                .min()
                .map(|at| at.saturating_duration_since(Instant::now()));
            // A message on the socket wakes the wait at once.
            let wake = self.native.as_ref().map(DemoNative::wake);
            let n = match sys::read_stdin(&mut buf, timeout, wake) {
                Ok(None) => {
                    if matches!(self.mode, Mode::Busy(until) if Instant::now() >= until) {
                        self.finish_work()?;
                    }
                    self.peers()?;
                    continue;
                }
                Ok(Some(0)) => return Ok(()),
                Ok(Some(n)) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // EIO: the terminal went away (the pane was closed).
                Err(e) if e.raw_os_error() == Some(libc::EIO) => return Ok(()),
                Err(e) => return Err(e),
            };
            let arrived = time::unix_seconds(time::now());
            self.first_byte.get_or_insert(arrived);
            for event in self.parser.feed(&buf[..n]) {
                if let Mode::Asking(q) = self.mode {
                    self.answer(q, &event)?;
                    continue;
                }
                match event {
                    Event::Quit => return Ok(()),
                    // Escape stops the work, as the real agents' busy rows
                    // say it does; what was queued then goes in.
                    Event::Escape if matches!(self.mode, Mode::Busy(_)) => self.finish_work()?,
                    Event::EmptyEnter | Event::Escape | Event::Up | Event::Down => {}
                    Event::EnterIgnored(n) => {
                        let shown = sanitize::one_line(&self.parser.input());
                        write!(
                            self.out,
                            "\r\x1b[K(ignored Enter {n} after a paste)\r\n> {shown}"
                        )?;
                    }
                    Event::Edited if self.parser.input().is_empty() => self.draw_empty()?,
                    Event::Edited if self.lose_pastes > 0 && self.parser.pasted() => {
                        // Shown for a moment, then gone in a redraw.
                        self.lose_pastes -= 1;
                        self.draw_input()?;
                        self.out.flush()?;
                        std::thread::sleep(LOST_PASTE_SHOWN);
                        self.parser.clear();
                        self.draw_empty()?;
                    }
                    Event::Edited => self.draw_input()?,
                    Event::Submit { text, pastes } => {
                        let started = self.first_byte.take().unwrap_or(arrived);
                        if let Mode::Busy(_) = self.mode {
                            let shown = sanitize::one_line(&text);
                            // Clear the box and the working row, add the
                            // queued line above them, draw them again.
                            write!(
                                self.out,
                                "\r\x1b[K\x1b[A\r\x1b[K  (queued) {shown}\r\n{WORKING}\r\n> "
                            )?;
                            self.queue.push_back((text, pastes, started));
                        } else {
                            self.submit(&text, pastes, started)?;
                        }
                    }
                }
            }
            self.out.flush()?;
            // What waited on the socket for this turn's end, or for the
            // answer to a question, goes in now.
            self.peers()?;
        }
    }

    /// Takes what came on the socket: at once when idle, else at the end
    /// of the turn (or once the question is answered).
    fn peers(&mut self) -> io::Result<()> {
        let Some(native) = self.native.as_mut() else {
            return Ok(());
        };
        let busy = self.mode != Mode::Ready;
        native.set_busy(busy);
        let mut take = if busy {
            Vec::new()
        } else {
            native.after_turn()
        };
        let came = native.arrived(busy);
        take.extend(came.take);
        for (text, when) in take {
            self.on_socket = Some(when);
            self.submit(&text, 0, time::unix_seconds(time::now()))?;
        }
        for text in came.absorbed {
            self.record_submission(&text, 0, time::unix_seconds(time::now()))?;
            self.note_above(&format!("(taken into the running turn) {text}"))?;
        }
        for text in came.held {
            self.note_above(&format!("held message from another session: {text}"))?;
        }
        // A message may have started a turn: the session file says so.
        let busy = self.mode != Mode::Ready;
        if let Some(native) = self.native.as_mut() {
            native.set_busy(busy);
        }
        self.out.flush()
    }

    /// Draws an empty input box: nothing typed since.
    fn draw_empty(&mut self) -> io::Result<()> {
        self.first_byte = None;
        write!(self.out, "\r\x1b[K> ")
    }

    fn draw_input(&mut self) -> io::Result<()> {
        let shown = sanitize::one_line(&self.parser.input());
        write!(self.out, "\r\x1b[K> {shown}")
    }

    /// Records and shows one submission, then acts on it (works, asks).
    fn submit(&mut self, text: &str, pastes: u32, started: f64) -> io::Result<()> {
        self.hook(DemoEvent::Prompt, text);
        let now = self.record_submission(text, pastes, started)?;
        let stamp = now.with_timezone(&chrono::Local).format("%H:%M:%S");
        let mut shown = format!(
            "[{stamp}] submission {} ({} bytes):\r\n",
            self.count,
            text.len()
        );
        for line in sanitize::strip_controls(text).split('\n') {
            shown.push_str(&format!("  {line}\r\n"));
        }
        if let Some((_, lines)) = text.split_once(PRINT_WORD) {
            for line in lines.split(" || ") {
                let line = sanitize::one_line(line.trim());
                shown.push_str(&format!("{line}\r\n"));
            }
        }
        if let Some(line) = self.reply(text) {
            shown.push_str(&format!("{line}\r\n"));
        }
        if let Some(secs) = seconds_after(text, LIMIT_WORD) {
            let reset = now + chrono::Duration::seconds(secs.cast_signed());
            shown.push_str(&format!(
                "! usage limit reached · resets {}\r\n",
                reset.with_timezone(&chrono::Local).format("%H:%M:%S")
            ));
        }
        self.drawn.push_str(&shown);
        write!(self.out, "\r\x1b[K{shown}")?;
        if text.contains(REDRAW_WORD) {
            // Home, clear the screen (tmux keeps the old one in its
            // history), everything again.
            write!(self.out, "\x1b[H\x1b[2J{}\r\n{}", self.banner, self.drawn)?;
        }
        if text.contains(ASK_WORD) {
            let q = if text.contains(ASK_NO_FIRST_WORD) {
                Question {
                    text: QUESTION,
                    options: ["No", "Yes"],
                    numbered: false,
                    at: 0,
                }
            } else {
                Question {
                    text: QUESTION,
                    options: ["Yes", "No"],
                    numbered: true,
                    at: 0,
                }
            };
            self.hook(DemoEvent::Asks, "");
            self.mode = Mode::Asking(q);
            self.parser.clear();
            return self.draw_after(text, &format!("{}\r\n{}", q.text, q.rows()));
        }
        if let Some(secs) = seconds_after(text, BUSY_WORD) {
            self.mode = Mode::Busy(Instant::now() + Duration::from_secs(secs));
            return self.draw_after(text, &format!("{WORKING}\r\n> "));
        }
        self.draw_after(text, "> ")?;
        self.out.flush()?;
        self.hook(DemoEvent::TurnEnd, "");
        Ok(())
    }

    /// Records one submission (the record file, the conversation); when.
    fn record_submission(
        &mut self,
        text: &str,
        pastes: u32,
        started: f64,
    ) -> io::Result<chrono::DateTime<chrono::Utc>> {
        self.count += 1;
        let now = time::now();
        let rec = Record {
            n: self.count,
            at: time::utc_iso(now),
            first_byte_unix: started,
            submitted_unix: time::unix_seconds(now),
            queued_unix: self.on_socket.take(),
            text,
            bytes: text.len(),
            pastes,
        };
        self.append(&rec)?;
        if let Some(file) = self.transcript.as_mut() {
            let mut line = serde_json::to_vec(&rec).map_err(io::Error::other)?;
            line.push(b'\n');
            file.write_all(&line)?;
        }
        Ok(now)
    }

    /// Shows `line` above the prompt (and the working row, when busy),
    /// what was typed kept in the box.
    fn note_above(&mut self, line: &str) -> io::Result<()> {
        let line = sanitize::one_line(line);
        if let Mode::Busy(_) = self.mode {
            write!(self.out, "\r\x1b[K\x1b[A\r\x1b[K  {line}\r\n{WORKING}\r\n")?;
        } else {
            write!(self.out, "\r\x1b[K{line}\r\n")?;
        }
        self.draw_input()
    }

    /// Draws what follows a submission's echo (`after`: the question, the
    /// working row, the prompt) under a blank row; with the `stale_box`
    /// fault, under the submission still drawn in a stale input row, which
    /// a redraw of the whole screen removes a moment later. Input that
    /// comes meanwhile waits, and then goes to what `after` drew.
    fn draw_after(&mut self, text: &str, after: &str) -> io::Result<()> {
        if self.stale_box == 0 {
            return write!(self.out, "\r\n{after}");
        }
        self.stale_box -= 1;
        let stale = sanitize::one_line(text);
        write!(self.out, "> {stale}\r\n{after}")?;
        self.out.flush()?;
        std::thread::sleep(STALE_BOX_SHOWN);
        write!(
            self.out,
            "\x1b[H\x1b[2J{}\r\n{}\r\n{after}",
            self.banner, self.drawn
        )
    }

    /// Runs the agent hook of `event`, if hooks are on.
    fn hook(&self, event: DemoEvent, prompt: &str) {
        if let Some(h) = &self.hooks {
            h.run(event, prompt);
        }
    }

    /// Answers `text` when it is a question swarm typed in (and the agent
    /// knows its id): `swarm msg SENDER INFO ... --reply-to ID --from SELF`
    /// run in the background, its output kept off the screen. Returns the
    /// line to show.
    fn reply(&self, text: &str) -> Option<String> {
        let (program, me) = self.replier.as_ref()?;
        let q = question_in(text)?;
        if q.sender == me {
            return None;
        }
        let asked: String = q.question.chars().take(60).collect();
        let answer = format!(
            "{me} (the demo agent) got your question \"{asked}\"; it only shows what it \
             receives, but this reply took the way back."
        );
        let started = Command::new(program)
            .args([
                "msg",
                q.sender,
                "INFO",
                "--reply-to",
                q.id,
                "--from",
                me,
                "--",
            ])
            .arg(&answer)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        Some(match started {
            Ok(mut child) => {
                // Reaped in the background: the send may wait for a pane.
                std::thread::spawn(move || child.wait());
                format!("(replying to {} with swarm msg)", q.sender)
            }
            Err(e) => format!("(could not reply to {}: {e})", q.sender),
        })
    }

    /// The work is done: take the queued submissions, each as its own turn.
    fn finish_work(&mut self) -> io::Result<()> {
        write!(self.out, "\r\x1b[K\x1b[A\r\x1b[K* done\r\n")?;
        self.mode = Mode::Ready;
        while self.mode == Mode::Ready {
            let Some((text, pastes, started)) = self.queue.pop_front() else {
                break;
            };
            self.submit(&text, pastes, started)?;
        }
        if !matches!(self.mode, Mode::Asking(_)) {
            // What someone typed meanwhile is still in the box.
            self.draw_input()?;
        }
        self.out.flush()?;
        if self.mode == Mode::Ready && self.queue.is_empty() && self.hooks.is_some() {
            self.hook(DemoEvent::TurnEnd, "");
        }
        Ok(())
    }

    /// Input while a question is open: a digit or `y`/`n` picks at once,
    /// Enter picks the highlighted option, the arrows move it, Escape
    /// cancels; pasted and other typed text is dropped.
    fn answer(&mut self, mut q: Question, event: &Event) -> io::Result<()> {
        let typed = self.parser.input();
        let pick = |label: &str| q.options.iter().position(|o| *o == label);
        let chosen = match event {
            Event::EmptyEnter | Event::Submit { .. } | Event::EnterIgnored(_) => Some(q.at),
            Event::Edited if typed == "y" => pick("Yes"),
            Event::Edited if typed == "n" => pick("No"),
            Event::Edited if q.numbered && (typed == "1" || typed == "2") => {
                Some(usize::from(typed.as_bytes()[0] - b'1'))
            }
            Event::Quit => pick("No"),
            Event::Escape => {
                self.parser.clear();
                return self.finish_question("cancelled");
            }
            Event::Up | Event::Down => {
                q.at = if *event == Event::Up {
                    q.at.saturating_sub(1)
                } else {
                    (q.at + 1).min(q.options.len() - 1)
                };
                self.mode = Mode::Asking(q);
                // Back to the first option's row, then draw them again.
                write!(self.out, "\r\x1b[{}A\x1b[J{}", q.options.len(), q.rows())?;
                return self.out.flush();
            }
            Event::Edited => None,
        };
        self.parser.clear();
        match chosen {
            Some(i) => self.finish_question(if q.options[i] == "Yes" { "yes" } else { "no" }),
            None => Ok(()),
        }
    }

    /// Records the answer and goes back to the prompt.
    fn finish_question(&mut self, answer: &str) -> io::Result<()> {
        self.first_byte = None;
        self.append(&Answer {
            at: time::utc_iso(time::now()),
            answer,
        })?;
        self.mode = Mode::Ready;
        write!(self.out, "\r\n(answered {answer})\r\n> ")?;
        self.out.flush()?;
        self.hook(DemoEvent::TurnEnd, "");
        Ok(())
    }

    fn append(&mut self, value: &impl Serialize) -> io::Result<()> {
        if let Some(file) = self.recorder.as_mut() {
            let mut line = serde_json::to_vec(value).map_err(io::Error::other)?;
            line.push(b'\n');
            file.write_all(&line)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submit(text: &str, pastes: u32) -> Event {
        Event::Submit {
            text: text.into(),
            pastes,
        }
    }

    fn submissions(events: Vec<Event>) -> Vec<Event> {
        events
            .into_iter()
            .filter(|e| matches!(e, Event::Submit { .. }))
            .collect()
    }

    #[test]
    fn a_question_typed_in_by_swarm_is_found() {
        let q = question_in(
            "[operator][2026-11-28 12:42:48][QUESTION][#9c2c68bd]: ready?\n(ack: swarm ack 9c2c68bd)",
        )
        .expect("a question");
        assert_eq!(
            (q.sender, q.id, q.question.as_str()),
            ("operator", "9c2c68bd", "ready?")
        );
        assert!(question_in("[agent-0][2026-11-28 12:42:48][INFO][#9c2c68bd]: done").is_none());
        assert!(question_in("ready?").is_none());
        assert!(question_in("[--from][t][INFO][#9c2c68bd]: x?").is_none());
        assert!(question_in("[a b][t][INFO][#9c2c68bd]: x?").is_none());
    }

    #[test]
    fn paste_then_enter_is_one_submission() {
        let mut p = InputParser::default();
        let ev = p.feed(b"\x1b[200~line 1\nline 2;\n\x1b[201~\r");
        assert_eq!(submissions(ev), [submit("line 1\nline 2;\n", 1)]);
    }

    #[test]
    fn pastes_split_across_reads_are_reassembled() {
        let mut p = InputParser::default();
        let mut ev = p.feed(b"\x1b[20");
        ev.extend(p.feed(b"0~abc\x1b[2"));
        ev.extend(p.feed(b"01~"));
        assert_eq!(p.input(), "abc");
        ev.extend(p.feed(b"\r"));
        assert_eq!(submissions(ev), [submit("abc", 1)]);
    }

    #[test]
    fn typing_editing_and_empty_enter() {
        let mut p = InputParser::default();
        assert_eq!(p.feed(b"\r\r"), [Event::EmptyEnter, Event::EmptyEnter]);
        let ev = p.feed("héé\x7f!\x1b[A\r".as_bytes());
        assert_eq!(submissions(ev), [submit("hé!", 0)]);
    }

    #[test]
    fn an_escape_inside_a_paste_stays_text() {
        let mut p = InputParser::default();
        let ev = p.feed(b"\x1b[200~a\x1b[31mb\x1b[201~\r");
        assert_eq!(submissions(ev), [submit("a\x1b[31mb", 1)]);
    }

    #[test]
    fn an_agent_that_drops_the_first_enter_after_a_paste() {
        let mut p = InputParser::dropping_enters(1);
        assert_eq!(
            p.feed(b"\x1b[200~hi\x1b[201~\r"),
            [Event::Edited, Event::EnterIgnored(1)]
        );
        assert_eq!(p.input(), "hi");
        assert_eq!(submissions(p.feed(b"\r")), [submit("hi", 1)]);
    }

    #[test]
    fn ctrl_c_clears_then_quits() {
        let mut p = InputParser::default();
        assert_eq!(p.feed(b"x\x03"), [Event::Edited, Event::Edited]);
        assert_eq!(p.input(), "");
        assert_eq!(p.feed(b"\x03"), [Event::Quit]);
        assert_eq!(InputParser::default().feed(b"\x04"), [Event::Quit]);
    }

    #[test]
    fn two_pastes_before_enter_are_merged_and_counted() {
        let mut p = InputParser::default();
        let ev = p.feed(b"\x1b[200~a\x1b[201~\x1b[200~b\x1b[201~\r");
        assert_eq!(submissions(ev), [submit("ab", 2)]);
    }
}
