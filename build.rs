//! Records the git commit swarm is built from, for `swarm --version`. A
//! build from a published package (no `.git`) or without git says nothing.

use std::path::Path;
use std::process::Command;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let git_dir = Path::new(&root).join(".git");
    // Rebuild when HEAD moves: a checkout changes .git/HEAD, a commit the
    // branch's ref (or packed-refs).
    if git_dir.is_dir() {
        println!("cargo:rerun-if-changed=.git/HEAD");
        // A path that does not exist would make every build rerun this.
        if git_dir.join("packed-refs").exists() {
            println!("cargo:rerun-if-changed=.git/packed-refs");
        }
        let head = std::fs::read_to_string(git_dir.join("HEAD")).unwrap_or_default();
        if let Some(reference) = head.trim().strip_prefix("ref: ")
            && git_dir.join(reference).exists()
        {
            println!("cargo:rerun-if-changed=.git/{reference}");
        }
    }
    let commit = git_dir
        .exists()
        .then(|| {
            Command::new("git")
                .args(["rev-parse", "--short=10", "HEAD"])
                .current_dir(&root)
                .output()
                .ok()
        })
        .flatten()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_hexdigit()));
    let suffix = commit.map(|c| format!(" ({c})")).unwrap_or_default();
    println!("cargo:rustc-env=SWARM_VERSION_SUFFIX={suffix}");
    println!("cargo:rerun-if-changed=build.rs");
}
