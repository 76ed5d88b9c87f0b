//! Reaching the Redis store: an unreachable server, a missing URL, and a
//! password that is never shown.

use crate::harness::{Project, swarm_outside_tmux};

use super::no_lock_files;

#[test]
fn an_unreachable_server_fails_with_exit_code_8_and_never_shows_the_password() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let out = swarm_outside_tmux(&project)
        .env("SWARM_STORE_BACKEND", "redis")
        .env("SWARM_STORE_URL", "redis://:hunter2@127.0.0.1:1")
        .env("SWARM_STORE_TIMEOUT_MS", "500")
        .args(["lock", "a.py", "--agent", "agent-1"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(8), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unreachable"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
    assert!(no_lock_files(&project), "nothing half-done");
}

#[test]
fn redis_without_a_url_is_a_clear_configuration_error() {
    let project = Project::new();
    project.register(&["agent-1"]);
    let out = swarm_outside_tmux(&project)
        .env("SWARM_STORE_BACKEND", "redis")
        .args(["lock", "a.py", "--agent", "agent-1"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("SWARM_STORE_URL"));
}

#[test]
fn config_show_never_prints_the_store_password() {
    let project = Project::new();
    for args in [&["config", "show"][..], &["config", "show", "--json"][..]] {
        let out = swarm_outside_tmux(&project)
            .env("SWARM_STORE_URL", "redis://:hunter2@cache.internal:6379/0")
            .args(args)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("cache.internal"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
    }
}
