//! Making the agents' worktrees before their panes start: one per agent id,
//! on its own branch from the main worktree's HEAD, reused when it exists;
//! each with its workspace (slot, ports), its own hooks, the files of
//! `.worktreeinclude` and then the project's setup command in each new one.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::store::{Paths, StateDir, ensure_private_dir};
use crate::support::sanitize;

use super::error::WorktreeError;
use super::repository::{Repository, branch_of, worktree_path};
use super::workspace::{self, Workspace};

/// How much of a failed setup command's output is kept for the report.
const SETUP_TAIL_LINES: usize = 12;

/// One agent's worktree, ready for its pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prepared {
    /// The agent id the worktree is named after.
    pub agent: String,
    /// Its top directory, where the agent's pane starts.
    pub path: PathBuf,
    /// Its branch, `swarm/<agent>`.
    pub branch: String,
    /// False when it existed already and was reused as it was.
    pub created: bool,
    /// What the setup command did in it (new worktrees only).
    pub setup: Option<SetupOutcome>,
    /// Its slot and ports.
    pub workspace: Workspace,
    /// Files `.worktreeinclude` named that were copied in (new worktrees
    /// only).
    pub included: Vec<String>,
    /// What the user should know (lines of `.worktreeinclude` skipped).
    pub warnings: Vec<String>,
}

/// What the setup command did in one new worktree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupOutcome {
    /// Whether it exited with 0.
    pub ok: bool,
    /// How it ended (`exit status 1`, `killed by signal 9`, or why it
    /// could not start).
    pub status: String,
    /// The last lines it printed (stderr, else stdout), sanitised; empty
    /// when it succeeded.
    pub output_tail: String,
}

/// Creates (or finds) the worktree of each agent in `agents`: a new one
/// on branch `swarm/<id>` from HEAD (or from that branch when it exists
/// already, keeping its commits), or the existing one, reused untouched.
/// Each gets its workspace (`ports_per_agent` ports) and its hooks; each
/// new one the files `.worktreeinclude` names. Then runs `setup` in each
/// new one, all at once; a failing setup is reported in its
/// `SetupOutcome`, never an error. Nothing of the main worktree is
/// touched but the repository's `extensions.worktreeConfig`.
pub fn prepare(
    repo: &Repository,
    paths: &Paths,
    agents: &[String],
    setup: Option<&str>,
    ports_per_agent: u16,
) -> Result<Vec<Prepared>, WorktreeError> {
    let head = repo.base()?.commit;
    let existing = repo.git().worktrees()?;
    // `.swarm/` is swarm's private directory; git would create it with
    // the default permissions.
    ensure_private_dir(&paths.worktrees_dir()).map_err(|source| WorktreeError::Io {
        path: paths.worktrees_dir(),
        source,
    })?;
    StateDir::new(paths.worktrees_dir())
        .create_new(Paths::WORKTREES_IGNORE, b"*\n")
        .map_err(|e| WorktreeError::Io {
            path: paths.worktrees_dir().join(Paths::WORKTREES_IGNORE),
            source: std::io::Error::other(e.to_string()),
        })?;
    let spaces = workspace::assign(paths, agents, ports_per_agent)?;
    let mut out = Vec::with_capacity(agents.len());
    for (agent, space) in agents.iter().zip(spaces) {
        let path = worktree_path(paths, agent);
        let branch = branch_of(agent);
        let created = if path.exists() {
            let ours = existing
                .iter()
                .any(|w| same_dir(&w.path, &path) && w.branch.as_deref() == Some(branch.as_str()));
            if !ours {
                return Err(WorktreeError::InTheWay { path, branch });
            }
            false
        } else {
            let start = match repo.git().commit_of(&format!("refs/heads/{branch}"))? {
                Some(_) => None,
                None => Some(head.as_str()),
            };
            repo.git().add_worktree(&path, &branch, start)?;
            true
        };
        workspace::install_hooks(repo, &path, agent)?;
        let (included, skipped) = if created {
            workspace::copy_included(repo.root(), &path)?
        } else {
            (Vec::new(), Vec::new())
        };
        let warnings = skipped
            .into_iter()
            .map(|line| {
                format!(
                    "{}: skipped {:?} (a path inside the project, or a glob, is expected)",
                    workspace::INCLUDE_FILE,
                    sanitize::one_line(&line)
                )
            })
            .collect();
        out.push(Prepared {
            agent: agent.clone(),
            path,
            branch,
            created,
            setup: None,
            workspace: space,
            included,
            warnings,
        });
    }
    if let Some(command) = setup {
        let root = repo.root();
        std::thread::scope(|scope| {
            let runs: Vec<_> = out
                .iter_mut()
                .filter(|p| p.created)
                .map(|p| scope.spawn(move || p.setup = Some(run_setup(command, root, p))))
                .collect();
            for run in runs {
                // A panicking setup thread leaves that outcome unset.
                let _ = run.join();
            }
        });
    }
    Ok(out)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Runs the setup command with `sh -c` in the new worktree, with
/// `SWARM_ROOT` (the project root), `SWARM_WORKTREE` and the workspace's
/// `SWARM_AGENT`, `SWARM_SLOT` and `SWARM_PORT` set.
fn run_setup(command: &str, root: &Path, prepared: &Prepared) -> SetupOutcome {
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(&prepared.path)
        .env("SWARM_ROOT", root)
        .envs(prepared.workspace.env())
        .env("SWARM_WORKTREE", &prepared.path)
        .stdin(Stdio::null())
        .output();
    match out {
        Err(e) => SetupOutcome {
            ok: false,
            status: format!("could not start sh: {e}"),
            output_tail: String::new(),
        },
        Ok(out) if out.status.success() => SetupOutcome {
            ok: true,
            status: out.status.to_string(),
            output_tail: String::new(),
        },
        Ok(out) => {
            let printed = if out.stderr.iter().any(|b| !b.is_ascii_whitespace()) {
                out.stderr
            } else {
                out.stdout
            };
            let text = String::from_utf8_lossy(&printed);
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(SETUP_TAIL_LINES)..].join("\n");
            SetupOutcome {
                ok: false,
                status: out.status.to_string(),
                output_tail: sanitize::message(&tail),
            }
        }
    }
}
