//! A build without one of the optional crates (`--no-default-features`
//! with a subset of `redis`, `dashboard`, `mcp`, `monitor`) still has every
//! command; the one whose crate is missing says which feature to add, and
//! changes nothing. With every feature (the default) the same commands
//! are covered by their own tests.

#[allow(unused_imports)]
use crate::harness::{Project, TmuxServer, swarm};

/// The command fails with exit 1 and names `feature`.
#[allow(dead_code)]
fn says_it_lacks(args: &[&str], feature: &str) {
    let project = Project::new();
    let server = TmuxServer::start();
    let out = swarm(&project, &server)
        .args(args)
        .output()
        .expect("run swarm");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(
        stderr.contains(&format!("without the `{feature}` feature")),
        "{args:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[cfg(not(feature = "monitor"))]
#[test]
fn monitor_says_it_is_not_in_this_build() {
    says_it_lacks(&["monitor", "--plain"], "monitor");
}

#[cfg(not(feature = "dashboard"))]
#[test]
fn dashboard_says_it_is_not_in_this_build() {
    says_it_lacks(&["dashboard", "--no-browser", "--port", "0"], "dashboard");
}

#[cfg(not(feature = "mcp"))]
#[test]
fn mcp_says_it_is_not_in_this_build_but_install_still_works() {
    says_it_lacks(&["mcp"], "mcp");
    let project = Project::new();
    let server = TmuxServer::start();
    let out = swarm(&project, &server)
        .args(["mcp", "install", "--claude"])
        .output()
        .expect("run swarm");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(project.read(".mcp.json").contains("swarm"));
}

#[cfg(not(feature = "redis"))]
#[test]
fn a_redis_store_is_refused_with_the_feature_to_add() {
    let project = Project::new();
    let server = TmuxServer::start();
    project.write(
        ".claudeswarm.toml",
        "[store]\nbackend = \"redis\"\nurl = \"redis://127.0.0.1:1\"\n",
    );
    let out = swarm(&project, &server)
        .args(["lock", "src/a.py", "--agent", "agent-0"])
        .output()
        .expect("run swarm");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("without its `redis` feature"), "{stderr}");
    assert!(!project.file(".agent_locks").exists());
}
