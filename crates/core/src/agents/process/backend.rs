//! Which backend answers process questions, chosen once per command:
//! `SWARM_PROCESS_BACKEND=auto|proc|portable` (unset means `auto`).

use std::ffi::OsStr;
use std::fmt;

use super::error::ProcessError;

/// The environment variable that forces a backend.
pub(crate) const BACKEND_VAR: &str = "SWARM_PROCESS_BACKEND";

/// Where process facts come from (after tmux's own answers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    /// Linux only: small reads of the kernel's process files, no process
    /// spawned.
    #[cfg(target_os = "linux")]
    Proc,
    /// Every platform: one `ps` call with a fixed set of columns.
    Portable,
}

impl Backend {
    /// `auto`: the fast path where it exists, else the portable one.
    pub(crate) fn auto() -> Backend {
        #[cfg(target_os = "linux")]
        if super::procfs::available() {
            return Backend::Proc;
        }
        Backend::Portable
    }

    /// The backend that `value` (the variable's value, if set) asks for.
    pub(crate) fn choose(value: Option<&OsStr>) -> Result<Backend, ProcessError> {
        let Some(value) = value else {
            return Ok(Backend::auto());
        };
        match value.to_str().map(str::trim) {
            Some("" | "auto") => Ok(Backend::auto()),
            Some("portable") => Ok(Backend::Portable),
            Some("proc") => Backend::proc(),
            _ => Err(ProcessError::BadBackend {
                value: crate::support::sanitize::one_line(&value.to_string_lossy()),
            }),
        }
    }

    /// The backend this process's environment asks for.
    pub(crate) fn from_env() -> Result<Backend, ProcessError> {
        Backend::choose(std::env::var_os(BACKEND_VAR).as_deref())
    }

    #[cfg(target_os = "linux")]
    fn proc() -> Result<Backend, ProcessError> {
        if super::procfs::available() {
            Ok(Backend::Proc)
        } else {
            Err(ProcessError::ProcUnavailable {
                why: "needs the kernel's process files, and none are mounted here",
            })
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn proc() -> Result<Backend, ProcessError> {
        Err(ProcessError::ProcUnavailable {
            why: "exists on Linux only",
        })
    }

    /// Its name, as `SWARM_PROCESS_BACKEND` spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            #[cfg(target_os = "linux")]
            Backend::Proc => "proc",
            Backend::Portable => "portable",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked() {
        let pick = |v: &str| Backend::choose(Some(OsStr::new(v)));
        assert_eq!(pick("portable").ok(), Some(Backend::Portable));
        assert_eq!(pick(" portable\n").ok(), Some(Backend::Portable));
        assert_eq!(pick("auto").ok(), Some(Backend::auto()));
        assert_eq!(pick("").ok(), Some(Backend::auto()));
        assert_eq!(Backend::choose(None).ok(), Some(Backend::auto()));
        for bad in ["Portable", "ps", "procfs", "auto,portable", "\u{1b}[31mx"] {
            let e = pick(bad).expect_err(bad);
            assert!(e.to_string().contains("expected auto, proc or portable"));
            assert!(!e.to_string().contains('\u{1b}'), "{e}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_has_the_fast_path() {
        assert_eq!(Backend::auto(), Backend::Proc);
        assert_eq!(
            Backend::choose(Some(OsStr::new("proc"))).ok(),
            Some(Backend::Proc)
        );
    }

    #[cfg(not(target_os = "linux"))]
    #[test]
    fn elsewhere_proc_is_refused() {
        assert_eq!(Backend::auto(), Backend::Portable);
        assert!(Backend::choose(Some(OsStr::new("proc"))).is_err());
    }
}
