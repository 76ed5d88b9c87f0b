//! Claude Code's prompt hook and the messages it shows, through real tmux
//! and the demo agent: each message reaches the agent's context once. One
//! typed into the pane is not listed again by the hook; one the hook listed
//! is not typed in afterwards; and a message id in a submitted prompt is
//! found however far back in the log the message is.

use crate::harness::run_hook;
use crate::harness::{Project, TmuxServer, records, stdout_json, swarm, wait_for};

/// One demo agent registered as agent-0, recording into `rec.jsonl`.
fn one_agent(server: &TmuxServer, project: &Project) -> String {
    let pane = server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(project, server).arg("discover").assert().success();
    pane
}

/// Claude Code's payload for a submitted prompt.
fn prompt(text: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s",
        "cwd": "/x",
        "prompt": text,
    }))
    .expect("json")
}

/// What the prompt hook of agent-0 (in `pane`) adds to a prompt of `text`.
fn prompt_hook(project: &Project, server: &TmuxServer, pane: &str, text: &str) -> String {
    let out = run_hook(project, server, "claude", Some(pane), &prompt(text));
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The texts the demo agent took as prompts.
fn submissions(project: &Project) -> Vec<String> {
    records(&project.file("rec.jsonl"))
        .into_iter()
        .filter_map(|r| r["text"].as_str().map(str::to_owned))
        .collect()
}

fn wait_for_submissions(project: &Project, n: usize) -> Vec<String> {
    wait_for(&format!("{n} submissions"), || {
        let s = submissions(project);
        (s.len() >= n).then_some(s)
    })
}

/// Sends `text` to agent-0 from the operator; returns `--json`'s answer.
fn msg(project: &Project, server: &TmuxServer, text: &str) -> serde_json::Value {
    let out = swarm(project, server)
        .args([
            "msg", "agent-0", "INFO", "--from", "operator", "--json", "--", text,
        ])
        .output()
        .expect("msg");
    stdout_json(&out)
}

#[test]
fn the_prompt_hook_does_not_list_messages_already_typed_into_the_pane() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    for i in 0..3 {
        let sent = msg(&project, &server, &format!("typed in {i}"));
        assert_eq!(sent["outcomes"]["agent-0"]["status"], "delivered", "{sent}");
    }
    let took = wait_for_submissions(&project, 3);
    assert!(took[2].ends_with("typed in 2"), "{took:?}");

    // The agent's next prompt: the three are in its context already.
    let shown = prompt_hook(&project, &server, &pane, "what next?");
    assert!(
        !shown.contains("typed in"),
        "the hook listed messages the pane had already taken:\n{shown}"
    );
    // They stay in the inbox for anyone who looks.
    let out = swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--quiet"])
        .output()
        .expect("inbox");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("typed in")
            .count(),
        3,
        "{out:?}"
    );
}

#[test]
fn a_held_message_the_prompt_hook_listed_is_never_typed_in_afterwards() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    // A person is typing: the message is held back from the pane.
    server.tmux(&["send-keys", "-t", &pane, "-l", "--", "a person's line"]);
    server.wait_for_screen(&pane, "> a person's line");
    let sent = msg(&project, &server, "held for later");
    assert_eq!(sent["outcomes"]["agent-0"]["status"], "held", "{sent}");

    // The person submits their line: the prompt hook brings the held
    // message into the agent's context with it.
    let shown = prompt_hook(&project, &server, &pane, "a person's line");
    assert!(shown.contains("held for later"), "{shown}");
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    wait_for_submissions(&project, 1);

    // The pane is safe again: a command's housekeeping releases what is
    // held, and a later message goes in; the listed one never does.
    swarm(&project, &server).arg("discover").assert().success();
    let sent = msg(&project, &server, "the next one");
    assert_eq!(sent["outcomes"]["agent-0"]["status"], "delivered", "{sent}");
    let took = wait_for_submissions(&project, 2);
    assert!(
        !took.iter().any(|t| t.contains("held for later")),
        "typed in after the hook had listed it: {took:?}"
    );
    assert!(took[1].ends_with("the next one"), "{took:?}");
    let held = std::fs::read_to_string(project.file(".swarm/held.json")).unwrap_or_default();
    assert!(!held.contains("held for later"), "{held}");
    // And the next prompt does not list it again.
    let again = prompt_hook(&project, &server, &pane, "and now?");
    assert!(!again.contains("held for later"), "{again}");
}

/// A line of the message log, as swarm writes a message.
fn message_line(id: &str, to: &str, text: &str) -> String {
    format!(
        "{{\"sender\": \"operator\", \"timestamp\": \"2026-11-22T10:00:00.000000+00:00\", \
         \"msg_type\": \"INFO\", \"content\": \"{text}\", \"recipients\": [\"{to}\"], \
         \"msg_id\": \"{id}\", \"delivery_status\": {{}}, \"success_count\": 0, \
         \"failure_count\": 0}}\n"
    )
}

#[test]
fn a_message_id_in_a_prompt_is_confirmed_however_far_back_the_message_is() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = one_agent(&server, &project);
    // The message went out long ago: the log has been rotated twice
    // since (the history written as rotation leaves it).
    let id = "a1b2c3d4-0000-4000-8000-000000000001";
    project.write(
        "agent_messages.log.1",
        &message_line(id, "agent-0", "sent long ago"),
    );
    let filler = |from: usize| -> String {
        (from..from + 50)
            .map(|i| {
                message_line(
                    &format!("f{i:07}-0000-4000-8000-000000000000"),
                    "agent-9",
                    "x",
                )
            })
            .collect()
    };
    project.write("agent_messages.log.2", &filler(0));
    project.write("agent_messages.log", &filler(50));

    prompt_hook(&project, &server, &pane, "[#a1b2c3d4] sent long ago");
    let confirmed = records(&project.file("agent_messages.log"))
        .into_iter()
        .filter(|r| r["event"] == "delivery" && r["msg_id"] == id)
        .filter_map(|r| r["outcomes"].get("agent-0").cloned())
        .any(|o| o["confirmed_by"] == "hook" && o["status"] == "delivered");
    assert!(
        confirmed,
        "the prompt held [#a1b2c3d4], but the hook did not confirm it:\n{}",
        project.read("agent_messages.log")
    );
}
