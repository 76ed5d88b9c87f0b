//! Agents that spend: the vendors' usage records (fixtures of what each
//! CLI writes), a demo agent in a pane with a HOME of its own, and records
//! put where swarm looks for them.

use std::fs;
use std::path::{Path, PathBuf};

use super::{Project, TmuxServer, demo_agent_command, swarm};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/usage");

pub fn fixture(name: &str) -> String {
    fs::read_to_string(format!("{FIXTURES}/{name}")).expect("fixture")
}

/// A pane in the project running `program ARGS` with only `HOME` set.
pub fn pane_with_home(
    server: &TmuxServer,
    project: &Project,
    home: &Path,
    program: &str,
) -> String {
    fs::create_dir_all(home).expect("home");
    server.pane(
        &project.path(),
        &format!("exec env -i HOME='{}' TERM=xterm {program}", home.display()),
    )
}

/// Claude Code's directory for the project's records under `home`.
pub fn claude_dir(home: &Path, project: &Project) -> PathBuf {
    let name: String = project
        .path()
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    home.join(".claude/projects").join(name)
}

pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

pub fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    f.write_all(text.as_bytes()).expect("append");
}

/// The agent id discovery gave `pane`.
pub fn id_of(project: &Project, pane: &str) -> String {
    project
        .agents()
        .into_iter()
        .find(|(_, p, _)| p == pane)
        .map(|(id, _, _)| id)
        .unwrap_or_else(|| panic!("{pane} not registered"))
}

/// Claude Code's records of two turns (30 tokens: 20 input, 10 output)
/// without their times, so that they count as spent when read, today,
/// whatever day the test runs.
pub fn timeless_turns() -> String {
    fixture("claude-2.1.330.jsonl").replace("\"timestamp\":", "\"at\":")
}

/// A demo agent in the project, started with `home` as its HOME,
/// registered, whose records (30 tokens) are in place: its id and its
/// record file, for appending more.
pub fn spending_agent(
    server: &TmuxServer,
    project: &Project,
    home: &Path,
    name: &str,
) -> (String, PathBuf) {
    let pane = pane_with_home(
        server,
        project,
        home,
        &demo_agent_command(&project.file(&format!("{name}.jsonl"))),
    );
    server.wait_for_screen(&pane, "waiting for messages");
    swarm(project, server).arg("discover").assert().success();
    let file = claude_dir(home, project).join(format!("{name}.jsonl"));
    write(&file, &timeless_turns());
    (id_of(project, &pane), file)
}
