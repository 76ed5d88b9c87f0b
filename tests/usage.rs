//! Usage and budgets through real tmux: each agent's records are found
//! from its pane's process (its own HOME, working directory and start
//! time), read incrementally, reported by `swarm usage --json`; a budget
//! crossing raises one `budget` event and holds a message to the agent
//! over its budget; `swarm budget reset` starts a new period.

use std::fs;
use std::path::{Path, PathBuf};

use crate::harness::usage::{
    append, claude_dir, fixture, id_of, pane_with_home, timeless_turns, write,
};
use crate::harness::{Project, TmuxServer, demo_agent_command, stdout_json, swarm, wait_for};

/// A program named `name` that sleeps: discovery takes it for that
/// vendor's agent.
fn fake_agent(dir: &Path, name: &str) -> PathBuf {
    let sleep = ["/bin/sleep", "/usr/bin/sleep"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("a sleep program");
    let path = dir.join(name);
    std::os::unix::fs::symlink(sleep, &path).expect("symlink");
    path
}

fn usage_json(project: &Project, server: &TmuxServer) -> serde_json::Value {
    let out = swarm(project, server)
        .args(["usage", "--json"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout_json(&out)
}

fn agent<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["agent"] == id)
        .unwrap_or_else(|| panic!("{id} not in {report}"))
}

#[test]
fn usage_json_reads_each_vendors_records_under_the_agents_own_home() {
    let server = TmuxServer::start();
    let project = Project::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let bin = scratch.path().join("bin");
    fs::create_dir(&bin).expect("bin");
    let mut panes = Vec::new();
    for vendor in ["claude", "codex", "gemini"] {
        let program = fake_agent(&bin, vendor);
        let home = scratch.path().join(format!("home-{vendor}"));
        let pane = pane_with_home(
            &server,
            &project,
            &home,
            &format!("'{}' 100000", program.display()),
        );
        panes.push((vendor, home, pane));
    }
    swarm(&project, &server).arg("discover").assert().success();
    // Written after the agents started, as their records are; Codex files
    // under the day's directory.
    let cwd = project.path().to_string_lossy().into_owned();
    let today = std::process::Command::new("date")
        .args(["-u", "+%Y/%m/%d"])
        .output()
        .expect("date");
    let today = String::from_utf8_lossy(&today.stdout).trim().to_owned();
    for (vendor, home, _) in &panes {
        match *vendor {
            "claude" => write(
                &claude_dir(home, &project).join("c2691b9f.jsonl"),
                &fixture("claude-2.1.330.jsonl"),
            ),
            "codex" => write(
                &home
                    .join(".codex/sessions")
                    .join(&today)
                    .join("rollout-2026-11-26T10-59-51-01a2.jsonl"),
                &fixture("codex-0.169.0.jsonl").replace("/tmp/usagecap/proj", &cwd),
            ),
            _ => {
                write(
                    &home.join(".gemini/projects.json"),
                    &serde_json::json!({"projects": {cwd.as_str(): "proj"}}).to_string(),
                );
                write(
                    &home.join(".gemini/tmp/proj/chats/session-2026-11-26T11-00-f87d.jsonl"),
                    &fixture("gemini-0.61.0.jsonl"),
                );
            }
        }
    }
    let report = usage_json(&project, &server);
    let models = [
        ("claude", "claude-opus-5-5"),
        ("codex", "gpt-6.1-sol"),
        ("gemini", "gemini-3.1-pro-preview"),
    ];
    for (vendor, _, pane) in &panes {
        let id = id_of(&project, pane);
        let a = agent(&report, &id);
        let model = models.iter().find(|(v, _)| v == vendor).map(|(_, m)| *m);
        assert_eq!(a["model"].as_str(), model, "{vendor}: {a}");
        // The model stand-in answers every call with 10 input and 5 output
        // tokens; two turns each.
        assert_eq!(a["tokens"]["input"], 20, "{vendor}: {a}");
        assert_eq!(a["tokens"]["output"], 10, "{vendor}: {a}");
        assert_eq!(a["tokens"]["cache_read"], 0, "{vendor}: {a}");
        assert_eq!(a["sessions"].as_array().map(Vec::len), Some(1), "{a}");
        assert_eq!(a["sessions"][0]["vendor"], *vendor, "{a}");
        assert_eq!(a["skipped"], 0, "{a}");
        // The models Claude Code and Codex CLI ask the stand-in for have
        // no built-in price; Gemini CLI's has: 20 input at $2 and 10
        // output at $12 per million.
        if *vendor == "gemini" {
            let cost = a["cost"].as_f64().expect("a cost");
            assert!((cost - 0.00016).abs() < 1e-12, "{a}");
        } else {
            assert!(a["cost"].is_null(), "{a}");
        }
    }
    assert_eq!(report["total"]["tokens"]["input"], 60);

    // What is appended is read; what was read is not read again.
    let (_, home, pane) = &panes[0];
    let file = claude_dir(home, &project).join("c2691b9f.jsonl");
    append(&file, &fixture("claude-2.1.330.jsonl"));
    append(&file, "{\"type\": \"a record nobody knows\"\n");
    let report = usage_json(&project, &server);
    let a = agent(&report, &id_of(&project, pane));
    assert_eq!(a["tokens"]["input"], 40, "{a}");
    assert_eq!(a["tokens"]["output"], 20, "{a}");
    assert_eq!(a["skipped"], 1, "{a}");
    let again = usage_json(&project, &server);
    assert_eq!(agent(&again, &id_of(&project, pane))["tokens"], a["tokens"]);

    // A price from the config gives a cost; --agent picks one agent.
    project.write(
        ".claudeswarm.toml",
        "[prices.\"claude-opus-5-5\"]\ninput = 1000000.0\noutput = 0\n",
    );
    let out = swarm(&project, &server)
        .args(["usage", "--json", "--agent", &id_of(&project, pane)])
        .output()
        .expect("run");
    let report = stdout_json(&out);
    assert_eq!(report["agents"].as_array().map(Vec::len), Some(1));
    assert_eq!(report["agents"][0]["cost"], 40.0, "{report}");
    swarm(&project, &server)
        .args(["usage", "--agent", "agent-99"])
        .assert()
        .code(4);
}

#[test]
fn a_budget_crossing_raises_one_event_and_holds_messages_until_a_reset() {
    let server = TmuxServer::start();
    let project = Project::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let home = scratch.path().join("home");
    let demo = |home: &Path, record: &str| {
        let pane = pane_with_home(
            &server,
            &project,
            home,
            &demo_agent_command(&project.file(record)),
        );
        server.wait_for_screen(&pane, "waiting for messages");
        pane
    };
    let spender = demo(&home, "spender.jsonl");
    let other = demo(&scratch.path().join("other"), "other.jsonl");
    swarm(&project, &server).arg("discover").assert().success();
    let (spender, other) = (id_of(&project, &spender), id_of(&project, &other));
    // 30 tokens spent: 83% of 36. Without their times the records count
    // as spent when read, today, whatever day the test runs.
    let spent = timeless_turns();
    let file = claude_dir(&home, &project).join("s.jsonl");
    write(&file, &spent);
    project.write(".claudeswarm.toml", "[budget]\nagent_tokens = 36\n");
    let budget_events = || {
        let out = swarm(&project, &server)
            .args(["feed", "--json", "--event", "budget"])
            .output()
            .expect("feed");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .collect::<Vec<_>>()
    };
    let send = |text: &str| {
        swarm(&project, &server)
            .args(["msg", &spender, "INFO", text, "--from", &other])
            .output()
            .expect("msg")
    };
    let received = || fs::read_to_string(project.file("spender.jsonl")).unwrap_or_default();

    let first = send("first");
    assert!(first.status.success(), "{first:?}");
    wait_for("the first message typed in", || {
        received().contains("first").then_some(())
    });
    let events = budget_events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["agent"], spender.as_str());
    assert!(
        events[0]["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("near its budget") && d.contains("30 of 36")),
        "{events:?}"
    );
    assert!(send("second").status.success());
    assert_eq!(budget_events().len(), 1, "raised again within one crossing");

    // 60 tokens: over the budget.
    append(&file, &spent);
    let held = send("third");
    assert_eq!(held.status.code(), Some(7), "{held:?}");
    let said = String::from_utf8_lossy(&held.stdout).into_owned();
    assert!(
        said.contains(&format!("{spender} is over its budget")),
        "{said}"
    );
    let inbox = swarm(&project, &server)
        .args(["inbox", "--agent", &spender, "--json"])
        .output()
        .expect("inbox");
    assert!(String::from_utf8_lossy(&inbox.stdout).contains("third"));
    assert_eq!(budget_events().len(), 1, "{:?}", budget_events());
    // The person's messages still go in.
    let from_person = swarm(&project, &server)
        .args([
            "msg",
            &spender,
            "INFO",
            "from the person",
            "--from",
            "operator",
        ])
        .output()
        .expect("msg");
    assert!(from_person.status.success(), "{from_person:?}");
    wait_for("the person's message typed in", || {
        received().contains("from the person").then_some(())
    });
    assert!(!received().contains("third"));
    // Redelivering it is refused while the agent is over its budget.
    let again = swarm(&project, &server)
        .args(["redeliver", "--all-queued"])
        .output()
        .expect("redeliver");
    assert_eq!(again.status.code(), Some(7), "{again:?}");
    let said = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        said.contains("wait") && said.contains("budget") && said.contains("--force"),
        "{said}"
    );
    assert!(!received().contains("third"));

    swarm(&project, &server)
        .args(["budget", "reset", &spender])
        .assert()
        .success();
    let audit = project.read(".swarm/audit.log");
    assert!(
        audit.contains("\"budget-reset\"") && audit.contains(&spender),
        "{audit}"
    );
    let report = usage_json(&project, &server);
    assert_eq!(
        agent(&report, &spender)["budget"][0]["used"],
        0.0,
        "{report}"
    );
    // The reset closes the budget's episode at once: nobody needs to be
    // told of it any more.
    let episodes = project.read(".swarm/episodes.json");
    let doc: serde_json::Value = serde_json::from_str(&episodes).expect("episodes");
    assert_eq!(
        doc["agents"][spender.as_str()]["budget"]["open"],
        false,
        "{episodes}"
    );
    let fourth = send("fourth");
    assert!(fourth.status.success(), "{fourth:?}");
    wait_for("a message after the reset typed in", || {
        received().contains("fourth").then_some(())
    });
}

/// Two agents `swarm launch` started in one directory under one home:
/// each has the records of the conversation swarm chose for it, never
/// the other's, though both files were written after both started.
#[test]
fn launched_agents_in_one_directory_each_have_their_own_conversations_records() {
    let server = TmuxServer::start();
    let project = Project::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let home = scratch.path().join("home");
    fs::create_dir_all(&home).expect("home");
    // The panes the launch opens start with this HOME.
    server.tmux(&["set-environment", "-g", "HOME", &home.to_string_lossy()]);
    let out = swarm(&project, &server)
        .args([
            "launch",
            "2",
            "--agent",
            "demo",
            "--session",
            "crew",
            "--no-attach",
            "--json",
        ])
        .output()
        .expect("launch");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for a in stdout_json(&out)["agents"].as_array().expect("agents") {
        server.wait_for_screen(a["pane"].as_str().expect("pane"), "waiting for messages");
    }
    let sessions = swarm(&project, &server)
        .args(["sessions", "--json"])
        .output()
        .expect("sessions");
    let sessions = stdout_json(&sessions);
    let conversation = |id: &str| -> String {
        sessions["sessions"][0]["agents"]
            .as_array()
            .expect("agents")
            .iter()
            .find(|a| a["id"] == id)
            .and_then(|a| a["conversation"].as_str())
            .unwrap_or_else(|| panic!("no conversation for {id}: {sessions}"))
            .to_owned()
    };
    let (first, second) = (conversation("agent-0"), conversation("agent-1"));
    let dir = claude_dir(&home, &project);
    write(&dir.join(format!("{first}.jsonl")), &timeless_turns());
    write(
        &dir.join(format!("{second}.jsonl")),
        &(timeless_turns() + &timeless_turns()),
    );
    let report = usage_json(&project, &server);
    for (id, conv, input) in [("agent-0", &first, 20), ("agent-1", &second, 40)] {
        let a = agent(&report, id);
        assert_eq!(a["tokens"]["input"], input, "{id}: {a}");
        assert_eq!(a["sessions"].as_array().map(Vec::len), Some(1), "{a}");
        assert_eq!(a["sessions"][0]["session"], conv.as_str(), "{a}");
    }
}
