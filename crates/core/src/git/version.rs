//! The git version, as `git version` prints it.

use std::fmt;

/// The oldest git whose `merge-tree --write-tree` can decide a merge
/// without touching any tree (docs/guide/worktrees.md).
pub(crate) const MERGE_TREE: GitVersion = GitVersion {
    major: 2,
    minor: 38,
    patch: 0,
};

/// A parsed `git version` answer: `git version 2.47.3`, also with a
/// vendor's tail (`2.39.2 (Apple Git-143)`, `2.40.1.windows.1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct GitVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch level (0 when not given).
    pub patch: u32,
}

impl GitVersion {
    /// Parses the output of `git version`; `None` when it is not git's.
    pub(crate) fn parse(output: &str) -> Option<GitVersion> {
        let rest = output.trim().strip_prefix("git version ")?;
        let number = rest.split_whitespace().next()?;
        let mut parts = number.split('.').map(|p| {
            let digits = p.find(|c: char| !c.is_ascii_digit()).unwrap_or(p.len());
            p[..digits].parse::<u32>().ok()
        });
        let major = parts.next()??;
        let minor = parts.next()??;
        let patch = parts.next().flatten().unwrap_or(0);
        Some(GitVersion {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for GitVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_git_prints() {
        let v = |s: &str| GitVersion::parse(s).map(|v| (v.major, v.minor, v.patch));
        assert_eq!(v("git version 2.47.3\n"), Some((2, 47, 3)));
        assert_eq!(v("git version 2.39.2 (Apple Git-143)"), Some((2, 39, 2)));
        assert_eq!(v("git version 2.40.1.windows.1"), Some((2, 40, 1)));
        assert_eq!(v("git version 2.38"), Some((2, 38, 0)));
        assert_eq!(v("git version 2.45.rc0"), Some((2, 45, 0)));
        assert_eq!(v("tmux 3.3a"), None);
        assert_eq!(v("git version x"), None);
    }

    #[test]
    fn merge_tree_needs_2_38() {
        let old = GitVersion::parse("git version 2.37.7").expect("parse");
        let new = GitVersion::parse("git version 2.38.0").expect("parse");
        assert!(old < MERGE_TREE && new >= MERGE_TREE);
    }
}
