//! Codex CLI's native channel: the app server swarm starts in each Codex
//! pane it launches or resumes (`pane`), the TUI running against it, and
//! a message posted as a turn of its own to the thread the TUI shows
//! (`post`), over JSON-RPC on a WebSocket on the server's Unix socket
//! (`rpc`, `protocol`).
//!
//! A pane has this channel when its Codex TUI runs against an app server
//! (`--remote unix://PATH`) listening on a socket in swarm's socket
//! directory (`socket`): a Codex pane swarm did not start has none, and
//! is typed into.

mod pane;
mod post;
mod protocol;
mod rpc;
mod socket;

use std::os::unix::net::UnixStream;
use std::path::PathBuf;

pub use pane::run as run_codex_pane;
use post::{Found, Posted, Taken, Urgency, find, post};

use super::{Channel, Confirmation, Post, Receipt};
pub(crate) use crate::agents::agent_matcher::is_codex_app_server as is_app_server;
use crate::agents::agent_matcher::runs_codex;
use crate::domain::message::Urgency as DomainUrgency;
use crate::log::record::ConfirmedBy;
use crate::support::private_socket;
use crate::support::sys::own_uid;

/// The hidden subcommand a Codex pane runs (`swarm codex-pane -- codex`).
pub const CODEX_PANE_COMMAND: &str = "codex-pane";

/// A pane's app server: where it listens, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// The path the TUI was told to connect to (in swarm's socket
    /// directory).
    pub path: PathBuf,
    /// The socket itself (Codex leaves a symlink at `path`).
    pub socket: PathBuf,
}

impl Endpoint {
    /// The app server the Codex TUI with command line `argv` runs
    /// against, checked and bound; why not when it has none (a Codex
    /// swarm did not start) or it cannot be trusted.
    pub(crate) fn of_tui(argv: &[String]) -> Result<Endpoint, String> {
        let Some(path) = remote_path(argv) else {
            return Err(
                "Codex CLI runs without an app server of swarm's (it was not started by `swarm launch --agent codex`)"
                    .into(),
            );
        };
        let dir = private_socket::directory();
        if !socket::is_pane_socket(&dir, &path) {
            return Err(format!(
                "its app server's socket {} is not one of swarm's ({})",
                path.display(),
                dir.display()
            ));
        }
        private_socket::check_directory(&dir, own_uid())
            .map_err(|e| format!("socket directory: {e}"))?;
        let socket = socket::check_socket(&path).map_err(|e| format!("app server socket: {e}"))?;
        UnixStream::connect(&socket)
            .map_err(|e| format!("its app server is not listening on {}: {e}", path.display()))?;
        Ok(Endpoint { path, socket })
    }
}

impl Endpoint {
    /// Posts `text` (which carries `marker`, the message's pane header)
    /// as message `msg_id`: a turn of its own, or into the running turn
    /// when `urgency` is urgent. What the app server's answer and events
    /// said of it comes back with the post.
    pub(crate) fn post(
        &self,
        msg_id: &str,
        marker: &str,
        text: &str,
        urgency: DomainUrgency,
    ) -> (Post, Confirmation) {
        let urgency = match urgency {
            DomainUrgency::Normal => Urgency::Normal,
            DomainUrgency::Urgent | DomainUrgency::Interrupt => Urgency::Urgent,
        };
        let state = match post(&self.socket, text, msg_id, urgency) {
            Posted::Refused(why) => return (Post::Refused(why), Confirmation::Unconfirmed),
            Posted::Accepted {
                confirmed: true, ..
            } => Confirmation::Delivered(ConfirmedBy::AppServer),
            Posted::Accepted {
                taken: Taken::Queued(_),
                ..
            } => Confirmation::Accepted,
            Posted::Accepted { .. } | Posted::Unknown(_) => Confirmation::Unconfirmed,
        };
        let receipt = Receipt {
            channel: Channel::AppServer,
            msg_id: msg_id.to_owned(),
            marker: marker.to_owned(),
            record: self.path.clone(),
            offset: 0,
            cut_short: false,
        };
        (Post::Accepted(receipt), state)
    }
}

/// What the app server at `receipt.record` (a pane's socket path) says
/// now of the message of `receipt`; `before` when it cannot tell.
pub(crate) fn look(receipt: &Receipt, before: Confirmation) -> Confirmation {
    let Ok(socket) = socket::check_socket(&receipt.record) else {
        return before;
    };
    match find(&socket, &receipt.msg_id) {
        Found::Delivered => Confirmation::Delivered(ConfirmedBy::AppServer),
        Found::Queued => Confirmation::Accepted,
        Found::Gone => Confirmation::Dropped,
        Found::Unknown(_) => before,
    }
}

/// The socket path of `codex ... --remote unix://PATH`; `None` for any
/// other command line.
pub(crate) fn remote_path(argv: &[String]) -> Option<PathBuf> {
    let (at, url) = argv.iter().enumerate().find_map(|(i, a)| {
        if a == "--remote" {
            argv.get(i + 1).map(|u| (i, u.as_str()))
        } else {
            a.strip_prefix("--remote=").map(|u| (i, u))
        }
    })?;
    if !runs_codex(argv, at) || is_app_server(argv) {
        return None;
    }
    let path = url.strip_prefix("unix://")?;
    (path.starts_with('/') && !path.split('/').any(|p| p == "..")).then(|| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_tui_command_line_names_its_server() {
        // As `ps` showed them in a pane (the npm wrapper and its binary).
        let wrapper = argv(
            "node /c/node_modules/.bin/codex --remote unix:///tmp/swarm-0/cx-0123456789abcdef.sock",
        );
        let binary = argv(
            "/c/vendor/x86_64-unknown-linux-musl/bin/codex resume --remote=unix:///tmp/s/a.sock --last",
        );
        let want = PathBuf::from("/tmp/swarm-0/cx-0123456789abcdef.sock");
        assert_eq!(remote_path(&wrapper), Some(want));
        assert_eq!(remote_path(&binary), Some(PathBuf::from("/tmp/s/a.sock")));
        for other in [
            "node /c/.bin/codex app-server --listen unix:///tmp/s/a.sock",
            "codex --remote ws://127.0.0.1:4000",
            "codex --remote unix://relative.sock",
            "codex --remote unix:///tmp/../etc/x.sock",
            "evil --remote unix:///tmp/s/a.sock",
            "codex --remote",
        ] {
            assert_eq!(remote_path(&argv(other)), None, "{other}");
        }
    }

    #[test]
    fn an_app_server_is_told_from_the_tui() {
        for server in [
            "node /c/node_modules/.bin/codex app-server --listen unix:///tmp/s/a.sock",
            "/c/vendor/x86_64-unknown-linux-musl/bin/codex app-server --listen unix:///tmp/s/a.sock",
        ] {
            assert!(is_app_server(&argv(server)), "{server}");
        }
        for other in [
            "node /c/.bin/codex --remote unix:///tmp/s/a.sock",
            "codex exec describe app-server",
            "vim app-server",
        ] {
            assert!(!is_app_server(&argv(other)), "{other}");
        }
    }

    #[test]
    fn a_codex_swarm_did_not_start_has_no_endpoint() {
        let why = Endpoint::of_tui(&argv("node /c/.bin/codex")).expect_err("an error");
        assert!(why.contains("without an app server"), "{why}");
        let why = Endpoint::of_tui(&argv("codex --remote unix:///tmp/elsewhere.sock"))
            .expect_err("an error");
        assert!(why.contains("not one of swarm's"), "{why}");
    }
}
