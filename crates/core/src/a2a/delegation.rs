//! Choosing an agent for a task (docs/guide/python.md, Task coordination): the skills a task needs are
//! read from its files, its words and explicit mentions; each active
//! agent card is scored against them; the best one gets the task, and
//! every attempt is recorded in `DELEGATION_HISTORY.json`. The numbers
//! (importances, priority boosts, the specialization bonus) are the
//! Python tool's, so both tools pick the same agent.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::Result;
use crate::support::sanitize;
use crate::support::time;

use super::OrderedMap;
use super::a2a_store::{A2aStore, Collection};
use super::agent_card::AgentCard;
use super::card_registry::CardRegistry;
use super::entries::Record;
use super::error::A2aError;
use super::records::Records;
use super::task::{Task, TaskPriority};
use super::task_store::TaskStore;

/// Importance of a skill implied by a file's extension.
pub(crate) const FILE_IMPORTANCE: f64 = 0.8;
/// Importance of a skill implied by a keyword.
pub(crate) const KEYWORD_IMPORTANCE: f64 = 0.7;
/// Importance of a skill named explicitly ("requires rust").
pub(crate) const EXPLICIT_IMPORTANCE: f64 = 1.0;
/// Bonus per specialization, times the skill's importance.
pub(crate) const SPECIALIZATION_BONUS: f64 = 0.05;
/// The most the specialization bonus adds.
pub(crate) const SPECIALIZATION_CAP: f64 = 0.15;
/// Score of an available agent for a task that needs no particular skill
/// (plus the priority boost).
pub(crate) const NO_REQUIREMENT_SCORE: f64 = 0.5;
/// Entries kept in the delegation history.
pub(crate) const HISTORY_CAP: usize = 1000;
/// Alternatives recorded with a delegation.
pub(crate) const ALTERNATIVES: usize = 3;

/// Skills implied by a file extension (lower case, with the dot).
const EXTENSION_SKILLS: [(&str, &[&str]); 21] = [
    (".py", &["python", "backend"]),
    (".js", &["javascript", "frontend"]),
    (".ts", &["typescript", "frontend"]),
    (".tsx", &["typescript", "react", "frontend"]),
    (".jsx", &["javascript", "react", "frontend"]),
    (".go", &["golang", "backend"]),
    (".rs", &["rust", "systems"]),
    (".java", &["java", "backend"]),
    (".kt", &["kotlin", "android"]),
    (".swift", &["swift", "ios"]),
    (".css", &["css", "styling", "frontend"]),
    (".scss", &["sass", "styling", "frontend"]),
    (".html", &["html", "frontend"]),
    (".sql", &["sql", "database"]),
    (".md", &["documentation", "markdown"]),
    (".yaml", &["yaml", "configuration"]),
    (".yml", &["yaml", "configuration"]),
    (".json", &["json", "configuration"]),
    (".toml", &["toml", "configuration"]),
    (".sh", &["shell", "scripting", "bash"]),
    (".dockerfile", &["docker", "devops"]),
];

/// Skills implied by a keyword anywhere in the objective or constraints
/// (a substring test, as in the original: `ci` also matches "decide").
const KEYWORD_SKILLS: [(&str, &[&str]); 22] = [
    ("test", &["testing"]),
    ("spec", &["testing"]),
    ("unit", &["testing", "unit-testing"]),
    ("integration", &["testing", "integration-testing"]),
    ("api", &["api", "backend"]),
    ("auth", &["authentication", "security"]),
    ("login", &["authentication"]),
    ("security", &["security"]),
    ("database", &["database"]),
    ("db", &["database"]),
    ("migration", &["database", "migration"]),
    ("docker", &["docker", "devops"]),
    ("deploy", &["deployment", "devops"]),
    ("ci", &["ci-cd", "devops"]),
    ("performance", &["performance", "optimization"]),
    ("refactor", &["refactoring", "code-quality"]),
    ("bug", &["debugging"]),
    ("fix", &["debugging"]),
    ("review", &["code-review"]),
    ("document", &["documentation"]),
    ("config", &["configuration"]),
    ("setup", &["configuration", "setup"]),
];

/// Phrases after which the next word names a required skill, longest
/// spelling first (as the original's regex tries them).
const MENTIONS: [&str; 6] = [
    "requires",
    "require",
    "needs",
    "need",
    "expertise in",
    "experience with",
];

/// A skill a task needs, and how much it matters (0..1).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Requirement {
    /// The skill (lower case).
    pub skill: String,
    /// How much it counts in the score.
    pub importance: f64,
}

/// The score boost of a task's priority.
pub(crate) fn priority_boost(priority: TaskPriority) -> f64 {
    match priority {
        TaskPriority::Critical => 0.1,
        TaskPriority::High => 0.05,
        TaskPriority::Normal => 0.0,
        TaskPriority::Low => -0.05,
    }
}

/// The skills `task` needs, most important first (ties in the order they
/// were found: files, then keywords, then explicit mentions).
pub(crate) fn requirements(task: &Task) -> Vec<Requirement> {
    let mut found: OrderedMap<f64> = OrderedMap::new();
    let mut need = |skill: &str, importance: f64| {
        let current = found.get(skill).copied().unwrap_or(0.0);
        found.insert(skill.to_owned(), current.max(importance));
    };
    for file in &task.files {
        let ext = python_suffix(file).to_lowercase();
        if let Some((_, skills)) = EXTENSION_SKILLS.iter().find(|(e, _)| *e == ext) {
            for skill in *skills {
                need(skill, FILE_IMPORTANCE);
            }
        }
    }
    let text = format!("{} {}", task.objective, task.constraints.join(" ")).to_lowercase();
    for (keyword, skills) in KEYWORD_SKILLS {
        if text.contains(keyword) {
            for skill in skills {
                need(skill, KEYWORD_IMPORTANCE);
            }
        }
    }
    for skill in mentioned_skills(&text) {
        need(&skill, EXPLICIT_IMPORTANCE);
    }
    let mut out: Vec<Requirement> = found
        .iter()
        .map(|(skill, importance)| Requirement {
            skill: skill.to_owned(),
            importance: *importance,
        })
        .collect();
    // Stable: equal importances keep the order they were found in.
    out.sort_by(|a, b| b.importance.total_cmp(&a.importance));
    out
}

/// The suffix of the last path component as Python's `PurePath.suffix`
/// computes it: from the last dot, unless the dot starts or ends the name.
fn python_suffix(path: &str) -> &str {
    let name = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() => &name[i..],
        _ => "",
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The words after "requires", "needs", "expertise in" or "experience
/// with" (and their singular forms) followed by whitespace: what the
/// original's regex `(?:requires?|needs?|expertise in|experience
/// with)\s+(\w+)` finds, scanning left to right without overlaps.
fn mentioned_skills(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    'scan: while at < text.len() {
        let rest = &text[at..];
        for phrase in MENTIONS {
            let Some(after) = rest.strip_prefix(phrase) else {
                continue;
            };
            let spaces = after.len() - after.trim_start().len();
            if spaces == 0 {
                continue;
            }
            let word_start = &after[spaces..];
            let word_len: usize = word_start
                .chars()
                .take_while(|c| is_word_char(*c))
                .map(char::len_utf8)
                .sum();
            if word_len == 0 {
                continue;
            }
            out.push(word_start[..word_len].to_owned());
            at += phrase.len() + spaces + word_len;
            continue 'scan;
        }
        at += rest.chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// How well one card fits one task.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// 0..1 (can dip below 0 for a low-priority task).
    pub score: f64,
    /// The card's proficiency for each required skill.
    pub skill_matches: OrderedMap<f64>,
}

/// Scores `card` against `requirements` (docs/guide/python.md, Task coordination): the proficiencies
/// weighted by importance, plus the specialization bonus and `boost`.
pub(crate) fn score(card: &AgentCard, requirements: &[Requirement], boost: f64) -> Fit {
    if !card.is_available() {
        return Fit {
            score: 0.0,
            skill_matches: OrderedMap::new(),
        };
    }
    if requirements.is_empty() {
        return Fit {
            score: NO_REQUIREMENT_SCORE + boost,
            skill_matches: OrderedMap::new(),
        };
    }
    let mut total = 0.0;
    let mut weight = 0.0;
    let mut skill_matches = OrderedMap::new();
    for req in requirements {
        // The minimum proficiency of every requirement is 0 (the
        // original's default), so no requirement is ever skipped.
        let p = card.proficiency(&req.skill);
        skill_matches.insert(req.skill.clone(), p);
        total += p * req.importance;
        weight += req.importance;
    }
    let base = if weight > 0.0 {
        total / weight
    } else {
        NO_REQUIREMENT_SCORE
    };
    let mut bonus = 0.0;
    for req in requirements {
        if card.specializes_in(&req.skill) {
            bonus += SPECIALIZATION_BONUS * req.importance;
        }
    }
    let bonus = f64::min(bonus, SPECIALIZATION_CAP);
    Fit {
        score: f64::min(1.0, base + bonus + boost),
        skill_matches,
    }
}

/// The best card for a task.
#[derive(Clone, Debug, PartialEq)]
pub struct BestAgent {
    /// The card.
    pub card: AgentCard,
    /// How well it fits.
    pub fit: Fit,
}

/// The active card that fits `task` best (the first of equals, in file
/// order); `None` when no card scores above 0.
pub fn find_best(cards: &[AgentCard], task: &Task) -> Option<BestAgent> {
    let reqs = requirements(task);
    let boost = priority_boost(task.priority);
    let mut scored: Vec<BestAgent> = cards
        .iter()
        .filter(|c| c.is_available())
        .map(|c| BestAgent {
            card: c.clone(),
            fit: score(c, &reqs, boost),
        })
        .filter(|b| b.fit.score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.fit.score.total_cmp(&a.fit.score));
    scored.into_iter().next()
}

/// The other active cards that fit `task`, scored without the priority
/// boost, best first, at most `ALTERNATIVES`.
pub(crate) fn alternatives(cards: &[AgentCard], task: &Task, chosen: &str) -> Vec<(String, f64)> {
    let reqs = requirements(task);
    let mut alts: Vec<(String, f64)> = cards
        .iter()
        .filter(|c| c.is_available() && c.agent_id != chosen)
        .map(|c| (c.agent_id.clone(), score(c, &reqs, 0.0).score))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    alts.sort_by(|a, b| b.1.total_cmp(&a.1));
    alts.truncate(ALTERNATIVES);
    alts
}

/// One delegation attempt, as `DELEGATION_HISTORY.json` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DelegationResult {
    /// Whether the task was assigned.
    pub success: bool,
    /// The task.
    pub task_id: String,
    /// The agent chosen (`None` when there was none).
    #[serde(default)]
    pub agent_id: Option<String>,
    /// Its score.
    #[serde(default)]
    pub match_score: f64,
    /// Its proficiency for each required skill.
    #[serde(default)]
    pub skill_matches: OrderedMap<f64>,
    /// What happened, in words.
    #[serde(default)]
    pub reason: String,
    /// Other agents that would have fitted, as `[id, score]`.
    #[serde(default)]
    pub alternatives: Vec<(String, f64)>,
    /// When (aware UTC ISO).
    #[serde(default = "now_iso")]
    pub timestamp: String,
    /// Keys written by another version of either tool, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn now_iso() -> String {
    time::utc_iso(time::now())
}

impl Record for DelegationResult {}

impl DelegationResult {
    fn failure(task_id: &str, agent: Option<&str>, reason: String) -> DelegationResult {
        DelegationResult {
            success: false,
            task_id: task_id.to_owned(),
            agent_id: agent.map(str::to_owned),
            match_score: 0.0,
            skill_matches: OrderedMap::new(),
            reason,
            alternatives: Vec::new(),
            timestamp: now_iso(),
            extra: Map::new(),
        }
    }
}

/// Delegation over one project's cards, tasks and history.
#[derive(Clone, Debug)]
pub struct Delegation<'a> {
    cards: CardRegistry<'a>,
    tasks: TaskStore<'a>,
    history: Records<'a>,
}

impl<'a> Delegation<'a> {
    /// Delegation over the cards, tasks and history kept in `store`.
    pub fn new(store: &'a dyn A2aStore) -> Delegation<'a> {
        Delegation {
            cards: CardRegistry::new(store),
            tasks: TaskStore::new(store),
            history: Records::new(store, Collection::DelegationHistory),
        }
    }

    /// Gives the task `task_id` (or the one its prefix names) to the best
    /// active agent, assigning it and recording the attempt, success or
    /// not. A finished task is refused (the original assigned it anyway).
    pub fn delegate(&self, task_id: &str, notes: &mut Vec<String>) -> Result<DelegationResult> {
        let task = self.tasks.get(task_id, notes)?;
        if task.status.is_terminal() {
            return Err(A2aError::TaskClosed {
                id: sanitize::one_line(&task.task_id),
                status: task.status,
            });
        }
        let cards = self.cards.list(notes)?;
        let Some(best) = find_best(&cards, &task) else {
            let reason = A2aError::NoSuitableAgent;
            self.record(
                DelegationResult::failure(&task.task_id, None, capitalised(&reason)),
                notes,
            )?;
            return Err(reason);
        };
        let agent = best.card.agent_id.clone();
        let message = format!(
            "Delegated based on skill match (score: {:.2})",
            best.fit.score
        );
        // The task is read again under its lock: it may have changed since.
        let assigned = self.tasks.modify(&task.task_id, notes, |t| {
            if t.status.is_terminal() {
                return Err(A2aError::TaskClosed {
                    id: sanitize::one_line(&t.task_id),
                    status: t.status,
                });
            }
            t.assign(&agent, &message)
        });
        if let Err(e) = assigned {
            let failure = A2aError::AssignFailed(e.to_string());
            self.record(
                DelegationResult::failure(&task.task_id, Some(&agent), capitalised(&failure)),
                notes,
            )?;
            return Err(failure);
        }
        let result = DelegationResult {
            success: true,
            task_id: task.task_id.clone(),
            agent_id: Some(agent.clone()),
            match_score: best.fit.score,
            skill_matches: best.fit.skill_matches,
            reason: format!("Task delegated to {agent}"),
            alternatives: alternatives(&cards, &task, &agent),
            timestamp: now_iso(),
            extra: Map::new(),
        };
        self.record(result.clone(), notes)?;
        Ok(result)
    }

    fn record(&self, result: DelegationResult, notes: &mut Vec<String>) -> Result<()> {
        self.history
            .update::<DelegationResult, _>(notes, |history| {
                history.push(result);
                history.keep_last(HISTORY_CAP);
                Ok(())
            })
    }
}

/// An error's message with a capital first letter, as the original's
/// history records reasons ("No suitable agent found for this task").
fn capitalised(e: &A2aError) -> String {
    let text = e.to_string();
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::agent_card::Availability;
    use crate::a2a::task::NewTask;

    fn task(objective: &str, files: &[&str], priority: TaskPriority) -> Task {
        Task::new(NewTask {
            objective: objective.into(),
            created_by: "cli".into(),
            priority,
            files: files.iter().map(|f| f.to_string()).collect(),
            ..NewTask::default()
        })
    }

    fn card(id: &str, skills: &[&str]) -> AgentCard {
        let mut c = AgentCard::new(id, "");
        c.skills = skills.iter().map(|s| s.to_string()).collect();
        c
    }

    fn reqs(t: &Task) -> Vec<(String, f64)> {
        requirements(t)
            .into_iter()
            .map(|r| (r.skill, r.importance))
            .collect()
    }

    #[test]
    fn requirements_come_from_files_keywords_and_mentions() {
        let t = task(
            "Fix the login API; requires rust and needs   tokio",
            &[
                "src/app.PY",
                "web/App.tsx",
                "Dockerfile",
                "notes.",
                ".bashrc",
            ],
            TaskPriority::Normal,
        );
        let s = |x: &str| x.to_string();
        assert_eq!(
            reqs(&t),
            [
                (s("rust"), 1.0),
                (s("tokio"), 1.0),
                (s("python"), 0.8),
                (s("backend"), 0.8),
                (s("typescript"), 0.8),
                (s("react"), 0.8),
                (s("frontend"), 0.8),
                (s("api"), 0.7),
                (s("authentication"), 0.7),
                (s("debugging"), 0.7),
            ]
        );
        // Substring keywords, as in the original: "ci" in "decide".
        assert_eq!(
            reqs(&task("decide", &[], TaskPriority::Normal)),
            [(s("ci-cd"), 0.7), (s("devops"), 0.7)]
        );
        // A mention needs whitespace and a word after it.
        assert!(reqs(&task("it requires.", &[], TaskPriority::Normal)).is_empty());
        assert_eq!(
            reqs(&task(
                "experience with go, expertise in",
                &[],
                TaskPriority::Normal
            )),
            [(s("go"), 1.0)]
        );
        assert_eq!(
            reqs(&task("x", &["a/b.dockerfile"], TaskPriority::Normal)),
            [(s("docker"), 0.8), (s("devops"), 0.8)]
        );
    }

    #[test]
    fn scores_use_the_spec_numbers() {
        // No requirement: 0.5 plus the priority boost.
        let any = card("agent-0", &[]);
        for (priority, expected) in [
            (TaskPriority::Critical, 0.6),
            (TaskPriority::High, 0.55),
            (TaskPriority::Normal, 0.5),
            (TaskPriority::Low, 0.45),
        ] {
            let t = task("", &[], priority);
            let fit = score(&any, &requirements(&t), priority_boost(priority));
            assert_eq!(fit.score, expected, "{priority}");
        }
        // python 0.8 (rate 0.9), backend 0.8 (no rate: 0.5), testing 0.7
        // (missing: 0): (0.72 + 0.4 + 0) / 2.3.
        let mut c = card("agent-1", &["python", "backend"]);
        c.success_rates.insert("python".into(), 0.9);
        let t = task("test it", &["a.py"], TaskPriority::Normal);
        let fit = score(&c, &requirements(&t), 0.0);
        assert_eq!(
            fit.score,
            (0.9 * 0.8 + 0.5 * 0.8 + 0.0 * 0.7) / (0.8 + 0.8 + 0.7)
        );
        assert_eq!(
            fit.skill_matches
                .iter()
                .map(|(k, v)| (k.as_str(), v))
                .collect::<Vec<_>>(),
            [("python", &0.9), ("backend", &0.5), ("testing", &0.0)]
        );
        // Specialization bonus: 0.05 x importance each, at most 0.15.
        c.specializations = vec!["PYTHON".into()];
        let with_one = score(&c, &requirements(&t), 0.0).score;
        assert!((with_one - fit.score - 0.05 * 0.8).abs() < 1e-12);
        // 0.05 x (1.0 + 0.8 + 0.8 + 0.7) = 0.165, capped at 0.15.
        let t = task("test it; requires rust", &["a.py"], TaskPriority::Normal);
        c.specializations = vec![];
        let plain = score(&c, &requirements(&t), 0.0).score;
        c.specializations = ["rust", "python", "backend", "testing"]
            .map(String::from)
            .to_vec();
        let capped = score(&c, &requirements(&t), 0.0).score;
        assert!((capped - plain - 0.15).abs() < 1e-12, "{capped} {plain}");
        // Never above 1.
        let mut expert = card("agent-2", &["python", "backend"]);
        expert.success_rates.insert("python".into(), 1.0);
        expert.success_rates.insert("backend".into(), 1.0);
        expert.specializations = vec!["python".into()];
        let t = task("", &["a.py"], TaskPriority::Critical);
        assert_eq!(score(&expert, &requirements(&t), 0.1).score, 1.0);
        // Not available: 0.
        expert.availability = Availability::Busy;
        assert_eq!(score(&expert, &requirements(&t), 0.1).score, 0.0);
    }

    #[test]
    fn the_best_active_card_wins_and_ties_keep_file_order() {
        let cards = vec![
            card("agent-0", &["rust"]),
            card("agent-1", &["python"]),
            card("agent-2", &["python"]),
            {
                let mut c = card("agent-3", &["python"]);
                c.availability = Availability::Offline;
                c.success_rates.insert("python".into(), 1.0);
                c
            },
        ];
        let t = task("", &["a.py"], TaskPriority::Normal);
        let best = find_best(&cards, &t).expect("a fit");
        assert_eq!(best.card.agent_id, "agent-1");
        assert_eq!(
            alternatives(&cards, &t, "agent-1"),
            [("agent-2".to_string(), 0.25)]
        );
        // Nobody knows golang or backend, and the task is low priority:
        // every card scores 0 - 0.05.
        let t = task("", &["a.go"], TaskPriority::Low);
        assert!(find_best(&cards, &t).is_none());
    }
}
