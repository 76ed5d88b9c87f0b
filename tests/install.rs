//! What installing swarm gives a user: `--version` with the commit, man
//! pages for every command, and a README whose install section is true.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::harness::{Project, swarm_outside_tmux};

fn stdout(args: &[&str]) -> String {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .args(args)
        .output()
        .expect("run swarm");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for args in [["--version"].as_slice(), ["version"].as_slice()] {
        let text = stdout(args);
        let line = text.trim_end();
        let rest = line
            .strip_prefix(&format!("swarm {}", env!("CARGO_PKG_VERSION")))
            .unwrap_or_else(|| panic!("{args:?} printed {line:?}"));
        if !manifest.join(".git").exists() {
            assert_eq!(rest, "", "a build outside git names no commit");
            continue;
        }
        let commit = rest
            .strip_prefix(" (")
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or_else(|| panic!("no commit in {line:?}"));
        assert_eq!(commit.len(), 10, "{line:?}");
        // The commit is one of this repository's.
        let known = Command::new("git")
            .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .current_dir(manifest)
            .status()
            .expect("run git");
        assert!(known.success(), "{commit} is not a commit of this clone");
    }
}

/// Every command and subcommand `swarm --help` and the commands' own help
/// list, as man page names (`swarm-tasks-create`).
fn commands_in_help(prefix: &str, args: &[&str]) -> BTreeSet<String> {
    let help = stdout(&[args, &["--help"]].concat());
    let mut names = BTreeSet::new();
    if args.is_empty() {
        // swarm's own help lists its commands by family.
        for name in crate::harness::listed_commands(&help) {
            if name == "help" {
                continue;
            }
            let page = format!("{prefix}-{name}");
            names.extend(commands_in_help(&page, &[name.as_str()]));
            names.insert(page);
        }
        return names;
    }
    let mut in_list = false;
    for line in help.lines() {
        if line.starts_with("Commands:") {
            in_list = true;
            continue;
        }
        if in_list && !line.starts_with("  ") {
            in_list = false;
        }
        if !in_list {
            continue;
        }
        // A command's line is indented by two; a wrapped description by more.
        if line.starts_with("   ") {
            continue;
        }
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        if name == "help" || !name.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            continue;
        }
        let page = format!("{prefix}-{name}");
        let sub: Vec<&str> = args.iter().copied().chain([name]).collect();
        names.extend(commands_in_help(&page, &sub));
        names.insert(page);
    }
    names
}

#[test]
fn man_pages_cover_swarm_and_every_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let man = dir.path().join("man1");
    let listed = stdout(&["help", "--man", man.to_str().expect("utf-8 path")]);
    let written: BTreeSet<String> = std::fs::read_dir(&man)
        .expect("man dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        listed.lines().count(),
        written.len(),
        "one line per page written: {listed}"
    );
    assert!(written.contains("swarm.1"), "{written:?}");
    for command in commands_in_help("swarm", &[]) {
        let page = format!("{command}.1");
        assert!(written.contains(&page), "no {page} in {written:?}");
        let text = std::fs::read_to_string(man.join(&page)).expect("read page");
        // A roff page whose title is the command.
        assert!(
            text.contains(&format!(".TH {command} 1")),
            "{page} has no title line"
        );
    }
    let msg = std::fs::read_to_string(man.join("swarm-msg.1")).expect("msg page");
    assert!(
        msg.contains("\\-\\-ack"),
        "swarm-msg.1 documents its options"
    );
}

#[test]
fn man_pages_into_a_file_path_fail_clearly() {
    let project = Project::new();
    let file = project.path().join("not-a-dir");
    std::fs::write(&file, "x").expect("write");
    let out = swarm_outside_tmux(&project)
        .args(["help", "--man"])
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not-a-dir"), "{err}");
}

/// The value of `key = "..."` in Cargo.toml (its first occurrence).
fn manifest_value(key: &str) -> String {
    let prefix = format!("{key} = \"");
    include_str!("../Cargo.toml")
        .lines()
        .find_map(|l| l.strip_prefix(&prefix)?.strip_suffix('"'))
        .unwrap_or_else(|| panic!("Cargo.toml has no {key}"))
        .to_owned()
}

#[test]
fn the_readme_install_commands_name_this_package() {
    let readme = include_str!("../README.md");
    let guide = include_str!("../docs/guide/install.md");
    let name = env!("CARGO_PKG_NAME");
    // What works today comes first: a build from a clone. The prebuilt
    // ways (at the names the release configuration gives them: the
    // Homebrew tap, binstall, crates.io) follow, each marked as coming
    // with the first tagged release, and no download address is printed
    // before a release answers at it.
    let tap = manifest_value("tap");
    let (owner, tap_repo) = tap.split_once('/').expect("tap is OWNER/REPO");
    let tap_name = tap_repo
        .strip_prefix("homebrew-")
        .expect("a tap's repository is homebrew-NAME");
    let from_clone = readme
        .find("cargo install --locked --path .")
        .expect("a build from a clone");
    for line in [
        format!("brew install {owner}/{tap_name}/{name}"),
        format!("cargo binstall {name}"),
        format!("cargo install --locked {name} "),
    ] {
        let at = readme
            .find(line.as_str())
            .unwrap_or_else(|| panic!("README lacks {line:?}"));
        assert!(
            at > from_clone,
            "README names {line:?} before the build from a clone"
        );
        let whole = readme[at..].lines().next().unwrap_or_default();
        assert!(
            whole.contains("# after the first release")
                || whole.contains("# after the crates are published"),
            "README's {whole:?} does not say it waits for the first release"
        );
    }
    for page in [readme, guide] {
        assert!(
            !page.contains("/releases/latest/download/"),
            "a download address is printed before any release answers at it"
        );
    }
    for line in [
        format!("cargo install --locked {name}"),
        "cargo install --locked --path .".to_owned(),
        format!("cargo uninstall {name}"),
        format!("brew uninstall {name}"),
        format!("brew upgrade {name}"),
    ] {
        assert!(readme.contains(&line), "README lacks {line:?}");
    }
    assert!(
        guide.contains("swarm help --man ~/.local/share/man/man1"),
        "the install guide lacks the man pages"
    );
    for shell in ["bash", "zsh", "fish"] {
        assert!(
            guide.contains(&format!("swarm completions {shell} >")),
            "the install guide lacks the {shell} completions"
        );
        assert!(
            stdout(&["completions", shell]).contains("swarm"),
            "{shell} completions"
        );
    }
}

/// The README and the install guide install from a clone one way
/// everywhere: with `--locked`, as the Install section says.
#[test]
fn the_readmes_cargo_install_commands_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = String::new();
    for page in ["README.md", "docs/guide/install.md"] {
        text.push_str(&std::fs::read_to_string(root.join(page)).expect(page));
    }
    let installs: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("cargo install") && l.contains("--path"))
        .collect();
    assert!(installs.len() >= 2, "{installs:?}");
    for line in installs {
        assert!(line.contains("cargo install --locked"), "{line}");
    }
}
