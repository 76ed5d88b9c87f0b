//! The way back into the base branch: review rounds between agents, the
//! merge queue that tests each merge first, each agent's workspace (slot,
//! ports, included files) and the `Swarm-Agent` trailer on its commits.
//! Real git repositories, real tmux, the demo agent in the panes.

use std::fs;

use crate::harness::repo::{Repo, ok, refused};
use crate::harness::{stdout, stdout_json};

/// The bodies of the messages of type `ty` in `agent`'s inbox.
fn messages(repo: &Repo, agent: &str, ty: &str) -> Vec<String> {
    let out = ok(repo.swarm(&["inbox", "--agent", agent, "--json"]));
    let json = stdout_json(&out);
    json.as_array()
        .or_else(|| json["messages"].as_array())
        .expect("messages")
        .iter()
        .filter(|m| m["msg_type"] == ty)
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// `swarm review list AGENT --json`'s comments.
fn comments(repo: &Repo, agent: &str) -> Vec<serde_json::Value> {
    let out = ok(repo.swarm(&["review", "list", agent, "--json"]));
    stdout_json(&out)["comments"]
        .as_array()
        .expect("comments")
        .clone()
}

const APP: &str = "def main():\n    x = load()\n    return x\n\ndef load():\n    return 1\n";

#[test]
fn a_review_round_goes_to_the_agent_as_one_message() {
    let repo = Repo::new();
    repo.launch(2);
    let wt = repo.worktree("agent-0");
    repo.commit_file(&wt, "src/app.py", APP);

    ok(repo.swarm(&["review", "request", "agent-0", "--reviewer", "agent-1"]));
    let requests = messages(&repo, "agent-1", "REVIEW-REQUEST");
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(requests[0].contains("src/app.py  +6 -0"), "{}", requests[0]);
    assert!(
        requests[0].contains("swarm review comment agent-0 PATH:LINE \"TEXT\" --from agent-1"),
        "{}",
        requests[0]
    );

    let out = ok(repo.swarm(&[
        "review",
        "comment",
        "agent-0",
        "src/app.py:2",
        "load() can fail\u{1b}[2J here",
        "--from",
        "agent-1",
        "--json",
    ]));
    let c1 = stdout_json(&out);
    assert_eq!(c1["id"], "c1");
    assert_eq!(c1["author"], "agent-1");
    assert_eq!(c1["code"], "    x = load()");
    assert_eq!(c1["text"], "load() can fail here");
    ok(repo.swarm(&["review", "comment", "agent-0", "src/app.py:6", "return 2?"]));

    let listed = comments(&repo, "agent-0");
    assert_eq!(listed.len(), 2);
    for c in &listed {
        for field in [
            "id", "agent", "author", "path", "line", "code", "text", "status",
        ] {
            assert!(!c[field].is_null(), "{field} in {c}");
        }
        assert_eq!(c["status"], "open");
    }
    assert_eq!(listed[1]["author"], "operator");

    ok(repo.swarm(&["review", "send", "agent-0"]));
    let rounds = messages(&repo, "agent-0", "REVIEW-FEEDBACK");
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    let round = &rounds[0];
    assert!(round.contains("src/app.py:2"), "{round}");
    assert!(round.contains("> x = load()"), "{round}");
    assert!(round.contains("load() can fail here"), "{round}");
    assert!(round.contains("src/app.py:6"), "{round}");
    assert!(!round.contains('\u{1b}'), "{round}");

    // Sent once: a second send has nothing to send.
    let again = ok(repo.swarm(&["review", "send", "agent-0"]));
    assert!(
        stdout(&again).contains("nothing to send"),
        "{}",
        stdout(&again)
    );
    assert_eq!(messages(&repo, "agent-0", "REVIEW-FEEDBACK").len(), 1);

    ok(repo.swarm(&["review", "resolve", "c1"]));
    let listed = comments(&repo, "agent-0");
    assert_eq!(listed[0]["status"], "resolved");
    assert_eq!(listed[1]["status"], "open");
    refused(
        &repo.swarm(&["review", "resolve", "c99"]),
        4,
        &["no review comment c99"],
    );
}

#[test]
fn comments_follow_their_code_line_and_go_outdated_when_it_changes() {
    let repo = Repo::new();
    repo.launch(1);
    let wt = repo.worktree("agent-0");
    repo.commit_file(&wt, "src/app.py", APP);
    ok(repo.swarm(&["review", "comment", "agent-0", "src/app.py:3", "why x?"]));
    ok(repo.swarm(&["review", "comment", "agent-0", "./src/app.py:6", "one?"]));

    // Two lines inserted above both: each follows its code.
    fs::write(
        wt.join("src/app.py"),
        format!("import os\nimport sys\n{APP}"),
    )
    .expect("write");
    let listed = comments(&repo, "agent-0");
    assert_eq!(listed[0]["line"], 5);
    assert_eq!(listed[0]["status"], "open");
    assert_eq!(listed[1]["line"], 8);
    assert_eq!(listed[1]["path"], "src/app.py");

    // The code under the first changes: outdated, never moved elsewhere.
    let changed =
        format!("import os\nimport sys\n{APP}").replace("    return x\n", "    return x or 0\n");
    fs::write(wt.join("src/app.py"), changed).expect("write");
    let listed = comments(&repo, "agent-0");
    assert_eq!(listed[0]["status"], "outdated");
    assert_eq!(listed[0]["line"], 5);
    assert_eq!(listed[1]["status"], "open");

    // Hostile locations are refused before anything is written.
    for bad in [
        "../../etc/passwd:1",
        "/etc/passwd:1",
        "src/app.py:0",
        "src/app.py",
        "src/\u{7}x:1",
    ] {
        refused(
            &repo.swarm(&["review", "comment", "agent-0", bad, "x"]),
            1,
            &["invalid location"],
        );
    }
    refused(
        &repo.swarm(&["review", "comment", "agent-0", "src/app.py:99", "x"]),
        1,
        &["no line 99"],
    );
    refused(
        &repo.swarm(&["review", "comment", "agent-0", "src/nope.py:1", "x"]),
        1,
        &["no file src/nope.py"],
    );
    // A link in the worktree leads nowhere outside it.
    let outside = tempfile::tempdir().expect("tempdir");
    fs::write(outside.path().join("secret.txt"), "top secret\n").expect("write");
    std::os::unix::fs::symlink(outside.path(), wt.join("out")).expect("link");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), wt.join("s.txt")).expect("link");
    for through_a_link in ["out/secret.txt:1", "s.txt:1"] {
        refused(
            &repo.swarm(&["review", "comment", "agent-0", through_a_link, "x"]),
            1,
            &["no file"],
        );
    }
    refused(
        &repo.swarm(&["review", "comment", "agent-7", "src/app.py:1", "x"]),
        4,
        &["no branch swarm/agent-7"],
    );
    assert_eq!(comments(&repo, "agent-0").len(), 2);
}

/// The test command of the queue's tests: fails, saying why, when the
/// merge holds a file named FAIL.
const TEST_COMMAND: &str =
    "echo running the tests; if [ -e FAIL ]; then echo 'boom: FAIL is here'; exit 3; fi";

fn queue_run(repo: &Repo, agents: &[&str]) -> std::process::Output {
    let mut args = vec!["merge", "--queue"];
    args.extend_from_slice(agents);
    args.push("--json");
    repo.swarm_with(
        &repo.root(),
        &[("SWARM_MERGE_TEST_COMMAND", TEST_COMMAND.to_owned())],
        &args,
    )
}

fn head(repo: &Repo) -> String {
    repo.git(&repo.root(), &["rev-parse", "HEAD"])
        .trim()
        .to_owned()
}

#[test]
fn the_queue_merges_what_passes_and_leaves_main_as_it_was_on_a_failing_test() {
    let repo = Repo::new();
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/c.py", "c = 1\n");
    repo.commit_file(&repo.worktree("agent-1"), "FAIL", "x\n");
    repo.project.write("notes.txt", "the person's own work\n");
    let status_before = repo.git(&repo.root(), &["status", "--porcelain"]);

    let out = queue_run(&repo, &["agent-1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let before = head(&repo);
    let report = stdout_json(&out);
    assert_eq!(report["tried"][0]["result"], "test-failed");
    assert!(!repo.root().join("FAIL").exists());
    assert_eq!(
        repo.git(&repo.root(), &["status", "--porcelain"]),
        status_before
    );
    let told = messages(&repo, "agent-1", "CONFLICT");
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("boom: FAIL is here"), "{}", told[0]);
    assert!(told[0].contains("git rebase main"), "{}", told[0]);

    let out = queue_run(&repo, &["agent-0"]);
    // agent-1 is tried again and fails again; agent-0 merges.
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = stdout_json(&out);
    let results: Vec<(&str, &str)> = report["tried"]
        .as_array()
        .expect("tried")
        .iter()
        .map(|t| {
            (
                t["agent"].as_str().unwrap_or(""),
                t["result"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(results.contains(&("agent-0", "merged")), "{results:?}");
    assert!(results.contains(&("agent-1", "test-failed")), "{results:?}");
    assert_ne!(head(&repo), before);
    assert_eq!(repo.project.read("src/c.py"), "c = 1\n");
    assert!(!repo.root().join("FAIL").exists());
    assert_eq!(messages(&repo, "agent-1", "CONFLICT").len(), 2);

    let queue = stdout_json(&ok(repo.swarm(&["queue", "--json"])));
    let entries = queue["queue"].as_array().expect("queue");
    assert_eq!(entries.len(), 1, "{queue}");
    assert_eq!(entries[0]["agent"], "agent-1");
    assert_eq!(entries[0]["attempts"], 2);
    assert_eq!(entries[0]["last"]["result"], "test-failed");
    assert!(
        entries[0]["last"]["output_tail"]
            .as_str()
            .is_some_and(|t| t.ends_with("boom: FAIL is here")),
        "{queue}"
    );
    // No scratch worktree is left behind.
    let worktrees = repo.git(&repo.root(), &["worktree", "list"]);
    assert!(!worktrees.contains("merge-scratch"), "{worktrees}");

    ok(repo.swarm(&["queue", "--remove", "agent-1"]));
    let queue = stdout_json(&ok(repo.swarm(&["queue", "--json"])));
    assert_eq!(queue["queue"].as_array().map(Vec::len), Some(0), "{queue}");
}

#[test]
fn overlapping_agents_go_last_and_a_conflict_tells_the_agent() {
    let repo = Repo::new();
    repo.launch(3);
    repo.commit_file(&repo.worktree("agent-0"), "src/b.py", "b = 0\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/c.py", "c = 1\n");
    repo.commit_file(&repo.worktree("agent-2"), "src/b.py", "b = 2\n");

    let out = queue_run(&repo, &["agent-0", "agent-1", "agent-2"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = stdout_json(&out);
    let order: Vec<&str> = report["order"]
        .as_array()
        .expect("order")
        .iter()
        .map(|p| p["agent"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(order, ["agent-1", "agent-0", "agent-2"]);
    assert!(report["order"][0]["waits_because"].is_null());
    assert_eq!(
        report["order"][1]["waits_because"],
        "overlaps agent-2 on src/b.py"
    );
    let results: Vec<&str> = report["tried"]
        .as_array()
        .expect("tried")
        .iter()
        .map(|t| t["result"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(results, ["merged", "merged", "conflict"]);
    assert_eq!(report["tried"][2]["files"][0], "src/b.py");
    assert_eq!(repo.project.read("src/b.py"), "b = 0\n");
    let told = messages(&repo, "agent-2", "CONFLICT");
    let conflict: Vec<&String> = told.iter().filter(|m| m.contains("merge queue")).collect();
    assert_eq!(conflict.len(), 1, "{told:?}");
    assert!(conflict[0].contains("src/b.py"), "{}", conflict[0]);
    assert!(conflict[0].contains("git rebase main"), "{}", conflict[0]);
    assert_eq!(report["still_queued"][0], "agent-2");
}

#[test]
fn each_agent_gets_its_slot_ports_and_included_files() {
    let repo = Repo::new();
    repo.project.write(
        ".gitignore",
        &format!(
            "{}/.env\n/secrets/\n*.local\n",
            repo.project.read(".gitignore")
        ),
    );
    repo.git(&repo.root(), &["commit", "-q", "-a", "-m", "ignore .env"]);
    repo.project.write(".env", "TOKEN=local\n");
    fs::create_dir_all(repo.project.file("secrets")).expect("mkdir");
    repo.project.write("secrets/key.pem", "KEY\n");
    repo.project.write("src/settings.local", "debug = true\n");
    repo.project.write(
        ".worktreeinclude",
        "# local files\n.env\nsecrets/\n*.local\n../outside\n",
    );
    repo.launch(2);

    let agents = stdout_json(&ok(repo.swarm(&["agents", "--json"])));
    let mut ports = Vec::new();
    for (slot, a) in agents.as_array().expect("agents").iter().enumerate() {
        let id = a["id"].as_str().expect("id");
        assert_eq!(a["env"]["SWARM_AGENT"], id);
        assert_eq!(a["env"]["SWARM_SLOT"], slot.to_string());
        let port: u16 = a["env"]["SWARM_PORT"]
            .as_str()
            .and_then(|p| p.parse().ok())
            .expect("port");
        ports.push(port);
        let wt = repo.worktree(id);
        assert_eq!(
            fs::read_to_string(wt.join(".env")).expect(".env"),
            "TOKEN=local\n"
        );
        assert_eq!(
            fs::read_to_string(wt.join("secrets/key.pem")).expect("pem"),
            "KEY\n"
        );
        assert_eq!(
            fs::read_to_string(wt.join("src/settings.local")).expect("glob"),
            "debug = true\n"
        );

        // The pane's own environment holds them.
        let pane = a["tmux_pane_id"].as_str().expect("pane");
        let pid = repo
            .server
            .tmux(&["display-message", "-p", "-t", pane, "#{pane_pid}"]);
        let environ = fs::read(format!("/proc/{}/environ", pid.trim())).expect("environ");
        let vars: Vec<String> = environ
            .split(|b| *b == 0)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect();
        assert!(vars.contains(&format!("SWARM_AGENT={id}")), "{vars:?}");
        assert!(vars.contains(&format!("SWARM_SLOT={slot}")), "{vars:?}");
        assert!(vars.contains(&format!("SWARM_PORT={port}")), "{vars:?}");
    }
    ports.sort_unstable();
    assert!(ports[1] >= ports[0] + 10, "{ports:?}");
}

#[test]
fn commits_in_a_worktree_name_their_agent_and_changes_since_shows_them() {
    let repo = Repo::new();
    // The project's own commit-msg hook still runs, in both trees.
    let hook = repo.root().join(".git/hooks/commit-msg");
    fs::write(
        &hook,
        "#!/bin/sh\nprintf '\\nChecked-By: project-hook\\n' >> \"$1\"\n",
    )
    .expect("hook");
    let mut perms = fs::metadata(&hook).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&hook, perms).expect("chmod");
    repo.launch(2);
    let wt = repo.worktree("agent-0");
    repo.commit_file(&wt, "src/x.py", "x = 1\n");
    let msg = repo.git(&wt, &["log", "-1", "--format=%B"]);
    assert!(msg.contains("Swarm-Agent: agent-0"), "{msg}");
    // The hooks are the worktree's own, in its private git directory, so
    // they go when git removes the worktree; the main tree keeps its own.
    let hooks = repo.git(&wt, &["config", "--worktree", "core.hooksPath"]);
    let private = repo.git(&wt, &["rev-parse", "--absolute-git-dir"]);
    assert!(
        hooks.trim().starts_with(private.trim()),
        "{hooks} {private}"
    );
    let main_hooks = repo.try_git(&repo.root(), &["config", "core.hooksPath"]);
    assert!(
        !main_hooks.status.success(),
        "the main tree got a hooks path"
    );
    assert!(msg.contains("Checked-By: project-hook"), "{msg}");
    repo.commit_file(&repo.root(), "src/main_only.py", "m = 1\n");
    let msg = repo.git(&repo.root(), &["log", "-1", "--format=%B"]);
    assert!(!msg.contains("Swarm-Agent"), "{msg}");
    assert!(msg.contains("Checked-By: project-hook"), "{msg}");
    repo.commit_file(&repo.worktree("agent-1"), "src/y.py", "y = 1\n");

    let out = ok(repo.swarm(&["changes", "--since", "1h", "--json"]));
    let report = stdout_json(&out);
    let agents = report["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), 2, "{report}");
    assert_eq!(agents[0]["agent"], "agent-0");
    assert_eq!(agents[0]["commits"][0]["subject"], "change src/x.py");
    assert_eq!(agents[0]["commits"][0]["merged"], false);
    assert_eq!(agents[0]["files"][0], "src/x.py");
    assert_eq!(agents[1]["files"][0], "src/y.py");

    // Merged commits are still counted, now marked merged.
    ok(repo.swarm(&["merge", "agent-0"]));
    let report = stdout_json(&ok(repo.swarm(&["changes", "--since", "1h", "--json"])));
    assert_eq!(report["agents"][0]["commits"][0]["merged"], true);
    let future = stdout_json(&ok(repo.swarm(&[
        "changes",
        "--since",
        "2999-01-01T00:00:00Z",
        "--json",
    ])));
    assert_eq!(future["agents"].as_array().map(Vec::len), Some(0));
    refused(
        &repo.swarm(&["changes", "--since", "yesterday"]),
        1,
        &["invalid time"],
    );
}

#[cfg(feature = "mcp")]
#[test]
fn an_agent_reviews_another_through_mcp() {
    use crate::harness::mcp::{connect, err, ok as mcp_ok, runtime};
    use serde_json::json;

    let repo = Repo::new();
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/app.py", APP);
    let agents = stdout_json(&ok(repo.swarm(&["agents", "--json"])));
    let pane = agents
        .as_array()
        .expect("agents")
        .iter()
        .find(|a| a["id"] == "agent-1")
        .and_then(|a| a["tmux_pane_id"].as_str())
        .expect("agent-1's pane")
        .to_owned();
    runtime().block_on(async {
        let (s, _) = connect(&repo.server, &repo.project, &pane).await;
        let c = mcp_ok(
            &s,
            "review_comment",
            json!({"agent": "agent-0", "path": "src/app.py", "line": 2, "text": "check it"}),
        )
        .await;
        assert_eq!(c["id"], "c1");
        assert_eq!(c["author"], "agent-1");
        assert_eq!(c["code"], "    x = load()");
        let own = err(
            &s,
            "review_comment",
            json!({"agent": "agent-1", "path": "src/a.py", "line": 1, "text": "x"}),
        )
        .await;
        assert!(own.contains("your own branch"), "{own}");
        let outside = err(
            &s,
            "review_comment",
            json!({"agent": "agent-0", "path": "../../etc/passwd", "line": 1, "text": "x"}),
        )
        .await;
        assert!(outside.contains("invalid location"), "{outside}");
        s.cancel().await.expect("close");
    });
    assert_eq!(comments(&repo, "agent-0").len(), 1);
}

#[test]
fn an_agent_holding_a_lock_on_what_another_changed_goes_after_it() {
    let repo = Repo::new();
    repo.launch(2);
    repo.commit_file(&repo.worktree("agent-0"), "src/x.py", "x = 1\n");
    repo.commit_file(&repo.worktree("agent-1"), "src/y.py", "y = 1\n");
    ok(repo.swarm(&["lock", "src/y.py", "--agent", "agent-0"]));

    let out = ok(queue_run(&repo, &["agent-0", "agent-1"]));
    let report = stdout_json(&out);
    assert_eq!(report["order"][0]["agent"], "agent-1");
    assert_eq!(
        report["order"][1]["waits_because"],
        "holds a lock on src/y.py, which agent-1 changed"
    );
    let merged: Vec<&str> = report["tried"]
        .as_array()
        .expect("tried")
        .iter()
        .map(|t| t["result"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(merged, ["merged", "merged"]);
    let shown = stdout(&ok(repo.swarm(&["queue"])));
    assert!(shown.contains("empty"), "{shown}");
}

/// The front doors' sources (the program, the MCP server, the dashboard,
/// the monitor): each file's path and its lines before its tests.
fn front_door_sources() -> Vec<(std::path::PathBuf, Vec<String>)> {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in fs::read_dir(dir).expect("read a source folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in [
        "src",
        "crates/mcp/src",
        "crates/dashboard/src",
        "crates/monitor/src",
    ] {
        files(&root.join(dir), &mut paths);
    }
    paths
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).expect("read a source");
            let lines = text
                .lines()
                .take_while(|l| l.trim() != "#[cfg(test)]")
                .map(|l| l.split("//").next().unwrap_or_default().to_owned())
                .collect();
            (path, lines)
        })
        .collect()
}

#[test]
fn front_doors_merge_and_comment_only_through_the_door() {
    // The verbs' rules (the checks of their plans, who is behind after a
    // merge, telling the agents a merge queue's try failed) live in
    // `swarm_core::ops`; a front door calling the layer below would grow
    // its own copy of them. Each call is looked for in the files that
    // import its module from the core.
    let below = [
        ("swarm_core::worktrees", "worktrees::merge("),
        ("swarm_core::merge_queue", "merge_queue::run("),
        ("swarm_core::merge_queue", "merge_queue::order("),
        ("swarm_core::merge_queue", "merge_queue::leave("),
        ("swarm_core::review", "review::comment("),
    ];
    let mut direct = Vec::new();
    for (path, lines) in front_door_sources() {
        let imports = |module: &str| lines.iter().any(|l| l.contains(module));
        for (n, code) in lines.iter().enumerate() {
            if below
                .iter()
                .any(|(module, call)| code.contains(call) && imports(module))
            {
                direct.push(format!("{}:{}: {}", path.display(), n + 1, code.trim()));
            }
        }
    }
    assert!(
        direct.is_empty(),
        "merge, run the merge queue and comment through swarm_core::ops: {direct:#?}"
    );
}
