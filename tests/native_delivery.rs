//! Native delivery through real tmux: the demo agent with `--native` has a
//! channel made like Claude Code's (a session file, a Unix socket, a
//! transcript recording each message it takes as a peer message), so the
//! socket path of `swarm msg` runs end to end: an idle agent takes the
//! message at once (confirmed by its transcript, never typed), a busy one
//! accepts it and takes it when its turn ends (the watcher follows it), a
//! socket that is not bound leaves the message to typing, a message the
//! agent drops is reported dropped and never typed, one it holds for the
//! person's approval is awaiting approval because its record says so, one
//! it takes into the running turn is delivered (not dropped, although its
//! queue removed it), `[delivery] native = "off"` and `--urgent` type as
//! before.

use std::path::PathBuf;
use std::process::Output;

use crate::harness::watcher::watch;
use crate::harness::{
    Project, TmuxServer, records, stdout_json, swarm, swarm_bin, typed_as, wait_for,
};

/// A demo agent with a native channel (`flags` added to `--native`), its
/// Claude config dir in the project; discovered as agent-0. Its pane.
fn native_agent(server: &TmuxServer, project: &Project, flags: &str) -> String {
    let command = format!(
        "exec env CLAUDE_CONFIG_DIR='{}' '{}' demo-agent --native {flags} --record '{}'",
        config_dir(project).display(),
        swarm_bin(),
        project.file("rec.jsonl").display()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "waiting for messages");
    swarm(project, server).arg("discover").assert().success();
    pane
}

/// `native_agent`, working on a turn of 3 s (its session file says busy).
fn busy_native_agent(server: &TmuxServer, project: &Project, flags: &str) -> String {
    let pane = native_agent(server, project, flags);
    type_keys(server, &pane, "long work DEMOSLEEP3");
    server.wait_for_screen(&pane, "* working");
    wait_busy(project);
    pane
}

fn config_dir(project: &Project) -> PathBuf {
    project.file(".claude-config")
}

/// The records of the demo agent's transcript (there is one).
fn transcript(project: &Project) -> Vec<serde_json::Value> {
    let projects = config_dir(project).join("projects");
    let Ok(dirs) = std::fs::read_dir(&projects) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in dirs.flatten() {
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.extend(records(&file.path()));
        }
    }
    out
}

fn peer_records(project: &Project) -> Vec<serde_json::Value> {
    transcript(project)
        .into_iter()
        .filter(|r| r["origin"]["kind"] == "peer")
        .collect()
}

fn submissions(project: &Project) -> Vec<serde_json::Value> {
    records(&project.file("rec.jsonl"))
        .into_iter()
        .filter(|r| r.get("text").is_some())
        .collect()
}

fn msg_json(project: &Project, server: &TmuxServer, args: &[&str]) -> Output {
    let mut all = vec!["msg", "agent-0", "INFO", "--json"];
    all.extend_from_slice(args);
    swarm(project, server).args(&all).output().expect("run")
}

/// The id `msg --json` gave the message.
fn msg_id(out: &Output) -> String {
    stdout_json(out)["msg_id"]
        .as_str()
        .expect("msg --json names the message")
        .to_owned()
}

fn outcome(out: &Output) -> serde_json::Value {
    stdout_json(out)["outcomes"]["agent-0"].clone()
}

fn type_keys(server: &TmuxServer, pane: &str, text: &str) {
    server.tmux(&["send-keys", "-t", pane, "-l", "--", text]);
    server.tmux(&["send-keys", "-t", pane, "Enter"]);
}

/// The latest outcome for agent-0 of message `id` in the log.
fn logged_outcome(project: &Project, id: &str) -> serde_json::Value {
    records(&project.file("agent_messages.log"))
        .into_iter()
        .filter(|r| r["event"] == "delivery" && r["msg_id"] == id)
        .filter_map(|r| r["outcomes"].get("agent-0").cloned())
        .next_back()
        .unwrap_or_default()
}

fn feed_of(project: &Project, kind: &str) -> Vec<serde_json::Value> {
    records(&project.file(".swarm/feed.jsonl"))
        .into_iter()
        .filter(|e| e["event"] == kind)
        .collect()
}

#[test]
fn an_idle_agent_takes_a_message_from_its_socket_once_confirmed_by_its_transcript() {
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "");

    let out = msg_json(&project, &server, &["--", "through the socket"]);
    assert!(out.status.success(), "{out:?}");
    let o = outcome(&out);
    assert_eq!(o["status"], "delivered", "{o}");
    assert_eq!(o["via"], "socket", "{o}");
    assert_eq!(o["confirmed_by"], "transcript", "{o}");

    let got = submissions(&project);
    assert_eq!(got.len(), 1, "{got:?}");
    let text = got[0]["text"].as_str().expect("as set up");
    assert!(typed_as(text, "INFO", "through the socket"), "{text}");
    // Nothing was pasted into the pane: it came on the socket.
    assert_eq!(got[0]["pastes"], 0, "{got:?}");
    let peers = peer_records(&project);
    assert_eq!(peers.len(), 1, "{peers:?}");
    let id = msg_id(&out);
    assert_eq!(logged_outcome(&project, &id)["via"], "socket");
}

#[test]
fn a_busy_agent_accepts_a_message_and_takes_it_once_when_its_turn_ends() {
    let server = TmuxServer::start();
    let project = Project::new();
    busy_native_agent(&server, &project, "");

    let out = msg_json(&project, &server, &["--", "after your turn"]);
    assert!(out.status.success(), "{out:?}");
    let o = outcome(&out);
    assert_eq!(o["status"], "accepted", "{o}");
    assert_eq!(o["via"], "socket", "{o}");
    assert_eq!(feed_of(&project, "message_accepted").len(), 1);
    let id = msg_id(&out);

    let _watch = watch(&project, &server, &[]);
    let taken = wait_for("the watcher to see it taken", || {
        let f = feed_of(&project, "message_taken");
        (!f.is_empty()).then_some(f)
    });
    assert_eq!(taken[0]["msg_id"], id.as_str(), "{taken:?}");
    let logged = logged_outcome(&project, &id);
    assert_eq!(logged["status"], "delivered", "{logged}");
    assert_eq!(logged["confirmed_by"], "transcript", "{logged}");
    let got = submissions(&project);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(typed_as(
        got[1]["text"].as_str().expect("as set up"),
        "INFO",
        "after your turn"
    ));
    let peers = peer_records(&project);
    assert_eq!(peers.len(), 1, "{peers:?}");
    assert_eq!(peers[0]["type"], "attachment", "{peers:?}");
}

#[test]
fn a_socket_that_is_not_bound_leaves_the_message_to_typing() {
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "--native-unbound");

    let out = msg_json(&project, &server, &["--", "typed instead"]);
    assert!(out.status.success(), "{out:?}");
    let o = outcome(&out);
    assert_eq!(o["status"], "delivered", "{o}");
    assert_eq!(o["via"], "typed", "{o}");
    let got = submissions(&project);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0]["pastes"].as_u64().expect("as set up") >= 1,
        "{got:?}"
    );
    assert!(peer_records(&project).is_empty());
}

#[test]
fn a_message_the_agent_drops_is_reported_dropped_and_never_typed() {
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "--native-drop 1");

    let out = msg_json(&project, &server, &["--", "lost on the way"]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    let o = outcome(&out);
    assert_eq!(o["status"], "dropped", "{o}");
    assert_eq!(o["via"], "socket", "{o}");
    assert!(submissions(&project).is_empty());
    // The next one goes through: the channel itself works.
    let out = msg_json(&project, &server, &["--", "the next one"]);
    assert_eq!(outcome(&out)["status"], "delivered", "{out:?}");
    assert_eq!(submissions(&project).len(), 1);
}

#[test]
fn native_off_and_urgent_messages_are_typed() {
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "");

    let out = msg_json(&project, &server, &["--urgent", "--", "urgent one"]);
    let o = outcome(&out);
    assert_eq!(o["status"], "delivered", "{o}");
    assert_eq!(o["via"], "typed", "{o}");

    project.write(".claudeswarm.toml", "[delivery]\nnative = \"off\"\n");
    let out = msg_json(&project, &server, &["--", "off by config"]);
    let o = outcome(&out);
    assert_eq!(o["via"], "typed", "{o}");
    let got = submissions(&project);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got.iter().all(|r| r["pastes"].as_u64() >= Some(1)),
        "{got:?}"
    );
    assert!(peer_records(&project).is_empty());
}

/// Waits until the agent's session file says it is busy (as Claude Code's
/// does, a moment after its turn starts).
fn wait_busy(project: &Project) {
    wait_for("the session file to say busy", || {
        session_files(project)
            .iter()
            .any(|f| {
                std::fs::read_to_string(f)
                    .ok()
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                    .is_some_and(|v| v["status"] == "busy")
            })
            .then_some(())
    });
}

/// The session file of the agent, for the doctor's and agents' view.
fn session_files(project: &Project) -> Vec<PathBuf> {
    std::fs::read_dir(config_dir(project).join("sessions"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[test]
fn agents_json_and_the_doctor_show_each_agents_channel() {
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "");
    assert_eq!(session_files(&project).len(), 1);

    let out = swarm(&project, &server)
        .args(["agents", "--json"])
        .output()
        .expect("run");
    let v = stdout_json(&out);
    let agent = v
        .as_array()
        .and_then(|a| a.iter().find(|a| a["id"] == "agent-0"))
        .cloned()
        .expect("agent-0 listed");
    assert_eq!(agent["channel"]["kind"], "socket", "{v}");
    assert!(
        agent["channel"]["why"]
            .as_str()
            .expect("as set up")
            .contains("bound"),
        "{v}"
    );
    let doctor = swarm(&project, &server)
        .arg("doctor")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        text.contains("agent-0: socket: socket found and bound"),
        "{text}"
    );
}

#[test]
fn the_doctor_warns_when_claude_code_would_hold_swarms_messages() {
    let server = TmuxServer::start();
    let project = Project::new();
    let settings = config_dir(&project).join("settings.json");
    std::fs::create_dir_all(config_dir(&project)).expect("as set up");
    std::fs::write(
        &settings,
        r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#,
    )
    .expect("as set up");
    native_agent(&server, &project, "");
    let doctor = swarm(&project, &server)
        .arg("doctor")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(
        text.contains("holds swarm's messages for your approval in agent-0"),
        "{text}"
    );
    assert!(
        text.contains("\"crossSessionInbound\": \"accept\""),
        "{text}"
    );
    // swarm never changes the agent's settings.
    assert!(
        !std::fs::read_to_string(&settings)
            .expect("as set up")
            .contains("crossSessionInbound")
    );

    std::fs::write(
        &settings,
        r#"{"permissions": {"defaultMode": "bypassPermissions"}, "crossSessionInbound": "accept"}"#,
    )
    .expect("as set up");
    let doctor = swarm(&project, &server)
        .arg("doctor")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(!text.contains("holds swarm's messages"), "{text}");
}

#[test]
fn the_prompt_hook_never_lists_a_message_the_agent_accepted_on_its_socket() {
    let server = TmuxServer::start();
    let project = Project::new();
    let command = format!(
        "exec env SWARM_DEMO_HOOKS=claude CLAUDE_CONFIG_DIR='{}' XDG_CONFIG_HOME='{}' '{}' \
         demo-agent --native --record '{}'",
        config_dir(&project).display(),
        project.file(".user-config").display(),
        swarm_bin(),
        project.file("rec.jsonl").display()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "waiting for messages");
    swarm(&project, &server).arg("discover").assert().success();
    type_keys(&server, &pane, "long work DEMOSLEEP3");
    server.wait_for_screen(&pane, "* working");
    wait_busy(&project);
    let out = msg_json(&project, &server, &["--", "accepted on the socket"]);
    assert_eq!(outcome(&out)["status"], "accepted", "{out:?}");
    let id = msg_id(&out);
    // A prompt of the person's, taken before the accepted message: its
    // hook lists the agent's unread messages.
    type_keys(&server, &pane, "a prompt of my own");
    wait_for("both taken", || {
        (submissions(&project).len() >= 3).then_some(())
    });
    let shown: Vec<_> = records(&project.file("agent_messages.log"))
        .into_iter()
        .filter(|r| r["msg_id"] == id.as_str())
        .filter(|r| r["note"] == "shown by the agent's prompt hook")
        .collect();
    assert!(shown.is_empty(), "{shown:?}");
    let got = submissions(&project);
    assert_eq!(got[1]["text"], "a prompt of my own", "{got:?}");
    assert!(typed_as(
        got[2]["text"].as_str().expect("as set up"),
        "INFO",
        "accepted on the socket"
    ));
}

#[test]
fn a_message_the_agent_holds_is_awaiting_approval_from_its_record() {
    let server = TmuxServer::start();
    let project = Project::new();
    // No settings of the agent's say it holds messages: only its record
    // can tell.
    native_agent(&server, &project, "--native-hold");
    assert!(!config_dir(&project).join("settings.json").exists());

    let out = msg_json(&project, &server, &["--", "wait for the person"]);
    assert!(out.status.success(), "{out:?}");
    let o = outcome(&out);
    assert_eq!(o["status"], "awaiting_approval", "{o}");
    assert_eq!(o["via"], "socket", "{o}");
    let id = msg_id(&out);
    let held: Vec<_> = transcript(&project)
        .into_iter()
        .filter(|r| r["type"] == "system")
        .collect();
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(logged_outcome(&project, &id)["status"], "awaiting_approval");
    let accepted = feed_of(&project, "message_accepted");
    assert_eq!(accepted.len(), 1, "{accepted:?}");
    assert_eq!(accepted[0]["msg_id"], id.as_str(), "{accepted:?}");
    assert!(
        accepted[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("awaiting the person's approval")),
        "{accepted:?}"
    );
    // Held is not taken, and never typed as well.
    assert!(submissions(&project).is_empty());
    assert!(peer_records(&project).is_empty());
}

#[test]
fn a_message_taken_into_the_running_turn_is_delivered_not_dropped() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = busy_native_agent(&server, &project, "--native-absorb");

    let out = msg_json(&project, &server, &["--", "into this turn"]);
    assert!(out.status.success(), "{out:?}");
    let id = msg_id(&out);
    let o = outcome(&out);
    // Queued first (the send sees that, the agent being busy), or already
    // taken in when the send looked.
    if o["status"] == "accepted" {
        let _watch = watch(&project, &server, &[]);
        wait_for("the watcher to settle it", || {
            let settled = ["message_taken", "message_dropped"]
                .iter()
                .any(|k| !feed_of(&project, k).is_empty());
            settled.then_some(())
        });
    } else {
        assert_eq!(o["status"], "delivered", "{o}");
    }
    let logged = logged_outcome(&project, &id);
    assert_eq!(logged["status"], "delivered", "{logged}");
    assert_eq!(logged["confirmed_by"], "transcript", "{logged}");
    assert!(feed_of(&project, "message_dropped").is_empty());
    let removed: Vec<_> = transcript(&project)
        .into_iter()
        .filter(|r| r["reason"] == "absorbed_mid_turn")
        .collect();
    assert_eq!(removed.len(), 1, "{removed:?}");
    // Taken once, inside the turn: not again when the turn ends (the
    // next message, taken after the end, comes right after it).
    server.wait_for_screen(&pane, "* done");
    let out = msg_json(&project, &server, &["--", "after the turn"]);
    assert_eq!(outcome(&out)["status"], "delivered", "{out:?}");
    let got = submissions(&project);
    assert_eq!(got.len(), 3, "{got:?}");
    for (n, text) in [(1, "into this turn"), (2, "after the turn")] {
        let sub = got[n]["text"].as_str().expect("as set up");
        assert!(typed_as(sub, "INFO", text), "{got:?}");
        assert_eq!(got[n]["pastes"], 0, "{got:?}");
    }
}
