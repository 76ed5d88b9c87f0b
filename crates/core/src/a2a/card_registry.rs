//! `CardRegistry`: the agent cards of a project, `AGENT_CARDS.json`
//! (docs/guide/python.md, Task coordination): registering, updating and reading them.

use super::error::Result;
use crate::support::sanitize;

use super::a2a_store::{A2aStore, Collection};
use super::agent_card::{AgentCard, Availability};
use super::error::A2aError;
use super::records::Records;

/// Changes to a card; `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CardChanges {
    /// A new name.
    pub name: Option<String>,
    /// A new description.
    pub description: Option<String>,
    /// The new list of skills.
    pub skills: Option<Vec<String>>,
    /// The new list of tools.
    pub tools: Option<Vec<String>>,
    /// A new availability.
    pub availability: Option<Availability>,
}

impl CardChanges {
    /// True when nothing would change.
    pub fn is_empty(&self) -> bool {
        *self == CardChanges::default()
    }

    fn apply(self, card: &mut AgentCard) {
        if let Some(name) = self.name {
            card.name = name;
        }
        if let Some(description) = self.description {
            card.description = description;
        }
        if let Some(skills) = self.skills {
            card.skills = skills;
        }
        if let Some(tools) = self.tools {
            card.tools = tools;
        }
        if let Some(availability) = self.availability {
            card.availability = availability;
        }
        card.touch();
    }
}

/// What `register` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registered {
    /// A new card.
    New,
    /// The agent's card existed and was changed.
    Updated,
    /// The agent's card could not be read and was replaced.
    ReplacedUnreadable,
}

/// The cards of one project.
#[derive(Clone, Debug)]
pub struct CardRegistry<'a> {
    file: Records<'a>,
}

impl<'a> CardRegistry<'a> {
    /// The cards kept in `store`.
    pub fn new(store: &'a dyn A2aStore) -> CardRegistry<'a> {
        CardRegistry {
            file: Records::new(store, Collection::Cards),
        }
    }

    /// Every readable card, in file order.
    pub fn list(&self, notes: &mut Vec<String>) -> Result<Vec<AgentCard>> {
        Ok(self
            .file
            .read::<AgentCard>(notes)?
            .values()
            .cloned()
            .collect())
    }

    /// The card of `agent`.
    pub fn get(&self, agent: &str, notes: &mut Vec<String>) -> Result<Option<AgentCard>> {
        Ok(self.file.read::<AgentCard>(notes)?.get(agent).cloned())
    }

    /// Creates the card of `agent`, or changes the fields `changes` names
    /// on an existing one (the original replaced the name, skills and
    /// tools even when they were not given).
    pub fn register(
        &self,
        agent: &str,
        changes: CardChanges,
        notes: &mut Vec<String>,
    ) -> Result<(AgentCard, Registered)> {
        let (card, how) = self.file.update::<AgentCard, _>(notes, |cards| {
            if let Some(card) = cards.get_mut(agent) {
                changes.apply(card);
                return Ok((card.clone(), Registered::Updated));
            }
            let how = if cards.contains_key(agent) {
                Registered::ReplacedUnreadable
            } else {
                Registered::New
            };
            let mut card = AgentCard::new(agent, changes.name.as_deref().unwrap_or(""));
            changes.apply(&mut card);
            // A new card was created and changed in the same instant.
            card.updated_at = card.created_at.clone();
            cards.insert(agent.to_owned(), card.clone());
            Ok((card, how))
        })?;
        if how == Registered::ReplacedUnreadable {
            notes.push(format!(
                "{}: the unreadable card of {agent} was replaced by the new one",
                self.file.location()
            ));
        }
        Ok((card, how))
    }

    /// Changes an existing card.
    pub fn update(
        &self,
        agent: &str,
        changes: CardChanges,
        notes: &mut Vec<String>,
    ) -> Result<AgentCard> {
        self.file.update::<AgentCard, _>(notes, |cards| {
            let card = cards
                .get_mut(agent)
                .ok_or_else(|| A2aError::NoCard(sanitize::one_line(agent)))?;
            changes.apply(card);
            Ok(card.clone())
        })
    }
}
