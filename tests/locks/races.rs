//! Races for one lock: one winner among 32 racers, as real `swarm lock`
//! processes, as threads calling the library, as bare exclusive creates
//! (the guarantee that holds against the Python tool), and among racers
//! taking over a stale lock (each takeover audited once).

use std::fs::{self, File, OpenOptions};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::thread;

use swarm::{Acquired, LockError, StateDir, lock_file_name};

use crate::harness::{Project, swarm_bin, swarm_outside_tmux};

use super::{code, key, lock_file, python_lock, registered_project, table, unix_now};

// ---------------------------------------------------------------------
// Races. Three layers, each proving something the others cannot:
// * real `swarm lock` processes (a few rounds): the whole command, as
//   agents run it, gives one winner and a lock file naming it;
// * threads calling the library (the bulk of the rounds, cheap enough to
//   run many): the same decision under heavy contention for the
//   directory's flock (each thread opens it separately, so they exclude
//   each other exactly as processes do);
// * threads calling only the exclusive create, with no flock at all: the
//   guarantee that still holds against the Python tool, which never takes
//   swarm's flock.
// 32 racers x 500 rounds in all for one path (the design target): 10 rounds
// of processes and 490 of library threads.
// ---------------------------------------------------------------------

const RACERS: usize = 32;
const PROCESS_ROUNDS: usize = 10;
const LIBRARY_ROUNDS: usize = 490;

/// Runs one `swarm lock PATH --agent agent-I` process per agent at the
/// same moment: each waits on its own FIFO, and the test closes them all
/// at once after every process has opened its FIFO (so all are waiting).
fn race_processes(project: &Project, path: &str, agents: &[String]) -> Vec<(String, Option<i32>)> {
    let gun_dir = tempfile::tempdir().expect("tempdir");
    let fifos: Vec<_> = (0..agents.len())
        .map(|i| gun_dir.path().join(format!("gun-{i}")))
        .collect();
    let status = Command::new("mkfifo")
        .args(&fifos)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let children: Vec<_> = agents
        .iter()
        .zip(&fifos)
        .map(|(agent, fifo)| {
            let child = Command::new("sh")
                .arg("-c")
                .arg(r#"read _ < "$1"; exec "$2" lock "$3" --agent "$4""#)
                .arg("sh")
                .arg(fifo)
                .arg(swarm_bin())
                .arg(path)
                .arg(agent)
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env_remove("CLAUDESWARM_ROOT")
                .env("NO_COLOR", "1")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn racer");
            (agent.clone(), child)
        })
        .collect();
    // Opening a FIFO for writing returns once its reader has opened it.
    let writers: Vec<File> = fifos
        .iter()
        .map(|f| OpenOptions::new().write(true).open(f).expect("open fifo"))
        .collect();
    drop(writers);
    children
        .into_iter()
        .map(|(agent, mut child)| (agent, child.wait().expect("wait").code()))
        .collect()
}

fn agents(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("agent-{i}")).collect()
}

#[test]
fn racing_swarm_processes_have_exactly_one_winner() {
    let project = registered_project();
    let agents = agents(RACERS);
    for round in 0..PROCESS_ROUNDS {
        let results = race_processes(&project, "src/contested.py", &agents);
        let winners: Vec<&String> = results
            .iter()
            .filter(|(_, c)| *c == Some(0))
            .map(|(a, _)| a)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let losers = results.iter().filter(|(_, c)| *c == Some(3)).count();
        assert_eq!(losers, RACERS - 1, "round {round}: {results:?}");
        let file = lock_file(&project, "src/contested.py").expect("lock file");
        assert_eq!(file["agent_id"], winners[0].as_str(), "round {round}");
        let out = swarm_outside_tmux(&project)
            .args(["unlock", "src/contested.py", "--agent", winners[0]])
            .output()
            .expect("unlock");
        assert_eq!(code(&out), Some(0));
    }
}

#[test]
fn racing_library_callers_have_exactly_one_winner() {
    let project = registered_project();
    let table = table(&project);
    let contested = key(&project, "src/contested.py");
    for round in 0..LIBRARY_ROUNDS {
        let barrier = Arc::new(Barrier::new(RACERS));
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (table, key, barrier) =
                    (table.clone(), contested.clone(), Arc::clone(&barrier));
                thread::spawn(move || {
                    let agent = format!("agent-{i}");
                    barrier.wait();
                    match table.acquire(&[key], &agent, Some("race"), "") {
                        Ok(_) => Some(agent),
                        Err(LockError::Held(_)) => None,
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                })
            })
            .collect();
        let winners: Vec<String> = handles
            .into_iter()
            .filter_map(|h| h.join().expect("thread"))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let file = lock_file(&project, "src/contested.py").expect("lock file");
        assert_eq!(file["agent_id"], winners[0].as_str(), "round {round}");
        table
            .release(std::slice::from_ref(&contested), &winners[0], false)
            .expect("release");
    }
}

#[test]
fn exclusive_creation_alone_has_exactly_one_winner() {
    let project = registered_project();
    let dir = StateDir::new(project.file(".agent_locks"));
    let name = lock_file_name("src/contested.py");
    for round in 0..(PROCESS_ROUNDS + LIBRARY_ROUNDS) {
        let barrier = Arc::new(Barrier::new(RACERS));
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (dir, name, barrier) = (dir.clone(), name.clone(), Arc::clone(&barrier));
                thread::spawn(move || {
                    barrier.wait();
                    dir.create_new(&name, format!("agent-{i}").as_bytes())
                        .expect("create")
                        .then_some(i)
                })
            })
            .collect();
        let winners: Vec<usize> = handles
            .into_iter()
            .filter_map(|h| h.join().expect("thread"))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let content = fs::read_to_string(dir.file(&name)).expect("read");
        assert_eq!(content, format!("agent-{}", winners[0]));
        fs::remove_file(dir.file(&name)).expect("remove");
    }
}

#[test]
fn racers_taking_over_a_stale_lock_have_exactly_one_winner() {
    const TAKEOVER_RACERS: usize = 16;
    let project = registered_project();
    let table = table(&project);
    let contested = key(&project, "src/stale.py");
    let process_rounds = 3;
    let library_rounds = 40;
    for round in 0..process_rounds + library_rounds {
        python_lock(
            &project,
            "agent-old",
            "src/stale.py",
            unix_now() - 10_000.0,
            "gone",
        );
        let winners: Vec<String> = if round < process_rounds {
            race_processes(&project, "src/stale.py", &agents(TAKEOVER_RACERS))
                .into_iter()
                .filter(|(_, c)| *c == Some(0))
                .map(|(a, _)| a)
                .collect()
        } else {
            let barrier = Arc::new(Barrier::new(TAKEOVER_RACERS));
            let handles: Vec<_> = (0..TAKEOVER_RACERS)
                .map(|i| {
                    let (table, key, barrier) =
                        (table.clone(), contested.clone(), Arc::clone(&barrier));
                    thread::spawn(move || {
                        let agent = format!("agent-{i}");
                        barrier.wait();
                        match table.acquire(&[key], &agent, None, "") {
                            Ok(got) => {
                                assert!(matches!(got[0].how, Acquired::TookOver(_)));
                                Some(agent)
                            }
                            Err(LockError::Held(c)) => {
                                assert_ne!(c[0].held.record.agent_id, "agent-old");
                                None
                            }
                            Err(e) => panic!("unexpected error: {e}"),
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|h| h.join().expect("thread"))
                .collect()
        };
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let file = lock_file(&project, "src/stale.py").expect("lock file");
        assert_eq!(file["agent_id"], winners[0].as_str(), "round {round}");
    }
    // Every takeover is in the audit log, once.
    let audit = project.read(".swarm/audit.log");
    let takeovers = audit
        .lines()
        .filter(|l| l.contains("stale-takeover"))
        .count();
    assert_eq!(takeovers, process_rounds + library_rounds);
}
