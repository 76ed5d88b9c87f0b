//! Delivery through a tmux that answers as an older one does: before 3.2
//! `run-shell` has no `-d` (so a paste and its Enter cannot share one call
//! with a pause between them), and a tmux that does not read a script from
//! standard input (`source-file -` looks for a file named `-`). swarm then
//! pastes and presses Enter as two calls and captures each screen by a call
//! of its own; every message still arrives once, whole, and is submitted.
//! The older tmux is the real one behind a wrapper that refuses exactly
//! those two things, first on `PATH` for swarm alone.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::harness::{Project, TmuxServer, records, swarm, wait_for_records};

/// A directory holding a `tmux` that refuses `run-shell -d` and
/// `source-file -` the way an older tmux does (noting each refusal in
/// `refused.log` beside it) and hands every other call to the real one
/// (noting its arguments in `calls.log`).
struct OldTmux {
    dir: tempfile::TempDir,
}

impl OldTmux {
    fn new() -> OldTmux {
        let real = crate::harness::real_tmux();
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("refused.log");
        let calls = dir.path().join("calls.log");
        let script = format!(
            r#"#!/bin/sh
prev=""
for a in "$@"; do
    case "$prev $a" in
        "run-shell -d")
            echo "run-shell -d" >> '{log}'
            echo "usage: run-shell [-b] [-t target-pane] shell-command" >&2
            exit 1 ;;
        "source-file -")
            echo "source-file -" >> '{log}'
            echo "-: No such file or directory" >&2
            exit 1 ;;
    esac
    prev="$a"
done
printf '%s\n' "$*" >> '{calls}'
exec '{real}' "$@"
"#,
            log = log.display(),
            calls = calls.display(),
            real = real.display()
        );
        let wrapper = dir.path().join("tmux");
        fs::write(&wrapper, script).expect("write the wrapper");
        fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod");
        OldTmux { dir }
    }

    /// `PATH` with the wrapper first.
    fn path(&self) -> std::ffi::OsString {
        let rest = std::env::var_os("PATH").unwrap_or_default();
        let dirs =
            std::iter::once(self.dir.path().to_path_buf()).chain(std::env::split_paths(&rest));
        std::env::join_paths(dirs).expect("PATH")
    }

    /// What the wrapper refused, one line each.
    fn refused(&self) -> String {
        fs::read_to_string(self.dir.path().join("refused.log")).unwrap_or_default()
    }

    /// The calls that reached the real tmux, in order.
    fn calls(&self) -> Vec<String> {
        fs::read_to_string(self.dir.path().join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// The texts `record` holds, in order.
fn texts(record: &Path) -> Vec<String> {
    records(record)
        .into_iter()
        .filter_map(|r| r["text"].as_str().map(str::to_owned))
        .collect()
}

fn pastes(record: &Path) -> Vec<u64> {
    records(record)
        .into_iter()
        .filter_map(|r| r["pastes"].as_u64())
        .collect()
}

#[test]
fn an_older_tmux_still_gets_every_message_once_whole_and_submitted() {
    let server = TmuxServer::start();
    let project = Project::new();
    let old = OldTmux::new();
    let recs: Vec<PathBuf> = (0..2)
        .map(|i| project.file(&format!("rec-{i}.jsonl")))
        .collect();
    for rec in &recs {
        server.demo_agent(&project.path(), rec);
    }
    let run = |args: &[&str]| {
        swarm(&project, &server)
            .env("PATH", old.path())
            .args(args)
            .assert()
            .success();
    };
    run(&["discover"]);

    let from_operator = |command: &[&str], text: &str| {
        run(&[command, &["INFO", "--from", "operator", "--", text]].concat());
    };
    // One recipient: the paste and the Enter as two calls, the screen by a
    // call of its own.
    from_operator(&["msg", "agent-0"], "to one; exactly");
    let got = wait_for_records(&recs[0], 1);
    assert!(
        got[0]["text"]
            .as_str()
            .is_some_and(|t| t.ends_with("]: to one; exactly")),
        "{got:?}"
    );

    // Every recipient of a broadcast, the same way.
    from_operator(&["broadcast"], "to all\nsecond line");
    for rec in &recs {
        wait_for_records(rec, if rec == &recs[0] { 2 } else { 1 });
    }

    // The command waited for each box to empty, so nothing more is on its
    // way: each message went in once, as one paste.
    let zero = texts(&recs[0]);
    assert_eq!(zero.len(), 2, "{zero:?}");
    assert!(zero[1].ends_with("]: to all\nsecond line"), "{zero:?}");
    let one = texts(&recs[1]);
    assert_eq!(one.len(), 1, "{one:?}");
    assert!(one[0].ends_with("]: to all\nsecond line"), "{one:?}");
    assert_eq!(pastes(&recs[0]), [1, 1]);
    assert_eq!(pastes(&recs[1]), [1]);

    // Each paste was followed at once by its Enter (not left to the second
    // Enter that confirming presses when the text stays in the box).
    let calls = old.calls();
    let pasted: Vec<usize> = (0..calls.len())
        .filter(|&i| calls[i].contains("paste-buffer"))
        .collect();
    assert_eq!(pasted.len(), 2, "one paste call per message: {calls:#?}");
    for i in pasted {
        let next = calls.get(i + 1).map_or("", String::as_str);
        assert!(
            next.contains("send-keys") && next.ends_with("-- Enter"),
            "the call after a paste was {next:?}: {calls:#?}"
        );
    }

    // The older tmux's refusals were met, not bypassed.
    let refused = old.refused();
    assert!(refused.contains("run-shell -d"), "{refused:?}");
    assert!(refused.contains("source-file -"), "{refused:?}");
    assert_eq!(
        server.tmux(&["list-buffers"]),
        "",
        "no buffer is left behind"
    );
}
