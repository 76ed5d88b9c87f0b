//! Shared contexts, `CONTEXTS.json` (docs/guide/python.md, Task coordination): a named piece of work
//! that groups tasks, files and the decisions taken along the way, so
//! that an agent joining later can read why things are as they are.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::Result;
use crate::support::sanitize;
use crate::support::time;

use super::a2a_store::{A2aStore, Collection};
use super::entries::Record;
use super::error::A2aError;
use super::records::Records;

/// Decisions kept per context (the oldest go first).
pub(crate) const MAX_DECISIONS: usize = 100;

/// Where a context stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextStatus {
    /// Being worked on.
    #[default]
    Active,
    /// Done.
    Completed,
    /// Put away: not listed.
    Archived,
}

/// A decision taken in a context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// What was decided.
    pub decision: String,
    /// By whom.
    pub by: String,
    /// Why.
    #[serde(default)]
    pub reason: String,
    /// When (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub timestamp: String,
    /// What else was considered.
    #[serde(default)]
    pub alternatives_considered: Vec<String>,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

/// A shared context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedContext {
    /// Its id.
    pub context_id: String,
    /// A name for people (the id, when created by the command line).
    #[serde(default)]
    pub name: String,
    /// What it is about.
    #[serde(default)]
    pub summary: String,
    /// Where it stands.
    #[serde(default)]
    pub status: ContextStatus,
    /// Decisions, oldest first.
    #[serde(default)]
    pub decisions: Vec<Decision>,
    /// Files worked on.
    #[serde(default)]
    pub files_touched: Vec<String>,
    /// Related contexts.
    #[serde(default)]
    pub related_contexts: Vec<String>,
    /// Agents that took part.
    #[serde(default)]
    pub agents_involved: Vec<String>,
    /// Tasks in it.
    #[serde(default)]
    pub tasks: Vec<String>,
    /// Messages that matter to it.
    #[serde(default)]
    pub messages: Vec<String>,
    /// Free notes.
    #[serde(default)]
    pub notes: String,
    /// Created (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub created_at: String,
    /// Last changed (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub updated_at: String,
    /// Who created it.
    #[serde(default)]
    pub created_by: String,
    /// Anything else.
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// Keys written by another version of either tool, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn now_iso() -> String {
    time::utc_iso(time::now())
}

impl Record for SharedContext {}

impl SharedContext {
    /// A new active context named after its id, created by `creator`.
    pub fn new(id: &str, summary: &str, creator: &str, related: Vec<String>) -> SharedContext {
        let now = now_iso();
        SharedContext {
            context_id: id.to_owned(),
            name: id.to_owned(),
            summary: summary.to_owned(),
            status: ContextStatus::Active,
            decisions: Vec::new(),
            files_touched: Vec::new(),
            related_contexts: related,
            agents_involved: vec![creator.to_owned()],
            tasks: Vec::new(),
            messages: Vec::new(),
            notes: String::new(),
            created_at: now.clone(),
            updated_at: now,
            created_by: creator.to_owned(),
            metadata: Map::new(),
            extra: Map::new(),
        }
    }

    /// Records a decision (keeping the newest `MAX_DECISIONS`) and its
    /// author among the agents involved.
    pub(crate) fn add_decision(&mut self, decision: &str, by: &str, reason: &str) -> Decision {
        let d = Decision {
            decision: decision.to_owned(),
            by: by.to_owned(),
            reason: reason.to_owned(),
            timestamp: now_iso(),
            alternatives_considered: Vec::new(),
            metadata: Map::new(),
        };
        let excess = (self.decisions.len() + 1).saturating_sub(MAX_DECISIONS);
        self.decisions.drain(..excess);
        self.decisions.push(d.clone());
        if !by.is_empty() && !self.agents_involved.iter().any(|a| a == by) {
            self.agents_involved.push(by.to_owned());
        }
        self.updated_at = now_iso();
        d
    }
}

/// The shared contexts of one project.
#[derive(Clone, Debug)]
pub struct ContextStore<'a> {
    file: Records<'a>,
}

impl<'a> ContextStore<'a> {
    /// The contexts kept in `store`.
    pub fn new(store: &'a dyn A2aStore) -> ContextStore<'a> {
        ContextStore {
            file: Records::new(store, Collection::Contexts),
        }
    }

    /// The contexts that are not archived, most recently changed first
    /// (timestamps compared as text, as the original does).
    pub fn list(&self, notes: &mut Vec<String>) -> Result<Vec<SharedContext>> {
        let mut out: Vec<SharedContext> = self
            .file
            .read::<SharedContext>(notes)?
            .values()
            .filter(|c| c.status != ContextStatus::Archived)
            .cloned()
            .collect();
        out.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
        Ok(out)
    }

    /// The context `id`.
    pub fn get(&self, id: &str, notes: &mut Vec<String>) -> Result<Option<SharedContext>> {
        Ok(self.file.read::<SharedContext>(notes)?.get(id).cloned())
    }

    /// Creates a context; one with the same id is replaced only with
    /// `force` (the original replaced it silently).
    pub fn create(
        &self,
        context: SharedContext,
        force: bool,
        notes: &mut Vec<String>,
    ) -> Result<SharedContext> {
        self.file.update::<SharedContext, _>(notes, |contexts| {
            if !force && contexts.contains_key(&context.context_id) {
                return Err(A2aError::ContextExists(context.context_id.clone()));
            }
            contexts.insert(context.context_id.clone(), context.clone());
            Ok(context)
        })
    }

    /// Adds a decision to the context `id`.
    pub fn add_decision(
        &self,
        id: &str,
        decision: &str,
        by: &str,
        reason: &str,
        notes: &mut Vec<String>,
    ) -> Result<(SharedContext, Decision)> {
        self.file.update::<SharedContext, _>(notes, |contexts| {
            let context = contexts
                .get_mut(id)
                .ok_or_else(|| A2aError::NoContext(sanitize::one_line(id)))?;
            let d = context.add_decision(decision, by, reason);
            Ok((context.clone(), d))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_are_capped_and_authors_recorded() {
        let mut c = SharedContext::new("auth", "JWT", "agent-0", vec![]);
        for i in 0..(MAX_DECISIONS + 5) {
            c.add_decision(&format!("d{i}"), "agent-1", "");
        }
        assert_eq!(c.decisions.len(), MAX_DECISIONS);
        assert_eq!(c.decisions[0].decision, "d5");
        assert_eq!(c.agents_involved, ["agent-0", "agent-1"]);
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
                "context_id",
                "name",
                "summary",
                "status",
                "decisions",
                "files_touched",
                "related_contexts",
                "agents_involved",
                "tasks",
                "messages",
                "notes",
                "created_at",
                "updated_at",
                "created_by",
                "metadata"
            ]
        );
    }
}
