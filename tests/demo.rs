//! `scripts/demo`: four demo agents in a tmux session of their own,
//! started with no more than running swarm needs, and stopped by the hint
//! it prints, exactly as printed.

use crate::harness::{Project, TmuxServer};

/// A CARGO_TARGET_DIR for `scripts/demo`, which builds swarm with cargo
/// into it: the binary under test as the `demo` profile's build, and in
/// `bin/` a stand-in cargo.
fn demo_target() -> tempfile::TempDir {
    let target = tempfile::tempdir().expect("tempdir");
    let bin = target.path().join("bin");
    std::fs::create_dir_all(target.path().join("demo")).expect("mkdir");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(
        crate::harness::swarm_bin(),
        target.path().join("demo/swarm"),
    )
    .expect("symlink");
    std::fs::write(
        bin.join("cargo"),
        "#!/bin/sh\necho 'cargo 1.0 (stand-in)'\n",
    )
    .expect("write");
    std::fs::set_permissions(
        bin.join("cargo"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    target
}

/// Runs `scripts/demo --no-attach` with `target` and `path`, which must
/// launch its 4 agents; what it printed.
fn run_demo(server: &TmuxServer, target: &std::path::Path, path: &str) -> String {
    let out = std::process::Command::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/demo"),
    )
    .arg("--no-attach")
    .env_remove("TMUX")
    .env_remove("TMUX_PANE")
    .env_remove("CLAUDESWARM_ROOT")
    .env("PATH", path)
    .env("CARGO_TARGET_DIR", target)
    .env("SWARM_TMUX_SOCKET", &server.socket)
    .env("NO_COLOR", "1")
    .output()
    .expect("run scripts/demo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Launched tmux session swarm-demo with 4 agents"),
        "{stdout}"
    );
    stdout
}

#[test]
fn the_demo_script_takes_options_alone_and_its_stop_hint_works_as_printed() {
    let server = TmuxServer::start();
    let target = demo_target();
    let bin = target.path().join("bin");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let stdout = run_demo(&server, target.path(), &path);
    let demo = target.path().join("demo-project");
    let registered = || {
        let text = std::fs::read_to_string(demo.join("ACTIVE_AGENTS.json")).expect("registry");
        let reg: serde_json::Value = serde_json::from_str(&text).expect("json");
        reg["agents"].as_array().expect("agents").len()
    };
    assert_eq!(registered(), 4);

    // Follow the hint exactly as printed, from another checkout, in a
    // shell that knows nothing of the demo's tmux server.
    let hint = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Stop with:"))
        .expect("a stop hint")
        .trim()
        .to_owned();
    let elsewhere = Project::new();
    let out = std::process::Command::new("sh")
        .args(["-c", &hint])
        .current_dir(elsewhere.path())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("SWARM_TMUX_SOCKET")
        .env_remove("CLAUDESWARM_ROOT")
        .env("PATH", &path)
        .output()
        .expect("run the hint");
    assert!(
        out.status.success(),
        "{hint}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(registered(), 0, "the demo project's agents are gone");
    assert!(!elsewhere.file("ACTIVE_AGENTS.json").exists());
    assert!(
        !server
            .try_tmux(&["has-session", "-t", "=swarm-demo"])
            .status
            .success()
    );
}

/// The demo needs only what running swarm needs (tmux, ps, cargo): on a
/// machine without redis-server or chromium, where nothing can be
/// installed (no apt-get, brew or pkg), it still starts.
#[test]
fn the_demo_needs_neither_redis_nor_chromium() {
    let server = TmuxServer::start();
    let target = demo_target();
    let bin = target.path().join("bin");
    // Every program of the usual directories, but those.
    let hidden = |name: &str| {
        name.starts_with("redis")
            || name.starts_with("chromium")
            || ["apt-get", "apt", "brew", "pkg"].contains(&name)
    };
    for dir in ["/usr/local/bin", "/usr/bin", "/bin"] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let link = bin.join(&name);
            if !hidden(&name) && std::fs::symlink_metadata(&link).is_err() {
                std::os::unix::fs::symlink(entry.path(), link).expect("symlink");
            }
        }
    }
    run_demo(&server, target.path(), &bin.display().to_string());
}
