//! Where a repository's worktrees are, read from git's own files instead
//! of asking `git`: every swarm command finds its project root, and
//! spawning git for that would cost more than the whole of `swarm lock`.
//!
//! A linked worktree's `.git` is a file, `gitdir: <main>/.git/worktrees/<name>`;
//! that directory's `commondir` leads back to the main worktree's `.git`,
//! and its `gitdir` names the linked worktree's `.git` file (git's
//! repository layout, `gitrepository-layout(5)`).

use std::fs;
use std::path::{Path, PathBuf};

/// The most of a `.git` file, `commondir` or `gitdir` file read: each
/// holds one path.
const MAX_POINTER_BYTES: u64 = 8192;

/// The one path a pointer file holds (`gitdir: X` or `X`), taken from
/// `base` when relative; `None` when there is no such regular file.
fn read_pointer(file: &Path, prefix: &str, base: &Path) -> Option<PathBuf> {
    let meta = fs::symlink_metadata(file).ok()?;
    if !meta.is_file() || meta.len() > MAX_POINTER_BYTES {
        return None;
    }
    let text = fs::read_to_string(file).ok()?;
    let path = text.lines().next()?.strip_prefix(prefix)?.trim_end();
    if path.is_empty() {
        return None;
    }
    Some(base.join(path))
}

/// The main worktree of the linked worktree whose top directory is `top`
/// (symbolic links resolved), read from its `.git` file. `None` when
/// `top/.git` is no linked worktree's: a directory (a main worktree), a
/// submodule's file, or a worktree of a bare repository (which has no
/// main worktree to hold the state).
pub(crate) fn main_of_linked(top: &Path) -> Option<PathBuf> {
    let admin = read_pointer(&top.join(".git"), "gitdir: ", top)?;
    let common = read_pointer(&admin.join("commondir"), "", &admin)?;
    let common = common.canonicalize().ok()?;
    if common.file_name()? != ".git" {
        return None;
    }
    let main = common.parent()?;
    let dot_git = main.join(".git");
    if !fs::symlink_metadata(&dot_git).ok()?.is_dir() {
        return None;
    }
    Some(main.to_owned())
}

/// The linked worktree `dir` lies in, with its main worktree: the first
/// `.git` above `dir` (or in it) decides. `None` when that is a main
/// worktree's `.git` directory, or no linked worktree's file.
pub(crate) fn enclosing_linked(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    for candidate in dir.ancestors() {
        let Ok(meta) = fs::symlink_metadata(candidate.join(".git")) else {
            continue;
        };
        if !meta.is_file() {
            return None;
        }
        let main = main_of_linked(candidate)?;
        return Some((candidate.to_owned(), main));
    }
    None
}

/// The linked worktrees of the repository whose main worktree is `main`:
/// their top directories (symbolic links resolved), those that exist, in
/// the order of git's administrative directories.
pub(crate) fn linked_worktrees(main: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(main.join(".git").join("worktrees")) else {
        return Vec::new();
    };
    let mut admins: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    admins.sort();
    admins
        .iter()
        .filter_map(|admin| read_pointer(&admin.join("gitdir"), "", admin))
        .filter_map(|dot_git| dot_git.parent()?.canonicalize().ok())
        .filter(|top| top.is_dir())
        .collect()
}

/// The main worktree whose `.git` directory is in `dir` or above it, the
/// first `.git` deciding; `None` when that is a file or there is none.
fn main_above(dir: &Path) -> Option<&Path> {
    for candidate in dir.ancestors() {
        let Ok(meta) = fs::symlink_metadata(candidate.join(".git")) else {
            continue;
        };
        return meta.is_dir().then_some(candidate);
    }
    None
}

/// Every checkout of the project whose root is `root`: `root` first, then
/// the same directory in each linked worktree of its repository (a root
/// below the top of its repository has its counterpart there too). Just
/// `root` outside git or without linked worktrees.
pub(crate) fn checkouts(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_owned()];
    let Some(main) = main_above(root) else {
        return out;
    };
    let below = root.strip_prefix(main).unwrap_or(Path::new(""));
    out.extend(
        linked_worktrees(main)
            .into_iter()
            .map(|top| top.join(below))
            .filter(|c| c != root),
    );
    out
}

/// Of `checkouts`, the one `path` lies deepest in (a linked worktree kept
/// inside the main worktree counts as itself, not as part of the main
/// one).
pub(crate) fn checkout_of<'a>(checkouts: &'a [PathBuf], path: &Path) -> Option<&'a PathBuf> {
    checkouts
        .iter()
        .filter(|c| path.starts_with(c))
        .max_by_key(|c| c.as_os_str().len())
}

/// Lays out a main worktree at `main` with a linked worktree at `linked`
/// (git's administrative directory `name`), by hand as git lays them out:
/// for the tests of the code that reads them.
#[cfg(test)]
pub(crate) fn lay_out_linked(main: &Path, linked: &Path, name: &str) {
    let admin = main.join(".git/worktrees").join(name);
    for dir in [&admin, linked] {
        fs::create_dir_all(dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    }
    let write = |path: PathBuf, text: String| {
        fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    };
    write(
        linked.join(".git"),
        format!("gitdir: {}\n", admin.display()),
    );
    write(admin.join("commondir"), "../..\n".into());
    write(
        admin.join("gitdir"),
        format!("{}\n", linked.join(".git").display()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linked_worktree_leads_to_its_main_worktree() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canon");
        let main = base.join("proj");
        let inside = main.join(".swarm/worktrees/agent-0");
        let outside = base.join("elsewhere");
        lay_out_linked(&main, &inside, "agent-0");
        lay_out_linked(&main, &outside, "elsewhere");
        assert_eq!(main_of_linked(&inside), Some(main.clone()));
        assert_eq!(main_of_linked(&outside), Some(main.clone()));
        assert_eq!(main_of_linked(&main), None);
        fs::create_dir_all(inside.join("src/deep")).expect("mkdir");
        assert_eq!(
            enclosing_linked(&inside.join("src/deep")),
            Some((inside.clone(), main.clone()))
        );
        assert_eq!(enclosing_linked(&main.join("src")), None);
        assert_eq!(
            linked_worktrees(&main),
            vec![inside.clone(), outside.clone()]
        );
        assert_eq!(
            checkouts(&main),
            vec![main.clone(), inside.clone(), outside]
        );
        let all = checkouts(&main);
        assert_eq!(checkout_of(&all, &inside.join("src/a.py")), Some(&inside));
        assert_eq!(checkout_of(&all, &main.join("src/a.py")), Some(&main));
        assert_eq!(checkout_of(&all, &base), None);
    }

    #[test]
    fn relative_pointers_are_read_from_their_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let main = dir.path().canonicalize().expect("canon").join("p");
        let linked = main.join("wt");
        lay_out_linked(&main, &linked, "wt");
        fs::write(linked.join(".git"), "gitdir: ../.git/worktrees/wt\n").expect("write");
        fs::write(main.join(".git/worktrees/wt/gitdir"), "../../../wt/.git\n").expect("write");
        assert_eq!(main_of_linked(&linked), Some(main.clone()));
        assert_eq!(linked_worktrees(&main), vec![linked]);
    }

    #[test]
    fn submodules_and_plain_directories_are_no_linked_worktrees() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canon");
        // A submodule: its .git file leads to a directory without commondir.
        fs::create_dir_all(base.join(".git/modules/sub")).expect("mkdir");
        fs::create_dir_all(base.join("sub")).expect("mkdir");
        fs::write(base.join("sub/.git"), "gitdir: ../.git/modules/sub\n").expect("write");
        assert_eq!(main_of_linked(&base.join("sub")), None);
        assert_eq!(enclosing_linked(&base.join("sub")), None);
        // Garbage in a .git file.
        fs::create_dir_all(base.join("odd")).expect("mkdir");
        fs::write(base.join("odd/.git"), "not a pointer").expect("write");
        assert_eq!(main_of_linked(&base.join("odd")), None);
        // No repository at all: the root is its only checkout.
        let plain = base.join("plain");
        fs::create_dir_all(&plain).expect("mkdir");
        assert_eq!(checkouts(&base.join("odd")), vec![base.join("odd")]);
        assert_eq!(linked_worktrees(&plain), Vec::<PathBuf>::new());
    }
}
