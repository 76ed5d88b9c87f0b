//! `swarm mcp` through a real MCP client (rmcp's), started as a child
//! process the way an agent CLI starts it: in the project, with the
//! agent pane's `TMUX` and `TMUX_PANE`. Demo agents in a private tmux
//! server are the swarm; every tool is called, bad arguments come back as
//! tool errors, racing clients find exactly one winner, a message sent
//! through MCP reaches the recipient's pane, and a message arriving marks
//! the inbox resource updated.

use rmcp::model::{ReadResourceRequestParams, SubscribeRequestParams};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::harness::mcp::{Client, call, connect, err, ok, runtime, swarm_of, tmux_env};
use crate::harness::{PATIENCE, Project, TmuxServer, swarm, swarm_bin, typed_as, wait_for_records};

#[test]
fn tools_are_listed_for_a_model_and_the_identity_is_the_pane() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let (s, _) = connect(&server, &project, &panes[1]).await;
        let info = s.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|i| i.name.as_str()),
            Some("swarm")
        );
        assert!(
            info.instructions
                .as_deref()
                .is_some_and(|i| i.contains("lock"))
        );
        let tools = s.list_all_tools().await.expect("tools/list");
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "acknowledge",
                "broadcast",
                "claim_task",
                "create_task",
                "list_agents",
                "list_locks",
                "list_tasks",
                "lock",
                "pending_acks",
                "read_messages",
                "renew",
                "reply",
                "review_comment",
                "search_messages",
                "send_message",
                "subscribe",
                "thread",
                "unlock",
                "unsubscribe",
                "update_task",
                "who_holds",
                "whoami",
            ]
        );
        let send = tools
            .iter()
            .find(|t| t.name == "send_message")
            .expect("send");
        let props = send.input_schema["properties"].as_object().expect("props");
        assert!(props.contains_key("to") && props.contains_key("type"));
        assert!(!props.contains_key("from"), "no way to speak for another");
        assert_eq!(
            send.input_schema["required"],
            json!(["to", "type", "content"])
        );

        let me = ok(&s, "whoami", json!({})).await;
        assert_eq!(me["agent"], "agent-1");
        assert_eq!(me["pane"], panes[1]);
        assert_eq!(me["project_root"], project.path().display().to_string());
        let agents = ok(&s, "list_agents", json!({})).await;
        let listed: Vec<(&str, bool)> = agents["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .map(|a| (a["id"].as_str().unwrap_or(""), a["is_you"] == true))
            .collect();
        assert_eq!(listed, [("agent-0", false), ("agent-1", true)]);
        assert!(agents["agents"][0]["status"] == "active");
        s.cancel().await.expect("close");
    });
}

#[test]
fn a_pane_that_is_no_agent_gets_tool_errors_with_a_hint() {
    let server = TmuxServer::start();
    let project = Project::new();
    swarm_of(&server, &project, 1);
    let shell = server.shell(&project.path());
    runtime().block_on(async {
        let (s, _) = connect(&server, &project, &shell).await;
        let text = err(&s, "whoami", json!({})).await;
        assert!(
            text.contains(&format!("pane {shell} is not a registered agent")),
            "{text}"
        );
        assert!(text.contains("hint: run `swarm discover`"), "{text}");
        let text = err(&s, "lock", json!({"paths": ["a.rs"]})).await;
        assert!(text.contains("not a registered agent"), "{text}");
        assert!(
            !project.file(".agent_locks").exists()
                || project
                    .ls(".agent_locks")
                    .iter()
                    .all(|f| !f.ends_with(".lock"))
        );
        s.cancel().await.expect("close");
    });
}

#[test]
fn bad_arguments_are_tool_errors_naming_the_argument() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let (s, _) = connect(&server, &project, &panes[0]).await;
        for (tool, args, expected) in [
            (
                "send_message",
                json!({"type": "INFO", "content": "x"}),
                "missing argument `to`",
            ),
            (
                "send_message",
                json!({"to": 1, "type": "INFO", "content": "x"}),
                "argument `to` must be a string, not an integer",
            ),
            (
                "send_message",
                json!({"to": "agent-1", "type": "INFO", "content": "x", "from": "agent-1"}),
                "unknown argument `from`",
            ),
            (
                "send_message",
                json!({"to": "agent 1;rm", "type": "INFO", "content": "x"}),
                "argument `to`",
            ),
            (
                "send_message",
                json!({"to": "agent-1", "type": "NOT-A-TYPE", "content": "x"}),
                "argument `type`",
            ),
            (
                "send_message",
                json!({"to": "agent-1", "type": "INFO", "content": "  "}),
                "argument `content`",
            ),
            (
                "send_message",
                json!({"to": "agent-1", "type": "INFO", "content": "x", "ack": "yes"}),
                "argument `ack` must be a boolean",
            ),
            (
                "read_messages",
                json!({"limit": 0}),
                "argument `limit` must be between 1 and 100",
            ),
            (
                "lock",
                json!({"paths": []}),
                "argument `paths` needs at least 1",
            ),
            (
                "lock",
                json!({"paths": ["a", 2]}),
                "argument `paths` must be a list of strings",
            ),
            ("lock", json!({"paths": ["../outside"]}), "outside"),
            (
                "lock",
                json!({"paths": ["a"], "wait_seconds": -1}),
                "argument `wait_seconds`",
            ),
            (
                "acknowledge",
                json!({"message_id": "zz"}),
                "argument `message_id`",
            ),
            (
                "update_task",
                json!({"task_id": "x", "status": "done"}),
                "argument `status`",
            ),
            (
                "create_task",
                json!({"objective": "x", "priority": "urgent"}),
                "argument `priority`",
            ),
            (
                "list_agents",
                json!({"verbose": true}),
                "this tool takes no arguments",
            ),
            ("no_such_tool", json!({}), "no tool called"),
        ] {
            let text = err(&s, tool, args.clone()).await;
            assert!(text.contains(expected), "{tool} {args}: {text}");
        }
        // Nothing was sent, and the session still works.
        assert!(!project.file("agent_messages.log").exists());
        assert_eq!(ok(&s, "whoami", json!({})).await["agent"], "agent-0");
        s.cancel().await.expect("close");
    });
}

#[test]
fn messages_reach_panes_and_inboxes_are_read_exactly_once() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 3);
    runtime().block_on(async {
        let (a, _) = connect(&server, &project, &panes[0]).await;
        let (b, _) = connect(&server, &project, &panes[1]).await;
        let sent = ok(
            &a,
            "send_message",
            json!({"to": "agent-1", "type": "question", "content": "ready for review; tests pass"}),
        )
        .await;
        assert_eq!(sent["outcomes"]["agent-1"]["status"], "delivered", "{sent}");
        assert_eq!(sent["delivered"], 1, "{sent}");
        let got = wait_for_records(&project.file("rec-1.jsonl"), 1);
        let typed = got[0]["text"].as_str().expect("text");
        assert!(typed.starts_with("[agent-0]["), "{typed}");
        assert!(
            typed_as(typed, "QUESTION", "ready for review; tests pass"),
            "{typed}"
        );

        let b_sent = ok(
            &b,
            "broadcast",
            json!({"type": "INFO", "content": "schema v2 merged"}),
        )
        .await;
        assert_eq!(
            b_sent["recipients"].as_array().map(Vec::len),
            Some(2),
            "{b_sent}"
        );
        for rec in ["rec-0.jsonl", "rec-2.jsonl"] {
            let got = wait_for_records(&project.file(rec), 1);
            assert!(got[0]["text"].as_str().is_some_and(|t| typed_as(
                t,
                "INFO",
                "schema v2 merged"
            )));
        }

        for i in 0..3 {
            ok(
                &a,
                "send_message",
                json!({"to": "agent-1", "type": "INFO", "content": format!("note {i}")}),
            )
            .await;
        }
        let first = ok(&b, "read_messages", json!({"limit": 2})).await;
        let contents = |v: &Value| -> Vec<String> {
            v["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .map(|m| m["content"].as_str().unwrap_or("").to_owned())
                .collect()
        };
        assert_eq!(contents(&first), ["ready for review; tests pass", "note 0"]);
        assert_eq!(first["remaining"], 2);
        assert_eq!(first["messages"][0]["sender"], "agent-0");
        let second = ok(&b, "read_messages", json!({})).await;
        assert_eq!(contents(&second), ["note 1", "note 2"]);
        let third = ok(&b, "read_messages", json!({})).await;
        assert!(contents(&third).is_empty());
        // The command line agrees on what is read.
        let out = swarm(&project, &server)
            .args(["inbox", "--agent", "agent-1", "--new"])
            .output()
            .expect("inbox");
        assert!(String::from_utf8_lossy(&out.stdout).contains("No new messages"));
        // A send's facts are the view `swarm msg --json` prints, key for
        // key and in its order.
        let out = swarm(&project, &server)
            .args([
                "msg",
                "agent-2",
                "INFO",
                "and by hand",
                "--from",
                "agent-0",
                "--json",
            ])
            .output()
            .expect("msg");
        let by_hand: Value = serde_json::from_slice(&out.stdout).expect("msg --json");
        let keys =
            |v: &Value| -> Vec<String> { v.as_object().expect("object").keys().cloned().collect() };
        assert_eq!(keys(&sent), keys(&by_hand), "{sent} against {by_hand}");
        a.cancel().await.expect("close");
        b.cancel().await.expect("close");
    });
}

#[test]
fn acknowledgements_through_mcp() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 3);
    runtime().block_on(async {
        let (a, _) = connect(&server, &project, &panes[0]).await;
        let (b, _) = connect(&server, &project, &panes[1]).await;
        let (c, _) = connect(&server, &project, &panes[2]).await;
        let sent = ok(
            &a,
            "send_message",
            json!({"to": "agent-1", "type": "BLOCKED", "content": "need src/auth.rs", "ack": true}),
        )
        .await;
        let id = sent["msg_id"].as_str().expect("id").to_owned();
        assert_eq!(sent["requires_ack"], true);
        let pending = ok(&b, "pending_acks", json!({})).await;
        assert_eq!(pending["pending"][0]["msg_id"], id);
        assert_eq!(pending["pending"][0]["yours_to_acknowledge"], true);
        let inbox = ok(&b, "read_messages", json!({})).await;
        assert_eq!(inbox["messages"][0]["requires_ack"], true);

        let text = err(&c, "acknowledge", json!({"message_id": id})).await;
        assert!(text.contains("only agent-1 can acknowledge"), "{text}");
        let acked = ok(
            &b,
            "acknowledge",
            json!({"message_id": &id[..8], "note": "released it"}),
        )
        .await;
        assert_eq!(acked["acknowledged"], true);
        assert_eq!(acked["msg_id"], id);
        assert!(
            ok(&a, "pending_acks", json!({})).await["pending"]
                .as_array()
                .is_some_and(Vec::is_empty)
        );
        let got = wait_for_records(&project.file("rec-0.jsonl"), 1);
        assert!(
            got[0]["text"]
                .as_str()
                .is_some_and(|t| t.contains(&format!("ACK {id}: released it")))
        );
        let again = ok(&b, "acknowledge", json!({"message_id": id})).await;
        assert_eq!(again["acknowledged"], false);
        for s in [a, b, c] {
            s.cancel().await.expect("close");
        }
    });
}

#[test]
fn conversations_through_mcp() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 3);
    runtime().block_on(async {
        let (a, _) = connect(&server, &project, &panes[0]).await;
        let (b, _) = connect(&server, &project, &panes[1]).await;
        let (c, _) = connect(&server, &project, &panes[2]).await;
        // Topics: a broadcast to one reaches its subscribers only.
        let mine = ok(&b, "subscribe", json!({"topic": "Deploys"})).await;
        assert_eq!(mine["topics"], json!(["deploys"]));
        let agents = ok(&a, "list_agents", json!({})).await;
        let topics: Vec<Value> = agents["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .map(|x| x["topics"].clone())
            .collect();
        assert_eq!(topics, [json!([]), json!(["deploys"]), json!([])]);
        let sent = ok(
            &a,
            "broadcast",
            json!({"type": "INFO", "content": "release at five", "topic": "deploys"}),
        )
        .await;
        let to: Vec<&String> = sent["outcomes"]
            .as_object()
            .expect("outcomes")
            .keys()
            .collect();
        assert_eq!(to, ["agent-1"]);
        let text = err(
            &a,
            "broadcast",
            json!({"type": "INFO", "content": "x", "topic": "a b"}),
        )
        .await;
        assert!(text.contains("topic"), "{text}");

        // A reply names its message by a beginning of its id and goes to
        // its sender; the thread holds both, whichever is named.
        let asked = ok(
            &a,
            "send_message",
            json!({"to": "agent-1", "type": "QUESTION", "content": "which schema?"}),
        )
        .await;
        let question = asked["msg_id"].as_str().expect("id").to_owned();
        let replied = ok(
            &b,
            "reply",
            json!({"message_id": &question[..8], "content": "schema v2"}),
        )
        .await;
        assert_eq!(replied["recipients"], json!(["agent-0"]));
        let answer = replied["msg_id"].as_str().expect("id").to_owned();
        let thread = ok(&c, "thread", json!({"message_id": answer})).await;
        let ids: Vec<&str> = thread["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| m["msg_id"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(ids, [question.as_str(), answer.as_str()]);
        assert_eq!(thread["messages"][1]["reply_to"], json!(question));
        let text = err(&c, "thread", json!({"message_id": "ffffffff"})).await;
        assert!(text.contains("ffffffff"), "{text}");

        // Search: every kept message, with its filters.
        let found = ok(
            &c,
            "search_messages",
            json!({"text": "schema", "from": "agent-1"}),
        )
        .await;
        let ids: Vec<&str> = found["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| m["msg_id"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(ids, [answer.as_str()]);
        let text = err(&c, "search_messages", json!({"text": "--"})).await;
        assert!(text.contains("nothing to search for"), "{text}");

        let mine = ok(&b, "unsubscribe", json!({"topic": "deploys"})).await;
        assert_eq!(mine["topics"], json!([]));
        for s in [a, b, c] {
            s.cancel().await.expect("close");
        }
    });
}

#[test]
fn locks_through_mcp_follow_the_command_line_rules() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let (a, _) = connect(&server, &project, &panes[0]).await;
        let (b, _) = connect(&server, &project, &panes[1]).await;
        let got = ok(
            &a,
            "lock",
            json!({"paths": ["src/auth/"], "reason": "JWT refactor"}),
        )
        .await;
        assert_eq!(got["acquired"][0]["path"], "src/auth");
        assert_eq!(got["acquired"][0]["holder"], "agent-0");
        let who = ok(&b, "who_holds", json!({"path": "src/auth/jwt.rs"})).await;
        assert_eq!(who["locks"][0]["holder"], "agent-0");
        assert_eq!(who["locks"][0]["reason"], "JWT refactor");
        let text = err(&b, "lock", json!({"paths": ["src/auth/jwt.rs"]})).await;
        assert!(text.contains("agent-0"), "{text}");
        let r = call(&b, "lock", json!({"paths": ["src/auth/jwt.rs"]})).await;
        assert_eq!(
            r.structured_content
                .as_ref()
                .map(|v| v["exit_code"].clone()),
            Some(json!(3))
        );
        let text = err(&b, "unlock", json!({"paths": ["src/auth"]})).await;
        assert!(text.contains("locked by agent-0"), "{text}");
        // The command line sees the same lock.
        let out = swarm(&project, &server)
            .args(["who", "src/auth", "--json"])
            .output()
            .expect("who");
        assert!(String::from_utf8_lossy(&out.stdout).contains("agent-0"));
        let list = ok(&b, "list_locks", json!({})).await;
        assert_eq!(list["locks"].as_array().map(Vec::len), Some(1));
        // b waits; a releases while it waits.
        let (waited, released) = tokio::join!(
            ok(
                &b,
                "lock",
                json!({"paths": ["src/auth/jwt.rs"], "wait_seconds": 60})
            ),
            async { ok(&a, "unlock", json!({"paths": ["./src/auth/"]})).await }
        );
        assert_eq!(released["paths"][0]["released"], true);
        assert_eq!(waited["acquired"][0]["holder"], "agent-1");
        a.cancel().await.expect("close");
        b.cancel().await.expect("close");
    });
}

#[test]
fn two_clients_racing_for_a_task_or_a_lock_never_both_win() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let (a, _) = connect(&server, &project, &panes[0]).await;
        let (b, _) = connect(&server, &project, &panes[1]).await;
        for round in 0..5 {
            let task = ok(
                &a,
                "create_task",
                json!({"objective": format!("job {round}")}),
            )
            .await;
            let id = task["task"]["task_id"].as_str().expect("id").to_owned();
            let (ra, rb) = tokio::join!(
                call(&a, "claim_task", json!({"task_id": id})),
                call(&b, "claim_task", json!({"task_id": id}))
            );
            let wins = [&ra, &rb]
                .iter()
                .filter(|r| r.is_error != Some(true))
                .count();
            assert_eq!(wins, 1, "round {round}: {ra:?} {rb:?}");
            let winner = if ra.is_error == Some(true) {
                "agent-1"
            } else {
                "agent-0"
            };
            let loser = if ra.is_error == Some(true) { &ra } else { &rb };
            let text = loser.content[0]
                .as_text()
                .map(|t| t.text.clone())
                .unwrap_or_default();
            assert!(text.contains(&format!("held by {winner}")), "{text}");
            let listed = ok(&a, "list_tasks", json!({"assignee": winner})).await;
            assert!(
                listed["tasks"]
                    .as_array()
                    .is_some_and(|t| t.iter().any(|t| t["task_id"] == id))
            );

            let path = format!("race-{round}.rs");
            let (la, lb) = tokio::join!(
                call(&a, "lock", json!({"paths": [path]})),
                call(&b, "lock", json!({"paths": [path]}))
            );
            let wins = [&la, &lb]
                .iter()
                .filter(|r| r.is_error != Some(true))
                .count();
            assert_eq!(wins, 1, "round {round}: {la:?} {lb:?}");
        }
        a.cancel().await.expect("close");
        b.cancel().await.expect("close");
    });
}

#[test]
fn tasks_move_along_their_workflow() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let (a, _) = connect(&server, &project, &panes[0]).await;
        let created = ok(
            &a,
            "create_task",
            json!({"objective": "port the parser", "priority": "high", "files": ["src/parse.rs"]}),
        )
        .await;
        let id = created["task"]["task_id"].as_str().expect("id").to_owned();
        assert_eq!(created["task"]["created_by"], "agent-0");
        assert_eq!(created["task"]["status"], "pending");
        let text = err(
            &a,
            "update_task",
            json!({"task_id": id, "status": "completed"}),
        )
        .await;
        assert!(
            text.contains("cannot transition from pending to completed"),
            "{text}"
        );
        assert!(
            text.contains("hint: from pending a task can go to: assigned, cancelled"),
            "{text}"
        );
        let claimed = ok(&a, "claim_task", json!({"task_id": &id[..8]})).await;
        assert_eq!(claimed["task"]["assigned_to"], "agent-0");
        let working = ok(
            &a,
            "update_task",
            json!({"task_id": id, "status": "working", "message": "on it"}),
        )
        .await;
        assert_eq!(working["task"]["status"], "working");
        let listed = ok(&a, "list_tasks", json!({"status": "working"})).await;
        assert_eq!(listed["tasks"][0]["task_id"], id);
        let handed = ok(
            &a,
            "update_task",
            json!({"task_id": id, "assignee": "agent-1"}),
        )
        .await;
        assert_eq!(handed["task"]["assigned_to"], "agent-1");
        // The command line reads the same task.
        let out = swarm(&project, &server)
            .args(["tasks", "get", &id, "--json"])
            .output()
            .expect("get");
        let t: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(t["status"], "working");
        assert_eq!(t["history"].as_array().map(Vec::len), Some(3));
        a.cancel().await.expect("close");
    });
}

#[test]
fn a_message_arriving_marks_the_inbox_resource_updated() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let (b, mut updates) = connect(&server, &project, &panes[1]).await;
        let resources = b.list_all_resources().await.expect("resources/list");
        assert_eq!(resources[0].uri, "swarm://inbox");
        #[allow(deprecated)]
        b.subscribe(SubscribeRequestParams::new("swarm://inbox"))
            .await
            .expect("subscribe");
        // Sent by the command line, as any agent might.
        swarm(&project, &server)
            .args([
                "msg",
                "agent-1",
                "INFO",
                "--from",
                "agent-0",
                "pushed, not polled",
            ])
            .assert()
            .code(predicates::ord::lt(8));
        let uri = tokio::time::timeout(PATIENCE, updates.recv())
            .await
            .expect("a resource-updated notification")
            .expect("channel open");
        assert_eq!(uri, "swarm://inbox");
        let read = b
            .read_resource(ReadResourceRequestParams::new("swarm://inbox"))
            .await
            .expect("resources/read");
        let text = match &read.contents[0] {
            rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
            other => panic!("{other:?}"),
        };
        let inbox: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(inbox["unread"], 1);
        assert_eq!(inbox["messages"][0]["content"], "pushed, not polled");
        // Reading the resource marks nothing read.
        let taken = ok(&b, "read_messages", json!({})).await;
        assert_eq!(taken["messages"][0]["content"], "pushed, not polled");
        b.cancel().await.expect("close");
    });
}

#[test]
fn install_merges_into_each_agent_config_and_uninstall_restores_it() {
    let server = TmuxServer::start();
    let project = Project::new();
    let mcp_json = "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-server\"\n    }\n  }\n}\n";
    project.write(".mcp.json", mcp_json);
    std::fs::create_dir(project.file(".codex")).expect("mkdir");
    let codex = "# mine\nmodel = \"x\"\n";
    project.write(".codex/config.toml", codex);
    let out = swarm(&project, &server)
        .args(["mcp", "install", "--claude", "--codex", "--gemini"])
        .output()
        .expect("install");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Claude Code: .mcp.json added, .claude/settings.local.json added"),
        "{text}"
    );
    let exe = std::fs::canonicalize(swarm_bin()).expect("canonical");
    let exe = exe.to_str().expect("utf-8");
    let claude: Value = serde_json::from_str(&project.read(".mcp.json")).expect("json");
    assert_eq!(claude["mcpServers"]["docs"]["command"], "docs-server");
    assert_eq!(
        claude["mcpServers"]["swarm"],
        json!({"command": exe, "args": ["mcp"]})
    );
    let approved: Value =
        serde_json::from_str(&project.read(".claude/settings.local.json")).expect("json");
    assert_eq!(approved["enabledMcpjsonServers"], json!(["swarm"]));
    let gemini: Value = serde_json::from_str(&project.read(".gemini/settings.json")).expect("json");
    assert_eq!(gemini["mcpServers"]["swarm"]["command"], exe);
    let toml_text = project.read(".codex/config.toml");
    assert!(toml_text.starts_with(codex), "{toml_text}");
    assert!(toml_text.contains("[mcp_servers.swarm]"), "{toml_text}");

    let doctor = swarm(&project, &server)
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let report: Value = serde_json::from_slice(&doctor.stdout).expect("json");
    let mcp_checks: Vec<&Value> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| {
            c["check"]
                .as_str()
                .is_some_and(|n| n.starts_with("MCP server"))
        })
        .collect();
    assert_eq!(mcp_checks.len(), 3, "{report:#}");
    assert!(mcp_checks.iter().all(|c| c["status"] == "ok"), "{report:#}");

    swarm(&project, &server)
        .args(["mcp", "uninstall"])
        .assert()
        .success();
    assert_eq!(project.read(".mcp.json"), mcp_json);
    assert_eq!(project.read(".codex/config.toml"), codex);
    assert!(!project.file(".gemini/settings.json").exists());
    assert!(!project.file(".claude/settings.local.json").exists());
    // A stale binary path is what doctor catches.
    project.write(
        ".gemini/settings.json",
        r#"{"mcpServers": {"swarm": {"command": "/gone/swarm", "args": ["mcp"]}}}"#,
    );
    let doctor = swarm(&project, &server)
        .args(["doctor", "--json"])
        .output()
        .expect("doctor");
    let report: Value = serde_json::from_slice(&doctor.stdout).expect("json");
    let gemini = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "MCP server (Gemini CLI)")
        .cloned()
        .expect("gemini check");
    assert_eq!(gemini["status"], "fail", "{gemini:#}");
}

#[test]
fn a_listening_client_of_the_newer_protocol_hears_of_new_messages_too() {
    use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let mut cmd = tokio::process::Command::new(swarm_bin());
        cmd.arg("mcp")
            .current_dir(project.path())
            .env_remove("CLAUDESWARM_ROOT")
            .env_remove("SWARM_TMUX_SOCKET")
            .env("TMUX", tmux_env(&server))
            .env("TMUX_PANE", &panes[1]);
        let (tx, _rx) = mpsc::unbounded_channel();
        let b = Client { updated: tx }
            .serve_with_lifecycle(
                TokioChildProcess::new(cmd).expect("start swarm mcp"),
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("discover handshake");
        let mut sub = b
            .listen(
                SubscriptionFilter::builder()
                    .resource_subscription("swarm://inbox")
                    .build(),
            )
            .await
            .expect("listen");
        assert_eq!(
            sub.acknowledged().resource_subscriptions,
            Some(vec!["swarm://inbox".to_owned()])
        );
        let (a, _) = connect(&server, &project, &panes[0]).await;
        ok(
            &a,
            "send_message",
            json!({"to": "agent-1", "type": "INFO", "content": "hello"}),
        )
        .await;
        let note = tokio::time::timeout(PATIENCE, sub.next())
            .await
            .expect("a notification in time")
            .expect("subscription alive")
            .expect("a notification");
        let ServerNotification::ResourceUpdatedNotification(n) = note else {
            panic!("expected a resource update, got {note:?}");
        };
        assert_eq!(n.params.uri, "swarm://inbox");
        a.cancel().await.expect("close");
        b.cancel().await.expect("close");
    });
}

#[test]
fn shared_locks_and_leases_through_mcp() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    runtime().block_on(async {
        let (a, _) = connect(&server, &project, &panes[0]).await;
        let (b, _) = connect(&server, &project, &panes[1]).await;
        ok(
            &a,
            "lock",
            json!({"paths": ["src/schema.sql"], "shared": true}),
        )
        .await;
        let joined = ok(
            &b,
            "lock",
            json!({"paths": ["src/schema.sql"], "shared": true}),
        )
        .await;
        let holders: Vec<&str> = joined["acquired"][0]["holders"]
            .as_array()
            .expect("holders")
            .iter()
            .map(|h| h["agent"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(holders, ["agent-0", "agent-1"]);
        let r = call(&b, "lock", json!({"paths": ["src/*.sql"]})).await;
        assert_eq!(
            r.structured_content
                .as_ref()
                .map(|v| v["exit_code"].clone()),
            Some(json!(3)),
            "a writer under a reader: {r:?}"
        );

        // A lease, renewed by its holder only.
        let got = ok(&a, "lock", json!({"paths": ["src/job.rs"], "ttl": "10m"})).await;
        let left = got["acquired"][0]["expires_in_seconds"]
            .as_f64()
            .expect("a lease");
        assert!(left > 500.0 && left <= 600.0, "{got}");
        let renewed = ok(&a, "renew", json!({"paths": ["src/job.rs"], "ttl": "1h"})).await;
        assert!(
            renewed["renewed"][0]["expires_in_seconds"]
                .as_f64()
                .is_some_and(|s| s > 3000.0)
        );
        let text = err(&b, "renew", json!({"paths": ["src/job.rs"]})).await;
        assert!(text.contains("held by agent-0"), "{text}");
        let text = err(&a, "lock", json!({"paths": ["x.rs"], "ttl": "soon"})).await;
        assert!(text.contains("ttl"), "{text}");
        let list = ok(&b, "list_locks", json!({})).await;
        assert_eq!(list["locks"].as_array().map(Vec::len), Some(2), "{list}");
        a.cancel().await.expect("close");
        b.cancel().await.expect("close");
    });
}
