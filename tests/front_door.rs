//! The rough edges a new user meets first, each through the real binary:
//! hints that name a command that works, an inbox that only `--new`
//! marks read, `answer` without a dialog or with a word that is no
//! option, the hints of `broadcast --topic`, `down --session` and a
//! mistyped agent id, the agent limit of `launch`, `agents` on the wrong
//! tmux server, `ack` from the terminal, times for people and search
//! relevance.

use crate::harness::Project;

#[test]
fn a_mistyped_flag_points_to_a_help_command_that_works() {
    let project = Project::new();
    for (args, help) in [
        (
            &["msg", "--ack-tmeout", "5", "agent-1", "INFO", "x"][..],
            "msg",
        ),
        (&["msg", "--bogus"], "msg"),
        (&["config", "init", "--nope"], "config init"),
    ] {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let hint = format!("`swarm help {help}`");
        assert!(stderr.contains(&hint), "{args:?}: {stderr}");
        assert!(!stderr.contains("--ack-timeout --help"), "{stderr}");
        // The command the hint names works as given.
        let words: Vec<&str> = help.split(' ').collect();
        crate::harness::swarm_outside_tmux(&project)
            .arg("help")
            .args(&words)
            .assert()
            .success();
    }
}
