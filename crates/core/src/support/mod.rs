//! Small pieces every layer uses and that know nothing of swarm's world:
//! JSON layouts, time formats, sanitising untrusted text, the exit-code
//! table, the few operating-system calls std does not offer, one way to
//! wait for what another process does, one way to run a shell child, and
//! the one rule for the Unix sockets swarm makes and connects to.

pub(crate) mod as_read;
pub(crate) mod child;
pub mod exit_code;
pub mod json;
pub mod poll;
pub(crate) mod private_socket;
pub mod sanitize;
pub mod sys;
pub mod time;

/// Files of the repository around this crate (the README, the fixtures
/// captured from the real agents), which tests hold the code to. They are
/// not in the published package: its check skips the tests that read them.
#[cfg(test)]
pub(crate) mod repo {
    use std::path::PathBuf;

    /// `relative` from the repository's root.
    pub(crate) fn path(relative: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(relative)
    }

    /// The text of the repository's file `relative`.
    pub(crate) fn text(relative: &str) -> String {
        let p = path(relative);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
    }
}
