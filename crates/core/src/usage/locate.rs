//! Finding an agent's usage records from its pane: the agent process
//! among the pane's processes, its own home (its `HOME`, or
//! `CLAUDE_CONFIG_DIR` / `CODEX_HOME` when set, read from the environment
//! it was started with, never swarm's), its working directory and its
//! start time; then each vendor's session files of that directory written
//! since the process started (docs/USAGE.md). An agent whose conversation
//! id swarm chose at launch (Claude Code, Gemini CLI) has exactly that
//! conversation's file, once written; otherwise, when several agents could
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
use super::vendor::{USAGE_SOURCES, UsageSource};

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
    pub vendor: Option<UsageSource>,
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
    /// The id of its conversation, when swarm chose it at launch (its
    /// recorded session says).
    pub conversation: Option<String>,
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
        vendor: UsageSource::of_command(&found.command),
        pid: found.pid,
        home: dir("HOME"),
        claude_dir: dir("CLAUDE_CONFIG_DIR"),
        codex_home: dir("CODEX_HOME"),
        cwd: view.cwd(found.pid),
        started: view.started(found.pid),
        conversation: None,
    })
}

/// A session file that may hold an agent's records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The file.
    pub path: PathBuf,
    /// Whose format.
    pub vendor: UsageSource,
    /// Its identity and size now.
    pub file: RecordFile,
    /// Found by the agent's conversation id: its own for certain.
    pub exact: bool,
}

impl AgentHome {
    /// The vendors whose places are looked at.
    fn vendors(&self) -> Vec<UsageSource> {
        match self.vendor {
            Some(v) => vec![v],
            None => USAGE_SOURCES.to_vec(),
        }
    }

    /// The session files of this agent's directory written since it
    /// started (every one when the start is unknown). Codex files of
    /// another directory are remembered in `ledger` and not read again.
    pub(crate) fn candidates(&self, ledger: &mut Ledger) -> Vec<Candidate> {
        let Some(cwd) = &self.cwd else {
            return Vec::new();
        };
        if let Some(exact) = self.conversation_files(cwd) {
            return exact;
        }
        let mut out = Vec::new();
        for vendor in self.vendors() {
            let files = match vendor {
                UsageSource::Claude => self.claude_files(cwd),
                UsageSource::Codex => self.codex_files(cwd, ledger),
                UsageSource::Gemini => self.gemini_files(cwd),
            };
            out.extend(self.written_since_start_of(vendor, files, false));
        }
        out
    }

    /// The file of the conversation swarm chose for the agent, once it is
    /// written (since the agent started: an older one is a conversation
    /// the agent left). `None` when it has no recorded conversation, or
    /// its file is not there yet.
    fn conversation_files(&self, cwd: &Path) -> Option<Vec<Candidate>> {
        let id = self
            .conversation
            .as_deref()
            .filter(|id| is_conversation_id(id))?;
        let mut out = Vec::new();
        for vendor in self.vendors() {
            let files: Vec<(PathBuf, RecordFile)> = match vendor {
                UsageSource::Claude => self
                    .claude_project_files_dir(cwd)
                    .map(|dir| dir.join(format!("{id}.jsonl")))
                    .and_then(|p| store::record_file(&p).map(|f| (p, f)))
                    .into_iter()
                    .collect(),
                UsageSource::Gemini => self
                    .gemini_files(cwd)
                    .into_iter()
                    .filter(|(p, _)| is_gemini_conversation(p, id))
                    .collect(),
                // Codex CLI picks its own thread id.
                UsageSource::Codex => Vec::new(),
            };
            out.extend(self.written_since_start_of(vendor, files, true));
        }
        (!out.is_empty()).then_some(out)
    }

    /// Those of `files` written since the agent started, as candidates.
    fn written_since_start_of(
        &self,
        vendor: UsageSource,
        files: Vec<(PathBuf, RecordFile)>,
        exact: bool,
    ) -> impl Iterator<Item = Candidate> + '_ {
        files
            .into_iter()
            .filter(|(_, f)| self.written_since_start(f))
            .map(move |(path, file)| Candidate {
                path,
                vendor,
                file,
                exact,
            })
    }

    fn written_since_start(&self, f: &RecordFile) -> bool {
        match (self.started, f.modified) {
            (Some(started), Some(modified)) => modified + SLACK >= started,
            _ => true,
        }
    }

    /// Claude Code's directory of this agent's sessions in `cwd`.
    fn claude_project_files_dir(&self, cwd: &Path) -> Option<PathBuf> {
        let base = self
            .claude_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")))?;
        Some(base.join("projects").join(claude_project_dir(cwd)))
    }

    fn claude_files(&self, cwd: &Path) -> Vec<(PathBuf, RecordFile)> {
        self.claude_project_files_dir(cwd)
            .map(|dir| jsonl(store::record_files_in(&dir)))
            .unwrap_or_default()
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
    let first = first_record(path)?;
    Some(first.get("payload")?.get("cwd")?.as_str()?.to_owned())
}

/// Whether `id` can name a conversation file: letters, digits and `-`
/// only (a hand-edited session record must not reach outside the
/// vendor's directory).
fn is_conversation_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// Whether the Gemini CLI chat file `path` is the conversation `id`: its
/// name ends in a beginning of the id (`session-<time>-<id prefix>`) or
/// the whole id, and
/// its first record, when it names one, has that `sessionId`.
fn is_gemini_conversation(path: &Path, id: &str) -> bool {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let named = stem.ends_with(id)
        || stem
            .rsplit_once('-')
            .is_some_and(|(_, tail)| tail.len() >= 4 && id.starts_with(tail));
    if !named {
        return false;
    }
    first_record(path)
        .and_then(|r| r.get("sessionId")?.as_str().map(str::to_owned))
        .is_none_or(|named| named == id)
}

/// The first record of a JSON Lines file, once it is written whole.
fn first_record(path: &Path) -> Option<Value> {
    let (_, bytes) = store::read_records(path, 0, FIRST_RECORD_MAX).ok()??;
    let end = bytes.iter().position(|&b| b == b'\n')?;
    serde_json::from_slice(&bytes[..end]).ok()
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

/// Gives a file several agents claim to one of them: one that has it by
/// its conversation id, whoever else might; else as `owner` says.
/// `claims` are (agent index, found by conversation id, started).
pub(crate) fn claimant(
    made: Option<SystemTime>,
    claims: &[(usize, bool, Option<SystemTime>)],
) -> usize {
    let exact = claims.iter().any(|c| c.1);
    let who: Vec<(usize, Option<SystemTime>)> = claims
        .iter()
        .filter(|c| c.1 || !exact)
        .map(|c| (c.0, c.2))
        .collect();
    owner(made, &who)
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

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/usage");

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!("{FIXTURES}/{name}")).expect("fixture")
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn home(
        agent: &str,
        vendor: UsageSource,
        dir: &Path,
        started: u64,
        id: Option<&str>,
    ) -> AgentHome {
        AgentHome {
            agent: agent.into(),
            vendor: Some(vendor),
            pid: 1,
            home: Some(dir.to_owned()),
            claude_dir: None,
            codex_home: None,
            cwd: Some(PathBuf::from("/w/p")),
            started: Some(UNIX_EPOCH + Duration::from_secs(started)),
            conversation: id.map(str::to_owned),
        }
    }

    /// Reads each file the agents claim into a ledger, as a look does,
    /// and returns each agent's input and output tokens.
    fn read_all(homes: &[AgentHome]) -> Vec<(u64, u64)> {
        let mut ledger = Ledger::default();
        let mut claims: BTreeMap<PathBuf, Vec<(usize, Candidate)>> = BTreeMap::new();
        for (i, h) in homes.iter().enumerate() {
            for c in h.candidates(&mut ledger) {
                claims.entry(c.path.clone()).or_default().push((i, c));
            }
        }
        for (path, claimed) in claims {
            let who: Vec<_> = claimed
                .iter()
                .map(|(i, c)| (*i, c.exact, homes[*i].started))
                .collect();
            let made = claimed[0].1.file.modified;
            let i = claimant(made, &who);
            let c = &claimed.iter().find(|(j, _)| *j == i).expect("claimed").1;
            super::super::reader::read_new(&mut ledger, &path, c.vendor, &homes[i].agent, 0)
                .expect("read");
        }
        homes
            .iter()
            .map(|h| {
                let mut t = super::super::tokens::Tokens::default();
                for f in ledger.files_of(&h.agent) {
                    for v in f.by_model(None).values() {
                        t += *v;
                    }
                }
                (t.input, t.output)
            })
            .collect()
    }

    #[test]
    fn two_claude_agents_in_one_directory_each_read_their_own_conversation() {
        let dir = tempfile::tempdir().expect("tempdir");
        let projects = dir.path().join(".claude/projects/-w-p");
        let (a, b) = (
            "aaaaaaaa-1111-4111-8111-111111111111",
            "bbbbbbbb-2222-4222-8222-222222222222",
        );
        let turns = fixture("claude-2.1.330.jsonl");
        write(&projects.join(format!("{a}.jsonl")), &turns);
        write(
            &projects.join(format!("{b}.jsonl")),
            &(turns.clone() + &turns),
        );
        let agents = [
            home("agent-a", UsageSource::Claude, dir.path(), 100, Some(a)),
            home("agent-b", UsageSource::Claude, dir.path(), 200, Some(b)),
        ];
        // Both files were made after both agents started: by start times
        // alone both would go to agent-b.
        assert_eq!(read_all(&agents), [(20, 10), (40, 20)]);
        let guessed = [
            home("agent-a", UsageSource::Claude, dir.path(), 100, None),
            home("agent-b", UsageSource::Claude, dir.path(), 200, None),
        ];
        assert_eq!(read_all(&guessed), [(0, 0), (60, 30)]);
        // An agent swarm did not launch beside them takes neither.
        let mixed = [
            home("agent-a", UsageSource::Claude, dir.path(), 100, Some(a)),
            home("agent-b", UsageSource::Claude, dir.path(), 200, Some(b)),
            home("agent-c", UsageSource::Claude, dir.path(), 300, None),
        ];
        assert_eq!(read_all(&mixed), [(20, 10), (40, 20), (0, 0)]);
        // Before its conversation is written, an agent is looked for as
        // one swarm did not launch; a recorded id that is no id is not
        // used as a file name.
        let mut waiting = home(
            "agent-d",
            UsageSource::Claude,
            dir.path(),
            100,
            Some("dddd"),
        );
        assert_eq!(waiting.candidates(&mut Ledger::default()).len(), 2);
        waiting.conversation = Some("../aaaaaaaa-1111-4111-8111-111111111111".into());
        assert!(waiting.conversation_files(Path::new("/w/p")).is_none());
    }

    #[test]
    fn two_gemini_agents_in_one_directory_each_read_their_own_conversation() {
        let dir = tempfile::tempdir().expect("tempdir");
        let chats = dir
            .path()
            .join(".gemini/tmp")
            .join(hex_sha256("/w/p"))
            .join("chats");
        let (a, b) = (
            "aaaaaaaa-1111-4111-8111-111111111111",
            "bbbbbbbb-2222-4222-8222-222222222222",
        );
        let turns = |id: &str| {
            fixture("gemini-0.61.0.jsonl").replace("f87df01e-afba-4de9-b99c-29155c90b084", id)
        };
        write(
            &chats.join("session-2026-11-26T11-00-aaaaaaaa.jsonl"),
            &turns(a),
        );
        write(
            &chats.join("session-2026-11-26T11-02-bbbbbbbb.jsonl"),
            &turns(b),
        );
        // Named like agent-a's, but another conversation's.
        write(
            &chats.join("session-2026-11-26T11-03-aaaaaaaa.jsonl"),
            &turns("aaaaaaaa-9999-4999-8999-999999999999"),
        );
        let agents = [
            home("agent-a", UsageSource::Gemini, dir.path(), 100, Some(a)),
            home("agent-b", UsageSource::Gemini, dir.path(), 200, Some(b)),
        ];
        assert_eq!(read_all(&agents), [(20, 10), (20, 10)]);
        assert!(is_gemini_conversation(
            Path::new("/x/session-2026-11-26T11-00-f87d.jsonl"),
            "f87df01e-afba-4de9-b99c-29155c90b084"
        ));
        assert!(!is_gemini_conversation(Path::new("/x/session.jsonl"), a));
        assert!(is_gemini_conversation(
            Path::new(&format!("/x/session-2026-11-26T11-00-{a}.jsonl")),
            a
        ));
    }
}
