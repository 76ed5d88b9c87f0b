//! Damaged A2A files: every read reports the damage and changes nothing;
//! every write moves the damaged file aside (kept byte for byte) before
//! writing a new one. Never a panic, never a silent reset.

use std::fs;

use serde_json::Value;

use super::{create_task, ok, run};
use crate::harness::{Project, stderr};

/// Ways a file can be damaged: its content, or a symbolic link pointing
/// out of the project.
#[derive(Clone, Copy, Debug)]
enum Damage {
    Garbage,
    Empty,
    WrongShape(&'static str),
    SymlinkOut,
}

/// A store file, valid JSON of the wrong shape for it, and commands that
/// read and write it (after `setup`).
struct Case {
    file: &'static str,
    wrong_shape: &'static str,
    setup: fn(&Project),
    read: Option<&'static [&'static str]>,
    write: Option<&'static [&'static str]>,
}

fn nothing(_: &Project) {}

fn card_and_task(project: &Project) {
    ok(
        project,
        &[
            "cards",
            "register",
            "--agent-id",
            "agent-0",
            "--skills",
            "python",
        ],
    );
    let id = create_task(project, &["x", "--creator", "agent-0", "--files", "a.py"]);
    // The write command delegates the only task by its prefix.
    assert!(!id.is_empty());
}

fn a_lock(project: &Project) {
    ok(project, &["lock", "a.py", "--agent", "agent-1"]);
}

const CASES: [Case; 6] = [
    Case {
        file: "AGENT_CARDS.json",
        wrong_shape: r#"{"version": "1.0", "cards": ["agent-0"]}"#,
        setup: nothing,
        read: Some(&["cards", "list"]),
        write: Some(&["cards", "register", "--agent-id", "agent-0"]),
    },
    Case {
        file: "TASKS.json",
        wrong_shape: r#"[{"task_id": "t"}]"#,
        setup: nothing,
        read: Some(&["tasks", "list"]),
        write: Some(&["tasks", "create", "x", "--creator", "agent-0"]),
    },
    Case {
        file: "CONTEXTS.json",
        wrong_shape: r#"{"contexts": "none"}"#,
        setup: nothing,
        read: Some(&["context", "list"]),
        write: Some(&["context", "create", "c1", "s", "--creator", "agent-0"]),
    },
    Case {
        file: "CONFLICT_LOG.json",
        wrong_shape: r#"{"conflicts": 5}"#,
        setup: a_lock,
        read: None,
        write: Some(&["resolve-conflict", "a.py", "--requester", "agent-0"]),
    },
    Case {
        file: "LEARNING_DATA.json",
        wrong_shape: r#"{"agents": []}"#,
        setup: nothing,
        read: Some(&["learning", "stats", "--agent-id", "agent-0"]),
        write: None,
    },
    Case {
        file: ".agent_memory/agent-0.json",
        wrong_shape: r#"{"agent_id": 7}"#,
        setup: nothing,
        read: Some(&["memory", "get", "--agent-id", "agent-0"]),
        write: Some(&["memory", "clear", "--agent-id", "agent-0"]),
    },
];

/// Damages the file; a symbolic link points into `outside`. Returns what
/// the damaged file (or the link's target) holds.
fn damage(project: &Project, file: &str, how: Damage, outside: &std::path::Path) -> Vec<u8> {
    let path = project.file(file);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).expect("mkdir");
    }
    let _ = fs::remove_file(&path);
    let bytes: &[u8] = match how {
        Damage::Garbage => b"{\"version\": \"1.0\", \"tas\xff\x00",
        Damage::Empty => b"",
        Damage::WrongShape(shape) => shape.as_bytes(),
        Damage::SymlinkOut => {
            let target = outside.join("secret.json");
            fs::write(&target, "{\"secret\": true}").expect("write outside");
            std::os::unix::fs::symlink(&target, &path).expect("symlink");
            return b"{\"secret\": true}".to_vec();
        }
    };
    fs::write(&path, bytes).expect("write");
    bytes.to_vec()
}

fn aside_files(project: &Project, file: &str) -> Vec<std::path::PathBuf> {
    let path = project.file(file);
    let dir = path.parent().expect("dir");
    let name = path
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let mut found: Vec<_> = fs::read_dir(dir)
        .expect("ls")
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{name}.corrupt-"))
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

#[test]
fn damaged_files_are_reported_and_preserved() {
    for case in &CASES {
        let damages = [
            Damage::Garbage,
            Damage::Empty,
            Damage::WrongShape(case.wrong_shape),
            Damage::SymlinkOut,
        ];
        for how in damages {
            let project = Project::new();
            // The lock holders below are registered agents.
            project.register(&["agent-0", "agent-1", "agent-2", "agent-3"]);
            let outside = tempfile::tempdir().expect("tempdir");
            (case.setup)(&project);
            let original = damage(&project, case.file, how, outside.path());
            let what = format!("{} {how:?}", case.file);
            if let Some(read) = case.read {
                let out = run(&project, read);
                assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
                assert!(stderr(&out).contains("damaged"), "{what}: {}", stderr(&out));
                let now = match how {
                    Damage::SymlinkOut => fs::read(outside.path().join("secret.json")),
                    _ => fs::read(project.file(case.file)),
                };
                assert_eq!(now.expect("still there"), original, "{what}");
            }
            let Some(write) = case.write else {
                continue;
            };
            let out = run(&project, write);
            assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
            let said = format!("{}{}", super::stdout(&out), stderr(&out));
            assert!(
                said.contains("damaged") && said.contains("moved it to"),
                "{what}: {said}"
            );
            let aside = aside_files(&project, case.file);
            assert_eq!(aside.len(), 1, "{what}: {aside:?}");
            match how {
                // The link itself was moved; its target is untouched.
                Damage::SymlinkOut => {
                    assert!(
                        fs::symlink_metadata(&aside[0])
                            .expect("aside")
                            .file_type()
                            .is_symlink()
                    );
                    assert_eq!(
                        fs::read(outside.path().join("secret.json")).expect("outside"),
                        original,
                        "{what}"
                    );
                }
                _ => assert_eq!(fs::read(&aside[0]).expect("aside"), original, "{what}"),
            }
            if case.file.starts_with(".agent_memory") {
                assert!(!project.file(case.file).exists(), "{what}: cleared");
            } else {
                let new: Value = serde_json::from_str(&project.read(case.file))
                    .unwrap_or_else(|e| panic!("{what}: the new file is JSON: {e}"));
                assert_eq!(new["version"], "1.0", "{what}");
            }
        }
    }
}

#[test]
fn delegation_history_damage_is_preserved_when_a_delegation_is_recorded() {
    let project = Project::new();
    let outside = tempfile::tempdir().expect("tempdir");
    card_and_task(&project);
    let original = damage(
        &project,
        "DELEGATION_HISTORY.json",
        Damage::Garbage,
        outside.path(),
    );
    let tasks: Value = serde_json::from_str(&project.read("TASKS.json")).expect("JSON");
    let id = tasks["tasks"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .expect("a task");
    let out = run(&project, &["delegate", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("moved it to"), "{}", stderr(&out));
    let aside = aside_files(&project, "DELEGATION_HISTORY.json");
    assert_eq!(fs::read(&aside[0]).expect("aside"), original);
    let history: Value =
        serde_json::from_str(&project.read("DELEGATION_HISTORY.json")).expect("JSON");
    assert_eq!(history["history"][0]["task_id"], Value::from(id));
}

#[test]
fn an_unreadable_record_survives_writes_to_its_file() {
    let project = Project::new();
    project.write(
        "CONTEXTS.json",
        r#"{"version": "1.0", "updated_at": "x", "contexts": {"old": {"context_id": "old", "status": "lost", "decisions": 3}}}"#,
    );
    let out = run(
        &project,
        &[
            "context",
            "create",
            "new",
            "summary",
            "--creator",
            "agent-0",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("record \"old\""), "{}", stderr(&out));
    let file: Value = serde_json::from_str(&project.read("CONTEXTS.json")).expect("JSON");
    assert_eq!(
        file["contexts"]["old"],
        serde_json::json!({"context_id": "old", "status": "lost", "decisions": 3})
    );
    assert_eq!(file["contexts"]["new"]["summary"], "summary");
    assert!(aside_files(&project, "CONTEXTS.json").is_empty());
}

#[test]
fn doctor_reports_the_a2a_files() {
    let project = Project::new();
    ok(&project, &["tasks", "create", "x", "--creator", "agent-0"]);
    project.write("AGENT_CARDS.json", r#"{"cards": [1]}"#);
    let out = run(&project, &["doctor", "--json"]);
    let report: Value = serde_json::from_str(&super::stdout(&out)).expect("JSON");
    let text = report.to_string();
    assert!(
        text.contains("TASKS.json") && text.contains("readable, 1 record(s)"),
        "{text}"
    );
    assert!(
        text.contains("AGENT_CARDS.json") && text.contains("is damaged"),
        "{text}"
    );
    // Looking changed nothing.
    assert_eq!(project.read("AGENT_CARDS.json"), r#"{"cards": [1]}"#);
}
