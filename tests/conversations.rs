//! Conversations: threads of replies (across log rotations, with the
//! Python tool's lines and ACKs in them; a reply's message found however
//! long its thread, by the command line and MCP alike), topic broadcasts that reach
//! exactly the subscribers, normal messages that wait for a busy agent's
//! turn to end while urgent ones go in at once, and search over the whole
//! kept history, checked against a plain scan and rebuilt when damaged.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;

use crate::harness::{
    Project, TmuxServer, outcome, records, stdout_json, swarm, swarm_outside_tmux, swarm_process,
    wait_for,
};

/// `swarm msg ... --json` outside tmux; returns the message's JSON.
fn send(project: &Project, args: &[&str]) -> serde_json::Value {
    let out = swarm_outside_tmux(project)
        .arg("msg")
        .args(args)
        .arg("--json")
        .output()
        .expect("run");
    assert!(
        matches!(out.status.code(), Some(0 | 7)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout_json(&out)
}

fn id_of(v: &serde_json::Value) -> String {
    v["msg_id"].as_str().expect("msg_id").to_owned()
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    v["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["msg_id"].as_str().expect("msg_id").to_owned())
        .collect()
}

fn json_of(project: &Project, args: &[&str]) -> serde_json::Value {
    let out = swarm_outside_tmux(project)
        .args(args)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout_json(&out)
}

#[test]
fn replies_of_replies_are_one_thread_across_rotations() {
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n\n[message_log]\nrotate_bytes = 1024\n",
    );
    project.register(&["agent-1", "agent-2"]);
    let filler = |n: usize| {
        for i in 0..n {
            send(
                &project,
                &[
                    "agent-2",
                    "INFO",
                    "--from",
                    "agent-1",
                    &format!("filler {i} {}", "z".repeat(200)),
                ],
            );
        }
    };
    let first = id_of(&send(&project, &["agent-1", "QUESTION", "which schema?"]));
    filler(6);
    // A reply named by a beginning of the id, a reply to the reply, and a
    // second reply to the first message.
    let second = send(
        &project,
        &[
            "operator",
            "INFO",
            "--from",
            "agent-1",
            "--reply-to",
            &first[..8],
            "v2",
        ],
    );
    assert_eq!(second["parent_msg_id"], first.as_str());
    let second = id_of(&second);
    filler(6);
    let third = id_of(&send(
        &project,
        &[
            "agent-1",
            "QUESTION",
            "--reply-to",
            &second,
            "--ack",
            "sure?",
        ],
    ));
    let other = id_of(&send(
        &project,
        &["agent-2", "INFO", "--reply-to", &first, "fyi"],
    ));
    // The Python tool answers too, in its own line's form.
    let python = format!(
        "{{\"sender\": \"agent-2\", \"timestamp\": \"2026-11-21T13:27:02.029457\", \"msg_type\": \"INFO\", \"content\": \"from python\", \"recipients\": [\"agent-1\"], \"msg_id\": \"py-reply-1\", \"parent_msg_id\": \"{third}\", \"delivery_status\": {{\"agent-1\": false}}, \"success_count\": 0, \"failure_count\": 1}}\n"
    );
    let mut log = fs::OpenOptions::new()
        .append(true)
        .open(project.file("agent_messages.log"))
        .expect("log");
    std::io::Write::write_all(&mut log, python.as_bytes()).expect("append");
    // An acknowledgement belongs to the thread of what it acknowledges.
    swarm_outside_tmux(&project)
        .args(["ack", &third[..8], "--agent", "agent-1"])
        .assert()
        .success();
    filler(4);
    let segments = project
        .ls("")
        .into_iter()
        .filter(|n| n.starts_with("agent_messages.log."))
        .count();
    assert!(segments >= 2, "only {segments} rotations");

    // Whichever message is named, the whole thread, oldest first.
    for named in [&first, &second, &third, &other, &"py-reply-1".to_owned()] {
        let thread = json_of(&project, &["thread", named, "--json"]);
        let got = ids(&thread);
        assert_eq!(got.len(), 6, "{got:?}");
        assert_eq!(&got[..5], [&first, &second, &third, &other, "py-reply-1"]);
        let ack = &thread["messages"][5];
        assert_eq!(ack["msg_type"], "ACK");
        assert_eq!(ack["parent_msg_id"], third.as_str());
    }
    // Not a filler.
    let alone = json_of(&project, &["thread", &first[..6], "--json"]);
    assert_eq!(ids(&alone)[0], first);
    // The inbox says what a message answers.
    let inbox = json_of(
        &project,
        &["inbox", "--agent", "agent-1", "--json", "--limit", "100"],
    );
    let reply = inbox["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["msg_id"] == third.as_str())
        .expect("the reply is in agent-1's inbox");
    assert_eq!(reply["parent_msg_id"], second.as_str());
    // A prefix nobody has, and one that is too short, are refused.
    swarm_outside_tmux(&project)
        .args(["thread", "ffffffff"])
        .assert()
        .code(4);
    swarm_outside_tmux(&project)
        .args(["msg", "agent-1", "INFO", "--reply-to", "ab", "x"])
        .assert()
        .code(1);
}

#[test]
fn a_topic_broadcast_reaches_exactly_its_subscribers() {
    let project = Project::new();
    project.register(&["agent-1", "agent-2", "agent-3", "agent-4"]);
    for (topic, agent) in [
        ("deploys", "agent-1"),
        ("Deploys", "agent-3"),
        ("schema", "agent-2"),
    ] {
        swarm_outside_tmux(&project)
            .args(["subscribe", topic, "--agent", agent])
            .assert()
            .success();
    }
    let topics = json_of(&project, &["topics", "--json"]);
    assert_eq!(
        topics["topics"]["deploys"],
        serde_json::json!(["agent-1", "agent-3"])
    );
    let agents = json_of(&project, &["agents", "--json"]);
    let of = |id: &str| {
        agents
            .as_array()
            .expect("agents")
            .iter()
            .find(|a| a["id"] == id)
            .map(|a| a["topics"].clone())
            .expect("agent")
    };
    assert_eq!(of("agent-3"), serde_json::json!(["deploys"]));
    assert_eq!(of("agent-4"), serde_json::json!([]));

    let sent = |project: &Project, topic: &str| {
        let out = swarm_outside_tmux(project)
            .args([
                "broadcast",
                "INFO",
                "--topic",
                topic,
                "release at 5",
                "--json",
            ])
            .output()
            .expect("run");
        stdout_json(&out)
    };
    let b = sent(&project, "deploys");
    let to: BTreeSet<&str> = b["outcomes"]
        .as_object()
        .expect("outcomes")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(to, BTreeSet::from(["agent-1", "agent-3"]));
    // The log keeps the topic, in swarm's own record.
    let log = project.read("agent_messages.log");
    assert!(
        log.lines()
            .any(|l| l.contains("\"event\": \"delivery\"") && l.contains("\"topic\": \"deploys\"")),
        "{log}"
    );
    let found = json_of(&project, &["search", "release", "--json"]);
    assert_eq!(found["messages"][0]["topic"], "deploys");

    swarm_outside_tmux(&project)
        .args(["unsubscribe", "deploys", "--agent", "agent-1"])
        .assert()
        .success();
    let b = sent(&project, "deploys");
    assert_eq!(
        b["outcomes"]
            .as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["agent-3".to_owned()])
    );
    // A topic nobody follows reaches nobody: refused.
    let out = swarm_outside_tmux(&project)
        .args(["broadcast", "INFO", "--topic", "nobody", "x"])
        .output()
        .expect("run");
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("follows topic nobody"));
}

/// The submissions the demo agent recorded.
fn submissions(project: &Project) -> Vec<String> {
    records(&project.file("rec.jsonl"))
        .into_iter()
        .filter_map(|r| r["text"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_normal_message_waits_for_the_turn_and_an_urgent_one_goes_in_at_once() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    server.tmux(&["send-keys", "-t", &pane, "-l", "--", "work DEMOSLEEP6"]);
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for_screen(&pane, "* working");

    // Normal: accepted (exit 0), held until the turn ends.
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "read me between turns"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("[ACCEPTED]"), "{text}");
    assert!(
        text.contains("agent-0 is working; delivered when its turn ends"),
        "{text}"
    );
    let held = project.read(".swarm/held.json");
    assert!(held.contains("read me between turns"), "{held}");

    // Urgent: typed in at once; the busy agent's own queue takes it.
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "INFO", "--urgent", "stop the line"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[DELIVERED]"), "{text}");
    server.wait_for_screen(&pane, "(queued)");
    assert!(
        !server.capture(&pane).contains("read me between turns"),
        "the normal message went in mid-turn"
    );

    // The project's watcher types the held one in once the turn is over.
    let mut watch = swarm_process(&project, Some(&server))
        .args(["watch", "--interval", "60"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("watch");
    let got = wait_for("the held message after the turn", || {
        let s = submissions(&project);
        (s.len() >= 3).then_some(s)
    });
    let _ = watch.kill();
    let _ = watch.wait();
    assert_eq!(got[0], "work DEMOSLEEP6");
    assert!(got[1].ends_with("]: stop the line"), "{got:?}");
    assert!(got[2].ends_with("]: read me between turns"), "{got:?}");
    // Each typed message carries its id for a reply.
    assert!(got[2].contains("][INFO][#"), "{got:?}");
    let log = project.read("agent_messages.log");
    assert!(log.contains("\"turn_end\": true"), "{log}");
}

#[test]
fn an_interrupting_message_stops_the_turn_first() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    // Far longer than any wait of the test: only an interruption ends it.
    server.tmux(&["send-keys", "-t", &pane, "-l", "--", "work DEMOSLEEP600"]);
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for_screen(&pane, "* working");
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "BLOCKED", "--interrupt", "main is broken"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[DELIVERED]"), "{text}");
    let got = wait_for("the message as a turn of its own", || {
        let s = submissions(&project);
        (s.len() >= 2).then_some(s)
    });
    assert!(got[1].ends_with("]: main is broken"), "{got:?}");
}

#[test]
fn urgent_types_from_the_config_skip_the_wait() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[messaging]\nurgent_types = [\"BLOCKED\"]\n",
    );
    let pane = server.demo_agent(&project.path(), &project.file("rec.jsonl"));
    swarm(&project, &server).arg("discover").assert().success();
    server.tmux(&["send-keys", "-t", &pane, "-l", "--", "work DEMOSLEEP3"]);
    server.tmux(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for_screen(&pane, "* working");
    let out = swarm(&project, &server)
        .args(["msg", "agent-0", "BLOCKED", "need src/a.py"])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("[DELIVERED]"));
}

/// A deterministic history: (sender, recipient, type, words) per message.
struct History {
    lines: Vec<(String, String, String, String)>,
}

const WORDS: &[&str] = &[
    "schema",
    "migration",
    "auth",
    "token",
    "review",
    "merge",
    "deploy",
    "lock",
    "build",
    "error",
    "cache",
    "release",
    "branch",
    "ready",
    "blocked",
    "parser",
    "server",
    "retry",
    "queue",
    "pane",
];

impl History {
    fn new(n: usize) -> History {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let lines = (0..n)
            .map(|i| {
                let k = 3 + (next() % 8) as usize;
                let mut words: Vec<String> = (0..k)
                    .map(|_| {
                        // Skewed: the first words are common, the last rare.
                        let a = next() % WORDS.len() as u64;
                        let b = next() % WORDS.len() as u64;
                        WORDS[(a * b / WORDS.len() as u64) as usize].to_owned()
                    })
                    .collect();
                words.push(format!("item{}", i % 7919));
                (
                    format!("agent-{}", i % 7),
                    format!("agent-{}", (i + 3) % 7),
                    ["INFO", "QUESTION", "BLOCKED", "COMPLETED"][i % 4].to_owned(),
                    words.join(" "),
                )
            })
            .collect();
        History { lines }
    }

    /// Message `i`'s line: every third one in the Python tool's form
    /// (naive local time, its verdicts), the others in swarm's.
    fn line(&self, i: usize) -> String {
        let (from, to, ty, text) = &self.lines[i];
        let id = format!("m{i:07}");
        if i.is_multiple_of(3) {
            format!(
                "{{\"sender\": \"{from}\", \"timestamp\": \"2026-11-21T13:27:02.029457\", \"msg_type\": \"{ty}\", \"content\": \"{text}\", \"recipients\": [\"{to}\"], \"msg_id\": \"{id}\", \"delivery_status\": {{\"{to}\": true}}, \"success_count\": 1, \"failure_count\": 0}}\n"
            )
        } else {
            format!(
                "{{\"sender\": \"{from}\", \"timestamp\": \"2026-11-21T13:27:02.029457+00:00\", \"msg_type\": \"{ty}\", \"content\": \"{text}\", \"recipients\": [\"{to}\"], \"msg_id\": \"{id}\", \"delivery_status\": {{}}, \"success_count\": 0, \"failure_count\": 0}}\n"
            )
        }
    }

    /// The ids a plain scan finds: every word of `query` is a word of the
    /// text, the sender or the type (any case), and the filters hold.
    fn scan(&self, query: &str, from: Option<&str>, ty: Option<&str>) -> BTreeSet<String> {
        let want: Vec<String> = query.split(' ').map(str::to_lowercase).collect();
        self.lines
            .iter()
            .enumerate()
            .filter(|(_, (f, _, t, text))| {
                let mut words: Vec<String> = text.split(' ').map(str::to_owned).collect();
                words.extend(f.split('-').map(str::to_owned));
                words.push(t.to_lowercase());
                want.iter().all(|w| words.contains(w))
                    && from.is_none_or(|x| x == f)
                    && ty.is_none_or(|x| x == t)
            })
            .map(|(i, _)| format!("m{i:07}"))
            .collect()
    }
}

#[test]
fn search_matches_a_plain_scan_of_200000_messages() {
    let project = Project::new();
    let n = 200_000;
    let history = History::new(n);
    write_history(&project, &history);
    // The first search builds the index from the whole history: the one
    // slow step, so it runs without the harness's time limit.
    let first = swarm_process(&project, None)
        .args(["search", "item4242", "--json", "--limit", "1000"])
        .output()
        .expect("run");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let search = |args: &[&str]| -> BTreeSet<String> {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--limit", "1000", "--json"]);
        ids(&json_of(&project, &all)).into_iter().collect()
    };
    let queries: [(&str, Option<&str>, Option<&str>); 5] = [
        ("item4242", None, None),
        ("item17 blocked", None, None),
        ("schema item3", None, None),
        ("item100", Some("agent-2"), None),
        ("item7 question", None, Some("QUESTION")),
    ];
    for (q, from, ty) in queries {
        let mut args = vec![q];
        if let Some(f) = from {
            args.extend_from_slice(&["--from", f]);
        }
        if let Some(t) = ty {
            args.extend_from_slice(&["--type", t]);
        }
        let want = history.scan(q, from, ty);
        assert!(!want.is_empty() && want.len() < 1000, "{q}: {}", want.len());
        assert_eq!(search(&args), want, "{q}");
    }
    // Ranked: the best match first, every result holding every word.
    let ranked = json_of(&project, &["search", "schema", "--limit", "5", "--json"]);
    assert_eq!(ids(&ranked).len(), 5);

    // Lines appended later (by the Python tool here) are found next time.
    let mut more = String::new();
    let _ = writeln!(
        more,
        "{{\"sender\": \"agent-1\", \"timestamp\": \"2026-11-22T09:00:00.000001\", \"msg_type\": \"INFO\", \"content\": \"late zebra\", \"recipients\": [\"agent-2\"], \"msg_id\": \"late-1\", \"delivery_status\": {{}}, \"success_count\": 0, \"failure_count\": 0}}"
    );
    let mut log = fs::OpenOptions::new()
        .append(true)
        .open(project.file("agent_messages.log"))
        .expect("log");
    std::io::Write::write_all(&mut log, more.as_bytes()).expect("append");
    assert_eq!(search(&["zebra"]), BTreeSet::from(["late-1".to_owned()]));
}

/// Writes `history` as two rotated segments and the live log, as the
/// files hold them.
fn write_history(project: &Project, history: &History) {
    let n = history.lines.len();
    let cuts = [0, n * 2 / 5, n * 3 / 4, n];
    for (k, name) in [
        "agent_messages.log.1",
        "agent_messages.log.2",
        "agent_messages.log",
    ]
    .iter()
    .enumerate()
    {
        let mut text = String::new();
        for i in cuts[k]..cuts[k + 1] {
            text.push_str(&history.line(i));
        }
        fs::write(project.file(name), text).expect("write");
    }
}

#[test]
fn a_damaged_index_is_built_again_from_the_log() {
    let project = Project::new();
    let history = History::new(3000);
    write_history(&project, &history);
    let search = || {
        swarm_process(&project, None)
            .args(["search", "item42", "--json", "--limit", "1000"])
            .output()
            .expect("run")
    };
    let want = history.scan("item42", None, None);
    assert!(!want.is_empty());
    let first = search();
    assert!(first.status.success());
    let got: BTreeSet<String> = ids(&stdout_json(&first)).into_iter().collect();
    assert_eq!(got, want);
    // Damaged: built again by itself, with a warning, and as complete.
    let index = project.file(".swarm/message_index.sqlite3");
    for suffix in ["-wal", "-shm"] {
        let _ = fs::remove_file(project.file(&format!(".swarm/message_index.sqlite3{suffix}")));
    }
    fs::write(&index, vec![b'x'; 65536]).expect("damage");
    let out = search();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("damaged"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again: BTreeSet<String> = ids(&stdout_json(&out)).into_iter().collect();
    assert_eq!(again, want);
    // Missing: built again too, silently.
    fs::remove_file(&index).expect("remove");
    let out = search();
    assert!(out.status.success());
    let again: BTreeSet<String> = ids(&stdout_json(&out)).into_iter().collect();
    assert_eq!(again, want);
}

#[test]
fn a_topic_nobody_follows_points_to_subscribe() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-0", "agent-1"]);
    let (code, _, stderr) = outcome(swarm(&project, &server).args([
        "broadcast",
        "--topic",
        "deploys",
        "INFO",
        "v2 is out",
    ]));
    assert_eq!(code, Some(4), "{stderr}");
    assert!(
        stderr.contains("hint:") && stderr.contains("swarm subscribe deploys"),
        "{stderr}"
    );
}

#[test]
fn search_shows_relevance_not_a_negative_score() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.register(&["agent-1"]);
    for body in ["schema v2 merged", "the schema", "lunch?"] {
        swarm(&project, &server)
            .args(["msg", "agent-1", "INFO", body])
            .output()
            .expect("run");
    }
    let out = swarm(&project, &server)
        .args(["search", "schema", "--json"])
        .output()
        .expect("run");
    let json = stdout_json(&out);
    let found = json["messages"].as_array().expect("messages");
    assert_eq!(found.len(), 2, "{json}");
    for m in found {
        assert!(m.get("score").is_none(), "{m}");
        let r = m["relevance"].as_u64().expect("relevance");
        assert!((1..=100).contains(&r), "{m}");
    }
    assert_eq!(found[0]["relevance"], 100, "best first: {json}");
    let plain = swarm(&project, &server)
        .args(["search", "schema"])
        .output()
        .expect("run");
    let plain = String::from_utf8_lossy(&plain.stdout);
    assert!(
        plain.contains("relevance 100%") && !plain.contains("-0."),
        "{plain}"
    );
}

#[cfg(feature = "mcp")]
#[test]
fn a_reply_finds_its_message_however_long_the_thread_is() {
    use crate::harness::mcp::{connect, ok, runtime, swarm_of};
    // A thread longer than the index gives out at once: its newest message
    // is still the one a reply names, through either door.
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 2);
    let n = 10_001;
    let mut log = String::new();
    for i in 0..n {
        let (from, to) = if i % 2 == 0 {
            ("agent-0", "agent-1")
        } else {
            ("agent-1", "agent-0")
        };
        let parent = match i {
            0 => String::new(),
            _ => format!(", \"parent_msg_id\": \"long-{}\"", i - 1),
        };
        let _ = writeln!(
            log,
            "{{\"sender\": \"{from}\", \"timestamp\": \"2026-11-21T13:27:02.029457+00:00\", \"msg_type\": \"INFO\", \"content\": \"step {i}\", \"recipients\": [\"{to}\"], \"msg_id\": \"long-{i}\"{parent}, \"delivery_status\": {{}}, \"success_count\": 0, \"failure_count\": 0}}"
        );
    }
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(project.file("agent_messages.log"))
        .expect("log");
    std::io::Write::write_all(&mut file, log.as_bytes()).expect("append");
    let newest = format!("long-{}", n - 1);
    // Longer than what the index gives out at once: the newest message is
    // not among those `swarm thread` shows.
    let shown = ids(&json_of(&project, &["thread", "long-0", "--json"]));
    assert!(!shown.contains(&newest), "{} shown", shown.len());
    let by_hand = send(
        &project,
        &[
            "agent-0",
            "INFO",
            "--reply-to",
            &newest,
            "--from",
            "agent-1",
            "by hand",
        ],
    );
    assert_eq!(by_hand["parent_msg_id"], newest.as_str(), "{by_hand}");
    runtime().block_on(async {
        // agent-1 answers agent-0's newest message: it goes to agent-0.
        let (b, _) = connect(&server, &project, &panes[1]).await;
        let replied = ok(
            &b,
            "reply",
            serde_json::json!({"message_id": newest, "content": "done"}),
        )
        .await;
        assert_eq!(replied["parent_msg_id"], newest.as_str(), "{replied}");
        assert_eq!(replied["recipients"], serde_json::json!(["agent-0"]));
        b.cancel().await.expect("close");
    });
}
