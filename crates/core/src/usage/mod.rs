//! Usage and budgets: what each agent has spent, read incrementally from
//! the usage records its own vendor writes under the agent's home (Claude
//! Code, Codex CLI, Gemini CLI), priced per model, and judged against the
//! `[budget]` limits (docs/USAGE.md). The ledger of what was read is
//! `.swarm/usage.json`.

pub(crate) mod budget;
mod claude;
mod codex;
mod gemini;
pub(crate) mod ledger;
pub(crate) mod locate;
mod on_files;
pub(crate) mod prices;
mod reader;
pub(crate) mod report;
pub(crate) mod series;
pub(crate) mod tally;
pub(crate) mod tokens;
pub(crate) mod vendor;

pub(crate) use tally::{Standing, Tally, UsageSettings};
