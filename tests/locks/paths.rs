//! Lock paths: one lock per file however it is spelled (relative,
//! `./`, absolute, doubled slashes, from a subdirectory), paths outside
//! the project refused, and paths longer than the system allows refused
//! with the limit named.

use std::fs;

use swarm::lock_file_name;

use crate::harness::{Project, stderr, swarm_outside_tmux};

use super::{code, lock, lock_files, registered_project};

#[test]
fn three_spellings_of_one_path_are_one_lock() {
    let project = registered_project();
    fs::create_dir_all(project.file("src")).expect("mkdir");
    project.write("src/a.py", "");
    let absolute = project.file("src/a.py").to_string_lossy().into_owned();
    assert_eq!(code(&lock(&project, "agent-1", &["src/a.py"])), Some(0));
    for spelling in ["src/a.py", "./src/a.py", absolute.as_str(), "src//a.py"] {
        let out = lock(&project, "agent-2", &[spelling]);
        assert_eq!(code(&out), Some(3), "{spelling}: {}", stderr(&out));
        assert!(stderr(&out).contains("agent-1"), "{}", stderr(&out));
        // The holder re-locking any spelling refreshes the same lock.
        assert_eq!(code(&lock(&project, "agent-1", &[spelling])), Some(0));
    }
    assert_eq!(lock_files(&project), [lock_file_name("src/a.py")]);
    // From a subdirectory, a relative path starts there.
    let out = swarm_outside_tmux(&project)
        .current_dir(project.file("src"))
        .args(["lock", "a.py", "--agent", "agent-2"])
        .output()
        .expect("run");
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
}

#[test]
fn paths_outside_the_project_are_refused() {
    let project = registered_project();
    for path in ["../outside", "/etc/passwd", "src/../../x"] {
        let out = lock(&project, "agent-1", &[path]);
        assert_eq!(code(&out), Some(1), "{path}");
        assert!(
            stderr(&out).contains("outside the project root"),
            "{path}: {}",
            stderr(&out)
        );
    }
    assert!(lock_files(&project).is_empty());
}
#[test]
fn lock_paths_longer_than_the_system_allows_are_refused() {
    let project = Project::new();
    project.register(&["agent-0"]);
    let lock = |path: &str| {
        let out = swarm_outside_tmux(&project)
            .args(["lock", path, "--agent", "agent-0"])
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let name = "n".repeat(256);
    let (code, stderr) = lock(&format!("src/{name}.py"));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("at most 255 per file or directory name"),
        "{stderr}"
    );
    let deep = vec!["d".repeat(200); 21].join("/");
    let (code, stderr) = lock(&deep);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the system allows at most 4095"),
        "{stderr}"
    );
    // At the limit is fine.
    let (code, stderr) = lock(&format!("src/{}", "n".repeat(255)));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(project.ls(".agent_locks").len() == 1);
}
