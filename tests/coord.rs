//! `swarm coord`: the shared COORDINATION.md, written under its lock.

use std::process::{Command, Stdio};

use crate::harness::{Project, swarm_bin, swarm_outside_tmux};

#[test]
fn init_refuses_to_overwrite_and_names_the_project() {
    let project = Project::new();
    swarm_outside_tmux(&project)
        .args(["coord", "init"])
        .assert()
        .success();
    let text = project.read("COORDINATION.md");
    let name = project
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(
        text.starts_with(&format!("# Coordination File - {name}\n")),
        "{text}"
    );
    for section in [
        "Sprint Goals",
        "Current Work",
        "Blocked Items",
        "Code Review Queue",
        "Decisions",
    ] {
        assert!(text.contains(&format!("\n## {section}\n")), "{section}");
    }
    project.write("COORDINATION.md", "mine\n");
    let out = swarm_outside_tmux(&project)
        .args(["coord", "init"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    assert_eq!(project.read("COORDINATION.md"), "mine\n");
    swarm_outside_tmux(&project)
        .args(["coord", "init", "--force"])
        .assert()
        .success();
    assert!(
        project
            .read("COORDINATION.md")
            .starts_with("# Coordination File")
    );
}

#[test]
fn add_changes_nothing_but_the_new_line() {
    let project = Project::new();
    let original = "# Notes\n\nFree text before the first section stays.\n\n## Decisions\n\n- **[2026-01-02]** Keep it: simple\n\n## Misc\n\ntrailing   spaces   \n\n\n";
    project.write("COORDINATION.md", original);
    let out = swarm_outside_tmux(&project)
        .args(["coord", "add", "decisions", "use", "Postgres"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = project.read("COORDINATION.md");
    assert_eq!(after.replacen("- use Postgres\n", "", 1), original);
    assert!(after.contains("- **[2026-01-02]** Keep it: simple\n- use Postgres\n\n## Misc"));
    // A new section goes at the end; `show` prints one section.
    swarm_outside_tmux(&project)
        .args(["coord", "add", "Risks", "| a | table | row |"])
        .assert()
        .success();
    assert!(
        project
            .read("COORDINATION.md")
            .ends_with("\n\n## Risks\n\n| a | table | row |\n")
    );
    let out = swarm_outside_tmux(&project)
        .args(["coord", "show", "RISKS"])
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "| a | table | row |\n"
    );
}

#[test]
fn concurrent_adds_lose_no_entry() {
    let project = Project::new();
    swarm_outside_tmux(&project)
        .args(["coord", "init"])
        .assert()
        .success();
    let n = 16;
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(swarm_bin())
                .current_dir(project.path())
                .env_remove("TMUX")
                .env_remove("TMUX_PANE")
                .env_remove("CLAUDESWARM_ROOT")
                .args([
                    "coord",
                    "add",
                    "Blocked Items",
                    &format!("entry {i} from agent-{i}"),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = project.read("COORDINATION.md");
    for i in 0..n {
        assert_eq!(
            text.matches(&format!("- entry {i} from agent-{i}\n"))
                .count(),
            1,
            "entry {i} in\n{text}"
        );
    }
    // All of them in the one section, before the next heading.
    let section = text
        .split("## Blocked Items\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("section");
    assert_eq!(section.matches("- entry ").count(), n);
}

#[test]
fn show_without_a_file_and_text_from_agents_is_cleaned() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .args(["coord", "show"])
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("swarm coord init"));
    swarm_outside_tmux(&project)
        .args([
            "coord",
            "add",
            "Notes",
            "red \x1b[31mtext\x1b]0;title\x07 done",
        ])
        .assert()
        .success();
    let text = project.read("COORDINATION.md");
    assert!(text.contains("- red text done\n"), "{text:?}");
    assert!(!text.contains('\x1b'));
}
