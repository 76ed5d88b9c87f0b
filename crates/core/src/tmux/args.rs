//! `Args`: the argument list of one tmux invocation, a command or a
//! sequence of commands, with free text protected from tmux's own
//! separator.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// Arguments of one tmux invocation. Free text goes through `text`, which
/// protects a trailing `;` (tmux would take it as a command separator);
/// `then` starts the next command of a sequence.
pub(super) struct Args {
    /// The arguments after the server's.
    pub(super) argv: Vec<OsString>,
    /// The first command, named in errors.
    pub(super) command: &'static str,
}

impl Args {
    /// The arguments of `command`, to be followed by its flags and text.
    pub(super) fn new(command: &'static str) -> Args {
        Args {
            argv: vec![command.into()],
            command,
        }
    }

    /// A flag (or any argument swarm spells itself), as it is.
    pub(super) fn flag(mut self, flag: &str) -> Args {
        self.argv.push(flag.into());
        self
    }

    /// Free text, its trailing `;` protected.
    pub(super) fn text(mut self, text: impl AsRef<OsStr>) -> Args {
        self.argv.push(escape_trailing_semicolon(text.as_ref()));
        self
    }

    /// Ends this command and runs the commands of `next` after it in the
    /// same invocation.
    pub(super) fn join(mut self, next: Args) -> Args {
        self.argv.push(";".into());
        self.argv.extend(next.argv);
        self
    }

    /// Ends this command and starts `command` in the same invocation.
    pub(super) fn then(mut self, command: &'static str) -> Args {
        self.argv.push(";".into());
        self.argv.push(command.into());
        self
    }
}

/// tmux treats an argument ending in `;` as "end of command" and one ending
/// in `\;` as a literal `;`, so a literal trailing `;` gets a backslash.
fn escape_trailing_semicolon(text: &OsStr) -> OsString {
    let bytes = text.as_bytes();
    match bytes.split_last() {
        Some((b';', head)) => {
            let mut out = head.to_vec();
            out.extend_from_slice(b"\\;");
            OsString::from_vec(out)
        }
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_semicolons_are_protected() {
        let esc = |s: &str| escape_trailing_semicolon(OsStr::new(s));
        assert_eq!(esc("a;"), "a\\;");
        assert_eq!(esc(";"), "\\;");
        assert_eq!(esc("a\\;"), "a\\\\;");
        assert_eq!(esc("a;b"), "a;b");
        assert_eq!(esc(""), "");
    }
}
