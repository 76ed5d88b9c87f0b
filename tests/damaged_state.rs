//! Damaged state files of the stores that used to read damage as "empty"
//! and say nothing: `held.json` (a held message was then never typed in),
//! `sessions.json` (`swarm resume` lost its sessions), `episodes.json` (a
//! dialog was told twice), `limits.json` and `hook_sightings.json`. The
//! first command that reads such a file says so, as a warning naming it,
//! and moves it aside to `<name>.corrupt-<time>` with its bytes intact,
//! before anything can write over it.

use std::fs;

use crate::harness::{Project, TmuxServer, corrupt_copies, swarm};

/// A state file and a command that reads it.
struct Case {
    file: &'static str,
    args: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        file: ".swarm/held.json",
        args: &["inbox", "--held"],
    },
    Case {
        file: ".swarm/sessions.json",
        args: &["sessions"],
    },
    Case {
        file: ".swarm/episodes.json",
        args: &["inbox", "--agent", "operator"],
    },
    Case {
        file: ".swarm/limits.json",
        args: &["agents"],
    },
    Case {
        file: ".swarm/hook_sightings.json",
        args: &["agents", "--json"],
    },
];

/// Half a file of the right shape, then garbage with an escape sequence
/// (which must not reach the terminal).
const DAMAGE: &[u8] = b"{\"version\": 1, \"held\": [{\"seq\": 0, \"text\": \"lost?\"\x1b[2J";

/// The `.corrupt-` copies of `rel` in its directory, with their bytes.
fn copies(project: &Project, rel: &str) -> Vec<Vec<u8>> {
    corrupt_copies(&project.file(rel))
}

#[test]
fn a_damaged_state_file_is_reported_and_set_aside_on_first_read() {
    let server = TmuxServer::start();
    let mut failures = Vec::new();
    for case in CASES {
        let project = Project::new();
        project.register(&["agent-0"]);
        fs::create_dir_all(project.file(".swarm")).expect("mkdir");
        fs::write(project.file(case.file), DAMAGE).expect("damage");
        let label = format!("{} read by `swarm {}`", case.file, case.args.join(" "));
        let out = swarm(&project, &server)
            .args(case.args)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let path = project.file(case.file).display().to_string();
        let warned = stderr.lines().any(|l| {
            l.starts_with("swarm: warning: ") && l.contains(&path) && l.contains("damaged")
        });
        if !warned {
            failures.push(format!("{label}: no warning naming {path}: {stderr:?}"));
        }
        if stderr.contains('\u{1b}') {
            failures.push(format!("{label}: an escape sequence reached stderr"));
        }
        if stderr.contains("panicked") {
            failures.push(format!("{label}: panicked"));
        }
        if copies(&project, case.file) != [DAMAGE.to_vec()] {
            failures.push(format!(
                "{label}: the damaged bytes were not moved aside intact (copies: {})",
                copies(&project, case.file).len()
            ));
        }
        // Said once: the next read finds no damage to speak of.
        let again = swarm(&project, &server)
            .args(case.args)
            .output()
            .expect("run");
        let again = String::from_utf8_lossy(&again.stderr).into_owned();
        if again.contains("damaged") {
            failures.push(format!("{label}: told again on the next read: {again:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
