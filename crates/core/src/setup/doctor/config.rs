//! Whether the configuration (file and `SWARM_*` variables) is valid.

use crate::config;

use super::report::{CheckOutcome, Subject};

/// Whether the configuration loads: the file, if any, and the `SWARM_*`
/// overrides.
pub(super) fn config_file(s: &Subject<'_>) -> Vec<CheckOutcome> {
    const CHECK: &str = "config";
    vec![match config::load(s.paths.root(), s.env) {
        Ok(loaded) => {
            let from_env = loaded
                .origins
                .iter()
                .filter(|(_, o)| matches!(o, config::Origin::Env(_)))
                .count();
            let env_note = if from_env > 0 {
                format!(" ({from_env} value(s) from SWARM_* variables)")
            } else {
                String::new()
            };
            let summary = match (&loaded.file, &loaded.user_file) {
                (Some(f), None) => format!("{} is valid{env_note}", f.display()),
                (Some(f), Some(u)) => format!(
                    "{} is valid, over your own {}{env_note}",
                    f.display(),
                    u.display()
                ),
                (None, Some(u)) => format!(
                    "no project config file; your own {} is valid{env_note}",
                    u.display()
                ),
                (None, None) => format!("no config file, defaults in use{env_note}"),
            };
            if loaded.warnings.is_empty() {
                CheckOutcome::ok(CHECK, summary)
            } else {
                CheckOutcome::warn(
                    CHECK,
                    format!("{summary}, but some values are ignored"),
                    "move each secret out of the project's file, as said below",
                )
                .with_details(loaded.warnings)
            }
        }
        Err(e) => CheckOutcome::fail(
            CHECK,
            "the configuration is invalid: commands that change the swarm's state (msg, \
             lock, launch, discover, ...) refuse to start until it is fixed; the others warn \
             and use the defaults",
            "fix each problem listed, then check with `swarm config validate`",
        )
        .with_details(e.problems()),
    }]
}
