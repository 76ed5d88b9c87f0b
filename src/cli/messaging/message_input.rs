//! Where a message body comes from: the command line, `-` (stdin) or
//! `--file`. Bytes that are not UTF-8 are replaced, never rejected
//! silently; sizes are capped before anything is read into memory whole.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;

use swarm_core::domain::message;
use swarm_core::{Error, MAX_CONTENT_BYTES, Result};

use crate::cli::actor::{self, Actor};
use crate::cli::context::Context;

/// The body of a message and its sender, as `msg` and `broadcast` take
/// them.
#[derive(Debug, Args)]
pub(crate) struct MessageArgs {
    /// The message; words are joined with spaces; `-` reads stdin. One
    /// argument that starts with `-` and holds a space is text; put `--`
    /// before a one-word message that starts with `-`
    #[arg(value_name = "CONTENT")]
    content: Vec<String>,
    /// Read the message from a file
    #[arg(long, value_name = "FILE", conflicts_with = "content")]
    file: Option<PathBuf>,
    /// Sender agent id [default: this pane's agent; outside tmux, the
    /// operator name `messaging.operator`, "operator"]
    #[arg(long, alias = "sender-id", value_name = "ID")]
    from: Option<String>,
    /// Allow --from to name another agent than this pane's own (recorded)
    #[arg(long)]
    as_other: bool,
}

impl MessageArgs {
    /// The sanitised body.
    pub(crate) fn body(&self) -> Result<String> {
        content(&self.content, self.file.as_deref())
    }

    /// The sending agent.
    pub(crate) fn sender(&self, ctx: &Context) -> Result<Actor> {
        actor::resolve_sender(ctx, self.from.as_deref(), self.as_other, "--from")
    }
}

/// Reads at most this much from stdin or a file (then reports "too long").
const READ_CAP: u64 = 4 * MAX_CONTENT_BYTES as u64;

/// The sanitised body from the words given, stdin (`-`) or a file.
pub(crate) fn content(words: &[String], file: Option<&Path>) -> Result<String> {
    let raw = match (words, file) {
        ([], Some(path)) => {
            let f = std::fs::File::open(path).map_err(|source| Error::Io {
                what: format!("read the message from {}", path.display()),
                source,
            })?;
            read_capped(f, &path.display().to_string())?
        }
        ([dash], None) if dash == "-" => read_capped(std::io::stdin().lock(), "stdin")?,
        ([], None) => {
            return Err(Error::Usage(
                "no message given: pass it as arguments, `-` to read stdin, or --file FILE".into(),
            ));
        }
        (words, _) => words.join(" "),
    };
    Ok(message::clean_content(&raw)?)
}

fn read_capped(reader: impl Read, source: &str) -> Result<String> {
    let mut bytes = Vec::new();
    reader
        .take(READ_CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Io {
            what: format!("read the message from {source}"),
            source: e,
        })?;
    if bytes.len() as u64 > READ_CAP {
        return Err(Error::message_too_long(READ_CAP, source));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
