//! The watcher's slow part, every `discovery_every`: the agents are
//! rediscovered (who joined, went stale and left goes into the feed by
//! `Operator::record_roster_with`), with a `[budget]` what they spent is
//! judged, worktree branches are looked at for files two agents changed
//! (each new overlap told once), and stale locks are removed; their feed
//! lines are returned for the round to write.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::agents::discovery::{self, DiscoverOptions};
use crate::agents::registry::Registry;
use crate::attention::event::{EventKind, FeedEntry};
use crate::backend::Operator;
use crate::locks::CleanReport;
use crate::messaging;
use crate::support::poll::deadline_in;
use crate::support::sanitize;
use crate::worktrees;

use super::outage::Tell;

/// When and how the agents are rediscovered.
#[derive(Debug)]
pub(super) struct Discovery {
    /// How often.
    every: Duration,
    /// How discovery runs.
    options: DiscoverOptions,
    /// Who tells the agents of a new overlap (`None`: nobody, the overlaps
    /// are only recorded).
    overlaps_from: Option<String>,
    /// When next: at once for a new watcher.
    next: Instant,
}

impl Discovery {
    /// Rediscovery every `every`, the first in the first round.
    pub(super) fn new(
        every: Duration,
        options: DiscoverOptions,
        overlaps_from: Option<String>,
    ) -> Discovery {
        Discovery {
            every,
            options,
            overlaps_from,
            next: Instant::now(),
        }
    }

    /// Rediscovers when it is time; `last_lines` are what each agent's
    /// screen last showed (an agent that left takes its lines into the
    /// feed, and is forgotten there). The feed lines of stale locks.
    pub(super) fn round(
        &mut self,
        op: &Operator,
        last_lines: &mut BTreeMap<String, Vec<String>>,
        tell: &mut Tell<'_>,
    ) -> Vec<FeedEntry> {
        if Instant::now() < self.next {
            return Vec::new();
        }
        self.rediscover(op, last_lines, tell);
        let feed = match op.backend.locks.clean(Some(WHO)) {
            Ok(report) => cleaned(report, tell),
            Err(e) => {
                tell.failed("could not clean stale locks", &e.into());
                Vec::new()
            }
        };
        self.next = deadline_in(self.every);
        feed
    }

    fn rediscover(
        &self,
        op: &Operator,
        last_lines: &mut BTreeMap<String, Vec<String>>,
        tell: &mut Tell<'_>,
    ) {
        let found = match discovery::refresh(
            &op.tmux,
            op.backend.registry.as_ref(),
            &op.paths,
            &op.matcher,
            &self.options,
        ) {
            Ok(found) => found,
            Err(e) => return tell.failed("discovery failed", &e),
        };
        for w in &found.warnings {
            tell.warn(w.clone());
        }
        for w in op.record_roster_with(&found, false, last_lines) {
            tell.warn(w);
        }
        for id in &found.dropped {
            last_lines.remove(id);
        }
        self.overlaps(op, &found.registry, tell);
        let active = found.registry.active().count();
        if let Some(line) = roster_line(active, &found.added, &found.went_stale, &found.dropped) {
            tell.did(line);
        }
        // Budgets are judged here too, so that a crossing is raised while
        // nobody sends.
        if op.usage.budget.any() {
            match op.budget_round(&found.registry) {
                Ok((_, warnings)) => {
                    for w in warnings {
                        tell.warn(w);
                    }
                }
                Err(e) => tell.failed("could not read the agents' usage", &e),
            }
        }
    }

    /// Looks at the agents' worktree branches of this host's repository,
    /// records the files two or more of them changed and tells each new
    /// overlap to its agents once. Nothing (not even git) runs when no
    /// agent has a worktree.
    fn overlaps(&self, op: &Operator, registry: &Registry, tell: &mut Tell<'_>) {
        if worktrees::agent_worktree_dirs(&op.paths).is_empty() {
            return;
        }
        let from = self.overlaps_from.as_deref();
        match messaging::notice_overlaps(&op.messenger(), registry, &op.paths, from) {
            Ok((_, told, warnings)) => {
                for w in warnings {
                    tell.warn(w);
                }
                for t in told {
                    tell.did(format!(
                        "told {} that {} is changed on each of their branches",
                        t.told.join(", "),
                        sanitize::one_line(&t.overlap.path)
                    ));
                }
            }
            Err(e) => tell.warn(format!("could not look for overlaps: {e}")),
        }
    }
}

/// Who removes stale locks, in the feed and the audit log.
const WHO: &str = "swarm watch";

/// The line that says who came and went; `None` when nobody did.
fn roster_line(
    active: usize,
    added: &[String],
    stale: &[String],
    dropped: &[String],
) -> Option<String> {
    if added.is_empty() && dropped.is_empty() && stale.is_empty() {
        return None;
    }
    Some(format!(
        "agents: {active} active{}{}{}",
        list(" joined", added),
        list(" stale", stale),
        list(" left", dropped)
    ))
}

fn list(label: &str, ids: &[String]) -> String {
    if ids.is_empty() {
        String::new()
    } else {
        format!(",{label}: {}", ids.join(" "))
    }
}

/// Tells the locks cleaning removed; the feed lines of the stale ones.
fn cleaned(report: CleanReport, tell: &mut Tell<'_>) -> Vec<FeedEntry> {
    let mut feed = Vec::new();
    for held in &report.stale {
        let r = &held.record;
        tell.did(format!(
            "removed the stale lock on {} ({})",
            sanitize::one_line(&r.filepath),
            sanitize::one_line(&r.agent_id)
        ));
        feed.push(
            FeedEntry::new(
                EventKind::LockExpired,
                Some(&r.agent_id),
                r.filepath.clone(),
            )
            .by(WHO),
        );
    }
    for (name, why) in &report.damaged {
        tell.did(format!("removed the damaged lock file {name} ({why})"));
    }
    feed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locks::{HeldLock, LockRecord};
    use crate::watcher::Said;
    use crate::watcher::outage::tests::heard;

    #[test]
    fn the_roster_line_names_who_came_and_went_and_is_left_out_when_nobody_did() {
        let ids = |s: &[&str]| s.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(roster_line(2, &[], &[], &[]), None);
        assert_eq!(
            roster_line(2, &ids(&["agent-3"]), &[], &ids(&["agent-1", "agent-0"])).as_deref(),
            Some("agents: 2 active, joined: agent-3, left: agent-1 agent-0")
        );
        assert_eq!(
            roster_line(1, &[], &ids(&["agent-2"]), &[]).as_deref(),
            Some("agents: 1 active, stale: agent-2")
        );
    }

    #[test]
    fn a_stale_lock_is_a_feed_line_and_a_damaged_file_only_said() {
        let record = LockRecord {
            agent_id: "agent-1".into(),
            filepath: "src/\u{1b}[31mmain.rs".into(),
            ..LockRecord::default()
        };
        let report = CleanReport {
            stale: vec![HeldLock::new(
                "f.lock".into(),
                record,
                std::path::Path::new("/p"),
            )],
            damaged: vec![("g.lock".into(), "not JSON".into())],
            ..CleanReport::default()
        };
        let mut feed = Vec::new();
        let (said, _) = heard(|tell| feed = cleaned(report, tell));
        assert_eq!(feed.len(), 1);
        assert_eq!(feed[0].event, EventKind::LockExpired);
        assert_eq!(feed[0].agent.as_deref(), Some("agent-1"));
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            matches!(&said[0], Said::Did(l) if l.starts_with("removed the stale lock on ") && !l.contains('\u{1b}')),
            "{said:?}"
        );
        assert_eq!(
            said[1],
            Said::Did("removed the damaged lock file g.lock (not JSON)".into())
        );
    }
}
