//! Overlaps between agents' branches: two agents changing one file are
//! told once (by `swarm changes` or by the watcher as it appears), the
//! dashboard shows them, and the config can stop the telling but not the
//! showing.

use std::fs;

#[cfg(feature = "dashboard")]
use crate::harness::dashboard::Dashboard;
use crate::harness::repo::{Repo, ok};
#[cfg(feature = "dashboard")]
use crate::harness::wait_for;
use crate::harness::{stdout, stdout_json};

/// The CONFLICT messages in `agent`'s inbox.
fn conflict_notices(repo: &Repo, agent: &str) -> usize {
    let out = ok(repo.swarm(&["inbox", "--agent", agent, "--json"]));
    let json = stdout_json(&out);
    json.as_array()
        .or_else(|| json["messages"].as_array())
        .expect("messages")
        .iter()
        .filter(|m| m["msg_type"] == "CONFLICT")
        .count()
}

#[test]
fn two_agents_committing_one_file_show_an_overlap_told_once() {
    let repo = Repo::new();
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/a.py", "a = 3\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/c.py", "c = 1\n");
    fs::write(repo.worktree("agent-0").join("notes.txt"), "draft\n").expect("write");
    let out = ok(repo.swarm(&["changes", "--json"]));
    let json = stdout_json(&out);
    assert_eq!(json["base"], "main");
    assert_eq!(
        json["overlaps"],
        serde_json::json!([{"path": "src/a.py", "agents": ["agent-0", "agent-1"]}])
    );
    let a0 = &json["agents"][0];
    assert_eq!(
        (
            a0["agent"].as_str(),
            a0["ahead"].as_u64(),
            a0["behind"].as_u64()
        ),
        (Some("agent-0"), Some(1), Some(0))
    );
    assert_eq!(a0["committed"], serde_json::json!(["src/a.py"]));
    assert_eq!(a0["uncommitted"], serde_json::json!(["notes.txt"]));
    assert_eq!(
        json["agents"][1]["files"],
        serde_json::json!(["src/a.py", "src/c.py"])
    );
    assert_eq!(
        json["told"],
        serde_json::json!([{"path": "src/a.py", "agents": ["agent-0", "agent-1"]}])
    );
    // Told once: a second look tells nobody again.
    let again = stdout_json(&ok(repo.swarm(&["changes", "--json"])));
    assert_eq!(again["told"], serde_json::json!([]));
    assert_eq!(conflict_notices(&repo, "agent-0"), 1);
    assert_eq!(conflict_notices(&repo, "agent-1"), 1);
    let state = repo.project.read(".swarm/overlaps.json");
    assert!(state.contains("\"src/a.py\""), "{state}");
    // The text view names the overlap too.
    let text = stdout(&ok(repo.swarm(&["changes"])));
    assert!(text.contains("src/a.py  agent-0, agent-1"), "{text}");
    assert!(text.contains("notes.txt (uncommitted)"), "{text}");
}

/// A running `swarm watch`, killed when dropped.
#[cfg(feature = "dashboard")]
struct Watch(std::process::Child);

#[cfg(feature = "dashboard")]
impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(feature = "dashboard")]
#[test]
fn the_watcher_tells_an_overlap_as_it_appears_and_the_dashboard_shows_it() {
    let repo = Repo::new();
    repo.launch(3);
    let mut cmd = crate::harness::swarm_process(&repo.project, Some(&repo.server));
    cmd.env("HOME", repo.home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["watch", "--interval", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _watch = Watch(cmd.spawn().expect("start swarm watch"));
    let dashboard = Dashboard::start(&repo.project);
    assert_eq!(
        dashboard.get("/api/v1/overlaps").json()["overlaps"],
        serde_json::json!([])
    );
    // Nobody runs `swarm changes`: the watcher finds the overlap.
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    fs::write(repo.worktree("agent-2").join("src/a.py"), "a = 4\n").expect("write");
    wait_for("the overlap to be told", || {
        (conflict_notices(&repo, "agent-0") == 1 && conflict_notices(&repo, "agent-2") == 1)
            .then_some(())
    });
    assert_eq!(conflict_notices(&repo, "agent-1"), 0);
    let expected = serde_json::json!([{"path": "src/a.py", "agents": ["agent-0", "agent-2"]}]);
    // The watcher records what it found once it has told it.
    wait_for("the dashboard to show the overlap", || {
        let body = dashboard.get("/api/v1/overlaps").json();
        (body["overlaps"] == expected).then_some(())
    });
    // It stays told once, however many rounds look again; `swarm changes`
    // finds it told already.
    let changes = stdout_json(&ok(repo.swarm(&["changes", "--json"])));
    assert_eq!(changes["overlaps"], expected);
    assert_eq!(changes["told"], serde_json::json!([]));
    // Gone (agent-2 drops its change): no overlap left to show.
    repo.git(&repo.worktree("agent-2"), &["checkout", "--", "src/a.py"]);
    wait_for("the overlap to go", || {
        let body = dashboard.get("/api/v1/overlaps").json();
        (body["count"] == 0).then_some(())
    });
    assert_eq!(conflict_notices(&repo, "agent-0"), 1);
}

#[cfg(feature = "dashboard")]
#[test]
fn overlaps_are_not_told_when_the_config_says_so_but_still_shown() {
    let repo = Repo::new();
    repo.project
        .write(".claudeswarm.toml", "[launch]\ntell_overlaps = false\n");
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/a.py", "a = 2\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/a.py", "a = 3\n");
    let json = stdout_json(&ok(repo.swarm(&["changes", "--json"])));
    assert_eq!(json["overlaps"][0]["path"], "src/a.py");
    assert_eq!(json["told"], serde_json::json!([]));
    assert_eq!(conflict_notices(&repo, "agent-0"), 0);
    assert_eq!(conflict_notices(&repo, "agent-1"), 0);
    let dashboard = Dashboard::start(&repo.project);
    assert_eq!(dashboard.get("/api/v1/overlaps").json()["count"], 1);
}
