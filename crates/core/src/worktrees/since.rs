//! Who wrote what since a time: the commits on any local branch whose
//! `Swarm-Agent` trailer names an agent (the commit-msg hook of each
//! agent's worktree adds it), merged into the base or not, grouped by
//! agent with the files they changed.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::domain::validate;
use crate::support::time;

use super::error::WorktreeError;
use super::repository::{Repository, agent_order};

/// One commit an agent made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AgentCommit {
    /// Its id.
    pub commit: String,
    /// When it was committed (UTC, ISO 8601).
    pub committed_at: String,
    /// Its first line.
    pub subject: String,
    /// Whether the base branch holds it already.
    pub merged: bool,
    /// The files it changed.
    pub files: Vec<String>,
}

/// One agent's commits since the time asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AgentHistory {
    /// The agent.
    pub agent: String,
    /// Its commits, newest first.
    pub commits: Vec<AgentCommit>,
    /// Every file they changed, each once.
    pub files: Vec<String>,
}

/// Reads `--since`: an RFC 3339 time (`2026-05-01T09:00:00Z`) or a
/// duration back from `now` (`2h`, `30m`, `1d`, `1h30m`).
pub fn parse_since(input: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let t = input.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(t) {
        return Ok(at.with_timezone(&Utc));
    }
    let ago = time::parse_duration(t).map_err(|_| {
        format!(
            "invalid time {input:?}: give an RFC 3339 time (2026-05-01T09:00:00Z) or a duration \
             back from now (30m, 2h, 1d)"
        )
    })?;
    let ago = chrono::Duration::from_std(ago).map_err(|_| format!("{input:?} is too long ago"))?;
    now.checked_sub_signed(ago)
        .ok_or_else(|| format!("{input:?} is too long ago"))
}

/// Every agent's commits at `since` or later, as the module says.
pub fn history_since(
    repo: &Repository,
    since: DateTime<Utc>,
) -> Result<Vec<AgentHistory>, WorktreeError> {
    let base = repo.base()?.commit;
    let git = repo.git();
    let mut by_agent: BTreeMap<(u64, String), Vec<AgentCommit>> = BTreeMap::new();
    for c in git.log_since(since.timestamp())? {
        let Some(agent) = c.agent else { continue };
        // A trailer is text anyone can write: only a valid id counts.
        if validate::agent_id(&agent).map_or(true, |id| id != agent) {
            continue;
        }
        let merged = git.is_ancestor(&c.commit, &base)?;
        let committed_at = time::from_unix_seconds(c.committed as f64)
            .map(time::utc_iso)
            .unwrap_or_default();
        by_agent
            .entry(agent_order(&agent))
            .or_default()
            .push(AgentCommit {
                commit: c.commit,
                committed_at,
                subject: c.subject,
                merged,
                files: c.files,
            });
    }
    Ok(by_agent
        .into_iter()
        .map(|((_, agent), commits)| {
            let files: BTreeSet<String> = commits.iter().flat_map(|c| c.files.clone()).collect();
            AgentHistory {
                agent,
                commits,
                files: files.into_iter().collect(),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("time")
            .with_timezone(&Utc)
    }

    #[test]
    fn durations_count_back_from_now() {
        let now = at("2026-05-01T12:00:00Z");
        assert_eq!(parse_since("2h", now), Ok(at("2026-05-01T10:00:00Z")));
        assert_eq!(parse_since("90m", now), Ok(at("2026-05-01T10:30:00Z")));
        assert_eq!(parse_since("1d", now), Ok(at("2026-04-30T12:00:00Z")));
        assert_eq!(parse_since("1h30m", now), Ok(at("2026-05-01T10:30:00Z")));
        assert_eq!(parse_since("45", now), Ok(at("2026-05-01T11:59:15Z")));
    }

    #[test]
    fn rfc3339_times_are_taken_as_given() {
        let now = at("2026-05-01T12:00:00Z");
        assert_eq!(
            parse_since("2026-04-01T09:00:00+02:00", now),
            Ok(at("2026-04-01T07:00:00Z"))
        );
    }

    #[test]
    fn anything_else_is_refused() {
        let now = at("2026-05-01T12:00:00Z");
        for bad in ["", "yesterday", "2h ago", "-2h", "2026-05-01", "h2"] {
            assert!(parse_since(bad, now).is_err(), "{bad:?}");
        }
        assert!(parse_since("999999999999d", now).is_err());
    }
}
