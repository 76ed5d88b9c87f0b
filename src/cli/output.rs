//! How swarm talks to the user: stdout for results, stderr for warnings and
//! errors, colour chosen once. A closed stdout (`swarm agents | head -1`)
//! is not an error.

use std::io::{self, IsTerminal, Write};

use clap::ValueEnum;
use owo_colors::OwoColorize;
use serde::Serialize;

use swarm_core::support::json::{self, Layout};
use swarm_core::support::sanitize;
use swarm_core::{Error, Result, SendReport};

/// `--color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(super) enum ColorChoice {
    /// Colour when writing to a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The output streams and their styles.
#[derive(Clone, Debug)]
pub(super) struct Output {
    color_out: bool,
    color_err: bool,
}

fn wants_color(choice: ColorChoice, is_tty: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            is_tty
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    }
}

impl Output {
    /// Decides colour for stdout and stderr separately.
    pub(super) fn new(choice: ColorChoice) -> Output {
        Output {
            color_out: wants_color(choice, io::stdout().is_terminal()),
            color_err: wants_color(choice, io::stderr().is_terminal()),
        }
    }

    /// True when stdout gets colour.
    #[cfg(feature = "monitor")]
    pub(super) fn colors_stdout(&self) -> bool {
        self.color_out
    }

    /// Writes text to stdout as is.
    pub(super) fn print(&self, text: &str) -> Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|source| Error::Io {
                what: "write to stdout".into(),
                source,
            })
    }

    /// Writes a value as JSON (2-space indent, ASCII, like the Python
    /// tool's `--json`), followed by a newline.
    pub(super) fn json<T: Serialize + ?Sized>(&self, value: &T) -> Result<()> {
        let mut text = json::to_string(value, Layout::Indent2).map_err(|e| Error::Io {
            what: "encode JSON".into(),
            source: io::Error::other(e),
        })?;
        text.push('\n');
        self.print(&text)
    }

    /// `swarm: warning: ...` on stderr.
    pub(super) fn warn(&self, message: &str) {
        let label = if self.color_err {
            "warning".yellow().bold().to_string()
        } else {
            "warning".to_owned()
        };
        let message = sanitize::strip_controls(message);
        let _ = writeln!(io::stderr().lock(), "swarm: {label}: {message}");
    }

    /// A note on stderr that is neither result nor warning.
    pub(super) fn note(&self, message: &str) {
        let _ = writeln!(io::stderr().lock(), "{message}");
    }

    /// A command-line error in the same form as every other error.
    pub(super) fn usage_error(&self, message: &str, hint: &str) {
        let label = if self.color_err {
            "error".red().bold().to_string()
        } else {
            "error".to_owned()
        };
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "swarm: {label}: {message}");
        let _ = writeln!(err, "  hint: {hint}");
    }

    /// `swarm: error: ...` and its hint on stderr.
    pub(super) fn error(&self, error: &Error) {
        let label = if self.color_err {
            "error".red().bold().to_string()
        } else {
            "error".to_owned()
        };
        // An error may quote what was typed or read (a path, a value):
        // no escape sequence in it reaches the terminal.
        let message = sanitize::strip_controls(&error.to_string());
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "swarm: {label}: {message}");
        if let Some(hint) = error.hint() {
            let _ = writeln!(err, "  hint: {}", sanitize::strip_controls(&hint));
        }
    }

    /// A send's refusal when its sender was over the rate limit (the
    /// message waits in the inbox all the same), as an error on stderr.
    pub(super) fn rate_limit_note(&self, report: &SendReport) {
        if let Some(e) = report.rate_limit_error() {
            self.error(&e);
        }
    }

    /// Green when colouring stdout.
    pub(super) fn good(&self, text: &str) -> String {
        self.paint(text, |t| t.green().to_string())
    }

    /// Yellow when colouring stdout.
    pub(super) fn caution(&self, text: &str) -> String {
        self.paint(text, |t| t.yellow().to_string())
    }

    /// Red when colouring stdout.
    pub(super) fn bad(&self, text: &str) -> String {
        self.paint(text, |t| t.red().to_string())
    }

    /// Bold when colouring stdout.
    pub(super) fn bold(&self, text: &str) -> String {
        self.paint(text, |t| t.bold().to_string())
    }

    fn paint(&self, text: &str, style: impl Fn(&str) -> String) -> String {
        if self.color_out {
            style(text)
        } else {
            text.to_owned()
        }
    }
}

/// True when an error only says that stdout was closed by the reader.
pub(super) fn is_broken_pipe(error: &Error) -> bool {
    matches!(error, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
}
