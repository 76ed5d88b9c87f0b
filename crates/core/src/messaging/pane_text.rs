//! The text typed into a recipient's pane for a message: its header and
//! content, a retry mark, the ACK hint, and for a body too long to paste a
//! one-line pointer to `.swarm/messages/<id>.md`, written once per message.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::acks;
use crate::domain::message::Message;
use crate::error::{Error, Result};
use crate::store::ensure_private_dir;

use super::messenger::Messenger;

impl Messenger<'_> {
    /// The text typed into panes for a message: `header: content`,
    /// with `prefix` (a retry mark) before the content, the ACK hint on its
    /// own line when an answer is required, and for a long body a one-line
    /// pointer to `.swarm/messages/<id>.md` holding it.
    pub(crate) fn pane_text(
        &self,
        message: &Message,
        prefix: Option<&str>,
    ) -> Result<(String, Option<PathBuf>)> {
        let header = pane_header(message);
        let prefix = prefix.map(|p| format!("{p} ")).unwrap_or_default();
        let hint = if message.requires_ack {
            format!("\n{}", acks::hint(message.msg_id.as_str()))
        } else {
            String::new()
        };
        let content = &message.content;
        if content.len() <= self.settings.max_inline_bytes {
            return Ok((format!("{header}: {prefix}{content}{hint}"), None));
        }
        let path = self.write_body(message.msg_id.as_str(), &header, content)?;
        let lines = content.lines().count();
        Ok((
            format!(
                "{header}: {prefix}(long message, {} bytes in {lines} lines) read it in full: {}{hint}",
                content.len(),
                path.display()
            ),
            Some(path),
        ))
    }

    /// Writes a long body to `.swarm/messages/<id>.md` (once).
    fn write_body(&self, msg_id: &str, header: &str, content: &str) -> Result<PathBuf> {
        let dir = self.paths.message_bodies();
        let path = dir.join(body_file_name(msg_id));
        let write_err = |source| Error::Io {
            what: format!("write the long message to {}", path.display()),
            source,
        };
        ensure_private_dir(&dir).map_err(write_err)?;
        // One file per message id, written once: exclusive creation, so a
        // redelivery finds it in place and never rewrites it.
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(mut file) => file
                .write_all(format!("{header}\n\n{content}\n").as_bytes())
                .map_err(write_err)?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(write_err(e)),
        }
        Ok(path)
    }
}

/// The header typed before a message: its `Message::header` and the
/// short form of its id (`[agent-0][2026-11-21 14:30:15][QUESTION][#9c2c68bd]`),
/// so that the agent can answer it with `--reply-to 9c2c68bd`. It is also
/// what finds the message on screen.
pub(crate) fn pane_header(message: &Message) -> String {
    format!("{}[#{}]", message.header(), message.msg_id.short())
}

/// The file name of a long body: the message id when it is a plain name
/// (swarm's ids, the Python tool's UUIDs), else a digest of it, so that an
/// id from a log line edited by hand (`../x`) never names a file outside
/// `.swarm/messages/`.
fn body_file_name(msg_id: &str) -> String {
    let plain = !msg_id.is_empty()
        && msg_id.len() <= 64
        && msg_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if plain {
        format!("{msg_id}.md")
    } else {
        let digest = Sha256::digest(msg_id.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("id-{hex}.md")
    }
}

#[cfg(test)]
mod tests {
    use super::body_file_name;

    #[test]
    fn a_long_body_is_named_by_its_id_only_when_the_id_is_a_plain_name() {
        let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
        assert_eq!(body_file_name(uuid), format!("{uuid}.md"));
        for hostile in ["../../x", "a/b", "", ".", "..", "x\0y", &"a".repeat(65)] {
            let name = body_file_name(hostile);
            assert!(name.starts_with("id-") && name.ends_with(".md"), "{name}");
            assert!(!name.contains('/') && !name.contains(".."), "{name}");
        }
        assert_ne!(body_file_name("../x"), body_file_name("../y"));
    }
}
