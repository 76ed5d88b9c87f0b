//! A private three-node Redis Cluster for the unit tests of this
//! backend: three redis-server processes in cluster mode on free loopback
//! ports, the 16384 hash slots spread over them, joined and waited for
//! until every node says the cluster is ok; nothing saved, all killed when
//! dropped. Every node asks for a password, so that following a
//! redirection is seen to carry it.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::conn::RedisTarget;

/// The password of every node.
pub(crate) const PASSWORD: &str = "cluster-secret";

/// The number of hash slots of a Redis Cluster.
const SLOTS: u16 = 16384;

/// How many nodes a test cluster has.
const NODES: usize = 3;

/// A running three-node cluster.
pub(crate) struct TestCluster {
    dir: tempfile::TempDir,
    children: Vec<Child>,
    ports: Vec<u16>,
}

impl TestCluster {
    /// Starts one and waits until every node serves its slots.
    pub(crate) fn start() -> TestCluster {
        let mut cluster = TestCluster {
            dir: tempfile::tempdir().expect("tempdir"),
            children: Vec::new(),
            ports: Vec::new(),
        };
        for n in 0..NODES {
            let (child, port) = start_node(cluster.dir.path(), n);
            cluster.children.push(child);
            cluster.ports.push(port);
        }
        // Each master gets its own configuration epoch before the nodes
        // meet, as cluster creation tools do: nodes that start with the
        // same epoch settle the collision by bumping theirs over the next
        // seconds, and a slot moved meanwhile can be claimed back by the
        // node it left.
        for n in 0..NODES {
            cluster.admin::<()>(n, redis::cmd("CLUSTER").arg("SET-CONFIG-EPOCH").arg(n + 1));
        }
        for (n, range) in slot_ranges().into_iter().enumerate() {
            let slots: Vec<u16> = range.collect();
            cluster.admin::<()>(n, redis::cmd("CLUSTER").arg("ADDSLOTS").arg(slots));
        }
        for n in 1..NODES {
            let port = cluster.ports[n];
            cluster.admin::<()>(
                0,
                redis::cmd("CLUSTER").arg("MEET").arg("127.0.0.1").arg(port),
            );
        }
        cluster.wait_for_state("ok");
        cluster
    }

    /// The URL of node `n`, with the password.
    pub(crate) fn url(&self, n: usize) -> String {
        format!("redis://:{PASSWORD}@127.0.0.1:{}", self.ports[n])
    }

    /// The swarm `name` reached through node `n`.
    pub(crate) fn target(&self, n: usize, name: &str) -> RedisTarget {
        RedisTarget::new(&self.url(n), name, Duration::from_secs(5))
    }

    /// Runs `cmd` on node `n` itself (no redirection followed).
    pub(crate) fn admin<T: redis::FromRedisValue>(&self, n: usize, cmd: &redis::Cmd) -> T {
        let mut conn = redis::Client::open(self.url(n).as_str())
            .expect("url")
            .get_connection_with_timeout(Duration::from_secs(5))
            .expect("connect to a cluster node");
        cmd.query(&mut conn).expect("cluster admin command")
    }

    /// `CLUSTER SETSLOT <slot> <state> <node n's id>` on node `n`
    /// (`IMPORTING`, `MIGRATING` or `NODE`).
    pub(crate) fn setslot(&self, n: usize, slot: u16, state: &str, node: usize) {
        let id: String = self.admin(node, redis::cmd("CLUSTER").arg("MYID"));
        self.admin::<()>(
            n,
            redis::cmd("CLUSTER")
                .arg("SETSLOT")
                .arg(slot)
                .arg(state)
                .arg(id),
        );
    }

    /// How many keys node `n` holds in `slot`.
    pub(crate) fn keys_in_slot(&self, n: usize, slot: u16) -> i64 {
        self.admin(n, redis::cmd("CLUSTER").arg("COUNTKEYSINSLOT").arg(slot))
    }

    /// The hash slot of `key`, as the cluster computes it.
    pub(crate) fn slot_of(&self, key: &str) -> u16 {
        self.admin(0, redis::cmd("CLUSTER").arg("KEYSLOT").arg(key))
    }

    /// The node that serves `slot`.
    pub(crate) fn owner(slot: u16) -> usize {
        slot_ranges()
            .iter()
            .position(|r| r.contains(&slot))
            .expect("every slot has a node")
    }

    /// A swarm name (`<stem>-<n>`) whose keys live on another node than
    /// `not_on`, so that reaching it through `not_on` is redirected.
    pub(crate) fn name_away_from(&self, not_on: usize, stem: &str) -> String {
        (0..)
            .map(|n| format!("{stem}-{n}"))
            .find(|name| {
                let slot = self.slot_of(&super::keys::Keys::new(name).locks());
                TestCluster::owner(slot) != not_on
            })
            .expect("some name lands on another node")
    }

    /// Waits until every node reports `cluster_state:<state>`.
    pub(crate) fn wait_for_state(&self, state: &str) {
        let want = format!("cluster_state:{state}");
        let started = Instant::now();
        loop {
            let all = (0..NODES).all(|n| {
                self.admin::<String>(n, redis::cmd("CLUSTER").arg("INFO"))
                    .lines()
                    .any(|l| l.trim() == want)
            });
            if all {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the test cluster never reached {want}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The slots of each node: three nearly equal ranges.
fn slot_ranges() -> Vec<std::ops::Range<u16>> {
    let per = SLOTS.div_ceil(NODES as u16);
    (0..NODES as u16)
        .map(|n| n * per..((n + 1) * per).min(SLOTS))
        .collect()
}

/// A loopback port that is free now, with its cluster bus port (10000
/// above it) free too.
fn free_port_pair() -> u16 {
    loop {
        let probe = TcpListener::bind("127.0.0.1:0").expect("bind a probe");
        let port = probe.local_addr().expect("probe address").port();
        let Some(bus) = port.checked_add(10000) else {
            continue;
        };
        if TcpListener::bind(("127.0.0.1", bus)).is_ok() {
            return port;
        }
    }
}

/// Starts node `n` with its files in `dir` and waits until it answers;
/// another port is tried when the chosen one was taken in between.
fn start_node(dir: &std::path::Path, n: usize) -> (Child, u16) {
    let started = Instant::now();
    loop {
        let port = free_port_pair();
        let mut child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .args(["--cluster-enabled", "yes", "--cluster-config-file"])
            .arg(dir.join(format!("nodes-{n}.conf")))
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--requirepass",
                PASSWORD,
            ])
            .arg("--dir")
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (`scripts/setup redis-server` installs it)");
        let url = format!("redis://:{PASSWORD}@127.0.0.1:{port}");
        loop {
            if let Ok(Some(_)) = child.try_wait() {
                // It could not listen there: another port.
                break;
            }
            let answered = redis::Client::open(url.as_str())
                .and_then(|c| c.get_connection_with_timeout(Duration::from_secs(1)))
                .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
                .is_ok();
            if answered {
                return (child, port);
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "a cluster node did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.wait();
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::conn::FOLLOWED;
    use crate::keys::{self, Keys};
    use crate::{
        RedisA2a, RedisAcks, RedisHeld, RedisLocks, RedisLog, RedisPrinted, RedisRates,
        RedisRegistry, RedisRelay, RedisTopics,
    };
    use swarm_core::LockStore;
    use swarm_core::StoreError;
    use swarm_core::{HandedOver, Handoff, Relay};

    /// The node every store in these tests is pointed at: it never
    /// serves the swarms used, so each connection is redirected.
    const SEED: usize = 0;

    #[test]
    fn every_store_keeps_its_contract_on_a_cluster_through_a_node_that_redirects() {
        let cluster = TestCluster::start();
        let target = |stem: &str| {
            let name = cluster.name_away_from(SEED, stem);
            let slot = cluster.slot_of(&Keys::new(&name).locks());
            assert_eq!(slot, keys::slot(&Keys::new(&name).log()), "{name}");
            assert_ne!(TestCluster::owner(slot), SEED, "{name}");
            cluster.target(SEED, &name)
        };
        let followed = FOLLOWED.load(Ordering::SeqCst);

        // A process is redirected once: the target remembers the node
        // for its later connections; another process starts again.
        let name = cluster.name_away_from(SEED, "home");
        let home = cluster.target(SEED, &name);
        let moves = |t: &RedisTarget| {
            let mut r = t.connect().expect("connect");
            let _: Option<String> = r
                .query(redis::cmd("GET").arg(Keys::new(&name).registry()))
                .expect("get");
            r.moves()
        };
        assert_eq!(moves(&home), 1);
        assert_eq!(moves(&home.clone()), 0);
        assert_eq!(moves(&cluster.target(SEED, &name)), 1);

        use swarm_core::contracts::locks as lock_contract;
        let locks = |stem: &str, host: &str| {
            RedisLocks::new(target(stem), Path::new("/nonexistent"), host, 300)
        };
        lock_contract::basic_rules(&locks("basic", "a"));
        lock_contract::shared_and_exclusive(&locks("shared", "a"));
        lock_contract::leases_lapse_and_renewals_hold(&locks("lease", "a"));
        let hosts: [Arc<dyn LockStore>; 2] = [
            Arc::new(locks("race", "host-a")),
            Arc::new(locks("race", "host-b")),
        ];
        lock_contract::one_winner_per_round(&hosts, 16, 100);
        let hosts: [Arc<dyn LockStore>; 2] = [
            Arc::new(locks("mixed", "host-a")),
            Arc::new(locks("mixed", "host-b")),
        ];
        lock_contract::shared_and_exclusive_racers_never_mix(&hosts, 8, 50);

        use swarm_core::contracts::log;
        log::appends_in_order_and_shows_each_message_once(&RedisLog::new(target("log")));
        log::racing_appenders_and_readers_lose_nothing(Arc::new(RedisLog::new(target("log-race"))));
        log::racing_takers_take_each_message_once(Arc::new(RedisLog::new(target("takers"))));

        use swarm_core::contracts::acks;
        acks::records_and_acknowledges(&RedisAcks::new(target("acks")));
        acks::claims_on_time_and_once(&RedisAcks::new(target("claims")));
        acks::racing_claims_have_one_winner(Arc::new(RedisAcks::new(target("acks-race"))));

        use swarm_core::contracts::held;
        held::holds_in_order_and_releases_once(&RedisHeld::new(target("held")));
        held::racing_releases_have_one_winner(Arc::new(RedisHeld::new(target("held-race"))));

        use swarm_core::contracts::a2a;
        a2a::basics(&RedisA2a::new(target("a2a")));
        a2a::racing_updates(&RedisA2a::new(target("a2a-race")));

        use swarm_core::contracts::rates;
        rates::limits_each_sender_in_a_sliding_window(&RedisRates::new(target("rates")));
        rates::racing_sends_never_exceed_the_limit(Arc::new(RedisRates::new(target("rates-race"))));

        use swarm_core::contracts::registry;
        registry::basics(&RedisRegistry::new(target("registry"), "host-a"));
        registry::racing_allocations(&RedisRegistry::new(target("reg-race"), "host-a"));

        use swarm_core::contracts::topics;
        topics::subscribes_and_unsubscribes(&RedisTopics::new(target("topics")));
        topics::racing_subscribers_lose_nothing(Arc::new(RedisTopics::new(target("topics-race"))));

        use swarm_core::contracts::printed;
        let printed_target = target("printed");
        printed::each_line_is_claimed_once(|| Box::new(RedisPrinted::new(printed_target.clone())));

        // Deliveries between hosts: a hand-over and the blocking read of
        // the host's stream both go to the node that serves the slot.
        let relay_target = target("relay");
        let a = RedisRelay::new(relay_target.clone(), "host-a");
        let b = RedisRelay::new(relay_target, "host-b");
        let handoff = Handoff {
            msg_id: "m1".into(),
            agent: "agent-2".into(),
            text: "[agent-1 → agent-2] INFO: over the cluster".into(),
            marker: "[agent-1".into(),
            from: "host-a".into(),
            note: None,
            urgency: swarm_core::Urgency::Normal,
        };
        assert_eq!(
            a.hand_over("host-b", &handoff).expect("hand over"),
            HandedOver::Queued
        );
        assert_eq!(
            a.hand_over("host-b", &handoff).expect("hand over again"),
            HandedOver::AlreadyWaiting
        );
        let got = b.take(Duration::from_millis(200)).expect("take");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].handoff.as_ref(), Some(&handoff));
        b.done(&got).expect("done");
        assert!(b.take(Duration::from_millis(20)).expect("take").is_empty());

        assert!(
            FOLLOWED.load(Ordering::SeqCst) > followed,
            "no redirection was followed"
        );
        // Nothing was written on the seed node: every key went to the
        // node that serves its swarm.
        let on_seed: i64 = cluster.admin(SEED, &redis::cmd("DBSIZE"));
        assert_eq!(on_seed, 0);
    }

    #[test]
    fn while_the_slot_migrates_commands_follow_ask_and_transactions_wait_for_the_move() {
        use swarm_core::AgentId;
        use swarm_core::a2a::a2a_store::A2aStore;
        use swarm_core::{Topic, TopicStore};

        let cluster = TestCluster::start();
        let name = cluster.name_away_from(SEED, "moving");
        let slot = cluster.slot_of(&Keys::new(&name).locks());
        let from = TestCluster::owner(slot);
        let to = (0..NODES).find(|&n| n != from).expect("another node");
        let setslot = |n: usize, state: &str, node: usize| cluster.setslot(n, slot, state, node);
        setslot(to, "IMPORTING", from);
        setslot(from, "MIGRATING", to);
        let keys_on = |n: usize| cluster.keys_in_slot(n, slot);

        // One command for a key the old node does not have is answered
        // with ASK and runs on the importing node.
        let target = cluster.target(SEED, &name);
        let mut r = target.connect().expect("connect");
        let key = Keys::new(&name).registry();
        r.query::<()>(redis::cmd("SET").arg(&key).arg("moved"))
            .expect("set while migrating");
        assert_eq!((keys_on(from), keys_on(to)), (0, 1));
        let got: Option<String> = r.query(redis::cmd("GET").arg(&key)).expect("get");
        assert_eq!(got.as_deref(), Some("moved"));

        // A change under a lock key and a script, and a WATCHed
        // transaction, started while the slot migrates, each happen once,
        // on the node the slot ends on.
        let a2a = RedisA2a::new(target.clone());
        let topics = RedisTopics::new(target);
        let topic = Topic::parse("deploys").expect("topic");
        let agent = AgentId::numbered(1);
        std::thread::scope(|s| {
            let notes = s.spawn(|| {
                a2a.update_coordination(&mut |_| Ok(Some("notes".to_owned())))
                    .expect("coordination while migrating");
            });
            let subscribed = s.spawn(|| topics.subscribe(&topic, &agent).expect("subscribe"));
            // The change's lock went to the importing node by ASK; its
            // script, on keys of which some are not there yet, waits.
            let started = Instant::now();
            while keys_on(to) < 2 {
                assert!(
                    started.elapsed() < Duration::from_secs(4),
                    "no lock key by ASK"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            // The slot moves: the importing node first, then the others.
            setslot(to, "NODE", to);
            setslot(from, "NODE", to);
            for n in (0..NODES).filter(|&n| n != to && n != from) {
                setslot(n, "NODE", to);
            }
            notes.join().expect("coordination thread");
            assert!(subscribed.join().expect("subscribe thread"));
        });
        assert_eq!(
            a2a.read_coordination().expect("read").as_deref(),
            Some("notes")
        );
        let all = topics.all().expect("topics");
        assert_eq!(swarm_core::topics_of(&all, "agent-1"), ["deploys"]);
        assert_eq!(keys_on(from), 0);
        assert!(keys_on(to) >= 3, "{}", keys_on(to));
    }

    #[test]
    fn a_command_asked_over_to_a_node_that_sends_it_back_follows_until_the_node_imports() {
        // The old node marks the slot migrating before the new one marks
        // it importing: the old node sends a command on by ASK, and the
        // new one, not importing yet, answers ASKING with MOVED back. The
        // call goes on following (waiting a little once past its first
        // hops) and lands once the new node imports, instead of failing
        // at the first MOVED.
        let cluster = TestCluster::start();
        let name = cluster.name_away_from(SEED, "sent-back");
        let slot = cluster.slot_of(&Keys::new(&name).locks());
        let from = TestCluster::owner(slot);
        let to = (0..NODES).find(|&n| n != from).expect("another node");
        let setslot = |n: usize, state: &str, node: usize| cluster.setslot(n, slot, state, node);
        let keys_on = |n: usize| cluster.keys_in_slot(n, slot);
        setslot(from, "MIGRATING", to);
        let followed = FOLLOWED.load(Ordering::SeqCst);
        let key = Keys::new(&name).registry();
        std::thread::scope(|s| {
            let set = s.spawn(|| {
                let mut r = cluster.target(SEED, &name).connect().expect("connect");
                r.query::<()>(redis::cmd("SET").arg(&key).arg("landed"))
            });
            // Sent on and back four times, past the hops followed at once
            // (other tests' redirections may count here too; the SET
            // cannot succeed before the new node imports either way).
            let started = Instant::now();
            while FOLLOWED.load(Ordering::SeqCst) < followed + 8 {
                assert!(!set.is_finished(), "{:?}", set.join());
                assert!(
                    started.elapsed() < Duration::from_secs(4),
                    "the command was not sent back and forth"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(!set.is_finished(), "{:?}", set.join());
            setslot(to, "IMPORTING", from);
            set.join()
                .expect("the SET thread")
                .expect("the SET lands once the node imports");
        });
        assert_eq!((keys_on(from), keys_on(to)), (0, 1));
    }

    #[test]
    fn a_slot_no_node_serves_fails_as_unreachable_with_exit_code_8_and_no_password() {
        let cluster = TestCluster::start();
        let name = cluster.name_away_from(SEED, "down");
        let slot = cluster.slot_of(&Keys::new(&name).locks());
        let owner = TestCluster::owner(slot);
        let key = Keys::new(&name).registry();
        let mut r = cluster.target(SEED, &name).connect().expect("connect");
        let none: Option<String> = r.query(redis::cmd("GET").arg(&key)).expect("healthy");
        assert_eq!(none, None);
        // The node that served the slot stops serving it; no other does.
        cluster.admin::<()>(owner, redis::cmd("CLUSTER").arg("DELSLOTS").arg(slot));
        let mut r = cluster.target(SEED, &name).connect().expect("connect");
        let e = r
            .query::<Option<String>>(redis::cmd("GET").arg(&key))
            .expect_err("the slot is served by no node");
        assert!(matches!(e, StoreError::Unreachable { .. }), "{e}");
        let shown = e.to_string();
        assert!(shown.contains("does not serve the swarm's slot"), "{shown}");
        assert!(!shown.contains(PASSWORD), "{shown}");
        assert_eq!(e.exit_code(), swarm_core::ExitCode::StoreUnavailable);
    }
}
