//! Paths swarm did not choose: a path typed to `swarm who` reaches the
//! terminal without its escape sequences, and a `.swarm` that is a
//! symlink out of the project is refused before any state is written.

use std::fs;
use std::process::Output;

use crate::harness::{Project, swarm_outside_tmux};

fn both(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn has_controls(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && c != '\n')
}

#[test]
fn who_shows_a_typed_path_without_its_escape_sequences() {
    let project = Project::new();
    for path in [
        "src/a\x1b]0;pwned\x07b.py",
        "src/\x1bM\x1b[2Jc.py",
        "/etc/\x1b[31mred",
    ] {
        for json in [false, true] {
            let mut cmd = swarm_outside_tmux(&project);
            cmd.args(["who", path]);
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().expect("run");
            let text = both(&out);
            assert!(!has_controls(&text), "{path:?} json={json}: {text:?}");
        }
    }
    // The path is still recognisable.
    let out = swarm_outside_tmux(&project)
        .args(["who", "src/a\x1b]0;pwned\x07b.py"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", both(&out));
    assert!(both(&out).contains("src/a"), "{}", both(&out));
}

#[test]
fn a_swarm_dir_linked_out_of_the_project_is_refused() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let outside = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(outside.path(), project.file(".swarm")).expect("symlink");
    let out = swarm_outside_tmux(&project)
        .args(["lock", "src/*.py", "--agent", "agent-1"])
        .output()
        .expect("run");
    let text = both(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(".swarm") && text.contains("outside the project"),
        "{text}"
    );
    let written: Vec<_> = fs::read_dir(outside.path())
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(written.is_empty(), "state written outside: {written:?}");

    // A link that stays inside the project is fine.
    fs::remove_file(project.file(".swarm")).expect("unlink");
    fs::create_dir(project.file("state")).expect("mkdir");
    std::os::unix::fs::symlink("state", project.file(".swarm")).expect("symlink");
    let out = swarm_outside_tmux(&project)
        .args(["lock", "src/*.py", "--agent", "agent-1"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", both(&out));
    assert!(project.file("state/lock_index.json").exists());
}
