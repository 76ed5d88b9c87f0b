//! The interactive shells: programs that are never agents. Text typed into
//! a shell's pane runs as commands, so the config refuses a shell as an
//! agent command and the agent matcher never counts one as an agent.

/// Interactive shells, by program name.
pub(crate) const SHELLS: [&str; 14] = [
    "bash", "zsh", "sh", "dash", "fish", "ksh", "mksh", "tcsh", "csh", "ash", "nu", "elvish",
    "xonsh", "pwsh",
];

/// True when `program` (a name or path; a login shell's leading `-` and
/// the case are ignored) is an interactive shell.
pub(crate) fn is_shell(program: &str) -> bool {
    let base = program.rsplit('/').next().unwrap_or(program);
    let name = base.trim_start_matches('-').to_lowercase();
    SHELLS.contains(&name.as_str())
}

/// The config's complaint about `program` named as an agent command, when
/// it is a shell.
pub(crate) fn refusal(program: &str) -> Option<String> {
    is_shell(program).then(|| {
        format!(
            "{program:?} is a shell, never an agent: swarm would type messages into its pane, \
             where they run as commands"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shells_are_known_by_name_path_login_dash_and_case() {
        for s in ["bash", "/bin/zsh", "-bash", "FISH", "dash", "pwsh"] {
            assert!(is_shell(s), "{s}");
        }
        for s in ["claude", "codex", "bashful", "node", ""] {
            assert!(!is_shell(s), "{s}");
        }
    }
}
