//! Whether the configuration (file and `SWARM_*` variables) is valid.

use crate::config;

use super::report::{Outcome, Subject};

/// Whether the configuration loads: the file, if any, and the `SWARM_*`
/// overrides.
pub(super) fn config_file(s: &Subject<'_>) -> Vec<Outcome> {
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
            match &loaded.file {
                Some(f) => Outcome::ok(CHECK, format!("{} is valid{env_note}", f.display())),
                None => Outcome::ok(CHECK, format!("no config file, defaults in use{env_note}")),
            }
        }
        Err(e) => Outcome::fail(
            CHECK,
            "the configuration is invalid: commands that change the swarm's state (msg, \
             lock, launch, discover, ...) refuse to start until it is fixed; the others warn \
             and use the defaults",
            "fix each problem listed, then check with `swarm config validate`",
        )
        .with_details(e.problems()),
    }]
}
