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
//! before; another account cannot reach the socket, and a session file or
//! socket of another user than the agent's is never posted to.

use std::path::PathBuf;
use std::process::Output;

use crate::harness::other_account;
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

/// The agent's session file and the socket it names.
fn session_and_socket(project: &Project) -> (PathBuf, PathBuf) {
    let files = session_files(project);
    let [file] = files.as_slice() else {
        panic!("one session file: {files:?}");
    };
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("as set up")).expect("JSON");
    let socket = PathBuf::from(v["messagingSocketPath"].as_str().expect("a socket"));
    (file.clone(), socket)
}

/// agent-0's channel as `swarm agents --json` shows it.
fn channel(project: &Project, server: &TmuxServer) -> serde_json::Value {
    let out = swarm(project, server)
        .args(["agents", "--json"])
        .output()
        .expect("run");
    stdout_json(&out)
        .as_array()
        .and_then(|a| a.iter().find(|a| a["id"] == "agent-0"))
        .map(|a| a["channel"].clone())
        .expect("agent-0 listed")
}

#[test]
fn another_account_cannot_connect_to_the_demo_agents_socket() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if !other_account::can_switch("another_account_cannot_connect_to_the_demo_agents_socket") {
        return;
    }
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "");
    let (_, socket) = session_and_socket(&project);
    let meta = std::fs::symlink_metadata(&socket).expect("bound");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let dir = std::fs::metadata(socket.parent().expect("a directory")).expect("there");
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    assert_eq!((meta.uid(), dir.uid()), (0, 0), "root's own");

    other_account::assert_only_its_own_account_connects(&socket);
}

#[test]
fn a_session_file_or_socket_of_another_user_than_the_agents_is_never_posted_to() {
    if !other_account::can_switch(
        "a_session_file_or_socket_of_another_user_than_the_agents_is_never_posted_to",
    ) {
        return;
    }
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "");
    let (file, socket) = session_and_socket(&project);
    assert_eq!(channel(&project, &server)["kind"], "socket");

    let uid = other_account::other_uid();
    let other = Some(uid);
    std::os::unix::fs::chown(&file, other, other).expect("chown");
    let c = channel(&project, &server);
    assert_eq!(c["kind"], "typed", "{c}");
    let why = c["why"].as_str().expect("a why");
    assert!(
        why.contains(&format!(
            "belongs to another user (uid {uid}) than the agent process (uid 0)"
        )),
        "{why}"
    );
    let out = msg_json(&project, &server, &["--", "not through their file"]);
    let o = outcome(&out);
    assert_eq!(
        (&o["status"], &o["via"]),
        (&"delivered".into(), &"typed".into()),
        "{o}"
    );
    assert!(
        peer_records(&project).is_empty(),
        "nothing went to the socket"
    );

    // The file the agent's own again (it may have written a new one), the
    // socket another user's.
    std::os::unix::fs::chown(&file, Some(0), Some(0)).expect("chown");
    std::os::unix::fs::chown(&socket, other, other).expect("chown");
    let c = channel(&project, &server);
    assert_eq!(c["kind"], "typed", "{c}");
    let why = c["why"].as_str().expect("a why");
    assert!(
        why.contains(&format!("belongs to another user (uid {uid}, not 0)")),
        "{why}"
    );
    let out = msg_json(&project, &server, &["--", "not through their socket"]);
    assert_eq!(outcome(&out)["via"], "typed", "{out:?}");
    assert!(
        peer_records(&project).is_empty(),
        "nothing went to the socket"
    );
    assert_eq!(submissions(&project).len(), 2);
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

/// A directory whose `tmux` logs each call to `log` and then runs the
/// real one: put first on `PATH`, it shows every tmux command swarm runs.
fn logging_tmux(project: &Project, log: &std::path::Path) -> PathBuf {
    let real = crate::harness::real_tmux();
    let dir = project.file("logging-tmux");
    std::fs::create_dir_all(&dir).expect("as set up");
    let script = dir.join("tmux");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        ),
    )
    .expect("as set up");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("as set up");
    dir
}

#[test]
fn a_native_message_runs_no_tmux_command_and_its_record_says_when_it_came() {
    let server = TmuxServer::start();
    let project = Project::new();
    native_agent(&server, &project, "");
    let log = project.file("tmux-calls.log");
    let dir = logging_tmux(&project, &log);
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").expect("PATH"));
    let send = |args: &[&str]| {
        let mut all = vec!["msg", "agent-0", "INFO", "--json"];
        all.extend_from_slice(args);
        swarm(&project, &server)
            .env("PATH", &path)
            .args(&all)
            .output()
            .expect("run")
    };

    let out = send(&["--", "no client at all"]);
    assert_eq!(outcome(&out)["via"], "socket", "{out:?}");
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(calls.is_empty(), "tmux was run: {calls}");
    // The agent's record tells when the message came on its socket, before
    // it took it; a typed one (urgent) has no such time, and went through
    // the logging tmux.
    let out = send(&["--urgent", "--", "typed, urgent"]);
    assert_eq!(outcome(&out)["via"], "typed", "{out:?}");
    assert!(std::fs::read_to_string(&log).is_ok_and(|c| c.contains("paste-buffer")));
    let got = submissions(&project);
    assert_eq!(got.len(), 2, "{got:?}");
    let came = got[0]["queued_unix"].as_f64().expect("a time it came");
    assert!(came <= got[0]["submitted_unix"].as_f64().expect("as set up"));
    assert!(got[1].get("queued_unix").is_none(), "{got:?}");
}

#[test]
fn a_broadcast_reaches_each_native_agent_once_on_its_socket_and_types_for_the_rest() {
    let server = TmuxServer::start();
    let project = Project::new();
    for (i, flags) in ["--native", "--native", ""].iter().enumerate() {
        let command = format!(
            "exec env CLAUDE_CONFIG_DIR='{}' '{}' demo-agent {flags} --record '{}'",
            config_dir(&project).display(),
            swarm_bin(),
            project.file(&format!("rec-{i}.jsonl")).display()
        );
        let pane = server.pane(&project.path(), &command);
        server.wait_for_screen(&pane, "waiting for messages");
    }
    swarm(&project, &server).arg("discover").assert().success();

    let out = swarm(&project, &server)
        .args(["broadcast", "INFO", "to everyone", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let outcomes = stdout_json(&out)["outcomes"].clone();
    let vias: Vec<&str> = (0..3)
        .map(|i| outcomes[format!("agent-{i}")]["via"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(vias, ["socket", "socket", "typed"], "{outcomes}");
    for i in 0..3 {
        let got: Vec<_> = records(&project.file(&format!("rec-{i}.jsonl")))
            .into_iter()
            .filter(|r| r.get("text").is_some())
            .collect();
        assert_eq!(got.len(), 1, "agent-{i}: {got:?}");
        assert!(typed_as(
            got[0]["text"].as_str().expect("as set up"),
            "INFO",
            "to everyone"
        ));
    }
    assert_eq!(peer_records(&project).len(), 2);
}
