//! Globs and directories: patterns and paths conflict in both directions,
//! a directory lock covers what is below it, and the conflict rule holds
//! against an oracle (globset on every short path).

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use swarm::LockError;

use crate::harness::stderr;

use super::{code, key, lock, registered_project, table};

#[test]
fn globs_and_paths_conflict_in_both_directions() {
    let project = registered_project();
    fs::create_dir_all(project.file("src/auth")).expect("mkdir");
    fs::create_dir_all(project.file("pkg/auth")).expect("mkdir");
    // A held pattern stops paths it matches, and patterns that overlap it.
    assert_eq!(code(&lock(&project, "agent-1", &["src/*.py"])), Some(0));
    assert_eq!(code(&lock(&project, "agent-2", &["src/a.py"])), Some(3));
    assert_eq!(
        code(&lock(&project, "agent-2", &["src/auth/deep.py"])),
        Some(3),
        "* crosses /"
    );
    assert_eq!(code(&lock(&project, "agent-2", &["src/a*"])), Some(3));
    assert_eq!(code(&lock(&project, "agent-2", &["src/a.rs"])), Some(0));
    assert_eq!(code(&lock(&project, "agent-2", &["docs/*"])), Some(0));
    assert_eq!(code(&lock(&project, "agent-2", &["src/*.rs"])), Some(0));
    // A held path stops patterns that match it.
    assert_eq!(code(&lock(&project, "agent-1", &["lib/b.py"])), Some(0));
    let out = lock(&project, "agent-2", &["lib/*.py"]);
    assert_eq!(code(&out), Some(3));
    assert!(stderr(&out).contains("lib/b.py"), "{}", stderr(&out));
    // A directory lock covers everything below it, both ways round: here
    // agent-2's `src/*.rs` may match `src/auth/x.rs`.
    assert_eq!(code(&lock(&project, "agent-1", &["src/auth/"])), Some(3));
    assert_eq!(code(&lock(&project, "agent-1", &["pkg/auth/"])), Some(0));
    assert_eq!(
        code(&lock(&project, "agent-2", &["pkg/auth/login.py"])),
        Some(3)
    );
    assert_eq!(
        code(&lock(&project, "agent-2", &["pkg/auth/*.py"])),
        Some(3)
    );
    assert_eq!(code(&lock(&project, "agent-2", &["pkg/authz.py"])), Some(0));
    assert_eq!(
        code(&lock(&project, "agent-1", &["tests/unit/t.py"])),
        Some(0)
    );
    assert_eq!(code(&lock(&project, "agent-2", &["tests"])), Some(3));
    assert_eq!(code(&lock(&project, "agent-2", &["tests/"])), Some(3));
}
// ---------------------------------------------------------------------
// Conflict rules against an oracle: globset on every short path.
// ---------------------------------------------------------------------

/// Every normalised path of up to four characters over `a`, `b`, `/`.
fn small_paths() -> Vec<String> {
    let mut all = Vec::new();
    let mut level = vec![String::new()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for s in &level {
            for c in ['a', 'b', '/'] {
                next.push(format!("{s}{c}"));
            }
        }
        all.extend(next.iter().cloned());
        level = next;
    }
    all.retain(|s| !s.starts_with('/') && !s.ends_with('/') && !s.contains("//"));
    all
}

fn globset_match(pattern: &str, path: &str) -> bool {
    globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(false)
        .build()
        .map(|g| g.compile_matcher().is_match(Path::new(path)))
        .unwrap_or(false)
}

fn lock_spec() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a"),
        Just("b"),
        Just("/"),
        Just("*"),
        Just("?"),
        Just("[ab]"),
        Just("**"),
    ];
    proptest::collection::vec(piece, 1..5)
        .prop_map(|v| v.concat())
        .prop_filter("a normalised lock path", |s| {
            !s.starts_with('/') && !s.ends_with('/') && !s.contains("//")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Locks held by different agents conflict exactly when they cover a
    /// common path, in whichever order they are taken (for two patterns
    /// the check may be stricter, never looser). A path lock covers the
    /// path and what is below it; a pattern covers what globset matches.
    /// None of these paths exist on disk, so no pattern reaches "below" a
    /// path (a file has nothing below it).
    #[test]
    fn conflicts_match_the_globset_oracle(a in lock_spec(), b in lock_spec()) {
        let glob = swarm::has_glob_chars;
        let below = |inner: &str, outer: &str| inner.starts_with(&format!("{outer}/"));
        let expected = match (glob(&a), glob(&b)) {
            (false, false) => a == b || below(&a, &b) || below(&b, &a),
            (true, false) => globset_match(&a, &b),
            (false, true) => globset_match(&b, &a),
            (true, true) => small_paths()
                .iter()
                .any(|p| globset_match(&a, p) && globset_match(&b, p)),
        };
        let both_patterns = glob(&a) && glob(&b);
        for (first, second) in [(&a, &b), (&b, &a)] {
            let project = registered_project();
            let table = table(&project);
            table.acquire(&[key(&project, first)], "agent-1", None, "").expect("first lock");
            let got = table.acquire(&[key(&project, second)], "agent-2", None, "");
            let conflict = matches!(got, Err(LockError::Held(_)));
            prop_assert!(conflict || got.is_ok(), "{:?}", got.err());
            if expected {
                prop_assert!(conflict, "{} then {} share a path but did not conflict", first, second);
            } else if !both_patterns {
                prop_assert!(!conflict, "{} then {} share no path but conflicted", first, second);
            }
        }
    }
}
