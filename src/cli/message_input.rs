//! Where a message body comes from: the command line, `-` (stdin) or
//! `--file`. Bytes that are not UTF-8 are replaced, never rejected
//! silently; sizes are capped before anything is read into memory whole.

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::message::{self, MAX_CONTENT_BYTES};

/// Reads at most this much from stdin or a file (then reports "too long").
const READ_CAP: u64 = 4 * MAX_CONTENT_BYTES as u64;

/// The sanitised body from the words given, stdin (`-`) or a file.
pub fn content(words: &[String], file: Option<&Path>) -> Result<String> {
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
    message::clean_content(&raw).map_err(Error::Invalid)
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
        return Err(Error::Invalid(format!(
            "message content too long (more than {READ_CAP} bytes read from {source}; at most {MAX_CONTENT_BYTES} are allowed)"
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
