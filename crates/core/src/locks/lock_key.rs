//! `LockKey`: what a lock is on, in the one spelling every swarm process and
//! the Python tool agree on: a POSIX path relative to the project root,
//! without `./`, `//`, `..` or a trailing `/`, with symbolic links inside
//! the root resolved. Its SHA-256 names the lock file. A path in a linked
//! git worktree of the project is relative to that worktree's counterpart
//! of the root, so a file is one key in every checkout of the repository.

use std::fmt;
use std::fs;
use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use sha2::{Digest, Sha256};

use super::error::LockError;
use super::glob_model::GlobModel;
use crate::git::layout;

/// Characters that make a lock path a glob pattern.
const GLOB_CHARS: [char; 4] = ['*', '?', '[', '{'];

/// Whether a key names one path (and everything below it) or a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// A file or directory; a lock on it covers everything below it.
    Path,
    /// A glob pattern; a lock on it covers every path it matches (`*`
    /// crosses `/`, so `src/*` covers everything below `src`).
    Pattern,
}

/// A normalised lock path or pattern.
#[derive(Clone)]
pub struct LockKey {
    text: String,
    kind: KeyKind,
    /// globset's matcher for patterns (`None` for paths, and for a stored
    /// pattern globset rejects: then the conservative model decides).
    matcher: Option<GlobMatcher>,
    /// Whether the path is a directory, when known without looking (typed
    /// with a trailing `/`, or checked when it was resolved).
    dir: Option<bool>,
}

impl PartialEq for LockKey {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for LockKey {}

impl fmt::Debug for LockKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LockKey({:?}, {:?})", self.text, self.kind)
    }
}

impl fmt::Display for LockKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// True when `s` contains a glob metacharacter.
pub fn has_glob_chars(s: &str) -> bool {
    s.contains(GLOB_CHARS)
}

/// The lock file name for a stored `filepath`: lowercase hex SHA-256 of
/// its UTF-8 bytes plus `.lock` (docs/FORMATS.md).
pub fn lock_file_name(filepath: &str) -> String {
    let digest = Sha256::digest(filepath.as_bytes());
    let mut name = String::with_capacity(69);
    for byte in digest.iter() {
        name.push(char::from(HEX[usize::from(byte >> 4)]));
        name.push(char::from(HEX[usize::from(byte & 15)]));
    }
    name.push_str(".lock");
    name
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn compile(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(pattern)
        // `*` crosses `/`, as fnmatch does in the Python tool.
        .literal_separator(false)
        // Backslashes were turned into `/` before this point (parity).
        .backslash_escape(false)
        .build()?
        .compile_matcher())
}

/// The longest file or directory name Linux file systems take (NAME_MAX).
const MAX_NAME_BYTES: usize = 255;
/// The longest path the system takes, without its NUL (PATH_MAX - 1).
const MAX_PATH_BYTES: usize = 4095;

impl LockKey {
    /// Normalises what the user typed. Relative paths are taken from the
    /// current directory when it is inside the project (its root, or the
    /// root's counterpart in a linked git worktree), else from the project
    /// root. Existing components are resolved through symbolic links; the
    /// path must end up inside `root` (which is canonical) or one of those
    /// counterparts, and is keyed relative to the one it is in.
    pub fn resolve(raw: &str, root: &Path, cwd: &Path) -> Result<LockKey, LockError> {
        let invalid = |why: &str| LockError::InvalidPath {
            given: raw.to_owned(),
            why: why.to_owned(),
        };
        if raw.trim().is_empty() {
            return Err(invalid("the path is empty"));
        }
        if raw.contains('\0') {
            return Err(invalid("the path contains a NUL byte"));
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(invalid(&format!(
                "the path is {} bytes long; the system allows at most {MAX_PATH_BYTES}",
                raw.len()
            )));
        }
        // Parity with the Python validator (docs/FORMATS.md): `\` is a separator,
        // but `..\` style traversal is refused outright.
        if raw.contains("..\\") || raw.ends_with("\\..") {
            return Err(invalid("potentially dangerous path pattern (`..\\`)"));
        }
        let typed = raw.replace('\\', "/");
        let checkouts = layout::checkouts(root);
        let base = match layout::checkout_of(&checkouts, cwd) {
            Some(_) => cwd,
            None => root,
        };
        let resolved = resolve_links(base, Path::new(&typed));
        let Some(relative) = layout::checkout_of(&checkouts, &resolved)
            .and_then(|top| resolved.strip_prefix(top).ok())
        else {
            return Err(LockError::Outside {
                given: raw.to_owned(),
                resolved,
                root: root.to_owned(),
            });
        };
        let mut parts = Vec::new();
        for part in relative.components() {
            match part.as_os_str().to_str() {
                Some(s) => parts.push(s),
                None => return Err(invalid("the path is not valid UTF-8")),
            }
        }
        if let Some(long) = parts.iter().find(|p| p.len() > MAX_NAME_BYTES) {
            return Err(invalid(&format!(
                "the name {:?}... is {} bytes long; the system allows at most {MAX_NAME_BYTES} per file or directory name",
                long.chars().take(16).collect::<String>(),
                long.len()
            )));
        }
        let full = root.as_os_str().len() + 1 + parts.iter().map(|p| p.len() + 1).sum::<usize>();
        if full > MAX_PATH_BYTES {
            return Err(invalid(&format!(
                "the path would be {full} bytes long inside the project; the system allows at most {MAX_PATH_BYTES}"
            )));
        }
        if parts.is_empty() {
            return Err(LockError::WholeProject {
                given: raw.to_owned(),
            });
        }
        let text = parts.join("/");
        if has_glob_chars(&text) {
            let matcher = compile(&text).map_err(|e| LockError::InvalidPattern {
                given: raw.to_owned(),
                why: e.kind().to_string(),
            })?;
            return Ok(LockKey {
                text,
                kind: KeyKind::Pattern,
                matcher: Some(matcher),
                dir: None,
            });
        }
        let dir = typed.ends_with('/') || resolved.is_dir();
        Ok(LockKey {
            text,
            kind: KeyKind::Path,
            matcher: None,
            dir: Some(dir),
        })
    }

    /// The key of a `filepath` read from a lock file, normalised without
    /// touching the file system (the Python tool stores absolute paths and
    /// `..` as typed). `None` when it lies outside `root`.
    pub fn from_stored(filepath: &str, root: &Path) -> Option<LockKey> {
        let path = Path::new(filepath);
        let relative = if path.is_absolute() {
            path.strip_prefix(root).ok()?
        } else {
            path
        };
        let mut parts: Vec<&str> = Vec::new();
        for part in relative.components() {
            match part {
                Component::Normal(s) => parts.push(s.to_str()?),
                Component::ParentDir => {
                    parts.pop()?;
                }
                Component::CurDir => {}
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        if parts.is_empty() {
            return None;
        }
        let text = parts.join("/");
        if has_glob_chars(&text) {
            let matcher = compile(&text).ok();
            return Some(LockKey {
                text,
                kind: KeyKind::Pattern,
                matcher,
                dir: None,
            });
        }
        Some(LockKey {
            text,
            kind: KeyKind::Path,
            matcher: None,
            dir: None,
        })
    }

    /// The normalised text (what lock files store as `filepath`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Path or pattern.
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// The lock file name for this key.
    pub fn file_name(&self) -> String {
        lock_file_name(&self.text)
    }

    /// The proper ancestors, outermost first: `a`, `a/b` for `a/b/c`.
    pub fn ancestors(&self) -> impl Iterator<Item = &str> {
        self.text.match_indices('/').map(|(i, _)| &self.text[..i])
    }

    /// True when a lock on `self` and a lock on `other` cover a common
    /// path. A path covers itself and, when it is a directory, everything
    /// below it; a pattern covers the paths it matches. Exact for two
    /// paths and for a path against a pattern (globset decides what the
    /// pattern matches); conservative for two patterns. `root` is where
    /// to look whether a path is a directory, when that matters.
    pub fn overlaps(&self, other: &LockKey, root: &Path) -> bool {
        match (self.kind, other.kind) {
            (KeyKind::Path, KeyKind::Path) => {
                self.text == other.text
                    || is_below(&self.text, &other.text)
                    || is_below(&other.text, &self.text)
            }
            (KeyKind::Path, KeyKind::Pattern) => other.pattern_meets_path(self, root),
            (KeyKind::Pattern, KeyKind::Path) => self.pattern_meets_path(other, root),
            (KeyKind::Pattern, KeyKind::Pattern) => self.model().overlaps(&other.model()),
        }
    }

    /// True when a lock on `self` certainly covers everything `other`
    /// names: the same key, a directory above a path, or a pattern that
    /// matches a path. (Of two different patterns neither is said to
    /// cover the other.)
    pub fn covers(&self, other: &LockKey) -> bool {
        match (self.kind, other.kind) {
            (KeyKind::Path, KeyKind::Path) => {
                self.text == other.text || is_below(&other.text, &self.text)
            }
            (KeyKind::Pattern, KeyKind::Path) => match &self.matcher {
                Some(m) => m.is_match(&other.text),
                None => self.model().matches(&other.text),
            },
            _ => self.text == other.text,
        }
    }

    /// For a pattern `self`: it matches `path`, or `path` is a directory
    /// and the pattern can match something below it.
    fn pattern_meets_path(&self, path: &LockKey, root: &Path) -> bool {
        let matches = match &self.matcher {
            Some(m) => m.is_match(&path.text),
            None => self.model().matches(&path.text),
        };
        matches
            || (self
                .model()
                .overlaps(&GlobModel::literal(&path.text).subtree())
                && path.is_dir(root))
    }

    /// Whether this path is a directory: as typed or resolved, else as the
    /// file system says now (a path that does not exist is not one).
    fn is_dir(&self, root: &Path) -> bool {
        self.dir.unwrap_or_else(|| root.join(&self.text).is_dir())
    }

    fn model(&self) -> GlobModel {
        match self.kind {
            KeyKind::Path => GlobModel::literal(&self.text),
            KeyKind::Pattern => GlobModel::pattern(&self.text),
        }
    }
}

/// True when `inner` lies strictly below `outer`.
fn is_below(inner: &str, outer: &str) -> bool {
    inner.len() > outer.len() && inner.starts_with(outer) && inner.as_bytes()[outer.len()] == b'/'
}

/// Resolves `path` (relative to `base`, or absolute) like a non-strict
/// `realpath`: symbolic links of existing components are followed and
/// `..` applies to where they lead; the rest (components that do not exist
/// yet, glob patterns) is cleaned lexically. `base` is canonical.
fn resolve_links(base: &Path, path: &Path) -> PathBuf {
    let absolute = base.join(path);
    if !has_glob_chars(&path.to_string_lossy())
        && let Ok(real) = fs::canonicalize(&absolute)
    {
        return real;
    }
    let mut out = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        base.to_owned()
    };
    let mut physical = true;
    for part in path.components() {
        match part {
            Component::RootDir | Component::Prefix(_) => out = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                let candidate = out.join(name);
                if !physical || has_glob_chars(&name.to_string_lossy()) {
                    physical = false;
                    out = candidate;
                    continue;
                }
                match fs::canonicalize(&candidate) {
                    Ok(real) => out = real,
                    Err(_) => {
                        physical = false;
                        // A dangling link still says where it points: a
                        // link to a missing file outside the root must not
                        // pass as a path inside it.
                        out = match fs::read_link(&candidate) {
                            Ok(target) => lexical(&out.join(target)),
                            Err(_) => candidate,
                        };
                    }
                }
            }
        }
    }
    out
}

/// `.` and `..` removed without looking at the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        fs::create_dir_all(root.join("src/auth")).expect("mkdir");
        fs::write(root.join("src/a.py"), "").expect("write");
        (dir, root)
    }

    fn key(raw: &str, root: &Path) -> Result<LockKey, LockError> {
        LockKey::resolve(raw, root, root)
    }

    #[test]
    fn python_hash_of_the_spec_example() {
        assert_eq!(
            lock_file_name("src/a.py"),
            "4cb4854bf9d4ea6bf9cb31f4eda6b48b73b87992490f60aace407970d380db90.lock"
        );
    }

    #[test]
    fn spellings_of_one_path_give_one_key() {
        let (_d, root) = project();
        let abs = root.join("src/a.py");
        for raw in [
            "src/a.py",
            "./src/a.py",
            "src//a.py",
            "src/auth/../a.py",
            "src\\a.py",
            abs.to_str().expect("utf-8"),
        ] {
            assert_eq!(key(raw, &root).expect(raw).as_str(), "src/a.py", "{raw}");
        }
        assert_eq!(key("src/auth/", &root).expect("dir").as_str(), "src/auth");
        // From a subdirectory, relative paths start there.
        let sub = LockKey::resolve("a.py", &root, &root.join("src")).expect("sub");
        assert_eq!(sub.as_str(), "src/a.py");
        // From outside the project, they start at the root.
        let out = LockKey::resolve("src/a.py", &root, Path::new("/")).expect("outside cwd");
        assert_eq!(out.as_str(), "src/a.py");
    }

    #[test]
    fn a_file_is_one_key_in_every_worktree() {
        let (_d, root) = project();
        let linked = root.join(".swarm/worktrees/agent-0");
        layout::lay_out_linked(&root, &linked, "agent-0");
        fs::create_dir_all(linked.join("src")).expect("mkdir");
        let in_linked = |raw: &str, cwd: &Path| LockKey::resolve(raw, &root, cwd);
        for (raw, cwd) in [
            ("src/a.py", linked.clone()),
            ("a.py", linked.join("src")),
            ("../src/a.py", linked.join("src")),
        ] {
            assert_eq!(
                in_linked(raw, &cwd).expect(raw).as_str(),
                "src/a.py",
                "{raw}"
            );
        }
        let abs = linked.join("src/a.py");
        assert_eq!(
            in_linked(abs.to_str().expect("utf-8"), &root)
                .expect("abs")
                .as_str(),
            "src/a.py"
        );
        // The main worktree's own path from inside the linked one, too.
        let main_abs = root.join("src/a.py");
        assert_eq!(
            in_linked(main_abs.to_str().expect("utf-8"), &linked)
                .expect("main")
                .as_str(),
            "src/a.py"
        );
        // The top of a linked worktree is the whole project, as the root is.
        assert!(matches!(
            in_linked(".", &linked),
            Err(LockError::WholeProject { .. })
        ));
    }

    #[test]
    fn symlinks_inside_the_root_are_resolved() {
        let (_d, root) = project();
        std::os::unix::fs::symlink(root.join("src"), root.join("lib")).expect("symlink");
        assert_eq!(key("lib/a.py", &root).expect("link").as_str(), "src/a.py");
        assert_eq!(
            key("lib/new.py", &root).expect("new").as_str(),
            "src/new.py"
        );
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        let (_d, root) = project();
        for raw in ["../outside", "/etc/passwd", "src/../../x", "..\\x"] {
            let err = key(raw, &root).expect_err(raw);
            assert!(
                matches!(
                    err,
                    LockError::Outside { .. } | LockError::InvalidPath { .. }
                ),
                "{raw}: {err}"
            );
        }
        std::os::unix::fs::symlink("/etc", root.join("etc")).expect("symlink");
        assert!(matches!(
            key("etc/passwd", &root),
            Err(LockError::Outside { .. })
        ));
        std::os::unix::fs::symlink("/nonexistent/x", root.join("dangling")).expect("symlink");
        assert!(matches!(
            key("dangling", &root),
            Err(LockError::Outside { .. })
        ));
        assert!(matches!(
            key(".", &root),
            Err(LockError::WholeProject { .. })
        ));
        assert!(matches!(key("", &root), Err(LockError::InvalidPath { .. })));
        assert!(matches!(
            key("a\0b", &root),
            Err(LockError::InvalidPath { .. })
        ));
    }

    #[test]
    fn globs_are_hashed_as_written_after_normalising() {
        let (_d, root) = project();
        let k = key("./src//*.py", &root).expect("glob");
        assert_eq!((k.as_str(), k.kind()), ("src/*.py", KeyKind::Pattern));
        assert_eq!(k.file_name(), lock_file_name("src/*.py"));
        assert!(matches!(
            key("src/[a", &root),
            Err(LockError::InvalidPattern { .. })
        ));
    }

    #[test]
    fn stored_paths_are_normalised_lexically() {
        let root = Path::new("/p");
        let k = |s| LockKey::from_stored(s, root).map(|k| k.as_str().to_owned());
        assert_eq!(k("src/a.py").as_deref(), Some("src/a.py"));
        assert_eq!(k("/p/src/a.py").as_deref(), Some("src/a.py"));
        assert_eq!(k("./src/../src/a.py").as_deref(), Some("src/a.py"));
        assert_eq!(k("../x"), None);
        assert_eq!(k("/etc/passwd"), None);
    }

    #[test]
    fn overlap_rules() {
        let (_d, root) = project();
        let k = |s| LockKey::from_stored(s, &root).expect(s);
        let yes = |a, b| {
            assert!(
                k(a).overlaps(&k(b), &root) && k(b).overlaps(&k(a), &root),
                "{a} vs {b}"
            )
        };
        let no = |a, b| {
            assert!(
                !k(a).overlaps(&k(b), &root) && !k(b).overlaps(&k(a), &root),
                "{a} vs {b}"
            )
        };
        yes("src/a.py", "src/a.py");
        yes("src/auth", "src/auth/login.py");
        no("src/auth", "src/authz.py");
        no("src/a.py", "src/b.py");
        yes("src/*.py", "src/a.py");
        yes("src/*.py", "src/x/y.py");
        no("src/*.py", "src/a.rs");
        no("src/*.py", "src/*.rs");
        // src/auth is a directory: a pattern reaching inside it meets it.
        yes("src/auth", "src/*/login.py");
        // src/a.py is a file: nothing lies below it.
        no("src/a.py", "src/*/x");
        yes("src/**", "src/a/b/c");
        yes("src/*.py", "src/a*");
        no("src/*.py", "docs/*");
        yes("**/*.py", "src/a.py");
        // A directory typed with a trailing slash counts as one before it
        // exists.
        let new_dir = LockKey::resolve("src/new/", &root, &root).expect("dir");
        assert!(new_dir.overlaps(&k("src/*/x.py"), &root));
        let new_file = LockKey::resolve("src/new", &root, &root).expect("file");
        assert!(!new_file.overlaps(&k("src/*/x.py"), &root));
    }
}
