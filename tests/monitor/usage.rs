//! Usage in the monitor: each agent's tokens and budget standing next to
//! its row in the live view, and a line per change in the plain stream,
//! read from the agent's own records as `swarm usage` reads them.

use std::process::Stdio;

use crate::harness::monitor::Stream;
use crate::harness::usage::{append, spending_agent, timeless_turns};
use crate::harness::{Project, TmuxServer, swarm_bin, swarm_process};

#[test]
fn the_live_view_shows_each_agents_tokens_and_budget_next_to_its_row() {
    let server = TmuxServer::start();
    let project = Project::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let (id, file) = spending_agent(&server, &project, &scratch.path().join("home"), "a");
    project.write(".claudeswarm.toml", "[budget]\nagent_tokens = 40\n");
    let command = format!(
        "env -u CLAUDESWARM_ROOT -u SWARM_TMUX_SOCKET SWARM_WATCHER_AUTOSTART=false '{}' monitor",
        swarm_bin()
    );
    let pane = server.pane(&project.path(), &command);
    server.wait_for_screen(&pane, "30 tok 75% of day budget");
    let row = server
        .capture(&pane)
        .lines()
        .find(|l| l.contains("30 tok"))
        .map(str::to_owned)
        .expect("a row");
    assert!(row.contains(&id), "{row}");
    // More turns: the view follows on its slow cadence.
    append(&file, &timeless_turns());
    server.wait_for_screen(&pane, "60 tok over budget");
}

#[test]
fn the_plain_stream_prints_a_line_when_an_agents_usage_changes() {
    let server = TmuxServer::start();
    let project = Project::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let (id, file) = spending_agent(&server, &project, &scratch.path().join("home"), "a");
    project.write(".claudeswarm.toml", "[budget]\nagent_tokens = 40\n");
    let mut stream = Stream::spawn({
        let mut cmd = swarm_process(&project, Some(&server));
        cmd.args(["monitor", "--plain"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    });
    stream.expect(&format!(
        "{id} usage: 30 tokens (input+output), 75% of day budget"
    ));
    append(&file, &timeless_turns());
    stream.expect(&format!(
        "{id} usage: 60 tokens (input+output), over budget"
    ));
    let (_, seen, _) = stream.stop();
    // Told once per change, not at each look.
    let told = seen
        .iter()
        .filter(|l| l.contains("usage: 30 tokens"))
        .count();
    assert_eq!(told, 1, "{seen:?}");
}
