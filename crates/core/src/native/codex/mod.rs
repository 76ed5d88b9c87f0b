//! Codex CLI's native channel: the app server swarm starts in each Codex
//! pane it launches or resumes (`pane`), the TUI running against it, and
//! a message posted as a turn of its own to the thread the TUI shows
//! (`post`), over JSON-RPC on a WebSocket on the server's Unix socket
//! (`rpc`, `protocol`).
//!
//! A pane has this channel when its process tree holds a Codex app server
//! listening on a socket in swarm's socket directory (`socket`): a Codex
//! pane swarm did not start has none, and is typed into.

mod pane;
mod post;
mod protocol;
mod rpc;
mod socket;

use std::path::{Path, PathBuf};

pub use pane::run as run_pane;
pub use post::{Found, Posted, Taken, Urgency, find, post};

use crate::agents::agent_matcher::MAX_PROCESSES_PER_PANE;
use crate::agents::process::ProcessView;

/// The hidden subcommand a Codex pane runs (`swarm codex-pane -- codex`).
pub const PANE_COMMAND: &str = "codex-pane";

/// A pane's app server: where it listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The path the server was told to listen on (in swarm's socket
    /// directory).
    pub path: PathBuf,
    /// The socket itself (Codex leaves a symlink at `path`).
    pub socket: PathBuf,
}

impl Endpoint {
    /// The app server in the pane rooted at `pane_pid`, checked; why not
    /// when there is none or it cannot be trusted.
    pub(crate) fn find(view: &impl ProcessView, pane_pid: u32) -> Result<Endpoint, String> {
        let dir = socket::directory();
        let mut queue = std::collections::VecDeque::from([pane_pid]);
        let mut seen = 0;
        while let Some(pid) = queue.pop_front() {
            if let Some(path) = view.argv(pid).and_then(|a| listen_path(&a)) {
                if !socket::is_pane_socket(&dir, &path) {
                    return Err(format!(
                        "its app server listens outside swarm's socket directory ({})",
                        path.display()
                    ));
                }
                return Endpoint::at(&dir, path);
            }
            seen += 1;
            if seen + queue.len() < MAX_PROCESSES_PER_PANE {
                let room = MAX_PROCESSES_PER_PANE - seen - queue.len();
                queue.extend(view.children(pid).into_iter().take(room));
            }
        }
        Err("no app server in its pane (started without `swarm launch --agent codex`)".into())
    }

    fn at(dir: &Path, path: PathBuf) -> Result<Endpoint, String> {
        socket::check_directory(dir).map_err(|e| format!("socket directory: {e}"))?;
        let socket = socket::check_socket(&path).map_err(|e| format!("app server socket: {e}"))?;
        Ok(Endpoint { path, socket })
    }
}

/// The socket path of `codex app-server --listen unix://PATH` (the npm
/// wrapper's `node .../codex app-server ...` too); `None` for any other
/// command line.
pub(crate) fn listen_path(argv: &[String]) -> Option<PathBuf> {
    let at = argv.iter().position(|a| a == "app-server")?;
    let program = argv[..at].iter().any(|a| {
        let base = a.rsplit('/').next().unwrap_or(a);
        base == "codex" || base == "codex.js"
    });
    if !program {
        return None;
    }
    let rest = &argv[at + 1..];
    let url = rest.iter().enumerate().find_map(|(i, a)| {
        if a == "--listen" {
            rest.get(i + 1).map(String::as_str)
        } else {
            a.strip_prefix("--listen=")
        }
    })?;
    let path = url.strip_prefix("unix://")?;
    (path.starts_with('/') && !path.split('/').any(|p| p == "..")).then(|| PathBuf::from(path))
}

/// True for the command line of a Codex app server (not the agent a
/// person talks to, though it runs the same program).
pub(crate) fn is_app_server(argv: &[String]) -> bool {
    argv.iter().take(4).any(|a| a == "app-server")
        && argv.iter().take(3).any(|a| {
            let base = a.rsplit('/').next().unwrap_or(a);
            base == "codex" || base == "codex.js"
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_server_command_line_names_its_socket() {
        // As `ps` showed them in a pane (the npm wrapper and its binary).
        let wrapper = argv(
            "node /c/node_modules/.bin/codex app-server --listen unix:///tmp/swarm-0/cx-0123456789abcdef.sock",
        );
        let binary = argv(
            "/c/vendor/x86_64-unknown-linux-musl/bin/codex app-server --listen=unix:///tmp/s/a.sock",
        );
        let want = PathBuf::from("/tmp/swarm-0/cx-0123456789abcdef.sock");
        assert_eq!(listen_path(&wrapper), Some(want));
        assert_eq!(listen_path(&binary), Some(PathBuf::from("/tmp/s/a.sock")));
        assert!(is_app_server(&wrapper) && is_app_server(&binary));
        for other in [
            "node /c/.bin/codex --remote unix:///tmp/s/a.sock",
            "codex app-server --listen ws://127.0.0.1:4000",
            "codex app-server --listen unix://relative.sock",
            "codex app-server --listen unix:///tmp/../etc/x.sock",
            "evil app-server --listen unix:///tmp/s/a.sock",
            "codex app-server --listen",
        ] {
            assert_eq!(listen_path(&argv(other)), None, "{other}");
        }
        assert!(!is_app_server(&argv("node /c/.bin/codex --remote unix:///tmp/s/a.sock")));
    }
}
