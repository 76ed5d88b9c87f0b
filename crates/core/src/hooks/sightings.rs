//! `HookSightings`: which agents' own hooks were seen reporting, from
//! which pane, and which messages their prompt hooks confirmed, kept in
//! `.swarm/hook_sightings.json` (docs/FORMATS.md). The watcher reads it
//! to leave turn ends to the hooks of agents whose hooks work, and `msg`
//! to know whether a confirmation from the recipient's hook can come.
//! Hooks run on the agent's host, so the file is per host even on a
//! shared store.
//!
//! Every prompt and turn of every agent runs a hook, so a hook that
//! changes nothing readers act on does not rewrite the file (`unchanged`):
//! its pane, program, confirmed messages and which of its hooks were seen
//! are what they act on; the prompt's time is compared with when the
//! watcher saw the screen go idle, so it is written again once a watcher
//! round came after the one recorded; the other times are only shown to
//! people, and are written again once they are `REFRESH` old.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::domain::Timestamp;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Paths, StateFile, StoreError};

/// Version of the file's shape.
const VERSION: u32 = 1;

/// What a damaged file's notice ends with.
const SIGHTINGS_LOST: &str = ", and agents' screens are read until their hooks report again";

/// How many confirmed messages are kept per agent (the newest).
const KEPT_CONFIRMATIONS: usize = 64;

/// How old the shown times of a sighting (its last hook, its last turn's
/// end) grow before a hook that changes nothing else writes them again.
const REFRESH: Duration = Duration::from_secs(10);

/// One agent's hooks, as last seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sighting {
    /// The agent program (`claude`, `codex`, `gemini`).
    pub vendor: String,
    /// The pane the hook ran in (`%3`).
    #[serde(default)]
    pub pane: Option<String>,
    /// When a hook of this agent last ran.
    #[serde(with = "crate::domain::utc_iso")]
    pub last: Timestamp,
    /// The event it reported then.
    #[serde(default)]
    pub event: String,
    /// When its end-of-turn hook was last seen (`Stop`, `AfterAgent`).
    #[serde(default, with = "crate::domain::utc_iso::option")]
    pub turn_end: Option<Timestamp>,
    /// When its prompt hook was last seen (`UserPromptSubmit`,
    /// `BeforeAgent`).
    #[serde(default, with = "crate::domain::utc_iso::option")]
    pub prompt: Option<Timestamp>,
    /// The messages its prompt hook saw submitted, newest last.
    #[serde(default)]
    pub confirmed: Vec<Confirmed>,
}

/// A message the recipient's prompt hook saw submitted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmed {
    /// The message id (the short form, as typed into the pane).
    pub msg_id: String,
    /// When the hook saw it.
    #[serde(with = "crate::domain::utc_iso")]
    pub at: Timestamp,
}

impl Sighting {
    /// Whether these hooks report for the agent now in `pane`.
    pub fn serves(&self, pane: Option<&str>) -> bool {
        pane.is_some() && self.pane.as_deref() == pane
    }

    /// When the prompt hook confirmed `msg_id` (its full or short id).
    pub fn confirmed_at(&self, msg_id: &str) -> Option<Timestamp> {
        self.confirmed
            .iter()
            .rev()
            .find(|c| !c.msg_id.is_empty() && msg_id.starts_with(&c.msg_id))
            .map(|c| c.at)
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct SightingsFile {
    version: u32,
    #[serde(default)]
    agents: BTreeMap<String, Sighting>,
}

/// What one hook run reports about itself.
#[derive(Clone, Debug)]
pub struct Report<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The agent program.
    pub vendor: &'a str,
    /// Its pane.
    pub pane: Option<&'a str>,
    /// The event's name.
    pub event: &'a str,
    /// Whether it is an end-of-turn event.
    pub turn_end: bool,
    /// Whether it is a prompt event.
    pub prompt: bool,
    /// The messages the prompt holds.
    pub confirmed: &'a [String],
}

/// The sightings file of a project.
#[derive(Clone, Debug)]
pub struct HookSightings {
    file: StateFile,
    /// The watcher's record of its last round (`.swarm/pane_states.json`),
    /// written once a round: its time says when the watcher last looked.
    rounds: StateFile,
}

impl HookSightings {
    /// The sightings of `paths`'s project.
    pub fn new(paths: &Paths) -> HookSightings {
        HookSightings {
            file: StateFile::new(paths.hook_sightings()),
            rounds: StateFile::new(paths.pane_states()),
        }
    }

    /// Every agent's sighting (none when the file is missing or damaged:
    /// the screen then does the work, as for an agent without hooks). A
    /// damaged file is moved aside, with a notice, on the first read that
    /// finds it.
    pub fn load(&self) -> BTreeMap<String, Sighting> {
        self.file
            .load_or_set_aside::<SightingsFile>(SIGHTINGS_LOST)
            .map(|f| f.agents)
            .unwrap_or_default()
    }

    /// Records what a hook run reported, at `at`; a report that changes
    /// nothing readers act on leaves the file as it is (see the module's
    /// doc), without taking its lock.
    pub fn record(&self, report: &Report<'_>, at: Timestamp) -> Result<(), StoreError> {
        if let Some(old) = self.load().get(report.agent)
            && unchanged(old, report, at, self.rounds.modified())
        {
            return Ok(());
        }
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut data: SightingsFile = self.file.load_for_change(&lock, SIGHTINGS_LOST)?;
        data.version = VERSION;
        let entry = data
            .agents
            .entry(report.agent.to_owned())
            .or_insert_with(|| Sighting {
                vendor: String::new(),
                pane: None,
                last: at,
                event: String::new(),
                turn_end: None,
                prompt: None,
                confirmed: Vec::new(),
            });
        if entry.pane.as_deref() != report.pane || entry.vendor != report.vendor {
            // Another program in the pane, or the agent in another pane:
            // what the old hooks did says nothing of these.
            entry.turn_end = None;
            entry.prompt = None;
            entry.confirmed.clear();
        }
        entry.vendor = report.vendor.to_owned();
        entry.pane = report.pane.map(str::to_owned);
        entry.last = at;
        entry.event = report.event.to_owned();
        if report.turn_end {
            entry.turn_end = Some(at);
        }
        if report.prompt {
            entry.prompt = Some(at);
        }
        for id in report.confirmed {
            entry.confirmed.push(Confirmed {
                msg_id: id.clone(),
                at,
            });
        }
        let over = entry.confirmed.len().saturating_sub(KEPT_CONFIRMATIONS);
        entry.confirmed.drain(..over);
        let bytes = serde_json::to_vec_pretty(&data).map_err(|source| StoreError::Encode {
            path: self.file.path().to_owned(),
            source,
        })?;
        self.file.write_unsynced(&lock, &bytes)
    }

    /// Drops the sightings of agents that left the swarm.
    pub fn forget(&self, agents: &[String]) -> Result<(), StoreError> {
        if agents.is_empty() || !agents.iter().any(|a| self.load().contains_key(a)) {
            return Ok(());
        }
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut data: SightingsFile = self.file.load_for_change(&lock, SIGHTINGS_LOST)?;
        data.version = VERSION;
        data.agents.retain(|a, _| !agents.contains(a));
        let bytes = serde_json::to_vec_pretty(&data).map_err(|source| StoreError::Encode {
            path: self.file.path().to_owned(),
            source,
        })?;
        self.file.write_unsynced(&lock, &bytes)
    }
}

/// True when recording `report` at `at` over `old` would change nothing
/// readers act on: the same pane and program, no message newly confirmed,
/// a prompt or a turn's end seen before if this is one, the shown times
/// younger than `REFRESH`, and, for a prompt, its recorded time no older
/// than the watcher's last round (`round`, when a watcher ever ran): the
/// watcher takes a prompt after it saw the screen go idle for the start
/// of a turn.
fn unchanged(
    old: &Sighting,
    report: &Report<'_>,
    at: Timestamp,
    round: Option<SystemTime>,
) -> bool {
    let age = |t: Timestamp| (at.unix_seconds() - t.unix_seconds()).abs();
    let fresh = |t: Option<Timestamp>| t.is_some_and(|t| age(t) < REFRESH.as_secs_f64());
    let same_place = old.pane.as_deref() == report.pane && old.vendor == report.vendor;
    let confirmed = report
        .confirmed
        .iter()
        .all(|id| old.confirmed.iter().any(|c| c.msg_id == *id));
    let prompt_after_round = || {
        let Some(prompt) = old.prompt else {
            return false;
        };
        round.is_none_or(|r| {
            let r = r
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(f64::MAX, |d| d.as_secs_f64());
            prompt.unix_seconds() >= r
        })
    };
    same_place
        && confirmed
        && fresh(Some(old.last))
        && (!report.turn_end || fresh(old.turn_end))
        && (!report.prompt || (fresh(old.prompt) && prompt_after_round()))
}

/// The most `.swarm/hook_errors.log` grows to; past it, it starts afresh.
const MAX_ERROR_LOG: u64 = 1 << 20;

/// Writes a hook's trouble to `.swarm/hook_errors.log` (a hook never
/// stops its agent and prints nothing the agent would show): one JSON line
/// with the time, the agent, its program, the event and what went wrong.
/// Failing to write it is ignored: there is nowhere else to tell.
pub fn log_error(paths: &Paths, agent: Option<&str>, vendor: &str, event: &str, error: &str) {
    let line = serde_json::json!({
        "time": Timestamp::now().utc_iso(),
        "agent": agent,
        "vendor": vendor,
        "event": event,
        "error": crate::support::sanitize::one_line(error),
    });
    // One `write` to a file opened for appending: lines of hooks running
    // at once never interleave.
    if let Ok(mut bytes) = serde_json::to_vec(&line)
        && let Ok(mut file) =
            crate::store::AppendFile::new(paths.hook_errors()).open_for_child(MAX_ERROR_LOG)
    {
        bytes.push(b'\n');
        let _ = std::io::Write::write_all(&mut file, &bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report<'a>(pane: &'a str, event: &'a str, ids: &'a [String]) -> Report<'a> {
        Report {
            agent: "agent-1",
            vendor: "claude",
            pane: Some(pane),
            event,
            turn_end: event == "Stop",
            prompt: event == "UserPromptSubmit",
            confirmed: ids,
        }
    }

    #[test]
    fn records_turn_ends_and_confirmations_per_pane() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let s = HookSightings::new(&Paths::new(tmp.path()));
        assert!(s.load().is_empty());
        let now = Timestamp::now();
        s.record(&report("%1", "Stop", &[]), now).expect("record");
        let ids = vec!["abcd1234".to_owned()];
        s.record(&report("%1", "UserPromptSubmit", &ids), now)
            .expect("record");
        let seen = s.load().remove("agent-1").expect("seen");
        assert!(seen.serves(Some("%1")) && !seen.serves(Some("%2")) && !seen.serves(None));
        assert!(seen.turn_end.is_some() && seen.prompt.is_some());
        assert!(seen.confirmed_at("abcd1234-0000-4000").is_some());
        assert_eq!(seen.confirmed_at("ffff0000"), None);
        // The agent in another pane starts afresh.
        s.record(&report("%2", "SessionStart", &[]), now)
            .expect("record");
        let seen = s.load().remove("agent-1").expect("seen");
        assert!(seen.turn_end.is_none() && seen.confirmed.is_empty());
        s.forget(&["agent-1".into()]).expect("forget");
        assert!(s.load().is_empty());
    }

    #[test]
    fn a_hook_that_changes_nothing_readers_act_on_writes_nothing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(tmp.path());
        let s = HookSightings::new(&paths);
        let t0 = Timestamp::now();
        let at = |secs: f64| Timestamp::from_unix_seconds(t0.unix_seconds() + secs).expect("time");
        let near = |t: Option<Timestamp>, secs: f64| {
            t.is_some_and(|t| (t.unix_seconds() - at(secs).unix_seconds()).abs() < 0.01)
        };
        let prompt = || report("%1", "UserPromptSubmit", &[]);
        s.record(&prompt(), at(-1.0)).expect("record");
        let written = || std::fs::read_to_string(paths.hook_sightings()).expect("written");
        let first = written();
        // The same prompt a moment later, no watcher: nothing to write.
        s.record(&prompt(), at(-0.5)).expect("record");
        assert_eq!(written(), first);
        // A watcher round after the recorded prompt: the next prompt's time
        // is written, for the watcher compares it with its looks.
        std::fs::write(paths.pane_states(), "{}").expect("as set up");
        s.record(&prompt(), at(0.5)).expect("record");
        assert!(near(s.load()["agent-1"].prompt, 0.5));
        // A message confirmed, a first turn's end: written.
        let ids = vec!["abcd1234".to_owned()];
        s.record(&report("%1", "UserPromptSubmit", &ids), at(1.0))
            .expect("record");
        assert!(s.load()["agent-1"].confirmed_at("abcd1234").is_some());
        s.record(&report("%1", "Stop", &[]), at(2.0))
            .expect("record");
        assert!(near(s.load()["agent-1"].turn_end, 2.0));
        // Times only shown are written again once they are old.
        let before = written();
        s.record(&report("%1", "Stop", &[]), at(3.0))
            .expect("record");
        assert_eq!(written(), before);
        s.record(&report("%1", "Stop", &[]), at(20.0))
            .expect("record");
        assert!(near(Some(s.load()["agent-1"].last), 20.0));
    }
}
