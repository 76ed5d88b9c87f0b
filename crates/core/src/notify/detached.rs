//! Handing one notification to a process of its own: a short command
//! (`swarm msg operator ...`) must neither wait for a webhook's retries
//! nor lose the notification by exiting first, so it starts `swarm
//! notify-event`, which delivers and then exits, and returns at once.

use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;

use crate::attention::event::FeedEntry;

/// The hidden subcommand that delivers one event read on its stdin.
pub const NOTIFY_EVENT_COMMAND: &str = "notify-event";

/// Starts this program as `swarm --root ROOT notify-event [--link LINK]`
/// in a process group of its own (so that a Ctrl-C in the terminal that
/// ran the short command does not stop it), with `entry` as JSON on its
/// stdin and its output discarded; returns once it is started and has
/// its input. The child reads the same config (the project's at `root`,
/// the user's, the environment's) and records its failures in the feed.
pub fn spawn_detached(entry: &FeedEntry, root: &Path, link: Option<&str>) -> io::Result<()> {
    let json = serde_json::to_vec(entry).map_err(io::Error::other)?;
    let mut child = command(&std::env::current_exe()?, root, link).spawn()?;
    let written = match child.stdin.take() {
        // Dropped at the end of the block: the child then reads its end.
        Some(mut stdin) => stdin.write_all(&json),
        None => Err(io::Error::other("the child has no stdin")),
    };
    // Reaped when it ends, should this process outlive it; if this
    // process exits first, the child is adopted and reaped by init.
    let _ = thread::Builder::new()
        .name("notify-event".into())
        .spawn(move || child.wait());
    written
}

/// The child's command line and plumbing: `exe` is this program.
fn command(exe: &Path, root: &Path, link: Option<&str>) -> Command {
    let mut command = Command::new(exe);
    command.arg("--root").arg(root).arg(NOTIFY_EVENT_COMMAND);
    if let Some(link) = link {
        command.arg("--link").arg(link);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_gets_the_same_project_and_the_link() {
        let c = command(
            Path::new("/bin/swarm"),
            Path::new("/p"),
            Some("http://localhost:8080/"),
        );
        let args: Vec<_> = c
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(c.get_program(), "/bin/swarm");
        assert_eq!(
            args,
            [
                "--root",
                "/p",
                "notify-event",
                "--link",
                "http://localhost:8080/"
            ]
        );
    }
}
