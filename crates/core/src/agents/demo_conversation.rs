//! The conversation the demo agent keeps (`swarm demo-agent
//! --conversations DIR --session-id ID`), one file per conversation id,
//! as a real agent keeps its own so that it can be resumed.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// The conversation the demo agent keeps, as a real agent keeps its own:
/// every submission appended to `<dir>/<id>.jsonl`, so that it can be
/// continued after a restart.
#[derive(Clone, Debug)]
pub struct Conversation<'a> {
    /// The directory of the conversations.
    pub dir: &'a Path,
    /// The conversation's id.
    pub id: &'a str,
    /// Continue it (it must exist), rather than start it (it must not).
    pub resume: bool,
}

impl Conversation<'_> {
    /// Opens the conversation's file; returns it and how many submissions
    /// it already holds.
    pub(super) fn open(&self) -> io::Result<(File, u64)> {
        let ok = !self.id.is_empty()
            && self.id.len() <= 64
            && self
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok {
            return Err(io::Error::other(format!(
                "invalid conversation id {:?}",
                self.id
            )));
        }
        let path = self.dir.join(format!("{}.jsonl", self.id));
        if self.resume {
            let earlier = std::fs::read(&path).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("no conversation {} to resume ({e})", self.id),
                )
            })?;
            let count = earlier.iter().filter(|b| **b == b'\n').count() as u64;
            Ok((OpenOptions::new().append(true).open(&path)?, count))
        } else {
            std::fs::create_dir_all(self.dir)?;
            let file = OpenOptions::new()
                .create_new(true)
                .append(true)
                .open(&path)
                .map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("conversation {} already exists ({e})", self.id),
                    )
                })?;
            Ok((file, 0))
        }
    }
}
