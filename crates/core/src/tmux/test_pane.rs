//! `CatPane`, for unit tests: a private tmux server (never the user's)
//! with one pane whose input is written to a file.

use std::process::Command;
use std::thread;
use std::time::Duration;

use super::args::Args;
use super::client::Tmux;
use super::pane::PaneId;
use super::server::Server;
use super::typing::unique_buffer_name;

/// A private tmux server with one pane running `cat` into a file (after
/// printing a `printf` format, when given), killed when dropped.
pub(super) struct CatPane {
    /// A client of the private server.
    pub(super) tmux: Tmux,
    /// The pane.
    pub(super) pane: PaneId,
    /// Where `cat` writes what the pane was given.
    pub(super) out: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl CatPane {
    /// A pane that shows nothing before `cat` starts.
    pub(super) fn start() -> CatPane {
        CatPane::showing("")
    }

    /// A pane that prints `format` (through `printf`), then runs `cat`.
    pub(super) fn showing(format: &str) -> CatPane {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("typed.txt");
        let name = format!("swarm-unit-{}-{}", std::process::id(), unique_buffer_name());
        let status = Command::new("tmux")
            .env_remove("TMUX")
            .args(["-L", &name, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", "80", "-y", "24"])
            .arg(format!("printf '{format}'; exec cat > '{}'", out.display()))
            .status()
            .expect("tmux");
        assert!(status.success());
        let tmux = Tmux::new(Server::Named(name));
        let (panes, _) = tmux.list_panes().expect("panes");
        let pane = panes[0].id.clone();
        CatPane {
            tmux,
            pane,
            out,
            _dir: dir,
        }
    }

    /// What `cat` has written once it holds `lines` lines.
    pub(super) fn wait_for_lines(&self, lines: usize) -> String {
        let started = std::time::Instant::now();
        loop {
            let text = std::fs::read_to_string(&self.out).unwrap_or_default();
            if text.lines().count() >= lines {
                return text;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "cat wrote {text:?}"
            );
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for CatPane {
    fn drop(&mut self) {
        let socket = self.tmux.server_info().map(|i| i.socket_path);
        let _ = self.tmux.exec(Args::new("kill-server"), None);
        if let Ok(socket) = socket {
            let _ = std::fs::remove_file(socket);
        }
    }
}
