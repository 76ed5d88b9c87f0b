//! `swarm lock --wait`: a waiting lock is taken once the holder lets go.

use std::process::{Command, Stdio};

use crate::harness::{stderr, swarm_bin};

use super::{code, lock, lock_file, registered_project, run};

#[test]
fn wait_retries_until_the_holder_lets_go() {
    let project = registered_project();
    assert_eq!(code(&lock(&project, "agent-1", &["a.py"])), Some(0));
    let out = lock(&project, "agent-2", &["a.py", "--wait", "0"]);
    assert_eq!(code(&out), Some(3));
    let waiter = Command::new(swarm_bin())
        .args(["lock", "a.py", "--agent", "agent-2", "--wait", "60"])
        .current_dir(project.path())
        .env_remove("TMUX_PANE")
        .env_remove("TMUX")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = run(&project, &["unlock", "a.py", "--agent", "agent-1"]);
    assert_eq!(code(&out), Some(0));
    let out = waiter.wait_with_output().expect("wait");
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(
        lock_file(&project, "a.py").expect("lock")["agent_id"],
        "agent-2"
    );
}
