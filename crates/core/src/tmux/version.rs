//! The tmux version, as `tmux -V` prints it.

use std::fmt;

/// The oldest tmux swarm supports: pane options (`set-option -p`, which
/// label each pane with its agent id) arrived in tmux 3.0. The README's
/// install section names the same version (a test keeps them equal).
pub(crate) const MINIMUM: (u32, u32) = (3, 0);

/// A parsed `tmux -V` answer: `tmux 3.3a` is 3.3 with suffix `a`;
/// development builds (`tmux next-3.4`, `tmux master`) parse as what they
/// lead to, or as "newest" when no number is given.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Letter suffix (`a` in `3.3a`), empty when none.
    pub suffix: String,
}

impl Version {
    /// Parses the output of `tmux -V`; `None` when it is not tmux's format.
    pub fn parse(output: &str) -> Option<Version> {
        let rest = output.trim().strip_prefix("tmux ")?;
        if rest == "master" {
            return Some(Version {
                major: u32::MAX,
                minor: 0,
                suffix: String::new(),
            });
        }
        let rest = rest
            .strip_prefix("next-")
            .or_else(|| rest.strip_prefix("openbsd-"))
            .unwrap_or(rest);
        let (major, tail) = rest.split_once('.')?;
        let digits = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        Some(Version {
            major: major.parse().ok()?,
            minor: tail[..digits].parse().ok()?,
            suffix: tail[digits..].trim().to_owned(),
        })
    }

    /// True when this version is at least `major.minor`.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.major == u32::MAX {
            return f.write_str("master");
        }
        write!(f, "{}.{}{}", self.major, self.minor, self.suffix)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_readme_names_the_minimum_tmux_and_rust_versions() {
        let readme = &crate::support::repo::text("README.md");
        let (major, minor) = MINIMUM;
        let tmux = format!("tmux {major}.{minor} or newer");
        assert!(readme.contains(&tmux), "README should say {tmux:?}");
        let manifest = &crate::support::repo::text("Cargo.toml");
        let rust = manifest
            .lines()
            .find_map(|l| l.strip_prefix("rust-version = "))
            .map(|v| v.trim_matches('"'))
            .expect("rust-version in Cargo.toml");
        let rust = format!("Rust {rust} or newer");
        assert!(readme.contains(&rust), "README should say {rust:?}");
    }

    use super::*;

    #[test]
    fn parses_release_and_dev_versions() {
        let v = Version::parse("tmux 3.3a\n").expect("3.3a");
        assert_eq!((v.major, v.minor, v.suffix.as_str()), (3, 3, "a"));
        assert!(v.at_least(3, 2) && !v.at_least(3, 4));
        assert_eq!(v.to_string(), "3.3a");
        assert_eq!(Version::parse("tmux next-3.6").map(|v| v.minor), Some(6));
        assert!(Version::parse("tmux master").is_some_and(|v| v.at_least(9, 9)));
        assert_eq!(Version::parse("tmux 2.9").map(|v| v.major), Some(2));
    }

    #[test]
    fn rejects_other_output() {
        assert_eq!(Version::parse("screen 4.0"), None);
        assert_eq!(Version::parse("tmux"), None);
        assert_eq!(Version::parse("tmux x.y"), None);
    }
}
