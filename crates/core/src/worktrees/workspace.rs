//! A workspace for each agent launched with worktrees: its slot (0, 1,
//! ...) and a block of free ports, kept in `.swarm/workspaces.json`
//! (docs/FORMATS.md) and given to its pane as `SWARM_SLOT` and
//! `SWARM_PORT`; the files `.worktreeinclude` names (gitignored ones such
//! as `.env`) copied into a new worktree; and the worktree's own hooks,
//! which mark its commits with a `Swarm-Agent` trailer and run the
//! project's hooks as well.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::git::Git;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};

use super::error::WorktreeError;
use super::repository::{Repository, inside, worktree_path};

/// The file's layout version.
const VERSION: u32 = 1;
/// The first port of slot 0's block.
pub(crate) const PORT_BASE: u16 = 20_000;
/// The file in the project root that lists what to copy into a new
/// worktree.
pub(crate) const INCLUDE_FILE: &str = ".worktreeinclude";
/// The directory, in a linked worktree's private git directory, that
/// holds its hooks.
const HOOKS_DIR: &str = "swarm-hooks";
/// The hooks git runs that are passed on to the project's own.
const PASSED_ON: [&str; 16] = [
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "post-rewrite",
    "push-to-checkout",
    "pre-auto-gc",
    "post-index-change",
    "reference-transaction",
];

/// One agent's workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    /// The agent.
    pub agent: String,
    /// Its slot: the lowest not held by another agent's worktree.
    pub slot: u32,
    /// The first port of its block (`SWARM_PORT`).
    pub port: u16,
    /// How many ports the block has.
    pub ports: u16,
}

impl Workspace {
    /// The variables its pane and its setup command get.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("SWARM_AGENT".into(), self.agent.clone()),
            ("SWARM_SLOT".into(), self.slot.to_string()),
            ("SWARM_PORT".into(), self.port.to_string()),
        ]
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct WorkspaceDoc {
    version: u32,
    agents: Vec<Workspace>,
}

/// The recorded workspaces (for `agents --json`); a damaged or missing
/// file reads as none.
pub fn workspaces(paths: &Paths) -> Vec<Workspace> {
    match StateFile::new(paths.workspaces()).read_json::<WorkspaceDoc>() {
        Ok(Loaded::Valid(d)) => d.agents,
        _ => Vec::new(),
    }
}

/// Gives each of `agents` a slot and a block of `ports_per_agent` free
/// ports, keeping an agent's slot when it has one, and forgetting the
/// workspaces whose worktree is gone. One step under the file's lock.
pub(crate) fn assign(
    paths: &Paths,
    agents: &[String],
    ports_per_agent: u16,
) -> Result<Vec<Workspace>, WorktreeError> {
    let file = StateFile::new(paths.workspaces());
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut doc = match file.read_json::<WorkspaceDoc>() {
        Ok(Loaded::Valid(d)) => d,
        Ok(Loaded::Missing) => WorkspaceDoc::default(),
        Ok(Loaded::Corrupt(_)) | Err(StoreError::Corrupt { .. }) => {
            file.preserve(&lock)?;
            WorkspaceDoc::default()
        }
        Err(e) => return Err(e.into()),
    };
    doc.agents
        .retain(|w| agents.contains(&w.agent) || worktree_path(paths, &w.agent).is_dir());
    let ports = ports_per_agent.max(1);
    let mut out = Vec::new();
    for agent in agents {
        let kept = doc.agents.iter().position(|w| &w.agent == agent);
        let kept = kept.map(|i| doc.agents.remove(i));
        let slot = match &kept {
            Some(w) => w.slot,
            None => (0..)
                .find(|s| !doc.agents.iter().any(|w| w.slot == *s))
                .unwrap_or(0),
        };
        let taken: Vec<(u16, u16)> = doc.agents.iter().map(|w| (w.port, w.ports)).collect();
        let port = free_block(slot, ports, &taken).ok_or_else(|| {
            WorktreeError::QueueFailed(format!(
                "no block of {ports} free ports from {PORT_BASE} for {agent}"
            ))
        })?;
        let w = Workspace {
            agent: agent.clone(),
            slot,
            port,
            ports,
        };
        doc.agents.push(w.clone());
        out.push(w);
    }
    doc.agents.sort_by_key(|w| w.slot);
    doc.version = VERSION;
    let bytes = json::to_vec(&doc, Layout::Indent2).map_err(|source| StoreError::Encode {
        path: file.path().to_owned(),
        source,
    })?;
    file.write(&lock, &bytes)?;
    Ok(out)
}

/// The first block of `size` ports, from slot `slot`'s own block upward,
/// that overlaps no block in `taken` and whose every port can be bound on
/// the loopback address now.
fn free_block(slot: u32, size: u16, taken: &[(u16, u16)]) -> Option<u16> {
    let size32 = u32::from(size);
    let first = u32::from(PORT_BASE) + slot.checked_mul(size32)?;
    (0u32..)
        .map(|k| first + k * size32)
        .take_while(|start| start + size32 - 1 <= u32::from(u16::MAX))
        .filter_map(|start| u16::try_from(start).ok())
        .find(|&start| {
            let end = u32::from(start) + size32;
            let clear = taken.iter().all(|&(p, n)| {
                let (p, n) = (u32::from(p), u32::from(n));
                end <= p || p + n <= u32::from(start)
            });
            clear
                && (0..size).all(|i| {
                    start
                        .checked_add(i)
                        .is_some_and(|port| TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok())
                })
        })
}

/// One pattern of `.worktreeinclude` made safe: relative, no `..`.
fn include_pattern(line: &str) -> Option<String> {
    let p = line.trim().trim_start_matches('/').trim_end_matches('/');
    if p.is_empty() || p.starts_with('#') || p.starts_with('!') {
        return None;
    }
    let path = Path::new(p);
    let ok = path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && !p.chars().any(char::is_control);
    ok.then(|| p.to_owned())
}

/// Copies what `.worktreeinclude` in `root` names into `dest`: a path
/// (a file, or a directory with everything in it), or a glob matched
/// against the files and directories git ignores. Nothing already in
/// `dest` is replaced; links are not followed. Returns what was copied
/// and the lines that were skipped.
pub(crate) fn copy_included(
    root: &Path,
    dest: &Path,
) -> Result<(Vec<String>, Vec<String>), WorktreeError> {
    let Ok(text) = std::fs::read_to_string(root.join(INCLUDE_FILE)) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut copied = Vec::new();
    let mut skipped = Vec::new();
    let mut globs = GlobSetBuilder::new();
    let mut any_glob = false;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let Some(p) = include_pattern(t) else {
            skipped.push(t.to_owned());
            continue;
        };
        if p.contains(['*', '?', '[', '{']) {
            match Glob::new(&p) {
                Ok(g) => {
                    globs.add(g);
                    any_glob = true;
                }
                Err(_) => skipped.push(t.to_owned()),
            }
        } else {
            copy_path(root, dest, &p, &mut copied)?;
        }
    }
    if any_glob && let Ok(set) = globs.build() {
        // swarm's own directory holds state and the agents' worktrees.
        let own = Paths::new(root).swarm_dir();
        let own = own
            .strip_prefix(root)
            .unwrap_or(&own)
            .to_string_lossy()
            .into_owned();
        for entry in Git::at(root).ignored()? {
            let rel = entry.trim_end_matches('/');
            if rel == own || rel.starts_with(&format!("{own}/")) || rel.starts_with(".git/") {
                continue;
            }
            let name = rel.rsplit('/').next().unwrap_or(rel);
            if set.is_match(rel) || set.is_match(name) {
                copy_path(root, dest, rel, &mut copied)?;
            }
        }
    }
    copied.sort();
    copied.dedup();
    Ok((copied, skipped))
}

fn copy_path(
    root: &Path,
    dest: &Path,
    rel: &str,
    copied: &mut Vec<String>,
) -> Result<(), WorktreeError> {
    let from = root.join(rel);
    let to = dest.join(rel);
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| WorktreeError::Io { path, source }
    };
    let Ok(meta) = std::fs::symlink_metadata(&from) else {
        return Ok(());
    };
    // A directory above it may be a link out of the project.
    if !inside(root, &from) {
        return Ok(());
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(&from).map_err(io(&from))? {
            let entry = entry.map_err(io(&from))?;
            let name = entry.file_name();
            let child = format!("{rel}/{}", name.to_string_lossy());
            copy_path(root, dest, &child, copied)?;
        }
    } else if meta.is_file() && std::fs::symlink_metadata(&to).is_err() {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
            // A link the worktree holds must not send the copy elsewhere.
            if !inside(dest, parent) {
                return Ok(());
            }
        }
        std::fs::copy(&from, &to).map_err(io(&to))?;
        copied.push(rel.to_owned());
    }
    Ok(())
}

/// Quotes a path for a shell script.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Gives the worktree at `worktree` hooks of its own (`core.hooksPath` in
/// its `config.worktree`, under `extensions.worktreeConfig`), kept in its
/// private git directory so that they go with it: `commit-msg` adds the
/// `Swarm-Agent: <agent>` trailer after the project's own `commit-msg`
/// ran, and every other hook runs the project's own. The main worktree's
/// hooks are not changed.
pub(crate) fn install_hooks(
    repo: &Repository,
    worktree: &Path,
    agent: &str,
) -> Result<PathBuf, WorktreeError> {
    let theirs = repo.git().hooks_dir()?;
    let theirs = std::path::absolute(&theirs).unwrap_or(theirs);
    repo.git()
        .set_repo_config("extensions.worktreeConfig", "true")?;
    let wt = Git::at(worktree);
    let dir = wt.git_dir()?.join(HOOKS_DIR);
    std::fs::create_dir_all(&dir).map_err(|source| WorktreeError::Io {
        path: dir.clone(),
        source,
    })?;
    let theirs_q = sh_quote(&theirs.to_string_lossy());
    let header =
        "#!/bin/sh\n# Written by swarm for this agent's worktree only (README, Worktrees).\n";
    let mut scripts: Vec<(String, String)> = PASSED_ON
        .iter()
        .map(|name| {
            (
                (*name).to_owned(),
                format!(
                    "{header}hook={theirs_q}/{name}\nif [ -x \"$hook\" ]; then exec \"$hook\" \"$@\"; fi\nexit 0\n"
                ),
            )
        })
        .collect();
    scripts.push((
        "commit-msg".into(),
        format!(
            "{header}hook={theirs_q}/commit-msg\nif [ -x \"$hook\" ]; then \"$hook\" \"$@\" || exit $?; fi\n\
             exec git interpret-trailers --in-place --if-exists addIfDifferent --trailer {} \"$1\"\n",
            sh_quote(&format!("{}: {agent}", crate::git::AGENT_TRAILER))
        ),
    ));
    for (name, body) in scripts {
        write_executable(&dir.join(name), &body)?;
    }
    wt.set_worktree_config("core.hooksPath", &dir.to_string_lossy())?;
    Ok(dir)
}

fn write_executable(path: &Path, body: &str) -> Result<(), WorktreeError> {
    use std::os::unix::fs::PermissionsExt;
    let io = |source| WorktreeError::Io {
        path: path.to_owned(),
        source,
    };
    std::fs::write(path, body).map_err(io)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_patterns_stay_inside_the_project() {
        assert_eq!(include_pattern(".env").as_deref(), Some(".env"));
        assert_eq!(
            include_pattern("/config/local/").as_deref(),
            Some("config/local")
        );
        assert_eq!(include_pattern("*.local").as_deref(), Some("*.local"));
        for bad in ["", "# c", "../x", "a/../../b", "!x"] {
            assert_eq!(include_pattern(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn included_files_never_come_from_or_go_through_a_link_out() {
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret"), "s").expect("write");
        let root = tempfile::tempdir().expect("tempdir");
        let dest = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).expect("link");
        std::fs::write(root.path().join(".env"), "E").expect("write");
        std::fs::create_dir(root.path().join("conf")).expect("mkdir");
        std::fs::write(root.path().join("conf/local"), "L").expect("write");
        // The new worktree holds a link where a copied file would go.
        let elsewhere = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink(elsewhere.path(), dest.path().join("conf")).expect("link");
        std::fs::write(
            root.path().join(INCLUDE_FILE),
            "out/secret\n.env\nconf/local\n",
        )
        .expect("write");
        let (copied, skipped) = copy_included(root.path(), dest.path()).expect("copy");
        assert_eq!(copied, [".env"]);
        assert!(skipped.is_empty());
        assert!(!dest.path().join("out").exists());
        assert!(!elsewhere.path().join("local").exists());
    }

    #[test]
    fn blocks_avoid_taken_ports() {
        let a = free_block(0, 10, &[]).expect("a block");
        assert!(a >= PORT_BASE);
        let b = free_block(0, 10, &[(a, 10)]).expect("another block");
        assert!(b >= a + 10 || b + 10 <= a, "{a} {b}");
    }
}
