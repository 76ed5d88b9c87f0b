//! Typing into panes: text pasted through a uniquely named buffer (never
//! as an argument), key names sent with `send-keys`, and a paste with its
//! key press prepared before the text is known (`PreparedPaste`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use super::args::Args;
use super::client::Tmux;
use super::error::TmuxError;
use super::pane::PaneId;
use super::pending::Pending;

/// Set once tmux refused `run-shell -d` (older than 3.2): pastes and keys
/// then go as two calls.
static NO_DELAY_FLAG: AtomicBool = AtomicBool::new(false);

impl Tmux {
    /// Pastes `text` into a pane exactly as given: it travels on tmux's
    /// stdin into a uniquely named buffer (never as an argument, so no byte
    /// of it is interpreted), then `paste-buffer -p -r` pastes it as one
    /// bracketed paste when the application asked for bracketed paste, keeps
    /// LF as LF, and the buffer is deleted. One tmux call.
    pub fn paste_text(&self, target: &PaneId, text: &[u8]) -> Result<(), TmuxError> {
        self.paste_text_many(std::slice::from_ref(target), text)
    }

    /// Pastes the same `text` into several panes in one tmux call: one
    /// `load-buffer` from stdin, one bracketed `paste-buffer` per pane, then
    /// the buffer is deleted. tmux runs the commands in order and stops at
    /// the first that fails (a pane that went away): the error says so.
    pub fn paste_text_many(&self, targets: &[PaneId], text: &[u8]) -> Result<(), TmuxError> {
        if targets.is_empty() {
            return Ok(());
        }
        let buffer = unique_buffer_name();
        let result = self.exec(paste_sequence(&buffer, targets), Some(text));
        if result.is_err() {
            let _ = self.exec(Args::new("delete-buffer").flag("-b").text(&buffer), None);
        }
        result.map(drop)
    }

    /// Pastes text into each of `targets` as one bracketed paste, then,
    /// `gap` later, presses `key` in each, all in one tmux call: the server
    /// writes the pastes, waits `gap` on a timer (`run-shell -d`, which lets
    /// its event loop write the pastes to the panes first), then writes the
    /// keys. So each agent reads its paste and its key as two inputs, as
    /// from two tmux calls, for the cost of one. tmux stops at the first
    /// command that fails (a pane that went away): the error says so.
    ///
    /// The call starts before the text is known: tmux starts, connects and
    /// waits for the text on its standard input, so that
    /// `PreparedPaste::send` costs only what tmux does with it. Dropped
    /// unsent, the call is killed, and tmux pastes nothing and presses
    /// nothing (its `load-buffer` never completes, and tmux runs nothing
    /// after a command that did not).
    ///
    /// A tmux older than 3.2 has no `run-shell -d`; it refuses the whole
    /// sequence before running any of it, and then `send` pastes and
    /// presses the key as two calls with the gap between them.
    pub(crate) fn prepare_paste_and_press(
        &self,
        targets: &[PaneId],
        gap: Duration,
        key: &str,
    ) -> PreparedPaste<'_> {
        let buffer = unique_buffer_name();
        let call = (!NO_DELAY_FLAG.load(Ordering::Relaxed))
            .then(|| {
                let pastes = paste_sequence(&buffer, targets)
                    .then("run-shell")
                    .flag("-d")
                    .text(format!("{:.3}", gap.as_secs_f64()));
                key_sequence(Some(pastes), targets, key).map(|args| self.start_with_input(args))
            })
            .flatten();
        PreparedPaste {
            tmux: self,
            call,
            buffer,
            targets: targets.to_vec(),
            gap,
            key: key.to_owned(),
        }
    }

    /// Sends one key name to several panes in one tmux call.
    pub fn send_key_many(&self, targets: &[PaneId], key: &str) -> Result<(), TmuxError> {
        match key_sequence(None, targets, key) {
            Some(args) => self.exec(args, None).map(drop),
            None => Ok(()),
        }
    }

    /// Sends key names (`Enter`, `C-c`) to a pane; never used for text.
    pub fn send_keys(&self, target: &PaneId, keys: &[&str]) -> Result<(), TmuxError> {
        let mut args = Args::new("send-keys")
            .flag("-t")
            .text(target.as_str())
            .flag("--");
        for key in keys {
            args = args.text(key);
        }
        self.exec(args, None).map(drop)
    }
}

/// A paste and a key press waiting for their text
/// (`Tmux::prepare_paste_and_press`).
pub(crate) struct PreparedPaste<'a> {
    tmux: &'a Tmux,
    /// `None` when this tmux has no `run-shell -d`.
    call: Option<Pending<'a>>,
    buffer: String,
    targets: Vec<PaneId>,
    gap: Duration,
    key: String,
}

impl PreparedPaste<'_> {
    /// Pastes `text` and presses the key.
    pub(crate) fn send(self, text: &[u8]) -> Result<(), TmuxError> {
        let PreparedPaste {
            tmux,
            call,
            buffer,
            targets,
            gap,
            key,
        } = self;
        if let Some(call) = call {
            match call.finish_with(Some(text)) {
                Ok(_) => return Ok(()),
                Err(TmuxError::Failed { stderr, .. }) if refuses_run_shell_delay(&stderr) => {
                    NO_DELAY_FLAG.store(true, Ordering::Relaxed);
                }
                Err(e) => {
                    let _ = tmux.exec(Args::new("delete-buffer").flag("-b").text(&buffer), None);
                    return Err(e);
                }
            }
        }
        tmux.paste_text_many(&targets, text)?;
        thread::sleep(gap);
        tmux.send_key_many(&targets, &key)
    }
}

/// Loads standard input into `buffer`, pastes it into each of `targets` as
/// one bracketed paste with line feeds kept (`-p -r`), and deletes it.
fn paste_sequence(buffer: &str, targets: &[PaneId]) -> Args {
    let mut args = Args::new("load-buffer").flag("-b").text(buffer).flag("-");
    for t in targets {
        args = args
            .then("paste-buffer")
            .flag("-p")
            .flag("-r")
            .flag("-b")
            .text(buffer)
            .flag("-t")
            .text(t.as_str());
    }
    args.then("delete-buffer").flag("-b").text(buffer)
}

/// `key` sent to each of `targets`, after `before` when given; `None` when
/// there is nothing to run.
fn key_sequence(before: Option<Args>, targets: &[PaneId], key: &str) -> Option<Args> {
    targets.iter().fold(before, |args, t| {
        let start = match args {
            None => Args::new("send-keys"),
            Some(a) => a.then("send-keys"),
        };
        Some(start.flag("-t").text(t.as_str()).flag("--").text(key))
    })
}

/// True when tmux refused a command sequence because its `run-shell` has
/// no `-d` (before 3.2): it then printed the flag or the usage of
/// `run-shell`, and ran none of the sequence.
fn refuses_run_shell_delay(stderr: &str) -> bool {
    stderr.contains("unknown flag -d") || stderr.contains("usage: run-shell")
}

/// `swarm-<pid>-<counter>-<random>`: unique across processes and calls, so
/// concurrent senders never paste each other's buffer.
pub(super) fn unique_buffer_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("swarm-{}-{n}-{}", std::process::id(), &random[..12])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::test_pane::CatPane;

    #[test]
    fn a_prepared_paste_types_only_what_it_is_sent_and_nothing_when_dropped() {
        let cat = CatPane::start();
        let one = std::slice::from_ref(&cat.pane);
        // Dropped unsent: neither text nor Enter reaches the pane.
        drop(
            cat.tmux
                .prepare_paste_and_press(one, Duration::ZERO, "Enter"),
        );
        cat.tmux
            .prepare_paste_and_press(one, Duration::ZERO, "Enter")
            .send(b"first;")
            .expect("send");
        cat.tmux
            .prepare_paste_and_press(one, Duration::from_millis(1), "Enter")
            .send(b"second")
            .expect("paste");
        // A stray Enter from the dropped call would have made an empty
        // first line.
        assert_eq!(cat.wait_for_lines(2), "first;\nsecond\n");
        let buffers = cat
            .tmux
            .exec(Args::new("list-buffers"), None)
            .expect("list-buffers");
        assert_eq!(buffers, "", "no buffer is left behind");
    }

    #[test]
    fn an_old_run_shell_is_recognised_by_its_refusal() {
        assert!(refuses_run_shell_delay(
            "unknown flag -d\nusage: run-shell [-b] [-t target-pane] shell-command"
        ));
        assert!(refuses_run_shell_delay(
            "usage: run-shell [-bC] [-t target-pane] [shell-command]"
        ));
        assert!(!refuses_run_shell_delay("can't find pane: %9"));
    }

    #[test]
    fn buffer_names_are_unique() {
        let a = unique_buffer_name();
        let b = unique_buffer_name();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("swarm-{}-", std::process::id())));
    }
}
