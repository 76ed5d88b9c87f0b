//! Damaged lock files: reported by every command that meets one, never
//! crashed on, kept while they may be the Python tool mid-write, then
//! cleaned.

use std::fs::{self, File};
use std::time::{Duration, SystemTime};

use swarm::lock_file_name;

use crate::harness::{stderr, stdout_json};

use super::{code, lock, lock_files, python_lock, registered_project, run, unix_now};

#[test]
fn damaged_lock_files_are_reported_and_cleaned_not_crashed_on() {
    let project = registered_project();
    let shapes = [
        ("a.py", "not json at all"),
        ("b.py", ""),
        ("c.py", "[1, 2, 3]"),
        (
            "d.py",
            r#"{"agent_id": "agent-1", "filepath": "d.py", "locked_at": "noon", "reason": ""}"#,
        ),
        (
            "e.py",
            r#"{"agent_id": "agent-1", "filepath": "d.py", "locked_at": 1, "reason": ""}"#,
        ),
    ];
    fs::create_dir_all(project.file(".agent_locks")).expect("mkdir");
    for (path, content) in shapes {
        project.write(&format!(".agent_locks/{}", lock_file_name(path)), content);
    }
    python_lock(&project, "agent-1", "ok.py", unix_now(), "fine");
    // Not even a file.
    fs::create_dir(project.file(&format!(".agent_locks/{}", lock_file_name("f.py"))))
        .expect("mkdir");
    for (path, _) in shapes {
        let out = lock(&project, "agent-2", &[path]);
        assert_eq!(code(&out), Some(1), "{path}");
        assert!(stderr(&out).contains("damaged"), "{path}: {}", stderr(&out));
        let out = run(&project, &["who", path]);
        assert_eq!(code(&out), Some(0));
        assert!(stderr(&out).contains("damaged"), "{path}: {}", stderr(&out));
    }
    let out = run(&project, &["locks", "--json"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stdout_json(&out).as_array().map(Vec::len), Some(1));
    assert_eq!(stderr(&out).matches("is damaged").count(), shapes.len() + 1);
    fs::remove_dir(project.file(&format!(".agent_locks/{}", lock_file_name("f.py"))))
        .expect("rmdir");
    // Freshly written damaged files may be the Python tool mid-write: kept.
    let out = run(&project, &["locks", "--clean"]);
    assert_eq!(code(&out), Some(0));
    assert_eq!(lock_files(&project).len(), shapes.len() + 1);
    let old = SystemTime::now() - Duration::from_secs(60);
    for (path, _) in shapes {
        let file = File::options()
            .write(true)
            .open(project.file(&format!(".agent_locks/{}", lock_file_name(path))))
            .expect("open");
        file.set_modified(old).expect("set mtime");
    }
    let out = run(&project, &["cleanup-stale-locks"]);
    assert_eq!(code(&out), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Removed 5 damaged lock file(s)"));
    assert_eq!(lock_files(&project), [lock_file_name("ok.py")]);
    assert_eq!(code(&lock(&project, "agent-2", &["a.py"])), Some(0));
}
