//! The tmux seam, driven through the library against a private server:
//! text reaches an agent byte for byte through a paste buffer.

use swarm::{PaneId, Server, Tmux, TmuxError};

use crate::harness::{Project, TmuxServer, records, wait_for_records};

fn client(server: &TmuxServer) -> Tmux {
    Tmux::new(Server::Named(server.socket.clone()))
}

#[test]
fn pasted_text_arrives_exactly_as_one_submission() {
    let server = TmuxServer::start();
    let project = Project::new();
    let record = project.file("rec.jsonl");
    let pane: PaneId = server
        .demo_agent(&project.path(), &record)
        .parse()
        .expect("pane id");
    let tmux = client(&server);
    let payloads = [
        "ends with a semicolon;",
        "escaped \\;",
        ";",
        "-starts with a dash",
        "quotes \" and ' and $(touch pwned) `id`",
        "two\nlines\n\tindented",
        "漢字 and emoji 😀",
    ];
    for (i, text) in payloads.iter().enumerate() {
        tmux.paste_text(&pane, text.as_bytes()).expect("paste");
        tmux.send_keys(&pane, &["Enter"]).expect("enter");
        let got = wait_for_records(&record, i + 1);
        assert_eq!(got[i]["text"], *text, "payload {i}");
        assert_eq!(
            got[i]["pastes"], 1,
            "payload {i} was not one bracketed paste"
        );
    }
    assert_eq!(records(&record).len(), payloads.len());
    assert!(!project.file("pwned").exists());
    // No buffer is left behind on the server.
    assert_eq!(server.tmux(&["list-buffers"]), "");
}

#[test]
fn a_missing_pane_is_a_typed_error_and_leaves_no_buffer() {
    let server = TmuxServer::start();
    let tmux = client(&server);
    let gone: PaneId = "%999".parse().expect("pane id");
    match tmux.paste_text(&gone, b"hello") {
        Err(TmuxError::TargetNotFound { target, .. }) => assert_eq!(target, "%999"),
        other => panic!("expected TargetNotFound, got {other:?}"),
    }
    assert_eq!(server.tmux(&["list-buffers"]), "");
}

#[test]
fn no_server_is_a_typed_error() {
    let tmux = Tmux::new(Server::Named(format!(
        "swarm-test-none-{}",
        std::process::id()
    )));
    assert!(matches!(tmux.list_panes(), Err(TmuxError::NoServer { .. })));
}

#[test]
fn version_is_parsed_once() {
    let server = TmuxServer::start();
    let tmux = client(&server);
    let v = tmux.version().expect("version").clone();
    assert!(v.at_least(2, 0), "{v}");
    assert_eq!(tmux.version().expect("cached"), &v);
}

#[test]
fn list_panes_sees_every_pane_with_its_labels() {
    let server = TmuxServer::start();
    let project = Project::new();
    let pane = server.pane(&project.path(), "sleep 86400");
    let tmux = client(&server);
    let (panes, skipped) = tmux.list_panes().expect("list");
    assert!(skipped.is_empty());
    assert_eq!(panes.len(), 2);
    let p = panes
        .iter()
        .find(|p| p.id.as_str() == pane)
        .expect("our pane");
    assert_eq!(p.session, "harness");
    assert_eq!(p.agent_label, None);
    tmux.label_panes(&[swarm::PaneLabel {
        pane: p.id.clone(),
        agent: "agent-7".into(),
        project: "fp;".into(),
    }])
    .expect("label");
    assert_eq!(server.pane_option(&pane, "@swarm_agent"), "agent-7");
    // A trailing `;` in a value survives (tmux would take it as a separator).
    assert_eq!(server.pane_option(&pane, "@swarm_project"), "fp;");
    assert_eq!(server.pane_option(&pane, "pane_title"), "agent-7");
}
