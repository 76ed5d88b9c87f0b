//! Acknowledgements end to end, with short timeouts, through real tmux and
//! demo agents: retries carry the same id, escalations reach everyone once,
//! an ACK by prefix stops everything, and concurrent retry loops never send
//! a retry twice.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::harness::{
    Project, TmuxServer, fails_with, launch_demo, ok, ok_stdout, records, stdout_json, swarm,
    swarm_bin, wait_for, wait_for_records,
};

/// One second to the first retry, then 1 s, 1 s, and 2 s to the escalation.
const FAST: &str = "[acks]\ntimeout_seconds = 1\nretry_delays = [1, 1]\nmax_retries = 3\n\n[rate_limiting]\nmessages_per_minute = 1000\n";

fn setup(agents: usize) -> (TmuxServer, Project, Vec<String>) {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(".claudeswarm.toml", FAST);
    let panes: Vec<String> = (0..agents)
        .map(|i| server.demo_agent(&project.path(), &project.file(&format!("rec-{i}.jsonl"))))
        .collect();
    swarm(&project, &server).arg("discover").assert().success();
    (server, project, panes)
}

fn rec(project: &Project, i: usize) -> std::path::PathBuf {
    project.file(&format!("rec-{i}.jsonl"))
}

fn texts(project: &Project, i: usize) -> Vec<String> {
    records(&rec(project, i))
        .iter()
        .map(|r| r["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Sends a BLOCKED message needing an ACK from agent-0 to agent-1 and
/// returns its full id.
fn send_with_ack(project: &Project, server: &TmuxServer, panes: &[String], body: &str) -> String {
    let out = swarm(project, server)
        .env("TMUX_PANE", &panes[0])
        .args(["msg", "agent-1", "BLOCKED", "--ack", "--json", body])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout_json(&out)["msg_id"].as_str().expect("id").to_owned()
}

struct Watcher(Child);

impl Watcher {
    fn start(project: &Project, server: &TmuxServer) -> Watcher {
        Watcher(
            Command::new(swarm_bin())
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env("SWARM_TMUX_SOCKET", &server.socket)
                .args(["watch", "--interval", "3600"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn watch"),
        )
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn pending(project: &Project, server: &TmuxServer) -> Vec<Value> {
    let out = swarm(project, server)
        .args(["acks", "--json"])
        .output()
        .expect("run");
    stdout_json(&out).as_array().cloned().unwrap_or_default()
}

#[test]
fn unanswered_messages_are_retried_with_the_same_id_then_escalated_to_everyone() {
    let (server, project, panes) = setup(3);
    let id = send_with_ack(&project, &server, &panes, "need src/auth.py");
    let first = wait_for_records(&rec(&project, 1), 1);
    assert!(
        first[0]["text"]
            .as_str()
            .expect("text")
            .contains(&format!("[REQUIRES-ACK id={id}]"))
    );
    assert!(
        first[0]["text"]
            .as_str()
            .expect("text")
            .contains(&format!("swarm ack {}", &id[..8]))
    );

    let _watch = Watcher::start(&project, &server);
    // Everyone (the sender too) gets the escalation.
    for i in 0..3 {
        wait_for(&format!("the escalation in agent-{i}'s pane"), || {
            texts(&project, i)
                .iter()
                .any(|t| t.contains("[UNACKNOWLEDGED]"))
                .then_some(())
        });
    }
    let to_recipient = wait_for_records(&rec(&project, 1), 5);
    let mut retries = Vec::new();
    for (n, r) in to_recipient.iter().enumerate().skip(1).take(3) {
        let text = r["text"].as_str().expect("text");
        assert!(
            text.contains(&format!("[RETRY {n}/3] [REQUIRES-ACK id={id}]")),
            "{text}"
        );
        retries.push(r["first_byte_unix"].as_f64().expect("time"));
    }
    // In order, after the message itself. (That none goes out before its
    // due time is the pending list's unit tests' to check, with a clock
    // they set: here a slow delivery would make any margin a guess.)
    let sent = to_recipient[0]["first_byte_unix"].as_f64().expect("time");
    assert!(sent < retries[0] && retries[0] < retries[1] && retries[1] < retries[2]);
    for i in 0..3 {
        let escalations: Vec<String> = texts(&project, i)
            .into_iter()
            .filter(|t| t.contains("[UNACKNOWLEDGED]"))
            .collect();
        assert_eq!(escalations.len(), 1, "agent-{i}: {escalations:?}");
        assert!(
            escalations[0].contains(&id) && escalations[0].contains("agent-1"),
            "{}",
            escalations[0]
        );
    }
    assert!(pending(&project, &server).is_empty());
    // Retries reached only the recipient.
    assert_eq!(texts(&project, 2).len(), 1);
}

#[test]
fn an_ack_by_prefix_stops_the_retries_and_tells_the_sender() {
    let (server, project, panes) = setup(2);
    let id = send_with_ack(&project, &server, &panes, "please confirm");
    wait_for_records(&rec(&project, 1), 1);
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &panes[1])
        .args(["ack", &id[..8], "--note", "on it"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(pending(&project, &server).is_empty());
    let to_sender = wait_for_records(&rec(&project, 0), 1);
    let text = to_sender[0]["text"].as_str().expect("text");
    assert!(
        text.contains("[ACK]") && text.contains(&format!("ACK {id}: on it")),
        "{text}"
    );
    // Twice is harmless.
    let again = swarm(&project, &server)
        .env("TMUX_PANE", &panes[1])
        .args(["ack", &id[..8]])
        .output()
        .expect("run");
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("already acknowledged"));
    // The sender's inbox has the ACK, naming the id.
    let out = swarm(&project, &server)
        .args(["inbox", "--agent", "agent-0", "--json"])
        .output()
        .expect("run");
    let inbox = stdout_json(&out);
    assert_eq!(inbox["messages"][0]["msg_type"], "ACK");
    assert!(
        inbox["messages"][0]["content"]
            .as_str()
            .expect("content")
            .contains(&id)
    );
    // Whatever time passes, nothing is pending, so nothing is retried.
    let _watch = Watcher::start(&project, &server);
    assert!(pending(&project, &server).is_empty());
    assert_eq!(texts(&project, 1).len(), 1);
}

#[test]
fn an_ack_to_the_person_from_the_command_line_is_a_message_to_them() {
    // As the MCP tool's ACK is: in the activity feed as a message to the
    // person (what notifies them and shows on the status line).
    let (server, project, panes) = setup(2);
    let out = swarm(&project, &server)
        .args(["msg", "agent-1", "BLOCKED", "--ack", "--json", "confirm?"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = stdout_json(&out)["msg_id"].as_str().expect("id").to_owned();
    wait_for_records(&rec(&project, 1), 1);
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &panes[1])
        .args(["ack", &id[..8]])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = swarm(&project, &server)
        .args(["feed", "--json", "--event", "message"])
        .output()
        .expect("feed");
    let messages: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert!(
        messages
            .iter()
            .any(|e| e["agent"] == "agent-1"
                && e["detail"].as_str().is_some_and(|d| d.contains("ACK"))),
        "no message event for the ACK: {messages:#?}"
    );
}

#[test]
fn only_the_recipient_may_acknowledge() {
    let (server, project, panes) = setup(3);
    let id = send_with_ack(&project, &server, &panes, "for agent-1 only");
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &panes[2])
        .args(["ack", &id[..8]])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("only agent-1 can acknowledge"), "{stderr}");
    assert_eq!(pending(&project, &server).len(), 1);
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &panes[1])
        .args(["ack", "ffffffff"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn read_only_commands_never_type_due_retries_into_panes() {
    let (server, project, panes) = setup(2);
    let id = send_with_ack(&project, &server, &panes, "are you there?");
    wait_for_records(&rec(&project, 1), 1);
    wait_for("the first retry to fall due", || {
        let entry = pending(&project, &server).into_iter().next()?;
        (entry["due_in_seconds"].as_f64()? <= 0.0).then_some(())
    });
    let before = project.read("PENDING_ACKS.json");
    for args in [
        ["who", "src/a.py"].as_slice(),
        &["locks"],
        &["agents"],
        &["inbox", "--agent", "agent-1"],
        &["acks"],
        &["config", "show"],
        &["doctor"],
        &["whoami"],
    ] {
        swarm(&project, &server)
            .env("TMUX_PANE", &panes[0])
            .args(args)
            .output()
            .expect("run");
        assert_eq!(
            project.read("PENDING_ACKS.json"),
            before,
            "`swarm {}` processed the due retry",
            args.join(" ")
        );
    }
    assert_eq!(texts(&project, 1).len(), 1, "nothing more reached agent-1");
    // A command that changes state does the housekeeping.
    swarm(&project, &server)
        .env("TMUX_PANE", &panes[0])
        .args(["lock", "src/a.py"])
        .assert()
        .success();
    let retried = wait_for_records(&rec(&project, 1), 2);
    let text = retried[1]["text"].as_str().expect("text");
    assert!(
        text.contains(&format!("[RETRY 1/3] [REQUIRES-ACK id={id}]")),
        "{text}"
    );
}

#[test]
fn concurrent_retry_loops_never_send_twice_or_lose_an_ack() {
    let (server, project, panes) = setup(3);
    let ids: Vec<String> = (0..4)
        .map(|i| send_with_ack(&project, &server, &panes, &format!("question {i}")))
        .collect();
    let watchers = [
        Watcher::start(&project, &server),
        Watcher::start(&project, &server),
    ];
    // A stream of commands that change state, each of which also processes
    // due work.
    let stream = {
        let dir = project.path();
        let socket = server.socket.clone();
        std::thread::spawn(move || {
            for _ in 0..40 {
                let _ = Command::new(swarm_bin())
                    .current_dir(&dir)
                    .env_remove("TMUX")
                    .env_remove("TMUX_PANE")
                    .env("SWARM_TMUX_SOCKET", &socket)
                    .arg("discover")
                    .output();
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    // Acknowledge two of them once their first retry arrived.
    for id in &ids[..2] {
        wait_for("a first retry", || {
            texts(&project, 1)
                .iter()
                .any(|t| t.contains("[RETRY 1/3]") && t.contains(id))
                .then_some(())
        });
        swarm(&project, &server)
            .env("TMUX_PANE", &panes[1])
            .args(["ack", &id[..8]])
            .assert()
            .success();
    }
    // The other two run to escalation, seen by every agent.
    for i in 0..3 {
        wait_for("both escalations everywhere", || {
            let n = texts(&project, i)
                .iter()
                .filter(|t| t.contains("[UNACKNOWLEDGED]"))
                .count();
            (n >= 2).then_some(())
        });
    }
    stream.join().expect("stream");
    drop(watchers);
    let recipient = texts(&project, 1);
    for id in &ids[2..] {
        for n in 1..=3 {
            let count = recipient
                .iter()
                .filter(|t| t.contains(&format!("[RETRY {n}/3]")) && t.contains(id.as_str()))
                .count();
            assert_eq!(count, 1, "retry {n} of {id} sent {count} times");
        }
    }
    for i in 0..3 {
        let all = texts(&project, i);
        let esc: Vec<&String> = all
            .iter()
            .filter(|t| t.contains("[UNACKNOWLEDGED]"))
            .collect();
        assert_eq!(esc.len(), 2, "agent-{i} got {} escalations", esc.len());
        for id in &ids[2..] {
            assert_eq!(esc.iter().filter(|t| t.contains(id.as_str())).count(), 1);
        }
    }
    for id in &ids[..2] {
        assert!(
            !recipient
                .iter()
                .any(|t| t.contains("[RETRY 2/3]") && t.contains(id.as_str())),
            "retried after its ACK"
        );
        assert!(
            texts(&project, 0)
                .iter()
                .any(|t| t.contains(&format!("ACK {id}"))),
            "ACK lost"
        );
    }
    assert!(pending(&project, &server).is_empty());
}

#[test]
fn a_recipient_that_left_is_escalated_at_once_without_a_retry() {
    let (server, project, panes) = setup(3);
    let id = send_with_ack(&project, &server, &panes, "are you there?");
    wait_for_records(&rec(&project, 1), 1);
    server.kill_pane(&panes[1]);
    swarm(&project, &server).arg("discover").assert().success();
    let _watch = Watcher::start(&project, &server);
    for i in [0, 2] {
        wait_for("the escalation", || {
            texts(&project, i)
                .iter()
                .any(|t| t.contains("has left the swarm") && t.contains(&id))
                .then_some(())
        });
    }
    assert!(pending(&project, &server).is_empty());
    assert!(!project.read("agent_messages.log").contains("retry 1/3"));
}

#[test]
fn a_corrupt_pending_file_is_reported_and_kept() {
    let (server, project, panes) = setup(2);
    project.write(
        "PENDING_ACKS.json",
        "{\"version\": 3, \"pending_acks\": [{\"msg_id\": ",
    );
    // `acks` only reads: it reports the damage and leaves the file.
    let out = swarm(&project, &server)
        .args(["acks"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("damaged") && stderr.contains("the next change to it moves it aside"),
        "{stderr}"
    );
    // The first command that changes state reports it and moves it aside.
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &panes[0])
        .args(["lock", "src/a.py"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("damaged") && stderr.contains("moved it to"),
        "{stderr}"
    );
    let out = swarm(&project, &server)
        .env("TMUX_PANE", &panes[0])
        .args(["msg", "agent-1", "INFO", "--ack", "hello"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kept: Vec<String> = project
        .ls(".")
        .into_iter()
        .filter(|n| n.starts_with("PENDING_ACKS.json.corrupt-"))
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        project.read(&kept[0]),
        "{\"version\": 3, \"pending_acks\": [{\"msg_id\": "
    );
    assert_eq!(pending(&project, &server).len(), 1);
}

#[test]
fn watch_removes_stale_locks() {
    let server = TmuxServer::start();
    let project = Project::new();
    std::fs::create_dir_all(project.file(".agent_locks")).expect("mkdir");
    // A lock in the Python tool's shape, taken an hour ago: stale.
    let stale = project
        .file(".agent_locks/4cb4854bf9d4ea6bf9cb31f4eda6b48b73b87992490f60aace407970d380db90.lock");
    let old = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
        - 3600.0;
    std::fs::write(
        &stale,
        format!("{{\n  \"agent_id\": \"agent-1\",\n  \"filepath\": \"src/a.py\",\n  \"locked_at\": {old},\n  \"reason\": \"gone\"\n}}"),
    )
    .expect("write");
    let _watch = Watcher::start(&project, &server);
    wait_for("the stale lock to be removed", || {
        (!stale.exists()).then_some(())
    });
    assert!(project.read(".swarm/audit.log").contains("src/a.py"));
}

#[test]
fn acknowledging_as_the_wrong_agent_says_who_can() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_demo(&project, &server, 2, "team");
    let out =
        ok(swarm(&project, &server).args(["msg", "agent-1", "QUESTION", "ok?", "--ack", "--json"]));
    let id = stdout_json(&out)["msg_id"].as_str().expect("id").to_owned();
    let stderr = fails_with(
        swarm(&project, &server).args(["ack", &id[..8], "--agent", "agent-0"]),
        1,
    );
    assert!(
        stderr.starts_with("swarm: error: only agent-1 can acknowledge"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "hint: agent-1 acknowledges it from its own pane with `swarm ack {}`",
            &id[..8]
        )),
        "{stderr}"
    );
    // The hint's command works as given.
    ok(swarm(&project, &server).args(["ack", &id[..8], "--agent", "agent-1"]));
}

#[test]
fn ack_from_the_terminal_acts_as_the_only_recipient() {
    let server = TmuxServer::start();
    let project = Project::new();
    launch_demo(&project, &server, 2, "team");
    let out = ok_stdout(
        swarm(&project, &server).args(["msg", "agent-1", "QUESTION", "ok?", "--ack", "--json"]),
    );
    let id = serde_json::from_str::<Value>(&out).expect("json")["msg_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let stdout = ok_stdout(swarm(&project, &server).args(["ack", &id[..8]]));
    assert!(stdout.contains("ACK sent"), "{stdout}");
    // The sender is the person, who has no pane: the ACK waits in their
    // inbox, and the command says so.
    assert!(!stdout.contains("delivered to their pane"), "{stdout}");
    assert!(stdout.contains("kept in their inbox"), "{stdout}");
    let acks = ok_stdout(swarm(&project, &server).args(["acks", "--json"]));
    assert!(!acks.contains(&id), "{acks}");
    // The sender got the ACK.
    let inbox =
        ok_stdout(swarm(&project, &server).args(["inbox", "--agent", "operator", "--json"]));
    assert!(inbox.contains("\"ACK\"") && inbox.contains(&id), "{inbox}");
}
