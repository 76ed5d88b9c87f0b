//! Hostile input, one table: every case gets its documented exit code and
//! a clear message, never a panic, and nothing it carries reaches a pane
//! unsanitised.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use crate::harness::{Project, TmuxServer, records, swarm, wait_for_records};

/// One hostile invocation and what must come of it.
struct Case {
    name: &'static str,
    args: Vec<OsString>,
    env: Vec<(&'static str, OsString)>,
    stdin: Option<Vec<u8>>,
    code: i32,
    /// Text the combined output must contain (empty: no check).
    says: &'static str,
}

fn case(name: &'static str, args: &[&str], code: i32, says: &'static str) -> Case {
    Case {
        name,
        args: args.iter().map(OsString::from).collect(),
        env: Vec::new(),
        stdin: None,
        code,
        says,
    }
}

impl Case {
    fn env(mut self, key: &'static str, value: impl Into<OsString>) -> Case {
        self.env.push((key, value.into()));
        self
    }

    fn stdin(mut self, bytes: Vec<u8>) -> Case {
        self.stdin = Some(bytes);
        self
    }

    fn raw_arg(mut self, arg: OsString) -> Case {
        self.args.push(arg);
        self
    }
}

fn cases() -> Vec<Case> {
    let long_id = "a".repeat(65);
    let long_body = "x".repeat(10_241);
    let osc52 = "copy \x1b]52;c;cm0gLXJmIH4=\x07 this";
    vec![
        // Recipients and senders with shell, tmux-format and path syntax.
        case(
            "recipient with ;",
            &["msg", "agent;rm", "INFO", "--from", "operator", "hi"],
            1,
            "invalid characters",
        ),
        case(
            "recipient with tmux format",
            &["msg", "#{pane_id}", "INFO", "--from", "operator", "hi"],
            1,
            "invalid characters",
        ),
        case(
            "recipient that is a pane id",
            &["msg", "%1", "INFO", "--from", "operator", "hi"],
            1,
            "invalid characters",
        ),
        case(
            "recipient with a path",
            &["msg", "../agent-0", "INFO", "--from", "operator", "hi"],
            1,
            "invalid characters",
        ),
        case(
            "empty recipient",
            &["msg", "", "INFO", "--from", "operator", "hi"],
            1,
            "empty",
        ),
        case(
            "65-character recipient",
            &["msg", &long_id, "INFO", "--from", "operator", "hi"],
            1,
            "too long",
        ),
        case(
            "recipient starting with -",
            &["msg", "-x", "INFO", "--from", "operator", "hi"],
            2,
            "",
        ),
        case(
            "unknown recipient",
            &["msg", "agent-9", "INFO", "--from", "operator", "hi"],
            4,
            "no agent agent-9",
        ),
        case(
            "sender with $()",
            &["msg", "agent-0", "INFO", "--from", "a$(id)", "hi"],
            1,
            "invalid characters",
        ),
        case(
            "sender with spaces",
            &["msg", "agent-0", "INFO", "--from", "a b", "hi"],
            1,
            "invalid characters",
        ),
        case(
            "sender ending in -",
            &["msg", "agent-0", "INFO", "--from", "a-", "hi"],
            1,
            "cannot start or end",
        ),
        case(
            "a sender that is no agent",
            &["msg", "agent-0", "INFO", "--from", "nobody", "hi"],
            4,
            "no agent nobody",
        ),
        // Types.
        case(
            "unknown type",
            &["msg", "agent-0", "URGENT", "--from", "operator", "hi"],
            1,
            "valid types",
        ),
        case(
            "empty type",
            &["msg", "agent-0", "", "--from", "operator", "hi"],
            1,
            "valid types",
        ),
        case(
            "type with escape",
            &["msg", "agent-0", "INFO\x1b[31m", "--from", "operator", "hi"],
            1,
            "valid types",
        ),
        // Bodies.
        case(
            "blank body",
            &["msg", "agent-0", "INFO", "--from", "operator", "  \t "],
            1,
            "cannot be empty",
        ),
        case(
            "body of escapes only",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "\x1b[2J\x1b[H",
            ],
            1,
            "control characters",
        ),
        case(
            "body of NUL-free controls only",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "\x07\x08\x7f",
            ],
            1,
            "empty",
        ),
        case(
            "body over 10240 bytes",
            &["msg", "agent-0", "INFO", "--from", "operator", &long_body],
            1,
            "too long",
        ),
        case(
            "10 MB body on stdin",
            &["msg", "agent-0", "INFO", "--from", "operator", "-"],
            1,
            "too long",
        )
        .stdin(vec![b'y'; 10 * 1024 * 1024]),
        case(
            "missing body file",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "--file",
                "/nonexistent/body",
            ],
            1,
            "could not read",
        ),
        case(
            "no body at all",
            &["msg", "agent-0", "INFO", "--from", "operator"],
            2,
            "no message given",
        ),
        case(
            "body and file",
            &[
                "msg", "agent-0", "INFO", "--from", "operator", "--file", "x", "hi",
            ],
            2,
            "",
        ),
        case(
            "invalid UTF-8 argument",
            &["msg", "agent-0", "INFO", "--from", "operator"],
            2,
            "",
        )
        .raw_arg(OsString::from_vec(vec![b'h', 0xff, 0xfe, b'i'])),
        case(
            "invalid UTF-8 on stdin is replaced",
            &["msg", "agent-0", "INFO", "--from", "operator", "-"],
            0,
            "DELIVERED",
        )
        .stdin(vec![b'o', b'k', 0xff, b'!']),
        case(
            "OSC 52 clipboard write is stripped",
            &["msg", "agent-0", "INFO", "--from", "operator", osc52],
            0,
            "DELIVERED",
        ),
        case(
            "title change is stripped",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "a\x1b]0;owned\x07b",
            ],
            0,
            "DELIVERED",
        ),
        case(
            "8-bit CSI is stripped",
            &["msg", "agent-0", "INFO", "--from", "operator", "a\u{9b}2Jb"],
            0,
            "DELIVERED",
        ),
        case(
            "bidi override is stripped",
            &["msg", "agent-0", "INFO", "--from", "operator", "a\u{202e}b"],
            0,
            "DELIVERED",
        ),
        // Numbers.
        case(
            "ack timeout 0",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "--ack",
                "--ack-timeout",
                "0",
                "hi",
            ],
            2,
            "",
        ),
        case(
            "ack timeout huge",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "--ack",
                "--ack-timeout",
                "99999999999999999999",
                "hi",
            ],
            2,
            "",
        ),
        case(
            "ack timeout negative",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "--ack",
                "--ack-timeout",
                "-5",
                "hi",
            ],
            2,
            "",
        ),
        case(
            "ack timeout without --ack",
            &[
                "msg",
                "agent-0",
                "INFO",
                "--from",
                "operator",
                "--ack-timeout",
                "5",
                "hi",
            ],
            2,
            "",
        ),
        case(
            "inbox limit 0",
            &["inbox", "--agent", "agent-0", "--limit", "0"],
            2,
            "",
        ),
        case(
            "inbox limit negative",
            &["inbox", "--agent", "agent-0", "--limit", "-1"],
            2,
            "",
        ),
        case(
            "inbox limit huge",
            &["inbox", "--agent", "agent-0", "--limit", "1000000000000"],
            2,
            "",
        ),
        case(
            "discover stale threshold 0",
            &["discover", "--stale-threshold", "0"],
            2,
            "",
        ),
        case(
            "discover interval 0",
            &["discover", "--watch", "--interval", "0"],
            2,
            "",
        ),
        case(
            "watch interval too long",
            &["watch", "--interval", "3601"],
            2,
            "",
        ),
        case(
            "launch 0 agents",
            &["launch", "0", "--agent", "demo", "--no-attach"],
            2,
            "",
        ),
        case(
            "launch 17 agents",
            &["launch", "17", "--agent", "demo", "--no-attach"],
            2,
            "",
        ),
        case(
            "launch -1 agents",
            &["launch", "-1", "--agent", "demo", "--no-attach"],
            2,
            "",
        ),
        case(
            "launch four agents",
            &["launch", "four", "--agent", "demo", "--no-attach"],
            2,
            "",
        ),
        // Names.
        case(
            "session name with ;",
            &[
                "launch",
                "1",
                "--agent",
                "demo",
                "--session",
                "a;b",
                "--no-attach",
            ],
            1,
            "invalid session name",
        ),
        case(
            "session name with tmux format",
            &[
                "launch",
                "1",
                "--agent",
                "demo",
                "--session",
                "#{x}",
                "--no-attach",
            ],
            1,
            "invalid session name",
        ),
        case(
            "empty session name",
            &[
                "launch",
                "1",
                "--agent",
                "demo",
                "--session",
                "",
                "--no-attach",
            ],
            1,
            "invalid session name",
        ),
        case(
            "unknown layout",
            &[
                "launch",
                "1",
                "--agent",
                "demo",
                "--layout",
                "spiral",
                "--no-attach",
            ],
            2,
            "",
        ),
        case(
            "empty --cmd",
            &["launch", "1", "--cmd", "", "--no-attach"],
            1,
            "cannot be empty",
        ),
        case(
            "down with a bad session",
            &["down", "--session", "x y"],
            1,
            "invalid session name",
        ),
        // Inbox and ack identities.
        case(
            "inbox for a bad id",
            &["inbox", "--agent", "a b"],
            1,
            "invalid characters",
        ),
        // The inbox is the operator's there; acting on locks needs an agent.
        case(
            "lock outside tmux",
            &["lock", "src/a.py"],
            1,
            "--agent is required",
        ),
        case(
            "ack with an empty id",
            &["ack", "", "--agent", "agent-0"],
            1,
            "not a message id",
        ),
        case(
            "ack with a short id",
            &["ack", "ab", "--agent", "agent-0"],
            1,
            "not a message id",
        ),
        case(
            "ack with a path",
            &["ack", "../../etc/passwd", "--agent", "agent-0"],
            1,
            "not a message id",
        ),
        case(
            "ack of an unknown id",
            &["ack", "12345678", "--agent", "agent-0"],
            4,
            "no message with id",
        ),
        case(
            "redeliver a short id",
            &["redeliver", "abc"],
            1,
            "at least 4",
        ),
        case(
            "redeliver an unknown id",
            &["redeliver", "abcdef12"],
            4,
            "no message with id",
        ),
        case("redeliver with nothing", &["redeliver"], 2, ""),
        // Environment.
        case(
            "TMUX_PANE with a command",
            &["whoami"],
            1,
            "not a tmux pane id",
        )
        .env("TMUX_PANE", "%1;rm -rf /"),
        case(
            "TMUX_PANE out of range",
            &["whoami"],
            1,
            "not a tmux pane id",
        )
        .env("TMUX_PANE", "%99999999999"),
        case(
            "TMUX_PANE unicode digits",
            &["whoami"],
            1,
            "not a tmux pane id",
        )
        .env("TMUX_PANE", "%١"),
        case(
            "missing --root",
            &["--root", "/nonexistent/swarm", "agents"],
            1,
            "not a directory",
        ),
        case(
            "root that is a file",
            &["--root", "/etc/passwd", "agents"],
            1,
            "not a directory",
        ),
        case(
            "config override not a number",
            &["discover"],
            1,
            "SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE",
        )
        .env("SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE", "abc"),
        case(
            "config override out of range",
            &["msg", "agent-0", "INFO", "--from", "operator", "hi"],
            1,
            "messages_per_minute",
        )
        .env("SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE", "0"),
        case(
            "config override for no key",
            &["discover"],
            1,
            "SWARM_RATE_LIMITING_BURST",
        )
        .env("SWARM_RATE_LIMITING_BURST", "5"),
        case(
            "config file of another format",
            &["config", "validate", "--file", "/etc/passwd"],
            1,
            "",
        ),
        case("unknown command", &["frobnicate"], 2, ""),
        case("unknown option", &["agents", "--frob"], 2, ""),
        case("bad --color", &["--color", "sometimes", "agents"], 2, ""),
    ]
}

#[test]
fn every_hostile_input_gets_its_documented_outcome() {
    let server = TmuxServer::start();
    let project = Project::new();
    let record = project.file("rec.jsonl");
    server.demo_agent(&project.path(), &record);
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nmessages_per_minute = 1000\n",
    );
    swarm(&project, &server).arg("discover").assert().success();
    let table = cases();
    assert!(table.len() >= 60, "only {} cases", table.len());
    let mut failures = Vec::new();
    for c in &table {
        let mut cmd = swarm(&project, &server);
        cmd.args(&c.args);
        for (k, v) in &c.env {
            cmd.env(k, v);
        }
        cmd.write_stdin(c.stdin.clone().unwrap_or_default());
        let out = cmd.output().expect("run");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if out.status.code() != Some(c.code) || !text.contains(c.says) || text.contains("panicked")
        {
            failures.push(format!(
                "{}: exit {:?}, expected {}: {text}",
                c.name,
                out.status.code(),
                c.code
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
    // What was delivered carries no control character at all.
    let delivered = wait_for_records(&record, 5);
    for r in &delivered {
        let text = r["text"].as_str().expect("text");
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "control character delivered: {text:?}"
        );
        assert!(!text.contains('\u{202e}') && !text.contains("]52;") && !text.contains("owned"));
    }
    assert_eq!(records(&record).len(), 5);
}
