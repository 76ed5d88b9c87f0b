//! Tokens over time (docs/FORMATS.md, `GET /api/v1/usage?series=hour`):
//! per agent, the tokens it counted (input plus output) in each hour of
//! the last day, from the ledger's quarter-hour buckets. The answer is
//! always 24 figures per agent, whatever the number of records behind
//! them.

use serde::Serialize;

use crate::domain::Timestamp;

use super::ledger::Ledger;

/// The length of a step of the series, seconds.
pub(crate) const STEP_SECS: i64 = 3600;

/// How many steps the series has: a day of hours.
pub(crate) const STEPS: usize = 24;

/// Tokens per hour over the last day, per agent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// `hour`.
    pub step: &'static str,
    /// The step's length, seconds.
    pub step_secs: i64,
    /// The first step's start, RFC 3339 (UTC); the last step holds the
    /// current hour.
    pub start: String,
    /// The first step's start, Unix seconds.
    pub start_unix: i64,
    /// Each agent shown, in the report's order.
    pub agents: Vec<AgentSeries>,
}

/// One agent's tokens per step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentSeries {
    /// Its id.
    pub agent: String,
    /// Input plus output tokens in each step, oldest first (`STEPS` of
    /// them).
    pub tokens: Vec<u64>,
}

/// The series of `agents` in `ledger`, for the day up to `now`.
pub fn hourly_series(ledger: &Ledger, agents: &[String], now: i64) -> Series {
    let first = now.div_euclid(STEP_SECS) * STEP_SECS - STEP_SECS * (STEPS as i64 - 1);
    let agents = agents
        .iter()
        .map(|agent| {
            let mut tokens = vec![0u64; STEPS];
            for file in ledger.files_of(agent) {
                for b in &file.buckets {
                    let Ok(i) = usize::try_from((b.start - first).div_euclid(STEP_SECS)) else {
                        continue;
                    };
                    if let Some(slot) = tokens.get_mut(i) {
                        *slot = slot.saturating_add(b.tokens.counted());
                    }
                }
            }
            AgentSeries {
                agent: agent.clone(),
                tokens,
            }
        })
        .collect();
    Series {
        step: "hour",
        step_secs: STEP_SECS,
        start: Timestamp::from_unix_seconds(first as f64)
            .map(Timestamp::utc_iso)
            .unwrap_or_default(),
        start_unix: first,
        agents,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::ledger::{Bucket, FileCursor};
    use crate::usage::tokens::Tokens;
    use crate::usage::vendor::UsageSource;

    fn bucket(start: i64, input: u64) -> Bucket {
        Bucket {
            start,
            model: "m".into(),
            tokens: Tokens {
                input,
                output: 1,
                cache_read: 1000,
                ..Tokens::default()
            },
        }
    }

    #[test]
    fn quarter_hours_add_up_into_the_last_days_hours() {
        let now = 1_795_000_000 - 1_795_000_000 % 3600 + 1800;
        let hour = now - 1800;
        let mut ledger = Ledger::default();
        let mut f = FileCursor::new("agent-1", UsageSource::Claude, "/a.jsonl", 1, 1);
        // Two quarters of the current hour, one of the first hour shown,
        // one just before the day shown, one in the future.
        f.buckets = vec![
            bucket(hour - 23 * 3600 - 900, 500),
            bucket(hour - 23 * 3600, 7),
            bucket(hour, 10),
            bucket(hour + 900, 20),
            bucket(hour + 3600, 900),
        ];
        ledger.files.insert(f.path.clone(), f);
        let agents = vec!["agent-1".to_owned(), "agent-2".to_owned()];
        let s = hourly_series(&ledger, &agents, now);
        assert_eq!(s.start_unix, hour - 23 * 3600);
        assert_eq!(s.agents.len(), 2);
        let one = &s.agents[0].tokens;
        assert_eq!(one.len(), STEPS);
        assert_eq!(one[0], 8);
        assert_eq!(one[23], 32);
        assert_eq!(one.iter().sum::<u64>(), 40);
        assert_eq!(s.agents[1].tokens, vec![0; STEPS]);
    }
}
