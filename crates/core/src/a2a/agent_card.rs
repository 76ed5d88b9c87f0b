//! `AgentCard`: what one agent says it can do (docs/guide/python.md, Task coordination):
//! skills, tools, availability and learned success rates.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::support::time;

use super::OrderedMap;
use super::entries::Record;

/// Proficiency of a skill the card lists without a success rate.
pub(crate) const DEFAULT_PROFICIENCY: f64 = 0.5;

/// Whether an agent takes new work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Availability {
    /// Takes new work.
    #[default]
    Active,
    /// Working; takes nothing new.
    Busy,
    /// Away.
    Offline,
}

impl Availability {
    /// Every value.
    pub const ALL: [Availability; 3] = [
        Availability::Active,
        Availability::Busy,
        Availability::Offline,
    ];

    /// The word used in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Active => "active",
            Availability::Busy => "busy",
            Availability::Offline => "offline",
        }
    }
}

impl FromStr for Availability {
    type Err = String;

    fn from_str(s: &str) -> Result<Availability, String> {
        Availability::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| {
                format!("availability must be 'active', 'busy', or 'offline', got '{s}'")
            })
    }
}

impl fmt::Display for Availability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One agent's card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentCard {
    /// The agent.
    pub agent_id: String,
    /// A name for people.
    #[serde(default)]
    pub name: String,
    /// What the agent is for.
    #[serde(default)]
    pub description: String,
    /// What it can do (compared without case).
    #[serde(default)]
    pub skills: Vec<String>,
    /// Tools it can use (compared with case).
    #[serde(default)]
    pub tools: Vec<String>,
    /// Whether it takes new work.
    #[serde(default)]
    pub availability: Availability,
    /// Learned success rate per skill, 0..1.
    #[serde(default)]
    pub success_rates: OrderedMap<f64>,
    /// Skills it is especially good at (a scoring bonus).
    #[serde(default)]
    pub specializations: Vec<String>,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// Registered (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub created_at: String,
    /// Last changed (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub updated_at: String,
    /// Keys written by another version of either tool, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn now_iso() -> String {
    time::utc_iso(time::now())
}

impl Record for AgentCard {
    /// The Python tool's checks on every card it builds; a card failing
    /// them is not used (and kept untouched in the file).
    fn check(&self) -> Result<(), String> {
        if self.agent_id.is_empty() {
            return Err("agent_id is required".into());
        }
        for (skill, rate) in self.success_rates.iter() {
            if !(0.0..=1.0).contains(rate) {
                return Err(format!(
                    "success_rate for '{skill}' must be between 0.0 and 1.0, got {rate}"
                ));
            }
        }
        Ok(())
    }
}

impl AgentCard {
    /// A new active card named `name` (the id when empty).
    pub(crate) fn new(agent_id: &str, name: &str) -> AgentCard {
        let now = now_iso();
        AgentCard {
            agent_id: agent_id.to_owned(),
            name: if name.is_empty() { agent_id } else { name }.to_owned(),
            description: String::new(),
            skills: Vec::new(),
            tools: Vec::new(),
            availability: Availability::Active,
            success_rates: OrderedMap::new(),
            specializations: Vec::new(),
            metadata: Map::new(),
            created_at: now.clone(),
            updated_at: now,
            extra: Map::new(),
        }
    }

    /// True when the card lists `skill`, in any case.
    pub fn has_skill(&self, skill: &str) -> bool {
        let skill = skill.to_lowercase();
        self.skills.iter().any(|s| s.to_lowercase() == skill)
    }

    /// How good the agent is at `skill`: 0 when it lacks it, else its
    /// success rate for it (key compared without case), else 0.5.
    pub fn proficiency(&self, skill: &str) -> f64 {
        if !self.has_skill(skill) {
            return 0.0;
        }
        let skill = skill.to_lowercase();
        self.success_rates
            .iter()
            .find(|(k, _)| k.to_lowercase() == skill)
            .map(|(_, rate)| *rate)
            .unwrap_or(DEFAULT_PROFICIENCY)
    }

    /// True when `skill` is one of its specializations, in any case.
    pub(crate) fn specializes_in(&self, skill: &str) -> bool {
        let skill = skill.to_lowercase();
        self.specializations
            .iter()
            .any(|s| s.to_lowercase() == skill)
    }

    /// True when it takes new work.
    pub fn is_available(&self) -> bool {
        self.availability == Availability::Active
    }

    /// Marks the card as changed now.
    pub(crate) fn touch(&mut self) {
        self.updated_at = now_iso();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proficiency_follows_the_python_rules() {
        let mut c = AgentCard::new("agent-0", "");
        assert_eq!(c.name, "agent-0");
        c.skills = vec!["Python".into(), "api".into()];
        c.success_rates.insert("PYTHON".into(), 0.9);
        assert_eq!(c.proficiency("python"), 0.9);
        assert_eq!(c.proficiency("API"), DEFAULT_PROFICIENCY);
        assert_eq!(c.proficiency("rust"), 0.0);
        // A rate without the skill does not count.
        c.success_rates.insert("rust".into(), 1.0);
        assert_eq!(c.proficiency("rust"), 0.0);
    }

    #[test]
    fn reads_python_cards_and_checks_them() {
        let text = r#"{"agent_id": "agent-0", "name": "Backend", "skills": ["python"],
            "availability": "busy", "success_rates": {"python": 0.55}}"#;
        let c: AgentCard = serde_json::from_str(text).expect("card");
        assert_eq!(c.availability, Availability::Busy);
        assert!(c.check().is_ok());
        let bad: AgentCard =
            serde_json::from_str(r#"{"agent_id": "a", "success_rates": {"x": 1.5}}"#)
                .expect("parses");
        assert!(bad.check().is_err());
        assert!(
            serde_json::from_str::<AgentCard>(r#"{"agent_id": "a", "availability": "away"}"#)
                .is_err()
        );
        assert!("away".parse::<Availability>().is_err());
        let keys: Vec<String> = serde_json::to_value(&c)
            .expect("value")
            .as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            keys,
            [
                "agent_id",
                "name",
                "description",
                "skills",
                "tools",
                "availability",
                "success_rates",
                "specializations",
                "metadata",
                "created_at",
                "updated_at"
            ]
        );
    }
}
