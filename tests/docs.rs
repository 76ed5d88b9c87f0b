//! The README and the guide (docs/guide/*.md) as tests: every command
//! block runs, in order, page by page, in a fresh project (a git
//! repository with one commit) with a private tmux server, and each
//! command must exit with the code its block expects.
//!
//! A block's fence says what it is:
//!
//! * ```` ```sh ````: commands to run. Each line is one command, run with
//!   `sh -c` in the project root and `swarm` being the binary under test;
//!   a leading `$ ` is dropped, `#` lines are comments, and a trailing
//!   `# exit N` expects exit code N (0 otherwise).
//! * ```` ```sh no-run REASON ````: commands that do not end by themselves
//!   (the monitor, the dashboard, the watcher in the foreground) or need
//!   what a test cannot give (a Redis server, a real agent); not run.
//! * ```` ```sh network ````: installation that needs the network; not run.
//! * any other fence (`text`, `toml`, ...): not commands.
//!
//! The README's two set-up lines (`scripts/demo`, `scripts/test`), run
//! from a clone, stay an indented block as they always were; no other
//! block may be indented.
//!
//! The MCP tools table of docs/guide/mcp.md is checked against the
//! server's own list of tools.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{PATIENCE, Project, TmuxServer, swarm_bin};

/// The pages whose blocks run, each with its own test below.
macro_rules! pages {
    ($($test:ident => $page:literal,)*) => {
        const PAGES: &[&str] = &[$($page,)*];
        $(
            #[test]
            fn $test() {
                run_page($page);
            }
        )*
    };
}

pages! {
    readme => "README.md",
    guide_attention => "docs/guide/attention.md",
    guide_configuration => "docs/guide/configuration.md",
    guide_conversations => "docs/guide/conversations.md",
    guide_dashboard => "docs/guide/dashboard.md",
    guide_hosts => "docs/guide/hosts.md",
    guide_install => "docs/guide/install.md",
    guide_locks => "docs/guide/locks.md",
    guide_mcp => "docs/guide/mcp.md",
    guide_messages => "docs/guide/messages.md",
    guide_python => "docs/guide/python.md",
    guide_reference => "docs/guide/reference.md",
    guide_resume => "docs/guide/resume.md",
    guide_usage => "docs/guide/usage.md",
    guide_worktrees => "docs/guide/worktrees.md",
}

/// What a fenced block is for.
#[derive(Debug, PartialEq)]
enum Kind {
    Run,
    NoRun,
    Network,
    Other,
}

/// One fenced block of a page.
#[derive(Debug)]
struct Block {
    /// The line of its opening fence (1-based).
    line: usize,
    kind: Kind,
    /// The fence's words after `sh` (`no-run` and its reason, ...).
    info: String,
    /// (line, text) of each line inside the fence.
    body: Vec<(usize, String)>,
}

/// A command of a runnable block.
#[derive(Debug)]
struct Step {
    line: usize,
    text: String,
    exit: i32,
}

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(page: &str) -> String {
    fs::read_to_string(repo_root().join(page)).unwrap_or_else(|e| panic!("read {page}: {e}"))
}

/// Every fenced block of `text`.
fn blocks(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(fence) = line.strip_prefix("```") {
            match open.take() {
                Some(block) => found.push(block),
                None => {
                    let mut words = fence.split_whitespace();
                    let lang = words.next().unwrap_or_default();
                    let info: Vec<&str> = words.collect();
                    let kind = match (lang, info.first().copied()) {
                        ("sh", None) => Kind::Run,
                        ("sh", Some("no-run")) => Kind::NoRun,
                        ("sh", Some("network")) => Kind::Network,
                        _ => Kind::Other,
                    };
                    open = Some(Block {
                        line: n,
                        kind,
                        info: info.join(" "),
                        body: Vec::new(),
                    });
                }
            }
        } else if let Some(block) = open.as_mut() {
            block.body.push((n, line.to_owned()));
        }
    }
    assert!(open.is_none(), "a fence is not closed");
    found
}

/// The commands of a runnable block.
fn steps(block: &Block) -> Vec<Step> {
    let mut steps = Vec::new();
    for (line, text) in &block.body {
        let text = text.trim();
        let text = text.strip_prefix("$ ").unwrap_or(text);
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let exit = text
            .rsplit_once("# exit ")
            .and_then(|(_, rest)| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .unwrap_or(0);
        steps.push(Step {
            line: *line,
            text: text.to_owned(),
            exit,
        });
    }
    steps
}

/// The environment every block of a page runs in: a project that is a
/// git repository with one commit on `main`, a private tmux server, a
/// home of its own, and `swarm` on the PATH.
struct Stage {
    server: TmuxServer,
    project: Project,
    home: tempfile::TempDir,
    bin: tempfile::TempDir,
}

impl Stage {
    fn new() -> Stage {
        let stage = Stage {
            server: TmuxServer::start(),
            project: Project::new(),
            home: tempfile::tempdir().expect("tempdir"),
            bin: tempfile::tempdir().expect("tempdir"),
        };
        std::os::unix::fs::symlink(swarm_bin(), stage.bin.path().join("swarm")).expect("symlink");
        stage.project.write("README.md", "a project\n");
        for setup in [
            "git init -q -b main",
            "git add README.md",
            "git commit -q -m start",
        ] {
            let out = stage.command(setup).output().expect("git");
            assert!(out.status.success(), "{setup}: {out:?}");
        }
        stage
    }

    /// `text` run with `sh -c` in the project root.
    fn command(&self, text: &str) -> Command {
        let path = format!(
            "{}:{}",
            self.bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new("sh");
        cmd.args(["-c", text])
            .current_dir(self.project.path())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("CLAUDESWARM_ROOT")
            .env_remove("SWARM_NOTIFY_WEBHOOK")
            .env_remove("SWARM_NOTIFY_COMMAND")
            .env("PATH", path)
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "swarm docs")
            .env("GIT_AUTHOR_EMAIL", "docs@example.invalid")
            .env("GIT_COMMITTER_NAME", "swarm docs")
            .env("GIT_COMMITTER_EMAIL", "docs@example.invalid")
            .env("SWARM_TMUX_SOCKET", &self.server.socket)
            .env("NO_COLOR", "1")
            .env("EDITOR", "true")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `step`, failing the test when it exits otherwise than
    /// expected or does not end within `PATIENCE`.
    fn run(&self, page: &str, step: &Step) {
        let out = tempfile::tempdir().expect("tempdir");
        let (stdout, stderr) = (out.path().join("stdout"), out.path().join("stderr"));
        let mut child = self
            .command(&step.text)
            .stdout(fs::File::create(&stdout).expect("stdout"))
            .stderr(fs::File::create(&stderr).expect("stderr"))
            .spawn()
            .expect("run sh");
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break Some(status);
            }
            if started.elapsed() > PATIENCE {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let printed = format!(
            "{}{}",
            fs::read_to_string(&stdout).unwrap_or_default(),
            fs::read_to_string(&stderr).unwrap_or_default()
        );
        let Some(status) = status else {
            panic!(
                "{page}:{}: `{}` did not end; mark its block `sh no-run REASON`\n{printed}",
                step.line, step.text
            );
        };
        assert_eq!(
            status.code(),
            Some(step.exit),
            "{page}:{}: `{}` (mark another expected code with `# exit N`)\n{printed}",
            step.line,
            step.text
        );
    }
}

/// Runs every runnable block of `page`, in order, in one stage.
fn run_page(page: &str) {
    let blocks = blocks(&read(page));
    let runnable: Vec<&Block> = blocks.iter().filter(|b| b.kind == Kind::Run).collect();
    if runnable.is_empty() {
        return;
    }
    let stage = Stage::new();
    for block in runnable {
        for step in steps(block) {
            stage.run(page, &step);
        }
    }
    // What the page left running ends with the stage's tmux server, and
    // a watcher ends by itself once the swarm's panes are gone.
}

/// The guide's pages on disk.
fn guide_pages() -> Vec<String> {
    let mut pages: Vec<String> = fs::read_dir(repo_root().join("docs/guide"))
        .expect("docs/guide")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/guide/{n}"))
        .collect();
    pages.sort();
    pages
}

#[test]
fn every_page_of_the_guide_is_run() {
    let mut listed: Vec<String> = PAGES
        .iter()
        .filter(|p| p.starts_with("docs/guide/"))
        .map(|p| (*p).to_owned())
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        guide_pages(),
        "add the page to `pages!` in tests/docs.rs"
    );
}

/// Each page's blocks say what they are: no code block indented instead
/// of fenced, a `no-run` block gives its reason, `sh` takes no marker
/// but `no-run` and `network`, and a runnable block has a command.
#[test]
fn every_block_says_what_it_is() {
    let mut problems = Vec::new();
    for page in PAGES {
        let text = read(page);
        let mut fenced = false;
        let mut previous_blank = true;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                fenced = !fenced;
            } else if !fenced
                && previous_blank
                && line.starts_with("    ")
                && !line.starts_with("    scripts/")
            {
                problems.push(format!("{page}:{}: an indented block; fence it", i + 1));
            }
            previous_blank = line.trim().is_empty();
        }
        for block in blocks(&text) {
            let at = format!("{page}:{}", block.line);
            match block.kind {
                Kind::NoRun if block.info.split_whitespace().count() < 2 => {
                    problems.push(format!("{at}: `sh no-run` without a reason"));
                }
                Kind::Other if block.info.is_empty() && block.body.is_empty() => {
                    problems.push(format!("{at}: an empty block"));
                }
                Kind::Run if steps(&block).is_empty() => {
                    problems.push(format!("{at}: a `sh` block without a command"));
                }
                Kind::Run if !block.info.is_empty() => {
                    problems.push(format!("{at}: unknown marker `{}`", block.info));
                }
                _ => {}
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}

/// Every relative link of the README and of the guide leads to a file
/// that exists.
#[test]
fn every_link_of_the_guide_leads_somewhere() {
    let mut problems = Vec::new();
    for page in PAGES {
        let dir: PathBuf = repo_root().join(page).parent().expect("dir").to_path_buf();
        for target in read(page)
            .split("](")
            .skip(1)
            .filter_map(|r| r.split(')').next())
        {
            let file = target.split('#').next().unwrap_or_default();
            if file.is_empty() || file.contains("://") {
                continue;
            }
            if !dir.join(file).exists() {
                problems.push(format!("{page} links {target}, which does not exist"));
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}

/// Every `DASHBOARD_*` variable the README and the docs name is one the
/// program reads (a misspelt one in a guide sends people to a variable
/// nothing looks at).
#[test]
fn every_dashboard_variable_the_docs_name_is_read_by_the_program() {
    let mut source = String::new();
    let mut dirs = vec![repo_root().join("src"), repo_root().join("crates")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("source dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                source.push_str(&fs::read_to_string(&path).expect("source"));
            }
        }
    }
    let mut pages = vec!["README.md".to_owned()];
    for entry in fs::read_dir(repo_root().join("docs")).expect("docs") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    pages.extend(guide_pages());
    let mut problems = Vec::new();
    for page in &pages {
        let text = read(page);
        let mut rest = text.as_str();
        while let Some(at) = rest.find("DASHBOARD_") {
            let name: String = rest[at..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            // `SWARM_DASHBOARD_...` is a config key's variable, made from
            // the key's name, not a literal of the program.
            let part_of_another = rest[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            rest = &rest[at + name.len()..];
            if !part_of_another && !source.contains(&format!("\"{name}\"")) {
                problems.push(format!(
                    "{page} names {name}, which the program never reads"
                ));
            }
        }
    }
    problems.dedup();
    assert_eq!(problems, Vec::<String>::new());
}

#[cfg(feature = "mcp")]
mod mcp_table;

#[test]
fn the_readme_first_session_works_as_written() {
    let server = TmuxServer::start();
    let project = Project::new();
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let part = &readme[readme.find("## A first session").expect("the section")..];
    let commands: Vec<&str> = part
        .lines()
        .skip_while(|l| !l.starts_with("```sh"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(commands.len() >= 8 && commands.len() <= 13, "{commands:?}");
    let bin = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(swarm_bin(), bin.path().join("swarm")).expect("symlink");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.path().display());
    for command in commands {
        // The monitor runs until it is stopped: it has tests of its own.
        if command.starts_with("swarm monitor") {
            continue;
        }
        let out = Command::new("sh")
            .args(["-c", command])
            .current_dir(project.path())
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("CLAUDESWARM_ROOT")
            .env("PATH", &path)
            .env("SWARM_TMUX_SOCKET", &server.socket)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("run");
        // A command that fails on purpose says so: `# exit 3: ...`.
        let expected = command
            .split_once("# exit ")
            .and_then(|(_, rest)| rest.get(..1))
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        assert_eq!(
            out.status.code(),
            Some(expected),
            "{command}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(project.agents().is_empty());
}

/// The Markdown link targets (`](target)`) in `text`, anchors cut off.
fn link_targets(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|t| t.split('#').next().unwrap_or_default().to_owned())
        .filter(|t| !t.is_empty() && !t.contains("://"))
        .collect()
}

/// Every document is reachable: each `docs/*.md` is linked from the
/// README or from docs/ARCHITECTURE.md (itself linked from the README),
/// and every relative link of the README and of the documents leads to a
/// file that exists.
#[test]
fn every_document_is_linked_and_every_link_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &Path| fs::read_to_string(p).expect("read");
    let readme = read(&root.join("README.md"));
    let architecture = read(&root.join("docs/ARCHITECTURE.md"));
    let mut linked: Vec<String> = link_targets(&readme);
    linked.extend(
        link_targets(&architecture)
            .into_iter()
            .map(|t| format!("docs/{t}")),
    );
    let mut problems = Vec::new();
    if !linked.iter().any(|t| t == "docs/ARCHITECTURE.md") {
        problems.push("the README does not link docs/ARCHITECTURE.md".to_owned());
    }
    let mut docs: Vec<String> = fs::read_dir(root.join("docs"))
        .expect("docs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    docs.sort();
    for doc in &docs {
        let rel = format!("docs/{doc}");
        if rel != "docs/ARCHITECTURE.md" && !linked.contains(&rel) {
            problems.push(format!(
                "{rel} is linked from neither the README nor ARCHITECTURE.md"
            ));
        }
        for target in link_targets(&read(&root.join(&rel))) {
            if !root.join("docs").join(&target).exists() {
                problems.push(format!("{rel} links {target}, which does not exist"));
            }
        }
    }
    for target in link_targets(&readme) {
        if !root.join(&target).exists() {
            problems.push(format!("README.md links {target}, which does not exist"));
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}
