//! What `swarm msg` and `swarm broadcast` take as a message: the size
//! limit and what to do over it, a hint for a wrong type or an empty text,
//! and text that starts with `-` (a lock's reason too).

use crate::harness::Project;

#[test]
fn a_message_over_the_limit_says_the_limit_and_what_to_do() {
    let project = Project::new();
    project.register(&["agent-1"]);
    project.write("big.txt", &"x".repeat(100 * 1024));
    project.write("medium.txt", &"x".repeat(20 * 1024));
    for file in ["big.txt", "medium.txt"] {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(["msg", "agent-1", "INFO", "--file", file])
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
        let hint = stderr
            .lines()
            .find(|l| l.starts_with("  hint: "))
            .unwrap_or_else(|| panic!("{file}: no hint: {stderr}"));
        assert!(
            hint.contains("10240 bytes")
                && hint.contains("messaging.max_inline_bytes")
                && hint.contains("send its path"),
            "{file}: {hint}"
        );
    }
}

#[test]
fn a_wrong_type_or_an_empty_text_gets_a_hint() {
    let project = Project::new();
    project.register(&["agent-3"]);
    let hint_of = |args: &[&str]| {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        stderr
            .lines()
            .find_map(|l| l.strip_prefix("  hint: "))
            .unwrap_or_else(|| panic!("{args:?}: no hint: {stderr}"))
            .to_owned()
    };
    let hint = hint_of(&["msg", "agent-3", "INFOO", "hi"]);
    assert_eq!(hint, "did you mean `INFO`?");
    let hint = hint_of(&["broadcast", "questoin", "hi"]);
    assert_eq!(hint, "did you mean `QUESTION`?");
    let hint = hint_of(&["msg", "agent-3", "URGENT", "hi"]);
    assert!(
        hint.contains("valid types") && hint.contains("messaging.custom_types"),
        "{hint}"
    );
    for args in [
        &["msg", "agent-3", "INFO", ""][..],
        &["msg", "agent-3", "INFO", "  "],
        &["broadcast", "INFO", ""],
    ] {
        let hint = hint_of(args);
        assert!(
            hint.contains("`-`") && hint.contains("--file") && hint.contains("quotes"),
            "{args:?}: {hint}"
        );
    }
}

#[test]
fn text_that_starts_with_a_dash_and_holds_a_space_is_text() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let run = |args: &[&str]| {
        let out = crate::harness::swarm_outside_tmux(&project)
            .args(args)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The recipient has no pane, so each message waits in its inbox (7).
    for args in [
        &["send-message", "agent-1", "INFO", "-n not an option"][..],
        &["msg", "agent-1", "INFO", "-m also text", "--ack"],
        &[
            "broadcast-message",
            "INFO",
            "-b to all",
            "--sender-id",
            "operator",
        ],
        &["broadcast", "INFO", "--c to all", "-v"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(7), "{args:?}: {stderr}");
    }
    // Flags after the text keep working.
    let (code, stdout, stderr) = run(&["msg", "agent-1", "INFO", "-d with json", "--json"]);
    assert_eq!(code, Some(7), "{stderr}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout).expect("json")["content"],
        "-d with json"
    );
    let (_, stdout, _) = run(&["inbox", "--agent", "agent-1", "--all-history", "--json"]);
    let inbox: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let contents: Vec<&str> = inbox["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["content"].as_str().expect("content"))
        .collect();
    for text in [
        "-n not an option",
        "-m also text",
        "-b to all",
        "--c to all",
        "-d with json",
    ] {
        assert!(
            contents.iter().any(|c| c.ends_with(text)),
            "{text}: {contents:?}"
        );
    }
    // A lock's reason, positional (the Python name) or an option's value.
    for args in [
        &[
            "acquire-file-lock",
            "src/a.py",
            "-r why a",
            "--agent-id",
            "agent-1",
        ][..],
        &[
            "lock", "src/b.py", "--reason", "-x why b", "--agent", "agent-1",
        ],
        &["lock", "src/c.py", "-r", "-x why c", "--agent", "agent-1"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
    let (_, stdout, _) = run(&["locks", "--json"]);
    let reasons: Vec<String> = serde_json::from_str::<serde_json::Value>(&stdout)
        .expect("json")
        .as_array()
        .expect("locks")
        .iter()
        .map(|l| l["reason"].as_str().expect("reason").to_owned())
        .collect();
    assert_eq!(reasons, ["-r why a", "-x why b", "-x why c"]);
    // An option that does not exist is still a usage error.
    let (code, _, stderr) = run(&["msg", "agent-1", "INFO", "hi", "--bogus"]);
    assert_eq!(code, Some(2), "{stderr}");
}
