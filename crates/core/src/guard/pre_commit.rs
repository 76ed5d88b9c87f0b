//! `PreCommitHook`: swarm's lines in the repository's git pre-commit hook.
//!
//! swarm adds one marked block right after the hook's `#!` line (so it
//! runs before anything that might `exit 0`) and never touches the rest; an
//! existing hook in another language is left alone with an explanation.
//! Uninstalling removes exactly that block, and the file too when swarm
//! created it and nothing else was added since.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::error::GuardError;

/// First line of swarm's block.
pub(crate) const BEGIN: &str = "# >>> swarm guard >>>";
/// Last line of swarm's block.
pub(crate) const END: &str = "# <<< swarm guard <<<";
/// Inside the block when swarm created the hook file.
const CREATED: &str = "# (swarm guard created this file)";
/// The `#!` line of a hook swarm creates.
const SHEBANG: &str = "#!/bin/sh";

/// What `install` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Installed {
    /// There was no hook: swarm created one.
    Created,
    /// swarm's block was added to an existing hook.
    Added,
    /// The block was there already (and now runs this swarm binary).
    AlreadyThere,
}

/// What `uninstall` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uninstalled {
    /// The block was removed and the rest of the hook kept.
    Removed,
    /// The block was removed, and with it the file swarm had created.
    RemovedFile,
    /// There was no block.
    NotInstalled,
}

/// The pre-commit hook of one repository.
#[derive(Clone, Debug)]
pub struct PreCommitHook {
    path: PathBuf,
}

/// swarm's block, running `swarm` (a shell word) when it still exists.
pub(crate) fn block(swarm: &str, created: bool) -> String {
    let mut b = format!(
        "{BEGIN}\n\
         # Added by `swarm guard install`; `swarm guard uninstall` removes it.\n\
         # Refuses a commit touching a file another agent has locked.\n\
         # Bypass it once with: SWARM_GUARD=off git commit ...\n"
    );
    if created {
        b.push_str(CREATED);
        b.push('\n');
    }
    b.push_str(&format!(
        "if [ \"${{SWARM_GUARD:-}}\" != off ]; then\n\
         \x20 if command -v {swarm} >/dev/null 2>&1; then\n\
         \x20   {swarm} guard check-commit || exit 1\n\
         \x20 else\n\
         \x20   echo \"swarm guard: \"{swarm}\" is gone, so this commit was not checked for locks (run swarm guard install again)\" >&2\n\
         \x20 fi\n\
         fi\n\
         {END}\n"
    ));
    b
}

/// The swarm command (a shell word) that the guard block in `text` runs.
pub(crate) fn installed_swarm(text: &str) -> Option<String> {
    let (_, inner, _) = split_block(text)?;
    inner.lines().find_map(|l| {
        l.trim()
            .strip_suffix(" guard check-commit || exit 1")
            .map(str::to_owned)
    })
}

/// True when a hook's first line makes it a POSIX-style shell script.
fn is_shell_script(first_line: &str) -> bool {
    let Some(command) = first_line.strip_prefix("#!") else {
        return false;
    };
    let mut words = command.split_whitespace();
    let mut program = words.next().unwrap_or_default();
    if program.rsplit('/').next() == Some("env") {
        program = words.find(|w| !w.starts_with('-')).unwrap_or_default();
    }
    matches!(
        program.rsplit('/').next(),
        Some("sh" | "bash" | "dash" | "zsh" | "ksh" | "ash")
    )
}

/// The hook text with swarm's block in it (replacing an older block).
pub(crate) fn with_block(
    existing: Option<&str>,
    swarm: &str,
    path: &Path,
) -> Result<String, GuardError> {
    let Some(text) = existing else {
        return Ok(format!("{SHEBANG}\n{}", block(swarm, true)));
    };
    if let Some((before, inner, after)) = split_block(text) {
        let created = inner.contains(CREATED);
        return Ok(format!("{before}{}{after}", block(swarm, created)));
    }
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    if !is_shell_script(first) {
        return Err(GuardError::ForeignHook {
            path: path.to_owned(),
            first_line: first.chars().take(80).collect(),
        });
    }
    Ok(format!("{first}\n{}{rest}", block(swarm, false)))
}

/// The hook text without swarm's block: `None` when there is no block,
/// `Some(None)` when nothing of the file would be left but what swarm
/// created.
pub(crate) fn without_block(text: &str) -> Option<Option<String>> {
    let (before, inner, after) = split_block(text)?;
    let rest = format!("{before}{after}");
    if inner.contains(CREATED) && rest.trim() == SHEBANG {
        return Some(None);
    }
    Some(Some(rest))
}

/// Splits `text` into what comes before swarm's block, the block (with
/// its marker lines) and what comes after it.
fn split_block(text: &str) -> Option<(&str, &str, &str)> {
    let start = text
        .match_indices(BEGIN)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n')?;
    let end_marker = start + text[start..].find(END)?;
    let end = text[end_marker..]
        .find('\n')
        .map_or(text.len(), |n| end_marker + n + 1);
    Some((&text[..start], &text[start..end], &text[end..]))
}

impl PreCommitHook {
    /// The `pre-commit` file in `hooks_dir`.
    pub fn new(hooks_dir: &Path) -> PreCommitHook {
        PreCommitHook {
            path: hooks_dir.join("pre-commit"),
        }
    }

    /// The hook file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds swarm's block (running `swarm`, a shell-quoted command).
    pub fn install(&self, swarm: &str) -> Result<Installed, GuardError> {
        let existing = self.read()?;
        let new = with_block(existing.as_deref(), swarm, &self.path)?;
        let outcome = match &existing {
            None => Installed::Created,
            Some(old) if split_block(old).is_some() => Installed::AlreadyThere,
            Some(_) => Installed::Added,
        };
        if existing.as_deref() != Some(new.as_str()) {
            self.write(&new)?;
        }
        Ok(outcome)
    }

    /// Removes swarm's block, and the file when swarm created it and
    /// nothing else is in it.
    pub fn uninstall(&self) -> Result<Uninstalled, GuardError> {
        let Some(text) = self.read()? else {
            return Ok(Uninstalled::NotInstalled);
        };
        match without_block(&text) {
            None => Ok(Uninstalled::NotInstalled),
            Some(None) => {
                fs::remove_file(&self.path).map_err(|source| self.io("remove", source))?;
                Ok(Uninstalled::RemovedFile)
            }
            Some(Some(rest)) => {
                self.write(&rest)?;
                Ok(Uninstalled::Removed)
            }
        }
    }

    fn read(&self) -> Result<Option<String>, GuardError> {
        match fs::read(&self.path) {
            Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(self.io("read", source)),
        }
    }

    /// Replaces the file atomically, keeping its mode (0755 when new).
    fn write(&self, text: &str) -> Result<(), GuardError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(|source| self.io("create the directory of", source))?;
        let mode = fs::metadata(&self.path)
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0o755);
        let mut temp = tempfile::Builder::new()
            .prefix(".pre-commit.swarm-")
            .tempfile_in(dir)
            .map_err(|source| self.io("write", source))?;
        temp.write_all(text.as_bytes())
            .and_then(|()| {
                temp.as_file()
                    .set_permissions(fs::Permissions::from_mode(mode))
            })
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|source| self.io("write", source))?;
        temp.persist(&self.path)
            .map_err(|e| self.io("write", e.error))?;
        Ok(())
    }

    fn io(&self, what: &'static str, source: io::Error) -> GuardError {
        GuardError::Io {
            what,
            path: self.path.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWARM: &str = "'/usr/bin/swarm'";

    #[test]
    fn a_new_hook_is_created_and_removed_whole() {
        let text = with_block(None, SWARM, Path::new("h")).expect("new");
        assert!(text.starts_with("#!/bin/sh\n# >>> swarm guard >>>\n"));
        assert_eq!(without_block(&text), Some(None));
    }

    #[test]
    fn an_existing_shell_hook_keeps_every_line() {
        let old = "#!/usr/bin/env bash\nset -e\nnpm test\nexit 0\n";
        let text = with_block(Some(old), SWARM, Path::new("h")).expect("add");
        // The block runs first, before the hook's own `exit 0`.
        assert!(text.starts_with("#!/usr/bin/env bash\n# >>> swarm guard >>>"));
        assert!(text.ends_with("# <<< swarm guard <<<\nset -e\nnpm test\nexit 0\n"));
        // Installing again replaces the block rather than adding another.
        let again = with_block(Some(&text), "'/opt/swarm'", Path::new("h")).expect("again");
        assert_eq!(again.matches(BEGIN).count(), 1);
        assert!(again.contains("'/opt/swarm' guard check-commit"));
        assert_eq!(without_block(&again), Some(Some(old.to_owned())));
    }

    #[test]
    fn a_hook_swarm_created_and_someone_extended_is_kept() {
        let created = with_block(None, SWARM, Path::new("h")).expect("new");
        let extended = format!("{created}make lint\n");
        assert_eq!(
            without_block(&extended),
            Some(Some("#!/bin/sh\nmake lint\n".into()))
        );
    }

    #[test]
    fn hooks_in_other_languages_are_refused() {
        for first in ["#!/usr/bin/env python3", "#!/usr/bin/node", "no shebang"] {
            let old = format!("{first}\nprint(1)\n");
            let err = with_block(Some(&old), SWARM, Path::new("h")).expect_err(first);
            assert!(matches!(err, GuardError::ForeignHook { .. }), "{first}");
        }
        assert!(is_shell_script("#!/bin/sh"));
        assert!(is_shell_script("#!/usr/bin/env -S bash -e"));
        assert!(is_shell_script("#! /bin/dash"));
    }

    #[test]
    fn text_without_a_block_is_left_alone() {
        assert_eq!(without_block("#!/bin/sh\necho hi\n"), None);
    }
}
