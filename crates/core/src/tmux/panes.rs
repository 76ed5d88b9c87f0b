//! What swarm asks of and writes on panes: listing them, reading and
//! writing the `@swarm_*` labels, a pane's foreground program, a format
//! expanded for a target, and telling the person at a pane something.

use super::args::Args;
use super::client::Tmux;
use super::error::TmuxError;
use super::pane::{LIST_PANES_FORMAT, Pane, PaneId, parse_list_panes};

/// What to label one pane with: its agent id, and which project gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneLabel {
    /// The pane.
    pub pane: PaneId,
    /// The agent id (`agent-3`); also becomes the pane title.
    pub agent: String,
    /// A short fingerprint of the project root (see `store::Paths`).
    pub project: String,
}

impl Tmux {
    /// Every pane of the server (`list-panes -a`), in tmux's order, plus a
    /// note for each output line that could not be parsed.
    pub fn list_panes(&self) -> Result<(Vec<Pane>, Vec<String>), TmuxError> {
        let out = self.exec(
            Args::new("list-panes")
                .flag("-a")
                .flag("-F")
                .text(LIST_PANES_FORMAT),
            None,
        );
        match out {
            Ok(out) => Ok(parse_list_panes(&out)),
            // A server whose last session just closed answers this while
            // it exits: it has no panes.
            Err(TmuxError::Failed { stderr, .. }) if no_sessions(&stderr) => {
                Ok((Vec::new(), Vec::new()))
            }
            Err(e) => Err(e),
        }
    }

    /// The `@swarm_agent` and `@swarm_project` labels of one pane.
    pub fn pane_labels(
        &self,
        pane: &PaneId,
    ) -> Result<(Option<String>, Option<String>), TmuxError> {
        let out = self.exec(
            Args::new("display-message")
                .flag("-p")
                .flag("-t")
                .text(pane.as_str())
                .text("#{@swarm_agent}\x1f#{@swarm_project}"),
            None,
        )?;
        let line = out.strip_suffix('\n').unwrap_or(&out);
        let (agent, project) = line.split_once('\x1f').unwrap_or((line, ""));
        let some = |s: &str| Some(s.to_owned()).filter(|s| !s.is_empty());
        Ok((some(agent), some(project)))
    }

    /// The pid of a pane's root process and the name of the program in its
    /// foreground (`#{pane_current_command}`, which tmux finds on every
    /// platform it runs on).
    pub(crate) fn pane_command(&self, pane: &PaneId) -> Result<(u32, String), TmuxError> {
        const COMMAND: &str = "display-message";
        let out = self.exec(
            Args::new(COMMAND)
                .flag("-p")
                .flag("-t")
                .text(pane.as_str())
                .text("#{pane_pid}\x1f#{pane_current_command}"),
            None,
        )?;
        let line = out.strip_suffix('\n').unwrap_or(&out);
        let (pid, command) = line.split_once('\x1f').unwrap_or((line, ""));
        let pid = pid.parse().map_err(|_| TmuxError::BadOutput {
            command: COMMAND.into(),
            detail: format!("no pane pid in {line:?}"),
        })?;
        Ok((pid, command.to_owned()))
    }

    /// Writes agent ids into panes (`@swarm_agent`, `@swarm_project` and the
    /// pane title), all in one tmux call.
    pub fn label_panes(&self, labels: &[PaneLabel]) -> Result<(), TmuxError> {
        let Some((first, rest)) = labels.split_first() else {
            return Ok(());
        };
        let mut args = Self::label_args(Args::new("set-option"), first);
        for label in rest {
            args = Self::label_args(args.then("set-option"), label);
        }
        self.exec(args, None).map(drop)
    }

    /// The commands that label one pane, after `args` (which ends in a
    /// `set-option` waiting for its arguments).
    fn label_args(args: Args, label: &PaneLabel) -> Args {
        let pane = label.pane.as_str();
        args.flag("-p")
            .flag("-t")
            .text(pane)
            .flag("--")
            .text("@swarm_agent")
            .text(&label.agent)
            .then("set-option")
            .flag("-p")
            .flag("-t")
            .text(pane)
            .flag("--")
            .text("@swarm_project")
            .text(&label.project)
            .then("select-pane")
            .flag("-t")
            .text(pane)
            .flag("-T")
            .text(&label.agent)
    }

    /// Tells the person at a pane something in the status line of the
    /// clients showing it (`display-message`, for `seconds`), and sets the
    /// pane option `@swarm_held` to `held` (a count, for status formats;
    /// empty unsets it). One tmux call. `text` must already be sanitised;
    /// `#` is doubled so tmux shows it instead of expanding a format.
    pub fn notify_pane(&self, target: &PaneId, text: &str, held: usize) -> Result<(), TmuxError> {
        let shown = text.replace('#', "##");
        let args = Args::new("set-option")
            .flag("-p")
            .flag("-t")
            .text(target.as_str());
        let args = if held == 0 {
            args.flag("-u").text("@swarm_held")
        } else {
            args.text("@swarm_held").text(held.to_string())
        };
        let args = if shown.is_empty() {
            args
        } else {
            args.then("display-message")
                .flag("-d")
                .text("8000")
                .flag("-t")
                .text(target.as_str())
                .flag("--")
                .text(&shown)
        };
        self.exec(args, None).map(drop)
    }

    /// Expands a format for a target (`display-message -p`).
    pub fn display(&self, target: &str, format: &str) -> Result<String, TmuxError> {
        let out = self.exec(
            Args::new("display-message")
                .flag("-p")
                .flag("-t")
                .text(target)
                .text(format),
            None,
        )?;
        Ok(out.strip_suffix('\n').unwrap_or(&out).to_owned())
    }
}

/// tmux's words for "this server has no session to look in".
fn no_sessions(stderr: &str) -> bool {
    let lower = stderr.to_lowercase();
    lower.contains("no current target") || lower.contains("no sessions")
}
