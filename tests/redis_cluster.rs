//! The Redis backend on a Redis Cluster through the real `swarm` binary:
//! two hosts (two checkouts, two private tmux servers) given the URL of a
//! cluster node that does not serve the swarm's hash slot, so that every
//! command is redirected to the node that does.

use std::process::{Child, Output, Stdio};

use crate::harness::redis_cluster::{PASSWORD, RedisCluster};
use crate::harness::{
    Project, TmuxServer, records, stdout_json, swarm, swarm_process, typed_as, wait_for_records,
};

/// The node each host is pointed at.
const SEED: usize = 0;

/// One host of the swarm `name` in `cluster`: its checkout and tmux server.
struct Host<'a> {
    cluster: &'a RedisCluster,
    name: &'a str,
    host: &'static str,
    project: Project,
    tmux: TmuxServer,
}

impl Host<'_> {
    /// `swarm ARGS...` on this host.
    fn run(&self, args: &[&str]) -> Output {
        swarm(&self.project, &self.tmux)
            .envs(self.cluster.store_env(SEED, self.name))
            .env("SWARM_STORE_HOST", self.host)
            .args(args)
            .output()
            .expect("run swarm")
    }

    /// A `swarm watch` of this host; the caller kills it.
    fn watch(&self) -> Child {
        swarm_process(&self.project, Some(&self.tmux))
            .envs(self.cluster.store_env(SEED, self.name))
            .env("SWARM_STORE_HOST", self.host)
            .args(["watch", "--interval", "3600"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start swarm watch")
    }
}

/// The id of the agent registered on `host`, from `swarm agents --json`.
fn agent_on(listed: &serde_json::Value, host: &str) -> String {
    listed
        .as_array()
        .expect("a list")
        .iter()
        .find(|a| a["host"] == host)
        .and_then(|a| a["id"].as_str())
        .expect("an agent on the host")
        .to_owned()
}

#[test]
fn two_hosts_share_one_swarm_through_a_cluster_node_that_redirects_them() {
    let cluster = RedisCluster::start();
    let name = cluster.name_away_from(SEED, "team");
    let (slot, owner) = cluster.home_of(&name);
    assert_ne!(owner, SEED, "slot {slot}");
    let host = |host: &'static str| {
        let h = Host {
            cluster: &cluster,
            name: &name,
            host,
            project: Project::new(),
            tmux: TmuxServer::start(),
        };
        let rec = h.project.file("rec.jsonl");
        h.tmux.demo_agent(&h.project.path(), &rec);
        h
    };
    let (a, b) = (host("host-a"), host("host-b"));

    // Each host registers its own pane; both see both, ids unique.
    for h in [&a, &b] {
        let out = h.run(&["discover"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains(PASSWORD),
            "{out:?}"
        );
    }
    let listed = stdout_json(&a.run(&["agents", "--json"]));
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
    let (agent_a, agent_b) = (agent_on(&listed, "host-a"), agent_on(&listed, "host-b"));
    assert_ne!(agent_a, agent_b);

    // A lock taken on A blocks B (exit 3) until A releases it.
    let got = a.run(&["lock", "src/api.py", "--agent", &agent_a, "--json"]);
    assert_eq!(got.status.code(), Some(0), "{got:?}");
    let refused = b.run(&["lock", "src/*.py", "--agent", &agent_b]);
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains(&agent_a));
    let out = a.run(&["unlock", "src/api.py", "--agent", &agent_a]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let got = b.run(&["lock", "src/*.py", "--agent", &agent_b]);
    assert_eq!(got.status.code(), Some(0), "{got:?}");

    // Both hosts race for one file: one wins, the other is refused.
    let codes: Vec<Option<i32>> = std::thread::scope(|s| {
        let racers: Vec<_> = [(&a, &agent_a), (&b, &agent_b)]
            .into_iter()
            .map(|(h, agent)| {
                s.spawn(move || h.run(&["lock", "race.txt", "--agent", agent]).status.code())
            })
            .collect();
        racers
            .into_iter()
            .map(|r| r.join().expect("racer"))
            .collect()
    });
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(sorted, [Some(0), Some(3)], "{codes:?}");

    // A message from A to B's agent is handed over (exit 7) and typed in
    // there exactly once by B's watcher; a marker sent after it is the
    // second submission, so nothing came twice.
    let send = |text: &str| {
        let out = a.run(&["msg", &agent_b, "INFO", text, "--from", &agent_a]);
        assert_eq!(out.status.code(), Some(7), "{out:?}");
    };
    send("over the cluster");
    let mut watcher = b.watch();
    let rec_b = b.project.file("rec.jsonl");
    let got = wait_for_records(&rec_b, 1);
    assert!(
        got[0]["text"]
            .as_str()
            .is_some_and(|t| typed_as(t, "INFO", "over the cluster")),
        "{got:?}"
    );
    send("marker");
    let got = wait_for_records(&rec_b, 2);
    assert!(
        got[1]["text"]
            .as_str()
            .is_some_and(|t| typed_as(t, "INFO", "marker")),
        "{got:?}"
    );
    let _ = watcher.kill();
    let _ = watcher.wait();
    assert_eq!(records(&rec_b).len(), 2, "each exactly once");
    assert!(records(&a.project.file("rec.jsonl")).is_empty());

    // Every key went to the node that serves the swarm's slot.
    let on_seed: i64 = cluster.admin(SEED, &redis::cmd("DBSIZE"));
    assert_eq!(on_seed, 0);
    let home: i64 = cluster.admin(
        owner,
        redis::cmd("CLUSTER").arg("COUNTKEYSINSLOT").arg(slot),
    );
    assert!(home > 0);

    // The node stops serving the slot and no other takes it: a clear
    // store error, exit code 8, and no password.
    cluster.admin::<()>(owner, redis::cmd("CLUSTER").arg("DELSLOTS").arg(slot));
    let out = b.run(&["agents"]);
    assert_eq!(out.status.code(), Some(8), "{out:?}");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("does not serve the swarm's slot"), "{said}");
    assert!(!said.contains(PASSWORD), "{said}");
}
