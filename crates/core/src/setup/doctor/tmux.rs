//! Whether tmux is installed, new enough, and its server answers.

use crate::tmux::{MINIMUM_VERSION, TmuxError};

use super::report::{CheckOutcome, Subject};

/// How to install tmux, for the fix line.
const INSTALL_TMUX: &str =
    "install tmux (Debian/Ubuntu: `apt-get install tmux`, macOS: `brew install tmux`)";

/// Whether tmux is on `PATH` and at least the version swarm needs.
pub(super) fn tmux_installed(s: &Subject<'_>) -> Vec<CheckOutcome> {
    vec![match s.tmux.version() {
        Ok(v) if !v.at_least(MINIMUM_VERSION.0, MINIMUM_VERSION.1) => CheckOutcome::fail(
            "tmux",
            format!(
                "tmux {v} is installed, but swarm needs tmux {}.{} or newer",
                MINIMUM_VERSION.0, MINIMUM_VERSION.1
            ),
            "install a newer tmux (Debian/Ubuntu: `apt-get install tmux`, macOS: `brew install tmux`)",
        ),
        Ok(v) => CheckOutcome::ok("tmux", format!("tmux {v} is installed")),
        Err(TmuxError::NotInstalled) => CheckOutcome::fail(
            "tmux",
            "tmux is not installed (no `tmux` on PATH)",
            INSTALL_TMUX,
        ),
        Err(e) => CheckOutcome::fail(
            "tmux",
            format!("could not run `tmux -V`: {e}"),
            "check that `tmux -V` works in this shell",
        ),
    }]
}

/// Whether the server swarm would use answers, and its sessions.
pub(super) fn tmux_server(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "tmux server";
    let server = s.tmux.server();
    vec![match s.tmux.server_info() {
        Ok(info) => {
            let socket = if info.socket_path.is_empty() {
                String::new()
            } else {
                format!(", socket {}", info.socket_path)
            };
            CheckOutcome::ok(
                CHECK,
                format!(
                    "{server} answers: {} session{}{socket}",
                    info.sessions.len(),
                    if info.sessions.len() == 1 { "" } else { "s" }
                ),
            )
        }
        // Reported by the check above.
        Err(TmuxError::NotInstalled) => return Vec::new(),
        Err(TmuxError::NoServer { .. }) => CheckOutcome::warn(
            CHECK,
            format!("no tmux server is running on {server}"),
            "start one with `swarm launch N`, or point swarm at your server with --tmux-socket NAME|PATH",
        ),
        Err(e) => CheckOutcome::fail(
            CHECK,
            format!("{server} did not answer: {e}"),
            "check the server with `tmux list-sessions`; restart it if it hangs",
        ),
    }]
}
