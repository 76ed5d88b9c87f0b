//! `swarm doctor`'s checks. Each check is a plain function from what it
//! may look at (`Subject`) to results that say ok, warn or fail, and for
//! anything short of ok, how to fix it. Adding a check is adding a
//! function to `CHECKS`.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::pane_state;
use crate::agents::process::{BACKEND_VAR, Backend, ProcessView, Processes};
use crate::agents::profile::Profiles;
use crate::agents::registry::{AgentRecord, AgentStatus};
use crate::agents::registry_store::{IdsState, RegistryState};
use crate::backend::Backend as Storage;
use crate::config;
use crate::messaging::held_store::HeldStore;
use crate::messaging::log_retention::{LogPolicy, Verdict};
use crate::messaging::message_log::{MessageLog, Record};
use crate::store::inspect::{self, Kind};
use crate::store::{Loaded, Paths, ProjectRoot, RootSource, StateFile, StoreError};
use crate::tmux::{MINIMUM_VERSION, Tmux, TmuxError};

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// Nothing to do.
    Ok,
    /// Works, but something deserves a look.
    Warn,
    /// Broken: swarm will not work right until it is fixed.
    Fail,
}

/// The result of one check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Outcome {
    /// What was checked (`tmux`, `config`, `ACTIVE_AGENTS.json`, ...).
    pub check: String,
    /// How it came out.
    pub status: Status,
    /// One line saying what was found.
    pub message: String,
    /// Further lines (each problem of a config file, each lost pane).
    pub details: Vec<String>,
    /// What to do about it; `None` when ok.
    pub fix: Option<String>,
}

impl Outcome {
    fn ok(check: &str, message: impl Into<String>) -> Outcome {
        Outcome {
            check: check.into(),
            status: Status::Ok,
            message: message.into(),
            details: Vec::new(),
            fix: None,
        }
    }

    fn warn(check: &str, message: impl Into<String>, fix: impl Into<String>) -> Outcome {
        Outcome {
            status: Status::Warn,
            fix: Some(fix.into()),
            ..Outcome::ok(check, message)
        }
    }

    fn fail(check: &str, message: impl Into<String>, fix: impl Into<String>) -> Outcome {
        Outcome {
            status: Status::Fail,
            ..Outcome::warn(check, message, fix)
        }
    }

    fn with_details(mut self, details: Vec<String>) -> Outcome {
        self.details = details;
        self
    }
}

/// What the checks look at.
pub(crate) struct Subject<'a> {
    /// The project root and how it was found.
    pub root: &'a ProjectRoot,
    /// The state-file layout.
    pub paths: &'a Paths,
    /// The project's shared state.
    pub backend: &'a Storage,
    /// The tmux server swarm would use.
    pub tmux: &'a Tmux,
    /// The `SWARM_*` environment variables (config overrides).
    pub env: &'a [(OsString, OsString)],
    /// Recognises agents in panes.
    pub matcher: &'a AgentMatcher,
    /// The agent profiles.
    pub profiles: &'a Profiles,
    /// The messages held back from panes.
    pub held: &'a dyn HeldStore,
}

/// A check: looks, never changes anything, and returns one or more
/// outcomes (none when it does not apply).
pub(crate) type Check = fn(&Subject<'_>) -> Vec<Outcome>;

/// Every check, in the order they are reported.
pub(crate) const CHECKS: &[Check] = &[
    tmux_installed,
    tmux_server,
    processes,
    project_root,
    config_file,
    shared_store,
    registry_file,
    agent_ids_file,
    message_log,
    message_log_segments,
    pending_acks,
    a2a_files,
    lock_dir,
    registry_panes,
    mcp_servers,
    agent_screens,
    leftover_files,
    hook_commands,
];

/// Runs every check.
pub(crate) fn run(subject: &Subject<'_>) -> Vec<Outcome> {
    CHECKS.iter().flat_map(|check| check(subject)).collect()
}

/// swarm's Claude Code hooks and git guard run swarm by name or by path:
/// warns when that command no longer exists (a rebuilt or moved binary),
/// since the hooks then do nothing.
fn hook_commands(s: &Subject<'_>) -> Vec<Outcome> {
    const CHECK: &str = "hooks";
    let mut found: Vec<(String, &str)> = crate::setup::claude_hooks::installed_swarms(s.paths)
        .into_iter()
        .map(|swarm| (swarm, "swarm hooks install"))
        .collect();
    if let Ok(dir) = crate::guard::git::Git::new(s.paths.root()).hooks_dir()
        && let Ok(text) = std::fs::read_to_string(dir.join("pre-commit"))
        && let Some(swarm) = crate::guard::installed_swarm(&text)
    {
        found.push((swarm, "swarm guard install"));
    }
    found
        .into_iter()
        .map(|(swarm, reinstall)| {
            if crate::agents::launch::invocation_exists(&swarm) {
                Outcome::ok(
                    CHECK,
                    format!("`{reinstall}` hooks run {swarm}, which exists"),
                )
            } else {
                Outcome::warn(
                    CHECK,
                    format!("hooks run {swarm}, which no longer exists: they do nothing"),
                    format!("run `{reinstall}` again with the swarm you use now"),
                )
            }
        })
        .collect()
}

const INSTALL_TMUX: &str =
    "install tmux (Debian/Ubuntu: `apt-get install tmux`, macOS: `brew install tmux`)";

fn tmux_installed(s: &Subject<'_>) -> Vec<Outcome> {
    vec![match s.tmux.version() {
        Ok(v) if !v.at_least(MINIMUM_VERSION.0, MINIMUM_VERSION.1) => Outcome::fail(
            "tmux",
            format!(
                "tmux {v} is installed, but swarm needs tmux {}.{} or newer",
                MINIMUM_VERSION.0, MINIMUM_VERSION.1
            ),
            "install a newer tmux (Debian/Ubuntu: `apt-get install tmux`, macOS: `brew install tmux`)",
        ),
        Ok(v) => Outcome::ok("tmux", format!("tmux {v} is installed")),
        Err(TmuxError::NotInstalled) => Outcome::fail(
            "tmux",
            "tmux is not installed (no `tmux` on PATH)",
            INSTALL_TMUX,
        ),
        Err(e) => Outcome::fail(
            "tmux",
            format!("could not run `tmux -V`: {e}"),
            "check that `tmux -V` works in this shell",
        ),
    }]
}

fn tmux_server(s: &Subject<'_>) -> Vec<Outcome> {
    const CHECK: &str = "tmux server";
    let server = s.tmux.server();
    vec![match s.tmux.server_info() {
        Ok(info) => {
            let socket = if info.socket_path.is_empty() {
                String::new()
            } else {
                format!(", socket {}", info.socket_path)
            };
            Outcome::ok(
                CHECK,
                format!(
                    "{server} answers: {} session{}{socket}",
                    info.sessions.len(),
                    if info.sessions.len() == 1 { "" } else { "s" }
                ),
            )
        }
        // Reported by the check above.
        Err(TmuxError::NotInstalled) => return Vec::new(),
        Err(TmuxError::NoServer { .. }) => Outcome::warn(
            CHECK,
            format!("no tmux server is running on {server}"),
            "start one with `swarm launch N`, or point swarm at your server with --tmux-socket NAME|PATH",
        ),
        Err(e) => Outcome::fail(
            CHECK,
            format!("{server} did not answer: {e}"),
            "check the server with `tmux list-sessions`; restart it if it hangs",
        ),
    }]
}

/// Whether swarm can see which programs run in the panes: the backend that
/// `SWARM_PROCESS_BACKEND` picks, made to find this very process.
fn processes(s: &Subject<'_>) -> Vec<Outcome> {
    const CHECK: &str = "processes";
    let value = s
        .env
        .iter()
        .find(|(k, _)| k == BACKEND_VAR)
        .map(|(_, v)| v.as_os_str());
    let backend = match Backend::choose(value) {
        Ok(b) => b,
        Err(e) => {
            return vec![Outcome::fail(
                CHECK,
                format!("{e}; every command that looks at panes will fail"),
                format!("unset {BACKEND_VAR}, or set it to auto, proc (Linux) or portable"),
            )];
        }
    };
    let how = match backend {
        #[cfg(target_os = "linux")]
        Backend::Proc => "the Linux fast path",
        Backend::Portable => "`ps`",
    };
    let forced = if value.is_some() {
        format!(" (set by {BACKEND_VAR})")
    } else {
        String::new()
    };
    let me = std::process::id();
    vec![match Processes::new(backend).survey() {
        Ok(view) if view.info(me).is_some() && view.argv(me).is_some() => Outcome::ok(
            CHECK,
            format!("backend {backend}{forced}: reads processes through {how}"),
        ),
        Ok(_) => Outcome::fail(
            CHECK,
            format!("backend {backend}{forced} cannot see swarm's own process"),
            format!("try {BACKEND_VAR}=portable, and check that `ps -A` lists every process"),
        ),
        Err(e) => Outcome::fail(
            CHECK,
            format!("backend {backend}{forced} does not work: {e}"),
            crate::error::Reported::hint(&e)
                .unwrap_or_else(|| format!("try another {BACKEND_VAR}")),
        ),
    }]
}

fn project_root(s: &Subject<'_>) -> Vec<Outcome> {
    const CHECK: &str = "project root";
    let path = s.root.path.display();
    vec![match &s.root.source {
        RootSource::CurrentDir => Outcome::warn(
            CHECK,
            format!("{path}: no project marker found, so the current directory is used"),
            "run swarm from the project (a directory with .git or another marker), or pass \
             --root / set CLAUDESWARM_ROOT so every agent uses the same root",
        ),
        source if !s.root.path.is_dir() => Outcome::fail(
            CHECK,
            format!("{path} (from {source}) is not a directory"),
            "point --root or CLAUDESWARM_ROOT at the project directory",
        ),
        source => Outcome::ok(CHECK, format!("{path} (found by {source})")),
    }]
}

fn config_file(s: &Subject<'_>) -> Vec<Outcome> {
    const CHECK: &str = "config";
    vec![match config::load(s.paths.root(), s.env) {
        Ok(loaded) => {
            let from_env = loaded
                .origins
                .iter()
                .filter(|(_, o)| matches!(o, config::Origin::Env(_)))
                .count();
            let env_note = if from_env > 0 {
                format!(" ({from_env} value(s) from SWARM_* variables)")
            } else {
                String::new()
            };
            let summary = match (&loaded.file, &loaded.user_file) {
                (Some(f), None) => format!("{} is valid{env_note}", f.display()),
                (Some(f), Some(u)) => format!(
                    "{} is valid, over your own {}{env_note}",
                    f.display(),
                    u.display()
                ),
                (None, Some(u)) => format!(
                    "no project config file; your own {} is valid{env_note}",
                    u.display()
                ),
                (None, None) => format!("no config file, defaults in use{env_note}"),
            };
            if loaded.warnings.is_empty() {
                Outcome::ok(CHECK, summary)
            } else {
                Outcome::warn(
                    CHECK,
                    format!("{summary}, but some values are ignored"),
                    "move each secret out of the project's file, as said below",
                )
                .with_details(loaded.warnings)
            }
        }
        Err(e) => Outcome::fail(
            CHECK,
            "the configuration is invalid; every command that reads it will fail",
            "fix each problem listed, then check with `swarm config validate`",
        )
        .with_details(e.problems()),
    }]
}

/// A state file that cannot even be looked at: a read error other than
/// "missing".
fn unreadable(check: &str, path: &Path, e: &StoreError) -> Outcome {
    Outcome::fail(
        check,
        format!("cannot read it: {e}"),
        format!(
            "check its owner and permissions (`ls -l {}`)",
            path.display()
        ),
    )
}

/// Problems with the file itself (a link, open to other users); `None`
/// when it is a plain private-enough file or missing.
fn file_itself(check: &str, path: &Path) -> Option<Outcome> {
    let st = match inspect::status(path) {
        Ok(st) => st,
        Err(e) => return Some(unreadable(check, path, &e)),
    };
    match st.kind {
        Kind::Missing | Kind::File => {}
        Kind::Symlink => {
            return Some(Outcome::fail(
                check,
                "it is a symbolic link; swarm never follows links for state files",
                format!(
                    "replace the link with the real file, or remove it (`rm {}`)",
                    path.display()
                ),
            ));
        }
        Kind::Dir | Kind::Other => {
            return Some(Outcome::fail(
                check,
                "it is not a regular file",
                format!("move {} out of the way", path.display()),
            ));
        }
    }
    (st.kind == Kind::File && st.mode & 0o022 != 0).then(|| {
        Outcome::warn(
            check,
            format!("other users can change it (mode {:o})", st.mode & 0o777),
            format!("chmod 600 {}", path.display()),
        )
    })
}

/// Where the shared state lives, and for a server whether it answers
/// (one read of the locks, which every host shares).
/// True when the shared state is on a server: the checks of the state
/// files do not apply (the `store` check reads it through the stores).
fn on_shared_store(s: &Subject<'_>) -> bool {
    s.backend.shared_host().is_some()
}

fn shared_store(s: &Subject<'_>) -> Vec<Outcome> {
    let store = s.backend.describe();
    let host = s.backend.host();
    if store == "files" {
        return vec![Outcome::ok(
            "store",
            format!("the project's state files (this host: {host})"),
        )];
    }
    vec![match s.backend.locks.list() {
        Ok(locks) => {
            // What the server holds, read through the stores: the file
            // checks below do not apply to it.
            let agents = match s.backend.registry.read() {
                Ok(RegistryState::Valid(reg, _)) => {
                    let here = reg
                        .agents
                        .iter()
                        .filter(|a| a.host.as_deref() == Some(host))
                        .count();
                    format!("{} agent(s), {here} on this host", reg.agents.len())
                }
                Ok(RegistryState::Missing) => "no registry yet".to_owned(),
                Ok(RegistryState::Corrupt(why)) => {
                    return vec![Outcome::fail(
                        "store",
                        format!("{store}: the registry is damaged ({why})"),
                        "run `swarm discover`: it keeps the damaged value aside and rebuilds the registry",
                    )];
                }
                Err(e) => format!("registry unreadable ({e})"),
            };
            let acks = s.backend.acks.list().map_or(0, |l| l.entries.len());
            let held = s.held.list().map_or(0, |h| h.len());
            Outcome::ok(
                "store",
                format!(
                    "{store}, this host: {host}; it answers: {agents}, {} lock(s), {acks} pending ACK(s), {held} held message(s)",
                    locks.len()
                ),
            )
        }
        Err(e) => Outcome::fail(
            "store",
            format!("{store}: {e}"),
            "start the server or fix [store] url (SWARM_STORE_URL); every command that shares state fails until it answers",
        ),
    }]
}

fn registry_file(s: &Subject<'_>) -> Vec<Outcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    const CHECK: &str = "ACTIVE_AGENTS.json";
    let path = s.paths.registry();
    let mut out: Vec<Outcome> = file_itself(CHECK, &path).into_iter().collect();
    if out.iter().any(|o| o.status == Status::Fail) {
        return out;
    }
    out.push(match s.backend.registry.read() {
        Ok(RegistryState::Missing) => Outcome::ok(
            CHECK,
            "no registry yet (`swarm discover` or `swarm launch N` creates it)",
        ),
        Ok(RegistryState::Valid(reg, skipped)) if skipped.is_empty() => Outcome::ok(
            CHECK,
            format!("readable, {} agent(s) registered", reg.agents.len()),
        ),
        Ok(RegistryState::Valid(reg, skipped)) => Outcome::warn(
            CHECK,
            format!(
                "{} agent(s) registered, {} entr{} unusable",
                reg.agents.len(),
                skipped.len(),
                if skipped.len() == 1 { "y" } else { "ies" }
            ),
            "run `swarm discover` to rewrite the registry",
        )
        .with_details(skipped),
        Ok(RegistryState::Corrupt(why)) => Outcome::fail(
            CHECK,
            format!("damaged: {why}"),
            "run `swarm discover`: it moves the damaged file aside and rebuilds the registry \
             with the same ids",
        ),
        Err(e) => unreadable(CHECK, &path, &e),
    });
    out
}

fn agent_ids_file(s: &Subject<'_>) -> Vec<Outcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    const CHECK: &str = ".swarm/agent_ids.json";
    let path = s.paths.agent_ids();
    let mut out: Vec<Outcome> = file_itself(CHECK, &path).into_iter().collect();
    if out.iter().any(|o| o.status == Status::Fail) {
        return out;
    }
    out.push(match s.backend.registry.read_ids() {
        Ok(IdsState::Missing) => Outcome::ok(CHECK, "none yet (written with the first agent id)"),
        Ok(IdsState::Valid(ids)) => {
            Outcome::ok(CHECK, format!("readable, next id agent-{}", ids.next))
        }
        Ok(IdsState::Corrupt(why)) => Outcome::fail(
            CHECK,
            format!("damaged: {why}"),
            "run `swarm discover`: it rebuilds the id mark from the registry and the pane labels",
        ),
        Err(e) => unreadable(CHECK, &path, &e),
    });
    out
}

fn message_log(s: &Subject<'_>) -> Vec<Outcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    const CHECK: &str = "agent_messages.log";
    let path = s.paths.message_log();
    let mut out: Vec<Outcome> = file_itself(CHECK, &path).into_iter().collect();
    if out.iter().any(|o| o.status == Status::Fail) {
        return out;
    }
    let bytes = match StateFile::new(&path).read() {
        Ok(Some(b)) => b,
        Ok(None) => return out,
        Err(e) => return vec![unreadable(CHECK, &path, &e)],
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut total = 0;
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        total += 1;
        if serde_json::from_str::<serde_json::Value>(line).is_err() {
            bad.push(i + 1);
        }
    }
    // Messages as every other view counts them: delivery records are
    // lines of the log, not messages.
    let (messages, deliveries) = match MessageLog::new(s.paths).read() {
        Ok(contents) => {
            let m = contents
                .records
                .iter()
                .filter(|r| matches!(r, Record::Message(_)))
                .count();
            (m, contents.records.len() - m)
        }
        Err(e) => return vec![unreadable(CHECK, &path, &e)],
    };
    out.push(if bad.is_empty() {
        Outcome::ok(
            CHECK,
            format!(
                "readable, {messages} message(s) and {deliveries} delivery record(s), every line JSON"
            ),
        )
    } else {
        Outcome::warn(
            CHECK,
            format!(
                "{} of {total} line(s) are not JSON (first at line {}); those messages cannot be read",
                bad.len(),
                bad[0]
            ),
            format!(
                "look at those lines (`sed -n {}p {}`); the rest of the log is fine",
                bad[0],
                path.display()
            ),
        )
    });
    out
}

/// The rotated segments of the message log: what is kept and why (the
/// decision the next rotation will make).
fn message_log_segments(s: &Subject<'_>) -> Vec<Outcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    const CHECK: &str = "message log history";
    let policy = match config::load(s.paths.root(), s.env) {
        Ok(loaded) => {
            let c = &loaded.config.message_log;
            LogPolicy {
                rotate_bytes: c.rotate_bytes,
                keep_bytes: c.keep_bytes,
                keep_age: std::time::Duration::from_secs(u64::from(c.keep_days) * 86_400),
            }
        }
        Err(_) => LogPolicy::default(),
    };
    let verdicts = match MessageLog::new(s.paths).with_policy(policy).retention() {
        Ok(v) => v,
        Err(e) => return vec![unreadable(CHECK, &s.paths.message_log(), &e)],
    };
    if verdicts.is_empty() {
        return vec![Outcome::ok(CHECK, "no rotated segments yet")];
    }
    let total: u64 = verdicts.iter().map(|v| v.bytes).sum();
    let pinned: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| v.keep && v.reason.contains("but"))
        .collect();
    let going = verdicts.iter().filter(|v| !v.keep).count();
    let details = verdicts
        .iter()
        .map(|v| {
            format!(
                "agent_messages.log.{}: {} bytes, last written {} ago: {} ({})",
                v.number,
                v.bytes,
                crate::support::time::human_duration(v.age_secs as f64),
                if v.keep {
                    "kept"
                } else {
                    "removed at the next rotation"
                },
                v.reason
            )
        })
        .collect();
    let message = format!(
        "{} rotated segment(s), {total} bytes (keeping up to {} bytes and {} days){}",
        verdicts.len(),
        policy.keep_bytes,
        policy.keep_age.as_secs() / 86_400,
        if going > 0 {
            format!("; {going} will be removed at the next rotation")
        } else {
            String::new()
        }
    );
    let outcome = if pinned.is_empty() {
        Outcome::ok(CHECK, message)
    } else {
        Outcome::warn(
            CHECK,
            format!(
                "{message}; {} kept past the limits for unread messages",
                pinned.len()
            ),
            "the agents named below have not read their messages: have them run `swarm inbox --new`, or remove agents that left with `swarm discover`",
        )
    };
    vec![outcome.with_details(details)]
}

fn pending_acks(s: &Subject<'_>) -> Vec<Outcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    json_file(
        "PENDING_ACKS.json",
        &s.paths.pending_acks(),
        "it is rebuilt by the next `swarm msg --ack`; move it aside to start over",
    )
}

/// The agent-to-agent store files (cards, tasks, ...) that exist.
fn a2a_files(s: &Subject<'_>) -> Vec<Outcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    let found = match crate::a2a::check_files(s.backend.a2a.as_ref()) {
        Ok(found) => found,
        Err(e) => {
            return vec![Outcome::fail(
                "A2A files",
                format!("could not read them: {e}"),
                "check the files' owner and permissions",
            )];
        }
    };
    let mut out = Vec::new();
    for f in found {
        if let Some(o) = file_itself(f.name, Path::new(&f.location)) {
            out.push(o);
            continue;
        }
        out.push(if f.problems.is_empty() {
            Outcome::ok(f.name, format!("readable, {} record(s)", f.records))
        } else {
            Outcome::warn(
                f.name,
                format!("{} record(s) readable, with problems", f.records),
                "the next swarm command that writes it moves a damaged file aside; records it \
                 cannot read are kept as they are",
            )
            .with_details(f.problems)
        });
    }
    out
}

/// A JSON state file that is checked only for being readable JSON.
fn json_file(check: &str, path: &Path, fix: &str) -> Vec<Outcome> {
    let mut out: Vec<Outcome> = file_itself(check, path).into_iter().collect();
    if out.iter().any(|o| o.status == Status::Fail) {
        return out;
    }
    match StateFile::new(path).read_json::<serde_json::Value>() {
        Ok(Loaded::Missing) => {}
        Ok(Loaded::Valid(_)) => out.push(Outcome::ok(check, "readable JSON")),
        Ok(Loaded::Corrupt(why)) => out.push(Outcome::fail(check, format!("damaged: {why}"), fix)),
        Err(e) => out.push(unreadable(check, path, &e)),
    }
    out
}

fn lock_dir(s: &Subject<'_>) -> Vec<Outcome> {
    if on_shared_store(s) {
        return Vec::new();
    }
    const CHECK: &str = ".agent_locks/";
    let dir = s.paths.locks_dir();
    match inspect::status(&dir) {
        Ok(st) if st.kind == Kind::Missing => return Vec::new(),
        Ok(st) if st.kind != Kind::Dir => {
            return vec![Outcome::fail(
                CHECK,
                "it is not a directory",
                format!("move {} out of the way", dir.display()),
            )];
        }
        Ok(_) => {}
        Err(e) => return vec![unreadable(CHECK, &dir, &e)],
    }
    let names = match inspect::list_dir(&dir) {
        Ok(n) => n,
        Err(e) => return vec![unreadable(CHECK, &dir, &e)],
    };
    let locks: Vec<&String> = names
        .iter()
        .filter(|n| n.ends_with(".lock") && !n.starts_with('.'))
        .collect();
    let mut bad = Vec::new();
    for name in &locks {
        let path = dir.join(name);
        match StateFile::new(&path).read_json::<serde_json::Value>() {
            Ok(Loaded::Valid(v)) if v.is_object() => {}
            Ok(Loaded::Valid(_)) => bad.push(format!("{name}: not a JSON object")),
            Ok(Loaded::Corrupt(why)) => bad.push(format!("{name}: {why}")),
            Ok(Loaded::Missing) => {} // released meanwhile
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    vec![if bad.is_empty() {
        Outcome::ok(CHECK, format!("readable, {} lock file(s)", locks.len()))
    } else {
        Outcome::warn(
            CHECK,
            format!("{} of {} lock file(s) are damaged", bad.len(), locks.len()),
            format!(
                "a damaged lock protects nothing: look at it, then delete it from {}",
                dir.display()
            ),
        )
        .with_details(bad)
    }]
}

fn registry_panes(s: &Subject<'_>) -> Vec<Outcome> {
    const CHECK: &str = "registered panes";
    let Ok(RegistryState::Valid(mut reg, _)) = s.backend.registry.read() else {
        return Vec::new();
    };
    // Only this host's panes are on this tmux server.
    if let Some(here) = s.backend.shared_host() {
        reg.agents
            .retain(|a| a.host.as_deref().is_none_or(|h| h == here));
    }
    if reg.agents.is_empty() {
        return Vec::new();
    }
    let live: HashSet<String> = match s.tmux.list_panes() {
        Ok((panes, _)) => panes.into_iter().map(|p| p.id.to_string()).collect(),
        Err(TmuxError::NoServer { .. }) => HashSet::new(),
        // The tmux checks say why tmux cannot be asked.
        Err(_) => return Vec::new(),
    };
    let mut gone = Vec::new();
    for a in &reg.agents {
        match &a.tmux_pane_id {
            Some(p) if live.contains(p.as_str()) => {}
            Some(p) => gone.push(format!(
                "{} (pane {p}, {}): the pane no longer exists",
                a.id, a.pane_index
            )),
            None => gone.push(format!(
                "{} ({}): registered without a pane id by an older version",
                a.id, a.pane_index
            )),
        }
    }
    vec![if gone.is_empty() {
        Outcome::ok(
            CHECK,
            format!("all {} registered agent pane(s) exist", reg.agents.len()),
        )
    } else {
        Outcome::warn(
            CHECK,
            format!(
                "{} of {} registered agent(s) have no live pane on {}",
                gone.len(),
                reg.agents.len(),
                s.tmux.server()
            ),
            "run `swarm discover` to refresh the registry",
        )
        .with_details(gone)
    }]
}

/// swarm's MCP server in the agents' project configuration: optional, but
/// where it is configured, the program it names must run.
fn mcp_servers(s: &Subject<'_>) -> Vec<Outcome> {
    use crate::setup::mcp_config::{self, Client, Installed, SERVER_ARGS};
    const CHECK: &str = "MCP server";
    let root = s.paths.root();
    let mut out = Vec::new();
    for client in Client::ALL {
        let file = client.config_file(root);
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let check = format!("{CHECK} ({})", client.name());
        match mcp_config::status(root, client) {
            Installed::No => {}
            Installed::Unreadable(why) => out.push(Outcome::warn(
                &check,
                format!("{shown} cannot be read: {why}"),
                "fix the file by hand, then run `swarm mcp install` again",
            )),
            Installed::Yes {
                command,
                args,
                approved,
            } => {
                let runs = {
                    use std::os::unix::fs::PermissionsExt;
                    Path::new(&command).is_absolute()
                        && std::fs::metadata(&command)
                            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                };
                out.push(if !runs {
                    Outcome::fail(
                        &check,
                        format!("{shown} starts {command:?}, which is not an executable file"),
                        "run `swarm mcp install` again with the swarm you use",
                    )
                } else if args != SERVER_ARGS {
                    Outcome::warn(
                        &check,
                        format!("{shown} starts swarm with arguments {args:?}, not [\"mcp\"]"),
                        "run `swarm mcp install` again",
                    )
                } else if !approved {
                    Outcome::warn(
                        &check,
                        format!(
                            "{shown} lists the server but .claude/settings.local.json does not \
                             approve it: Claude Code asks at start-up (and defaults to no)"
                        ),
                        "run `swarm mcp install --claude`",
                    )
                } else {
                    Outcome::ok(&check, format!("{shown} starts {command} mcp"))
                });
            }
        }
    }
    if out.is_empty() {
        out.push(Outcome::ok(
            CHECK,
            "not configured for any agent (optional: `swarm mcp install` lets agents use swarm as tools)",
        ));
    }
    out
}

/// For each active agent: which profile applies, and whether a message
/// would be typed into its pane right now (or held, and why).
fn agent_screens(s: &Subject<'_>) -> Vec<Outcome> {
    const CHECK: &str = "agent screens";
    let Ok(RegistryState::Valid(reg, _)) = s.backend.registry.read() else {
        return Vec::new();
    };
    let agents: Vec<&AgentRecord> = reg
        .agents
        .iter()
        .filter(|a| a.status == AgentStatus::Active)
        .collect();
    if agents.is_empty() {
        return Vec::new();
    }
    let states = pane_state::observe(
        s.tmux,
        s.matcher,
        s.profiles,
        &agents,
        s.backend.shared_host(),
    );
    let held = s.held.list().unwrap_or_default();
    let mut ready = 0;
    let details: Vec<String> = agents
        .iter()
        .zip(&states)
        .map(|(a, st)| {
            let profile = st
                .profile
                .as_deref()
                .map(|p| format!("profile {p}"))
                .unwrap_or_else(|| "no profile".into());
            let waiting = held.iter().filter(|h| a.id == h.agent.as_str()).count();
            let waiting = if waiting > 0 {
                format!("; {waiting} message(s) held for it")
            } else {
                String::new()
            };
            if st.deliverable {
                ready += 1;
                format!(
                    "{}: {profile}, {}: a message would go in now{waiting}",
                    a.id, st.state
                )
            } else {
                format!(
                    "{}: {profile}, {}: a message would wait ({}){waiting}",
                    a.id,
                    st.state,
                    st.reason.as_deref().unwrap_or("not safe to type into")
                )
            }
        })
        .collect();
    vec![
        Outcome::ok(
            CHECK,
            format!(
                "{ready} of {} active agent(s) can take a message right now",
                agents.len()
            ),
        )
        .with_details(details),
    ]
}

fn leftover_files(s: &Subject<'_>) -> Vec<Outcome> {
    let dirs = [
        s.paths.root().to_owned(),
        s.paths.swarm_dir(),
        s.paths.locks_dir(),
        s.paths.memory_dir(),
    ];
    let mut temps: Vec<PathBuf> = Vec::new();
    let mut corrupt: Vec<PathBuf> = Vec::new();
    for dir in &dirs {
        for name in inspect::list_dir(dir).unwrap_or_default() {
            if name.contains(".corrupt-") {
                corrupt.push(dir.join(&name));
            } else if is_temp_name(&name) {
                temps.push(dir.join(&name));
            }
        }
    }
    let list = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect();
    let mut out = Vec::new();
    if !temps.is_empty() {
        out.push(
            Outcome::warn(
                "temp files",
                format!(
                    "{} temporary file(s) left by interrupted writes",
                    temps.len()
                ),
                "if no swarm command is running, delete them; the real files are intact",
            )
            .with_details(list(&temps)),
        );
    }
    if !corrupt.is_empty() {
        out.push(
            Outcome::warn(
                "damaged copies",
                format!("{} damaged state file(s) were moved aside", corrupt.len()),
                "look at them for anything worth keeping, then delete them",
            )
            .with_details(list(&corrupt)),
        );
    }
    if out.is_empty() {
        out.push(Outcome::ok(
            "leftovers",
            "no temporary or damaged files left behind",
        ));
    }
    out
}

/// Temp names of our atomic writes (`.NAME.tmp-XXXX`) and of the Python
/// tool's (`NAME.json.tmp`, `NAME.lock.tmp`).
fn is_temp_name(name: &str) -> bool {
    (name.starts_with('.') && name.contains(".tmp-"))
        || name.ends_with(".json.tmp")
        || name.ends_with(".lock.tmp")
}

/// Counts of each status.
pub(crate) fn tally(outcomes: &[Outcome]) -> (usize, usize, usize) {
    let n = |s| outcomes.iter().filter(|o| o.status == s).count();
    (n(Status::Ok), n(Status::Warn), n(Status::Fail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names() {
        assert!(is_temp_name(".ACTIVE_AGENTS.json.tmp-abcdef0123"));
        assert!(is_temp_name("TASKS.json.tmp"));
        assert!(is_temp_name("0123.lock.tmp"));
        assert!(!is_temp_name("ACTIVE_AGENTS.json"));
        assert!(!is_temp_name(".ACTIVE_AGENTS.json.lock"));
    }

    #[test]
    fn outcomes_carry_fixes_unless_ok() {
        assert_eq!(Outcome::ok("a", "b").fix, None);
        assert_eq!(Outcome::warn("a", "b", "c").fix.as_deref(), Some("c"));
        let f = Outcome::fail("a", "b", "c");
        assert_eq!((f.status, f.fix.as_deref()), (Status::Fail, Some("c")));
        assert_eq!(tally(&[Outcome::ok("a", "b"), f]), (1, 0, 1));
    }
}
