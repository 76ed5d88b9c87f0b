//! What swarm installed into other tools: the agents' hooks and the
//! git guard (the swarm they run must exist), and the MCP server entries
//! of the agents' project configuration.

use std::path::Path;

use super::report::{CheckOutcome, Subject};

/// swarm's agent hooks and git guard run swarm by name or by path:
/// warns when that command no longer exists (a rebuilt or moved binary),
/// since the hooks then do nothing.
pub(super) fn hook_commands(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "hooks";
    let mut found: Vec<(String, &str)> = Vec::new();
    for vendor in crate::hooks::VENDORS {
        for swarm in crate::hooks::install::installed_swarms(s.paths, vendor) {
            if !found.iter().any(|(f, _)| *f == swarm) {
                found.push((swarm, "swarm hooks install"));
            }
        }
    }
    if let Ok(dir) = crate::git::Git::new(s.paths.root()).hooks_dir()
        && let Ok(text) = std::fs::read_to_string(dir.join("pre-commit"))
        && let Some(swarm) = crate::guard::installed_swarm(&text)
    {
        found.push((swarm, "swarm guard install"));
    }
    found
        .into_iter()
        .map(|(swarm, reinstall)| {
            if crate::agents::launch::invocation_exists(&swarm) {
                CheckOutcome::ok(
                    CHECK,
                    format!("`{reinstall}` hooks run {swarm}, which exists"),
                )
            } else {
                CheckOutcome::warn(
                    CHECK,
                    format!("hooks run {swarm}, which no longer exists: they do nothing"),
                    format!("run `{reinstall}` again with the swarm you use now"),
                )
            }
        })
        .collect()
}

/// swarm's MCP server in the agents' project configuration: optional, but
/// where it is configured, the program it names must run.
pub(super) fn mcp_servers(s: &Subject<'_>) -> Vec<CheckOutcome> {
    use crate::setup::mcp_config::{self, Client, Installed, SERVER_ARGS};
    const CHECK: &str = "MCP server";
    let root = s.paths.root();
    let mut out = Vec::new();
    for client in Client::ALL {
        let file = client.config_file(root);
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let check = format!("{CHECK} ({})", client.name());
        match mcp_config::status(root, client) {
            Installed::No => {}
            Installed::Unreadable(why) => out.push(CheckOutcome::warn(
                &check,
                format!("{shown} cannot be read: {why}"),
                "fix the file by hand, then run `swarm mcp install` again",
            )),
            Installed::Yes {
                command,
                args,
                approved,
            } => {
                let runs = {
                    use std::os::unix::fs::PermissionsExt;
                    Path::new(&command).is_absolute()
                        && std::fs::metadata(&command)
                            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                };
                out.push(if !runs {
                    CheckOutcome::fail(
                        &check,
                        format!("{shown} starts {command:?}, which is not an executable file"),
                        "run `swarm mcp install` again with the swarm you use",
                    )
                } else if args != SERVER_ARGS {
                    CheckOutcome::warn(
                        &check,
                        format!("{shown} starts swarm with arguments {args:?}, not [\"mcp\"]"),
                        "run `swarm mcp install` again",
                    )
                } else if !approved {
                    CheckOutcome::warn(
                        &check,
                        format!(
                            "{shown} lists the server but .claude/settings.local.json does not \
                             approve it: Claude Code asks at start-up (and defaults to no)"
                        ),
                        "run `swarm mcp install --claude`",
                    )
                } else {
                    CheckOutcome::ok(&check, format!("{shown} starts {command} mcp"))
                });
            }
        }
    }
    if out.is_empty() {
        out.push(CheckOutcome::ok(
            CHECK,
            "not configured for any agent (optional: `swarm mcp install` lets agents use swarm as tools)",
        ));
    }
    out
}
