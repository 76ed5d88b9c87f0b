//! Project-root detection, exactly as the Python tool does it (docs/FORMATS.md), so
//! both tools agree on which directory holds the state; except that a linked
//! git worktree is never a root of its own: its state is its main
//! worktree's, so the agents of one repository form one swarm whichever
//! checkout they work in (docs/guide/worktrees.md).

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use super::error::StoreError;
use crate::git::layout;

/// Names that mark a project root, in the order they are checked.
pub(crate) const MARKERS: [&str; 6] = [
    ".git",
    ".claudeswarm.yaml",
    "ACTIVE_AGENTS.json",
    ".agent_locks",
    "pyproject.toml",
    "package.json",
];

/// How many directories the marker search looks at: the start and 9 parents.
const SEARCH_DEPTH: usize = 10;

/// Where the root came from, for `doctor` and `config show`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootSource {
    /// `--root DIR` (or `--project-root`).
    Flag,
    /// `$CLAUDESWARM_ROOT`.
    Env,
    /// The nearest directory with this marker.
    Marker(&'static str),
    /// The nearest marker is in a linked worktree of a git repository: the
    /// root is the same directory in the repository's main worktree.
    LinkedWorktree {
        /// The marker found.
        marker: &'static str,
        /// The top of the linked worktree it was found in.
        worktree: PathBuf,
    },
    /// No marker within reach: the current directory.
    CurrentDir,
}

impl fmt::Display for RootSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RootSource::Flag => f.write_str("--root"),
            RootSource::Env => f.write_str("$CLAUDESWARM_ROOT"),
            RootSource::Marker(m) => write!(f, "marker {m}"),
            RootSource::LinkedWorktree { marker, worktree } => write!(
                f,
                "marker {marker} in the linked git worktree {}, whose main worktree holds the state",
                worktree.display()
            ),
            RootSource::CurrentDir => f.write_str("current directory (no marker found)"),
        }
    }
}

/// The project root: the directory that holds every state file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectRoot {
    /// Absolute, symlinks resolved where the directory exists.
    pub path: PathBuf,
    /// How it was found.
    pub source: RootSource,
}

impl ProjectRoot {
    /// Finds the root: `flag`, else `env` (`$CLAUDESWARM_ROOT`) when
    /// non-empty, else the first of the start directory and its 9 parents
    /// that holds a marker (inside a linked git worktree: the same
    /// directory of the main worktree, or its top when the main worktree
    /// lacks that directory), else `cwd` itself.
    ///
    /// A `.swarm` in the root that is a symlink leading out of the project
    /// is refused (`StoreError::StateDirOutside`): every state file swarm
    /// writes there would land outside it.
    pub fn detect(
        flag: Option<&Path>,
        env: Option<&OsStr>,
        cwd: &Path,
    ) -> Result<ProjectRoot, StoreError> {
        let root = Self::find(flag, env, cwd)?;
        check_state_dir(&root.path)?;
        Ok(root)
    }

    fn find(
        flag: Option<&Path>,
        env: Option<&OsStr>,
        cwd: &Path,
    ) -> Result<ProjectRoot, StoreError> {
        if let Some(dir) = flag {
            let path = resolve(dir, cwd);
            if !path.is_dir() {
                return Err(StoreError::BadRoot {
                    path: dir.to_owned(),
                });
            }
            return Ok(ProjectRoot {
                path,
                source: RootSource::Flag,
            });
        }
        if let Some(env) = env.filter(|e| !e.is_empty()) {
            return Ok(ProjectRoot {
                path: resolve(Path::new(env), cwd),
                source: RootSource::Env,
            });
        }
        let start = resolve(cwd, cwd);
        for dir in start.ancestors().take(SEARCH_DEPTH) {
            if let Some(marker) = MARKERS.iter().find(|m| dir.join(m).exists()) {
                return Ok(in_main_worktree(dir, marker));
            }
        }
        Ok(ProjectRoot {
            path: start,
            source: RootSource::CurrentDir,
        })
    }
}

/// The root for a marker found in `dir`: `dir` itself, unless `dir` lies
/// in a linked worktree; then its counterpart in the main worktree.
fn in_main_worktree(dir: &Path, marker: &'static str) -> ProjectRoot {
    let Some((worktree, main)) = layout::enclosing_linked(dir) else {
        return ProjectRoot {
            path: dir.to_owned(),
            source: RootSource::Marker(marker),
        };
    };
    let below = dir.strip_prefix(&worktree).unwrap_or(Path::new(""));
    let counterpart = main.join(below);
    ProjectRoot {
        path: if counterpart.is_dir() {
            counterpart
        } else {
            main
        },
        source: RootSource::LinkedWorktree { marker, worktree },
    }
}

/// Refuses a `.swarm` in `root` that is a symlink out of `root`; a real
/// directory, no `.swarm` at all, or a link to a directory inside the
/// project is fine. A dangling link is judged by where it points.
fn check_state_dir(root: &Path) -> Result<(), StoreError> {
    let link = root.join(".swarm");
    let is_link = std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(());
    }
    let target = std::fs::read_link(&link).map_err(|source| StoreError::Read {
        path: link.clone(),
        source,
    })?;
    let leads_to = link
        .canonicalize()
        .unwrap_or_else(|_| resolve(&target, root));
    // The root is resolved too (see `resolve`), so both compare alike.
    let inside = leads_to.starts_with(root) && leads_to != root;
    if inside {
        return Ok(());
    }
    Err(StoreError::StateDirOutside {
        link,
        target: leads_to,
        root: root.to_owned(),
    })
}

/// Absolute and symlink-free when it exists; absolute and lexically clean
/// when it does not (Python's non-strict `resolve()`).
fn resolve(path: &Path, cwd: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path)
    };
    absolute.canonicalize().unwrap_or_else(|_| {
        let mut out = PathBuf::new();
        for part in absolute.components() {
            match part {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                std::path::Component::CurDir => {}
                other => out.push(other),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(dir.path().join("proj/a/b/c")).expect("mkdir");
        dir
    }

    #[test]
    fn finds_the_nearest_marker_in_order() {
        let dir = tree();
        let proj = dir.path().join("proj").canonicalize().expect("canon");
        fs::write(proj.join("package.json"), "{}").expect("write");
        fs::create_dir(proj.join("a/.git")).expect("mkdir");
        let root = ProjectRoot::detect(None, None, &proj.join("a/b/c")).expect("detect");
        assert_eq!(root.path, proj.join("a"));
        assert_eq!(root.source, RootSource::Marker(".git"));
        let root = ProjectRoot::detect(None, None, &proj).expect("detect");
        assert_eq!(root.source, RootSource::Marker("package.json"));
    }

    #[test]
    fn search_stops_after_ten_directories() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canon");
        fs::create_dir(base.join(".git")).expect("mkdir");
        let deep = base.join("1/2/3/4/5/6/7/8/9/10");
        fs::create_dir_all(&deep).expect("mkdir");
        // 10 levels below the marker: start + 9 parents never reach it.
        let root = ProjectRoot::detect(None, None, &deep).expect("detect");
        assert_eq!(root.source, RootSource::CurrentDir);
        assert_eq!(root.path, deep);
        // 9 levels below: the tenth directory looked at is the root.
        let root = ProjectRoot::detect(None, None, deep.parent().expect("parent")).expect("detect");
        assert_eq!(root.path, base);
    }

    #[test]
    fn flag_beats_env_beats_markers() {
        let dir = tree();
        let proj = dir.path().join("proj").canonicalize().expect("canon");
        fs::create_dir(proj.join(".git")).expect("mkdir");
        let env = proj.join("a");
        let got = ProjectRoot::detect(None, Some(env.as_os_str()), &proj).expect("detect");
        assert_eq!((got.path, got.source), (env.clone(), RootSource::Env));
        let flag = proj.join("a/b");
        let got = ProjectRoot::detect(Some(&flag), Some(env.as_os_str()), &proj).expect("detect");
        assert_eq!((got.path, got.source), (flag, RootSource::Flag));
        // An empty env var is ignored, as in the original.
        let got = ProjectRoot::detect(None, Some(OsStr::new("")), &proj).expect("detect");
        assert_eq!(got.source, RootSource::Marker(".git"));
    }

    #[test]
    fn a_linked_worktree_leads_to_the_main_worktree() {
        let dir = tempfile::tempdir().expect("tempdir");
        let main = dir.path().canonicalize().expect("canon").join("proj");
        let linked = main.join(".swarm/worktrees/agent-0");
        layout::lay_out_linked(&main, &linked, "agent-0");
        fs::create_dir_all(linked.join("web/src")).expect("mkdir");
        fs::create_dir_all(main.join("web")).expect("mkdir");
        let root = ProjectRoot::detect(None, None, &linked.join("web/src")).expect("detect");
        assert_eq!(root.path, main);
        assert_eq!(
            root.source,
            RootSource::LinkedWorktree {
                marker: ".git",
                worktree: linked.clone()
            }
        );
        // A nearer marker maps to the same directory of the main worktree.
        fs::write(linked.join("web/package.json"), "{}").expect("write");
        let root = ProjectRoot::detect(None, None, &linked.join("web/src")).expect("detect");
        assert_eq!(root.path, main.join("web"));
        // ...or to its top when the main worktree lacks it.
        fs::create_dir_all(linked.join("new")).expect("mkdir");
        fs::write(linked.join("new/package.json"), "{}").expect("write");
        let root = ProjectRoot::detect(None, None, &linked.join("new")).expect("detect");
        assert_eq!(root.path, main);
        // --root is taken as given.
        let root = ProjectRoot::detect(Some(&linked), None, &main).expect("detect");
        assert_eq!((root.path, root.source), (linked, RootSource::Flag));
    }

    #[test]
    fn a_state_dir_linked_out_of_the_project_is_refused() {
        let dir = tree();
        let root = dir.path().join("proj").canonicalize().expect("canonical");
        let outside = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink(outside.path(), root.join(".swarm")).expect("symlink");
        let found = ProjectRoot::detect(None, None, &root);
        assert!(
            matches!(found, Err(StoreError::StateDirOutside { .. })),
            "{found:?}"
        );
        // Dangling, and pointing out through `..`.
        fs::remove_file(root.join(".swarm")).expect("unlink");
        std::os::unix::fs::symlink("../elsewhere", root.join(".swarm")).expect("symlink");
        let found = ProjectRoot::detect(None, None, &root);
        assert!(
            matches!(found, Err(StoreError::StateDirOutside { .. })),
            "{found:?}"
        );
        // Inside the project: fine.
        fs::remove_file(root.join(".swarm")).expect("unlink");
        fs::create_dir(root.join("state")).expect("mkdir");
        std::os::unix::fs::symlink("state", root.join(".swarm")).expect("symlink");
        assert!(ProjectRoot::detect(None, None, &root).is_ok());
    }

    #[test]
    fn a_missing_flag_directory_is_an_error() {
        let dir = tree();
        let err =
            ProjectRoot::detect(Some(Path::new("nope")), None, dir.path()).expect_err("missing");
        assert!(err.to_string().contains("nope"), "{err}");
    }
}
