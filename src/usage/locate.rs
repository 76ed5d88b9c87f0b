//! Finding an agent's usage records from its pane: the agent process
//! among the pane's processes, its own home (its `HOME`, or
//! `CLAUDE_CONFIG_DIR` / `CODEX_HOME` when set, read from the environment
//! it was started with, never swarm's), its working directory and its
//! start time; then each vendor's session files of that directory written
//! since the process started (docs/USAGE.md). When several agents could
//! own one file (the same home and directory), it goes to the one that
//! started last before the file was made.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::process::ProcessView;
use crate::store::{self, RecordFile};

use super::ledger::Ledger;
use super::vendor::{VENDORS, Vendor};

/// How much earlier than its process a file may seem made and still be
/// its own (file system and process clocks round differently).
const SLACK: Duration = Duration::from_secs(2);

/// The most of a Codex session file read to learn its directory (its
/// first record holds the session's instructions).
const FIRST_RECORD_MAX: u64 = 1 << 20;

/// What the agent process of one pane tells about where its records are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AgentHome {
    /// The agent's id.
    pub agent: String,
    /// The vendor its command names; `None` for another program (every
    /// vendor's places are then looked at).
    pub vendor: Option<Vendor>,
    /// The agent process.
    pub pid: u32,
    /// Its environment's `HOME`.
    pub home: Option<PathBuf>,
    /// Its `CLAUDE_CONFIG_DIR`.
    pub claude_dir: Option<PathBuf>,
    /// Its `CODEX_HOME`.
    pub codex_home: Option<PathBuf>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
    /// When it started.
    pub started: Option<SystemTime>,
}

/// The agent process of the pane whose root process is `pane_pid`, with
/// the facts `view` can give; `None` when no agent runs there.
pub(crate) fn agent_home(
    matcher: &AgentMatcher,
    view: &impl ProcessView,
    agent: &str,
    pane_pid: u32,
) -> Option<AgentHome> {
    let found = matcher.find_in_pane(view, pane_pid)?;
    let env: BTreeMap<String, String> = view
        .environment(found.pid)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let dir = |name: &str| {
        env.get(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    Some(AgentHome {
        agent: agent.to_owned(),
        vendor: Vendor::of_command(&found.command),
        pid: found.pid,
        home: dir("HOME"),
        claude_dir: dir("CLAUDE_CONFIG_DIR"),
        codex_home: dir("CODEX_HOME"),
        cwd: view.cwd(found.pid),
        started: view.started(found.pid),
    })
}

/// A session file that may hold an agent's records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The file.
    pub path: PathBuf,
    /// Whose format.
    pub vendor: Vendor,
    /// Its identity and size now.
    pub file: RecordFile,
}

impl AgentHome {
    /// The vendors whose places are looked at.
    fn vendors(&self) -> Vec<Vendor> {
        match self.vendor {
            Some(v) => vec![v],
            None => VENDORS.to_vec(),
        }
    }

    /// The session files of this agent's directory written since it
    /// started (every one when the start is unknown). Codex files of
    /// another directory are remembered in `ledger` and not read again.
    pub(crate) fn candidates(&self, ledger: &mut Ledger) -> Vec<Candidate> {
        let Some(cwd) = &self.cwd else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for vendor in self.vendors() {
            let files = match vendor {
                Vendor::Claude => self.claude_files(cwd),
                Vendor::Codex => self.codex_files(cwd, ledger),
                Vendor::Gemini => self.gemini_files(cwd),
            };
            out.extend(
                files
                    .into_iter()
                    .filter(|(_, f)| self.written_since_start(f))
                    .map(|(path, file)| Candidate { path, vendor, file }),
            );
        }
        out
    }

    fn written_since_start(&self, f: &RecordFile) -> bool {
        match (self.started, f.modified) {
            (Some(started), Some(modified)) => modified + SLACK >= started,
            _ => true,
        }
    }

    fn claude_files(&self, cwd: &Path) -> Vec<(PathBuf, RecordFile)> {
        let Some(base) = self
            .claude_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
        else {
            return Vec::new();
        };
        jsonl(store::record_files_in(
            &base.join("projects").join(claude_project_dir(cwd)),
        ))
    }

    fn codex_files(&self, cwd: &Path, ledger: &mut Ledger) -> Vec<(PathBuf, RecordFile)> {
        let Some(base) = self
            .codex_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".codex")))
        else {
            return Vec::new();
        };
        let sessions = base.join("sessions");
        let mut out = Vec::new();
        for day in self.codex_days() {
            let dir = sessions.join(day);
            for (path, file) in jsonl(store::record_files_in(&dir)) {
                let key = path.to_string_lossy().into_owned();
                if ledger.files.contains_key(&key) {
                    out.push((path, file));
                    continue;
                }
                if ledger.elsewhere.get(&key) == Some(&file.ino) || !self.written_since_start(&file)
                {
                    continue;
                }
                match codex_session_dir(&path) {
                    Some(dir) if Path::new(&dir) == cwd => out.push((path, file)),
                    // Not written yet: looked at again next time.
                    None => {}
                    Some(_) => {
                        ledger.elsewhere.insert(key, file.ino);
                    }
                }
            }
        }
        out
    }

    /// The `YYYY/MM/DD` directories from the day before the agent started
    /// (a day in any time zone) to tomorrow.
    fn codex_days(&self) -> Vec<String> {
        let now = chrono::Utc::now();
        let from = self
            .started
            .map(chrono::DateTime::<chrono::Utc>::from)
            .unwrap_or(now);
        let mut day = from.date_naive() - chrono::Days::new(1);
        let last = now.date_naive() + chrono::Days::new(1);
        let mut out = Vec::new();
        while day <= last && out.len() < 400 {
            out.push(day.format("%Y/%m/%d").to_string());
            day = day + chrono::Days::new(1);
        }
        out
    }

    fn gemini_files(&self, cwd: &Path) -> Vec<(PathBuf, RecordFile)> {
        let Some(home) = &self.home else {
            return Vec::new();
        };
        let gemini = home.join(".gemini");
        let mut names = vec![hex_sha256(&cwd.to_string_lossy())];
        if let Some(name) = gemini_project_name(&gemini.join("projects.json"), cwd) {
            names.insert(0, name);
        }
        let mut out = Vec::new();
        for name in names {
            let files = jsonl(store::record_files_in(
                &gemini.join("tmp").join(&name).join("chats"),
            ));
            out.extend(files);
        }
        out
    }
}

fn jsonl(files: Vec<(PathBuf, RecordFile)>) -> Vec<(PathBuf, RecordFile)> {
    files
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

/// Claude Code's directory name for a project: the path with every
/// character other than a letter or digit made `-`.
pub(crate) fn claude_project_dir(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The directory a Codex session ran in: `payload.cwd` of its first
/// record (`session_meta`).
fn codex_session_dir(path: &Path) -> Option<String> {
    let (_, bytes) = store::read_records(path, 0, FIRST_RECORD_MAX).ok()??;
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let first: Value = serde_json::from_slice(&bytes[..end]).ok()?;
    Some(first.get("payload")?.get("cwd")?.as_str()?.to_owned())
}

/// Gemini CLI's short name for a project directory, from its
/// `projects.json` (`{"projects": {"/path": "name"}}`).
fn gemini_project_name(file: &Path, cwd: &Path) -> Option<String> {
    let (_, bytes) = store::read_records(file, 0, FIRST_RECORD_MAX).ok()??;
    let doc: Value = serde_json::from_slice(&bytes).ok()?;
    let name = doc
        .get("projects")?
        .get(cwd.to_string_lossy().as_ref())?
        .as_str()?;
    // A name that is a path would read outside Gemini's directory.
    (!name.is_empty() && !name.contains('/') && name != "..").then(|| name.to_owned())
}

fn hex_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Gives each file claimed by several agents to one of them: the agent
/// that started last no later than the file was made; else the one that
/// started first. `claims` are (agent index, started) per file.
pub(crate) fn owner(made: Option<SystemTime>, claims: &[(usize, Option<SystemTime>)]) -> usize {
    let secs = |t: Option<SystemTime>| {
        t.and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_secs_f64())
    };
    let made = secs(made);
    let before = claims
        .iter()
        .filter(|(_, s)| match (secs(*s), made) {
            (Some(s), Some(m)) => s <= m + SLACK.as_secs_f64(),
            _ => false,
        })
        .max_by(|a, b| {
            secs(a.1)
                .partial_cmp(&secs(b.1))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    if let Some((i, _)) = before {
        return *i;
    }
    claims
        .iter()
        .min_by(|a, b| {
            secs(a.1)
                .unwrap_or(f64::MAX)
                .partial_cmp(&secs(b.1).unwrap_or(f64::MAX))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map_or(0, |(i, _)| *i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_names_project_directories() {
        assert_eq!(
            claude_project_dir(Path::new("/tmp/usagecap/proj")),
            "-tmp-usagecap-proj"
        );
        assert_eq!(claude_project_dir(Path::new("/a/b.c_d")), "-a-b-c-d");
    }

    #[test]
    fn a_shared_file_goes_to_the_agent_that_started_just_before_it() {
        let at = |s: u64| Some(UNIX_EPOCH + Duration::from_secs(s));
        let claims = [(0, at(100)), (1, at(200)), (2, at(300))];
        assert_eq!(owner(at(250), &claims), 1);
        assert_eq!(owner(at(301), &claims), 2);
        assert_eq!(owner(at(50), &claims), 0);
        assert_eq!(owner(None, &claims), 0);
        assert_eq!(owner(at(150), &[(3, None), (4, at(100))]), 4);
    }

    #[test]
    fn gemini_project_names_come_from_its_list() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("projects.json");
        std::fs::write(&file, r#"{"projects":{"/w/p":"p","/w/bad":"../x"}}"#).expect("write");
        assert_eq!(
            gemini_project_name(&file, Path::new("/w/p")).as_deref(),
            Some("p")
        );
        assert_eq!(gemini_project_name(&file, Path::new("/w/bad")), None);
        assert_eq!(gemini_project_name(&file, Path::new("/w/q")), None);
        assert_eq!(
            hex_sha256("/tmp/usagecap/proj"),
            "40394462df943134c036b6c4bc21ce829abf5aaf5c765a1658ac90ac2bb8478e"
        );
    }
}
