//! `Tally`: what `swarm usage`, a send and the watcher ask of usage. It
//! finds each local agent's records from its pane (`locate`), reads what
//! they gained into the ledger (`reader`) under the ledger's lock, and
//! judges each agent's budget (`budget`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::agents::agent_matcher::AgentMatcher;
use crate::agents::registry::{AgentRecord, AgentStatus, Registry};
use crate::agents::sessions::record::{RecordedState, SessionRecord};
use crate::agents::sessions::session_store::SessionStore;
use crate::config::{BudgetConfig, Config};
use crate::error::Result;
use crate::store::Paths;

use super::budget::{self, BudgetLine, Spent};
use super::ledger::Ledger;
use super::locate::{self, AgentHome, Candidate};
use super::on_files::LedgerFile;
use super::prices::Prices;
use super::reader;

/// What usage needs from the config: the budget and the prices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UsageSettings {
    /// `[budget]`.
    pub budget: BudgetConfig,
    /// The built-in prices with `[prices.MODEL]` over them.
    pub prices: Prices,
}

impl UsageSettings {
    /// The settings `config` gives.
    pub(crate) fn from_config(config: &Config) -> UsageSettings {
        UsageSettings {
            budget: config.budget.clone(),
            prices: Prices::new(&config.prices),
        }
    }
}

/// Usage of one project's agents on this host.
#[derive(Clone, Copy)]
pub struct Tally<'a> {
    /// The project's files.
    pub paths: &'a Paths,
    /// Recognises the agent process in a pane.
    pub matcher: &'a AgentMatcher,
    /// The budget and the prices.
    pub settings: &'a UsageSettings,
    /// The sessions `swarm launch` recorded: the conversation id it chose
    /// for each agent finds that agent's records exactly.
    pub sessions: &'a dyn SessionStore,
}

impl std::fmt::Debug for Tally<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tally")
            .field("paths", self.paths)
            .field("settings", self.settings)
            .finish_non_exhaustive()
    }
}

/// The conversation swarm chose for each agent of a running session on
/// this host (`here`; every session without a shared store), by agent id;
/// the latest session started or resumed wins.
pub(crate) fn conversations(
    sessions: &[SessionRecord],
    here: Option<&str>,
) -> BTreeMap<String, String> {
    let mut running: Vec<&SessionRecord> = sessions
        .iter()
        .filter(|s| s.state == RecordedState::Running)
        .filter(|s| match (&s.host, here) {
            (Some(h), Some(here)) => h == here,
            _ => true,
        })
        .collect();
    running.sort_by_key(|s| {
        s.resumed_at
            .clone()
            .unwrap_or_else(|| s.launched_at.clone())
    });
    let mut out = BTreeMap::new();
    for s in running {
        for a in &s.agents {
            match &a.conversation {
                Some(c) => {
                    out.insert(a.id.clone(), c.clone());
                }
                None => {
                    out.remove(&a.id);
                }
            }
        }
    }
    out
}

/// How each agent stands against its budget.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standing {
    /// Each agent's own limits, by agent.
    pub agents: BTreeMap<String, Vec<BudgetLine>>,
    /// The swarm's limits.
    pub swarm: Vec<BudgetLine>,
}

impl Standing {
    /// Whether `agent` is over a budget now.
    pub fn is_over(&self, agent: &str) -> bool {
        self.worst(agent)
            .is_some_and(|l| l.level == budget::BudgetLevel::Over)
    }

    /// The worst level of `agent`'s limits and the swarm's, with the line
    /// that says so.
    pub(crate) fn worst(&self, agent: &str) -> Option<&BudgetLine> {
        self.agents
            .get(agent)
            .into_iter()
            .flatten()
            .chain(self.swarm.iter())
            .max_by(|a, b| a.severity(b))
    }
}

/// The time now, Unix seconds.
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Tally<'_> {
    /// Reads what every local agent's records gained since the last look
    /// and returns the ledger, with notes for people (an agent whose
    /// process could not be read, a damaged ledger moved aside). `here`:
    /// this host's name on a shared store (other hosts' agents are
    /// skipped: their records are on their host).
    pub fn refresh(
        &self,
        registry: &Registry,
        here: Option<&str>,
    ) -> Result<(Ledger, Vec<String>)> {
        let survey = self.matcher.processes().survey()?;
        let mut notes = Vec::new();
        // Without the records, the agents' files are found as for an
        // agent swarm did not launch.
        let chosen = match self.sessions.list() {
            Ok(list) => conversations(&list, here),
            Err(e) => {
                notes.push(format!("could not read the recorded sessions: {e}"));
                BTreeMap::new()
            }
        };
        let mut homes: Vec<AgentHome> = Vec::new();
        for a in registry.agents.iter().filter(|a| is_local(a, here)) {
            match locate::agent_home(self.matcher, &survey, a.id.as_str(), a.pid) {
                Some(home) if home.home.is_none() && home.claude_dir.is_none() => {
                    notes.push(format!(
                        "{}: could not read the environment of its process {} (only its own user may): its usage is not known",
                        a.id, home.pid
                    ));
                }
                Some(mut home) => {
                    home.conversation = chosen.get(a.id.as_str()).cloned();
                    homes.push(home);
                }
                None => {}
            }
        }
        let now = now_secs();
        let (ledger, note) = LedgerFile::new(self.paths).update(|ledger| {
            let mut claims: BTreeMap<PathBuf, Vec<(usize, Candidate)>> = BTreeMap::new();
            for (i, home) in homes.iter().enumerate() {
                for c in home.candidates(ledger) {
                    claims.entry(c.path.clone()).or_default().push((i, c));
                }
                let started = home
                    .started
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map(|d| d.as_secs() as i64);
                let period = ledger.agents.entry(home.agent.clone()).or_default();
                if started.is_some() && period.session_start != started {
                    period.session_start = started;
                }
            }
            let mut problems = Vec::new();
            for (path, claimed) in claims {
                let who: Vec<(usize, bool, Option<SystemTime>)> = claimed
                    .iter()
                    .map(|(i, c)| (*i, c.exact, homes[*i].started))
                    .collect();
                let made = claimed
                    .first()
                    .and_then(|(_, c)| c.file.created.or(c.file.modified));
                let owner = locate::claimant(made, &who);
                let Some((_, c)) = claimed.iter().find(|(i, _)| *i == owner) else {
                    continue;
                };
                if let Err(e) = reader::read_new(ledger, &path, c.vendor, &homes[owner].agent, now)
                {
                    problems.push(e.to_string());
                }
            }
            (ledger.clone(), problems)
        })?;
        let (ledger, problems) = ledger;
        notes.extend(note);
        notes.extend(problems);
        Ok((ledger, notes))
    }

    /// How each agent in `ledger` (and every agent of `registry`, records
    /// or not) stands against the budget at `now`.
    pub fn standing(&self, ledger: &Ledger, registry: &Registry, now: i64) -> Standing {
        let config = &self.settings.budget;
        let mut agents: Vec<String> = ledger.agents_with_records();
        agents.extend(registry.agents.iter().map(|a| a.id.to_string()));
        agents.sort();
        agents.dedup();
        let mut out = Standing::default();
        let mut total = Spent::default();
        for agent in agents {
            let s = self.spent(ledger, &agent, now);
            total.tokens += s.tokens;
            total.cost += s.cost;
            out.agents.insert(agent, budget::agent_lines(config, &s));
        }
        out.swarm = budget::swarm_lines(config, &total);
        out
    }

    /// What `agent` spent in its current period.
    pub(crate) fn spent(&self, ledger: &Ledger, agent: &str, now: i64) -> Spent {
        let (start, by_reset) =
            budget::period_start(&self.settings.budget, ledger.agents.get(agent), now);
        budget::spent(ledger, agent, start, by_reset, &self.settings.prices)
    }

    /// Starts a new budget period for `agent` now (`swarm budget reset`).
    pub fn reset(&self, agent: &str) -> Result<Option<String>> {
        let now = now_secs();
        let prices = &self.settings.prices;
        let ((), note) = LedgerFile::new(self.paths)
            .update(|ledger| budget::reset(ledger, agent, now, prices))?;
        Ok(note)
    }

    /// Marks `agent` as told that it is over its budget in its current
    /// period; `true` when it had not been told in it yet (so exactly one
    /// caller tells).
    pub(crate) fn mark_told(&self, agent: &str) -> Result<bool> {
        let now = now_secs();
        let config = &self.settings.budget;
        let (first, _) = LedgerFile::new(self.paths).update(|ledger| {
            let (start, _) = budget::period_start(config, ledger.agents.get(agent), now);
            let key = start.unwrap_or(0);
            let period = ledger.agents.entry(agent.to_owned()).or_default();
            period.told_for.replace(key) != Some(key)
        })?;
        Ok(first)
    }
}

/// Whether `a`'s pane is on this host.
fn is_local(a: &AgentRecord, here: Option<&str>) -> bool {
    a.status != AgentStatus::Dead && a.elsewhere(here).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BudgetPeriod;

    #[test]
    fn an_agent_is_told_once_per_period() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let matcher = AgentMatcher::default();
        let sessions = crate::agents::sessions::on_files::FileSessions::new(&paths);
        let settings = UsageSettings {
            budget: BudgetConfig {
                agent_tokens: Some(10),
                period: BudgetPeriod::Session,
                ..BudgetConfig::default()
            },
            prices: Prices::default(),
        };
        let tally = Tally {
            paths: &paths,
            matcher: &matcher,
            settings: &settings,
            sessions: &sessions,
        };
        assert!(tally.mark_told("agent-1").expect("mark"));
        assert!(!tally.mark_told("agent-1").expect("mark"));
        assert!(tally.mark_told("agent-2").expect("mark"));
        // A reset starts a new period, in which it is told again.
        tally.reset("agent-1").expect("reset");
        assert!(tally.mark_told("agent-1").expect("mark"));
        assert!(!tally.mark_told("agent-1").expect("mark"));
    }

    #[test]
    fn the_latest_running_session_on_this_host_names_an_agents_conversation() {
        use crate::agents::sessions::record::sample;
        let old = sample("old", "claude");
        let mut newer = sample("new", "claude");
        newer.resumed_at = Some("2026-11-26T12:00:00Z".into());
        newer.agents[0].conversation = Some("c-new".into());
        let mut stopped = sample("stopped", "claude");
        stopped.state = RecordedState::Stopped;
        stopped.launched_at = "2026-11-26T13:00:00Z".into();
        stopped.agents[0].conversation = Some("c-stopped".into());
        let mut elsewhere = sample("elsewhere", "gemini");
        elsewhere.host = Some("other".into());
        elsewhere.launched_at = "2026-11-26T14:00:00Z".into();
        elsewhere.agents[0].conversation = Some("c-other".into());
        let all = [newer.clone(), old.clone(), stopped, elsewhere];
        let chosen = conversations(&all, Some("here"));
        assert_eq!(chosen.get("agent-0").map(String::as_str), Some("c-new"));
        assert_eq!(
            conversations(&all, None).get("agent-0").map(String::as_str),
            Some("c-other")
        );
        // A later session whose agent has none (Codex) names none.
        let mut codex = sample("codex", "codex");
        codex.launched_at = "2026-11-26T15:00:00Z".into();
        codex.agents[0].conversation = None;
        assert!(conversations(&[old, codex], None).is_empty());
    }
}
