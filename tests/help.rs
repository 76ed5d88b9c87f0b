//! `swarm help` and `--help`: every command's help puts the global
//! options under their own heading, and a mistyped flag's hint names a
//! help command that works.

use crate::harness::Project;

#[test]
fn every_help_puts_the_global_options_under_their_own_heading() {
    let project = Project::new();
    let help = |args: &[&str]| {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .arg("--help")
            .output()
            .expect("run");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let top = help(&[]);
    let commands: Vec<String> = crate::harness::listed_commands(&top)
        .into_iter()
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 30, "{commands:?}");
    for command in &commands {
        let text = help(&[command]);
        let global = text
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{command}: no Global options heading:\n{text}"));
        for option in ["--root <DIR>", "--tmux-socket", "--color <WHEN>"] {
            let at = text
                .find(option)
                .unwrap_or_else(|| panic!("{command}: no {option}"));
            assert!(
                at > global,
                "{command}: {option} is not under Global options:\n{text}"
            );
        }
    }
}

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
