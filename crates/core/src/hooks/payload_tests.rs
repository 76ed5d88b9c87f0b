//! The hook payloads of each agent, as their pinned versions handed them
//! to a hook command (captured: tests/fixtures/hooks/, one file per event).

use super::*;

/// Read from the repository at run time: the published crate leaves the
/// fixtures out (scripts/package-check skips the tests that read them).
macro_rules! fixture {
    ($name:literal) => {
        crate::support::repo::text(concat!("tests/fixtures/hooks/", $name, ".json")).as_bytes()
    };
}

fn read(vendor: Vendor, payload: &[u8]) -> HookEvent {
    parse(vendor, payload).expect("a valid payload")
}

#[test]
fn claude_code_2_1_330() {
    let e = read(Vendor::Claude, fixture!("claude-2.1.330-PermissionRequest"));
    assert_eq!(e.name, "PermissionRequest");
    assert_eq!(e.cwd.as_deref(), Some("/tmp/h41cap/claude/proj"));
    assert_eq!(
        e.signal,
        Signal::NeedsInput {
            question: "Allow Bash?".into(),
            context: vec![
                "$ touch /tmp/h41cap/claude/canary/canary-claude-cap".into(),
                "make canary".into()
            ],
        }
    );
    assert_eq!(
        read(Vendor::Claude, fixture!("claude-2.1.330-Stop")).signal,
        Signal::Finished
    );
    let Signal::TurnFailed(f) = read(Vendor::Claude, fixture!("claude-2.1.330-StopFailure")).signal
    else {
        panic!("a failed turn");
    };
    assert_eq!(f.reason, FailureReason::RateLimit);
    assert!(
        f.message.starts_with("API Error: Request rejected (429)"),
        "{f:?}"
    );
    assert_eq!(
        TurnFailure::reason_of(&f.detail()),
        FailureReason::RateLimit
    );
    let Signal::Prompt { text } =
        read(Vendor::Claude, fixture!("claude-2.1.330-UserPromptSubmit")).signal
    else {
        panic!("a prompt");
    };
    assert_eq!(message_ids(&text), ["0c1f9a2e"]);
    assert_eq!(
        read(Vendor::Claude, fixture!("claude-2.1.330-SessionEnd")).signal,
        Signal::Exited {
            reason: "prompt_input_exit".into()
        }
    );
    assert_eq!(
        read(Vendor::Claude, fixture!("claude-2.1.330-PreToolUse")).signal,
        Signal::EditCheck
    );
}

#[test]
fn codex_cli_0_169_0() {
    let e = read(Vendor::Codex, fixture!("codex-0.169.0-PermissionRequest"));
    assert_eq!(
        e.signal,
        Signal::NeedsInput {
            question: "Allow Bash?".into(),
            context: vec![
                "$ touch /tmp/h41cap/codex/canary/canary-codex-cap".into(),
                "Do you want to create the canary file?".into()
            ],
        }
    );
    assert_eq!(
        read(Vendor::Codex, fixture!("codex-0.169.0-Stop")).signal,
        Signal::Finished
    );
    let Signal::Prompt { text } =
        read(Vendor::Codex, fixture!("codex-0.169.0-UserPromptSubmit")).signal
    else {
        panic!("a prompt");
    };
    assert_eq!(message_ids(&text), ["0c1f9a2e"]);
}

#[test]
fn gemini_cli_0_61_0() {
    let e = read(Vendor::Gemini, fixture!("gemini-0.61.0-Notification"));
    assert_eq!(
        e.signal,
        Signal::NeedsInput {
            question: "Tool Confirm Shell Command requires execution".into(),
            context: vec!["$ touch /tmp/h41cap/gemini/canary/canary-gemini-cap".into()],
        }
    );
    assert_eq!(
        read(Vendor::Gemini, fixture!("gemini-0.61.0-AfterAgent")).signal,
        Signal::Finished
    );
    let Signal::Prompt { text } =
        read(Vendor::Gemini, fixture!("gemini-0.61.0-BeforeAgent")).signal
    else {
        panic!("a prompt");
    };
    assert_eq!(message_ids(&text), ["0c1f9a2e"]);
    assert_eq!(
        read(Vendor::Gemini, fixture!("gemini-0.61.0-SessionEnd")).signal,
        Signal::Exited {
            reason: "exit".into()
        }
    );
}

#[test]
fn one_agent_s_event_means_nothing_from_another() {
    // Gemini CLI has no `Stop`; Codex CLI no `StopFailure`.
    assert_eq!(
        read(Vendor::Gemini, fixture!("claude-2.1.330-Stop")).signal,
        Signal::Other
    );
    assert_eq!(
        read(Vendor::Codex, fixture!("claude-2.1.330-StopFailure")).signal,
        Signal::Other
    );
    let clear = br#"{"hook_event_name": "SessionEnd", "reason": "clear"}"#;
    assert_eq!(read(Vendor::Claude, clear).signal, Signal::Other);
}

#[test]
fn hostile_payloads_are_errors_or_cleaned_never_panics() {
    for bad in [
        &b""[..],
        b"not json",
        b"[]",
        b"{}",
        b"{\"hook_event_name\": 7}",
        b"\xff\xfe",
    ] {
        assert!(parse(Vendor::Claude, bad).is_err(), "{bad:?}");
    }
    let evil = br#"{"hook_event_name": "PermissionRequest", "tool_name": "Ba\u001b[31msh\nrm", "tool_input": {"command": 5}}"#;
    let Signal::NeedsInput { question, context } = read(Vendor::Claude, evil).signal else {
        panic!("still a dialog");
    };
    assert!(
        !question.contains('\x1b') && !question.contains('\n'),
        "{question:?}"
    );
    assert!(context.is_empty());
    let long = format!(
        r#"{{"hook_event_name": "StopFailure", "error": "{}", "last_assistant_message": "{}"}}"#,
        "e".repeat(500),
        "m".repeat(5000)
    );
    let Signal::TurnFailed(f) = read(Vendor::Claude, long.as_bytes()).signal else {
        panic!("a failed turn");
    };
    assert!(f.message.chars().count() <= 201 && f.reason.as_str().chars().count() <= 61);
}

#[test]
fn message_ids_are_taken_from_swarm_s_headers_only() {
    assert_eq!(
        message_ids("[a][b][INFO][#abcd1234] x [#abcd1234] [#zz] [#bad id] [#0000aaaa"),
        ["abcd1234"]
    );
    assert!(message_ids("no ids here [#").is_empty());
}

proptest::proptest! {
    #[test]
    fn any_bytes_parse_or_are_refused_without_a_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
        for vendor in VENDORS {
            let _ = parse(vendor, &bytes);
        }
    }

    #[test]
    fn any_field_text_comes_out_as_one_clean_line(
        event in proptest::sample::select(vec![
            "PermissionRequest", "Notification", "StopFailure", "SessionEnd", "UserPromptSubmit", "Stop",
        ]),
        text in "\\PC{0,300}",
    ) {
        let payload = serde_json::json!({
            "hook_event_name": event,
            "tool_name": text,
            "tool_input": {"command": text, "description": text},
            "notification_type": "ToolPermission",
            "message": text,
            "details": {"command": text},
            "error": text,
            "last_assistant_message": text,
            "reason": text,
            "prompt": text,
        });
        for vendor in VENDORS {
            let e = parse(vendor, payload.to_string().as_bytes()).expect("an object with an event");
            let lines: Vec<String> = match e.signal {
                Signal::NeedsInput { question, context } => std::iter::once(question).chain(context).collect(),
                Signal::TurnFailed(f) => vec![f.detail()],
                Signal::Exited { reason } => vec![reason],
                _ => Vec::new(),
            };
            for line in lines {
                proptest::prop_assert!(!line.chars().any(char::is_control), "{line:?}");
            }
        }
    }
}
