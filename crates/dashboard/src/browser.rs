//! Opening the dashboard in the user's browser, when that can be done:
//! `open` on macOS; elsewhere (Linux, the BSDs) `xdg-open`, and only with a
//! graphical session (`xdg-open` without one would
//! start a text browser in the terminal the dashboard is running in), and
//! only when the opener is installed. Never a reason to fail.

use std::env;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What happened when a browser was asked for.
#[derive(Debug)]
pub enum Opened {
    /// The opener was started.
    Started,
    /// Nothing could be opened, and why.
    Unavailable(String),
    /// The opener could not be run.
    Failed(String),
}

/// The program that opens URLs here, when one can.
fn opener(path_var: Option<&OsStr>, graphical: bool) -> Result<PathBuf, String> {
    let name = if cfg!(target_os = "macos") {
        "open"
    } else if graphical {
        "xdg-open"
    } else {
        return Err("no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)".into());
    };
    let found = path_var
        .map(|p| {
            env::split_paths(p)
                .map(|d| d.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|p| is_executable(p));
    found.ok_or_else(|| format!("`{name}` is not installed"))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Opens `url` in the default browser, without waiting for it.
pub fn open(url: &str) -> Opened {
    let graphical = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| env::var_os(v).is_some_and(|s| !s.is_empty()));
    let program = match opener(env::var_os("PATH").as_deref(), graphical) {
        Ok(p) => p,
        Err(why) => return Opened::Unavailable(why),
    };
    let child = Command::new(&program)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match child {
        Ok(mut child) => {
            // Reaped in the background so it leaves no zombie behind.
            std::thread::spawn(move || child.wait());
            Opened::Started
        }
        Err(e) => Opened::Failed(format!("{}: {e}", program.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opener_is_only_used_when_it_exists_and_can_show_a_page() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = std::ffi::OsString::from(dir.path());
        if !cfg!(target_os = "macos") {
            assert!(opener(Some(&path), false).is_err());
        }
        assert!(opener(Some(&path), true).is_err(), "not installed");
        let name = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        let program = dir.path().join(name);
        std::fs::write(&program, "#!/bin/sh\n").expect("write");
        assert!(opener(Some(&path), true).is_err(), "not executable");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert_eq!(opener(Some(&path), true), Ok(program));
        assert!(opener(None, true).is_err());
    }
}
