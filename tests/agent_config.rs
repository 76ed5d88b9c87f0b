//! The agents' own config files that `swarm mcp install` and `swarm
//! hooks install` write (`.mcp.json`, `.claude/settings.json`, ...): project
//! files people commit, given the modes an editor would give them and no
//! lock file of swarm's beside them.

use crate::harness::repo::git;
use crate::harness::{Project, TmuxServer, ok, swarm};

/// Every file under `dir` (relative), `.git/` and `.swarm/` left out.
fn files_outside_swarm(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path.strip_prefix(dir).expect("inside");
            if rel == std::path::Path::new(".git") || rel == std::path::Path::new(".swarm") {
                continue;
            }
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push(rel.display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The agents' own config files (`.mcp.json`, `.claude/settings.json`,
/// ...) get no lock file of swarm's beside them: they are locked under
/// `.swarm/`, so `git status` shows only the files themselves.
#[test]
fn agent_config_files_get_no_lock_files_beside_them() {
    let server = TmuxServer::start();
    let project = Project::new();
    git(&project.path(), &["init", "-q"]);
    ok(swarm(&project, &server).args(["init", "--yes"]));
    ok(swarm(&project, &server).args(["mcp", "install", "--all"]));
    ok(swarm(&project, &server).args(["hooks", "install"]));
    let status = git(
        &project.path(),
        &["status", "--porcelain", "--untracked-files=all"],
    );
    let mut files: Vec<&str> = status.lines().map(|l| &l[3..]).collect();
    files.sort();
    assert_eq!(
        files,
        [
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".claudeswarm.toml",
            ".codex/config.toml",
            ".codex/hooks.json",
            ".gemini/settings.json",
            ".gitignore",
            ".mcp.json",
        ],
        "{status}"
    );
    let locks = |project: &Project| -> Vec<String> {
        files_outside_swarm(&project.path())
            .into_iter()
            .filter(|f| f.ends_with(".lock"))
            .collect()
    };
    assert_eq!(locks(&project), Vec::<String>::new());
    ok(swarm(&project, &server).args(["mcp", "uninstall"]));
    ok(swarm(&project, &server).args(["hooks", "uninstall"]));
    assert_eq!(locks(&project), Vec::<String>::new());
}

/// `swarm ARGS` in `project` run by `sh` after `umask UMASK`.
fn swarm_with_umask(project: &Project, umask: &str, args: &[&str]) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
        .arg(crate::harness::swarm_bin())
        .args(args)
        .current_dir(project.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("CLAUDESWARM_ROOT")
        .env_remove("SWARM_TMUX_SOCKET")
        .output()
        .expect("run sh");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mode(project: &Project, rel: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(project.file(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .permissions()
        .mode()
        & 0o7777
}

/// The agents' config files are project files people commit and share:
/// new ones are created as an editor would (0666 and 0777 less the
/// umask), and an existing one keeps its mode.
#[test]
fn agent_config_files_get_the_modes_an_editor_would_give_them() {
    let project = Project::new();
    swarm_with_umask(&project, "022", &["mcp", "install", "--all"]);
    swarm_with_umask(&project, "022", &["hooks", "install"]);
    for file in [
        ".mcp.json",
        ".claude/settings.local.json",
        ".claude/settings.json",
        ".codex/config.toml",
        ".gemini/settings.json",
    ] {
        assert_eq!(mode(&project, file), 0o644, "{file}");
    }
    for dir in [".claude", ".codex", ".gemini"] {
        assert_eq!(mode(&project, dir), 0o755, "{dir}");
    }

    let project = Project::new();
    std::fs::create_dir(project.file(".gemini")).expect("mkdir");
    project.write(".gemini/settings.json", "{\"theme\": \"x\"}\n");
    std::fs::set_permissions(
        project.file(".gemini/settings.json"),
        std::os::unix::fs::PermissionsExt::from_mode(0o640),
    )
    .expect("chmod");
    swarm_with_umask(&project, "002", &["mcp", "install", "--all"]);
    swarm_with_umask(&project, "002", &["hooks", "install"]);
    assert!(project.read(".gemini/settings.json").contains("\"swarm\""));
    assert_eq!(mode(&project, ".gemini/settings.json"), 0o640, "kept");
    assert_eq!(mode(&project, ".mcp.json"), 0o664);
    assert_eq!(mode(&project, ".claude/settings.json"), 0o664);
    assert_eq!(mode(&project, ".codex"), 0o775);
    assert_eq!(mode(&project, ".codex/config.toml"), 0o664);
    // swarm's own state stays private.
    assert_eq!(mode(&project, ".swarm"), 0o700);
}
