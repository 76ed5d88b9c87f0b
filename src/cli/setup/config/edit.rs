//! `swarm config edit`: open the config file in the user's editor
//! (creating it with the defaults first when there is none), then check
//! what was saved. The editor is run directly, never through a shell.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use swarm_core::agents::launch::find_on_path;
use swarm_core::config;
use swarm_core::domain::validate;
use swarm_core::{Error, ExitCode, Result};

use super::file_arg::absolute;
use crate::cli::context::Context;
use crate::cli::output::Output;

/// Editors tried, in order, when `$EDITOR` is unset or unusable.
const FALLBACK_EDITORS: [&str; 4] = ["vim", "vi", "nano", "emacs"];

/// Arguments of `swarm config edit`.
#[derive(Debug, Args)]
pub(super) struct EditArgs {
    /// Edit this file instead of the one found from the project root
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

/// Edits, then validates.
pub(super) fn run(ctx: &Context, args: &EditArgs) -> Result<ExitCode> {
    let path = match &args.file {
        Some(f) => absolute(f)?,
        None => config::find(ctx.paths.root())
            .unwrap_or_else(|| ctx.paths.root().join(config::DEFAULT_CONFIG_FILE)),
    };
    if !path.exists() {
        config::write_template(&path, false)?;
        ctx.out.print(&format!(
            "No config file yet: created {} with the defaults.\n",
            path.display()
        ))?;
    }
    let editor = choose_editor(&ctx.out, std::env::var("EDITOR").ok().as_deref())?;
    let status = Command::new(&editor[0])
        .args(&editor[1..])
        .arg(&path)
        .status()
        .map_err(|source| Error::Io {
            what: format!("run the editor {}", editor[0].display()),
            source,
        })?;
    if !status.success() {
        return Err(Error::EditorFailed {
            editor: editor[0].display().to_string(),
            status: match status.code() {
                Some(code) => format!("status {code}"),
                None => "a signal".into(),
            },
            path,
        });
    }
    let loaded = config::load_with(Some(&path), &config::process_env())?;
    for warning in &loaded.warnings {
        ctx.out.warn(warning);
    }
    ctx.out.print(&format!(
        "{} saved {}: every key known, every value in range\n",
        ctx.out.good("✓"),
        path.display()
    ))?;
    Ok(ExitCode::Success)
}

/// The editor command: `$EDITOR` when it passes `validate::editor_command`
/// and its program exists, else the first fallback on `PATH`. Why
/// `$EDITOR` was passed over is said as a warning.
fn choose_editor(out: &Output, env: Option<&str>) -> Result<Vec<PathBuf>> {
    if let Some(raw) = env.filter(|e| !e.trim().is_empty()) {
        match validate::editor_command(raw) {
            Err(why) => out.warn(&format!("ignoring $EDITOR: {why}")),
            Ok(words) => match program(&words[0]) {
                Some(p) => {
                    let mut cmd = vec![p];
                    cmd.extend(words[1..].iter().map(PathBuf::from));
                    return Ok(cmd);
                }
                None => out.warn(&format!(
                    "$EDITOR program `{}` is not an executable on PATH; trying {}",
                    words[0],
                    FALLBACK_EDITORS.join(", ")
                )),
            },
        }
    }
    FALLBACK_EDITORS
        .iter()
        .find_map(|e| find_on_path(e))
        .map(|p| vec![p])
        .ok_or(Error::NoEditor)
}

/// A program given by name (searched on `PATH`) or by path (used when it
/// is an executable file).
fn program(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    if name.contains('/') {
        let p = Path::new(name);
        let ok = p
            .metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
        return ok.then(|| p.to_owned());
    }
    find_on_path(name)
}
