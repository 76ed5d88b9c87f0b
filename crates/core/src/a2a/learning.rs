//! Learning data, `LEARNING_DATA.json` (docs/guide/python.md, Task coordination): each
//! agent's task counts, response times and per-skill success rates.
//! swarm only reads it; reading never creates a record (the original
//! created one on every `learning stats`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::Result;
use crate::support::time;

use super::OrderedMap;
use super::a2a_store::{A2aStore, Collection};
use super::entries::Record;
use super::records::Records;

/// How one agent does with one skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillMetrics {
    /// The skill.
    #[serde(default)]
    pub skill: String,
    /// Successes.
    #[serde(default)]
    pub success_count: u64,
    /// Failures.
    #[serde(default)]
    pub failure_count: u64,
    /// Both.
    #[serde(default)]
    pub total_count: u64,
    /// Moving average of success, 0..1.
    #[serde(default = "half")]
    pub success_rate: f64,
    /// Moving average, seconds.
    #[serde(default)]
    pub avg_completion_time: f64,
    /// Last use.
    #[serde(default)]
    pub last_used: Option<String>,
    /// -1 declining, 0 steady, 1 improving.
    #[serde(default)]
    pub trend: i64,
}

/// One agent's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentPerformance {
    /// Whose.
    pub agent_id: String,
    /// Tasks completed.
    #[serde(default)]
    pub tasks_completed: u64,
    /// Tasks failed.
    #[serde(default)]
    pub tasks_failed: u64,
    /// Tasks under way.
    #[serde(default)]
    pub tasks_in_progress: u64,
    /// Per skill.
    #[serde(default)]
    pub skill_metrics: OrderedMap<SkillMetrics>,
    /// Moving average of success, 0..1.
    #[serde(default = "half")]
    pub overall_success_rate: f64,
    /// Seconds.
    #[serde(default)]
    pub avg_response_time: f64,
    /// Seconds.
    #[serde(default)]
    pub avg_completion_time: f64,
    /// Last activity.
    #[serde(default)]
    pub last_active: Option<String>,
    /// Created (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub created_at: String,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// Keys written by another version of either tool, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn half() -> f64 {
    0.5
}

fn now_iso() -> String {
    time::utc_iso(time::now())
}

impl Record for AgentPerformance {}

impl AgentPerformance {
    /// A record with nothing learned yet, as the Python tool would create
    /// it (not stored).
    pub fn empty(agent: &str) -> AgentPerformance {
        AgentPerformance {
            agent_id: agent.to_owned(),
            tasks_completed: 0,
            tasks_failed: 0,
            tasks_in_progress: 0,
            skill_metrics: OrderedMap::new(),
            overall_success_rate: 0.5,
            avg_response_time: 0.0,
            avg_completion_time: 0.0,
            last_active: None,
            created_at: now_iso(),
            metadata: Map::new(),
            extra: Map::new(),
        }
    }

    /// Skills (their keys) by success rate, best first (equal rates in
    /// file order).
    pub fn skills_by_success(&self) -> Vec<(&str, &SkillMetrics)> {
        let mut out: Vec<(&str, &SkillMetrics)> = self
            .skill_metrics
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        out.sort_by(|a, b| b.1.success_rate.total_cmp(&a.1.success_rate));
        out
    }
}

/// The learning data of one project.
#[derive(Clone, Debug)]
pub struct LearningStore<'a> {
    file: Records<'a>,
}

impl<'a> LearningStore<'a> {
    /// The learning data kept in `store`.
    pub fn new(store: &'a dyn A2aStore) -> LearningStore<'a> {
        LearningStore {
            file: Records::new(store, Collection::Learning),
        }
    }

    /// The record of `agent`; `None` when nothing was recorded yet.
    pub fn get(&self, agent: &str, notes: &mut Vec<String>) -> Result<Option<AgentPerformance>> {
        Ok(self
            .file
            .read::<AgentPerformance>(notes)?
            .get(agent)
            .cloned())
    }
}
