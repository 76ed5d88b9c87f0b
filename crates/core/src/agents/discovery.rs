//! Discovery: one `list-panes -a` call and the process seam find the agent
//! panes of this project; `merge` turns them into the next registry.
//!
//! Identity is the pane id `%N` on one tmux server instance: a restarted
//! server numbers its panes from `%0` again, so `.swarm/agent_ids.json`
//! records each agent's server (pid and start time) and a pane of another
//! instance is a new agent. A pane keeps its agent id for as long as it
//! lives (the id is also written into the pane as `@swarm_agent`), and ids
//! are never handed out twice: the same file keeps a high-water mark that
//! only grows.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};

use crate::agents::agent_matcher::{AgentMatcher, AgentProcess};
use crate::agents::registry::{AgentIds, AgentRecord, AgentStatus, Registry};
use crate::agents::registry_store::RegistryStore;
use crate::domain::{AgentId, validate};
use crate::error::Error;
use crate::git::layout;
use crate::store::Paths;
use crate::support::time;
use crate::tmux::{Pane, PaneId, PaneLabel, Tmux};

/// A pane that runs an agent (or that `launch` made for one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The pane.
    pub pane: Pane,
    /// The agent process, when one was found.
    pub agent: Option<AgentProcess>,
}

/// Settings of one discovery run.
#[derive(Clone, Debug)]
pub struct DiscoverOptions {
    /// Seconds an agent that disappeared (while its pane lives on) stays
    /// listed as `stale` before it is dropped.
    pub stale_after_secs: u64,
    /// Also take agents whose pane works outside the project root.
    pub cross_project: bool,
}

/// The outcome of a discovery run.
#[derive(Clone, Debug)]
pub struct Discovery {
    /// The registry as written.
    pub registry: Registry,
    /// Ids that appeared in this run.
    pub added: Vec<String>,
    /// Ids that became stale in this run.
    pub went_stale: Vec<String>,
    /// Those of `went_stale` whose pane no agent program runs in any more:
    /// their program exited (not those that only work outside the
    /// project now).
    pub exited: Vec<String>,
    /// Ids that were dropped in this run.
    pub dropped: Vec<String>,
    /// Things the user should know (damaged files, unparsable panes).
    pub warnings: Vec<String>,
}

/// What one look at the tmux server found.
#[derive(Clone, Debug)]
pub(crate) struct Scan {
    /// Every pane of the server.
    pub panes: Vec<Pane>,
    /// This project's agent panes, in tmux order.
    pub candidates: Vec<Candidate>,
    /// Every live pane an agent program runs in, this project's or not.
    pub agent_panes: HashSet<PaneId>,
    /// Listing lines that could not be understood.
    pub warnings: Vec<String>,
}

/// Scans the server: every live pane, and those that are this project's
/// agent candidates: an agent process in a pane whose directory is in the
/// project, or in the project's counterpart in a linked git worktree of
/// its repository (agents launched with worktrees work there).
pub(crate) fn scan(
    tmux: &Tmux,
    root: &Path,
    matcher: &AgentMatcher,
    cross_project: bool,
) -> Result<Scan, Error> {
    let (panes, skipped) = tmux.list_panes()?;
    let warnings = skipped
        .into_iter()
        .map(|s| format!("ignored a pane tmux listed in an unexpected form ({s})"))
        .collect();
    let processes = matcher.processes().survey()?;
    let checkouts = if cross_project {
        Vec::new()
    } else {
        layout::checkouts(root)
    };
    let mut agent_panes = HashSet::new();
    let candidates = panes
        .iter()
        .filter(|p| !p.dead)
        .filter_map(|pane| {
            let agent = matcher.find_in_pane(&processes, pane.pid)?;
            agent_panes.insert(pane.id.clone());
            let in_project = cross_project
                || processes
                    .pane_cwd(pane)
                    .is_some_and(|cwd| layout::checkout_of(&checkouts, &cwd).is_some());
            in_project.then(|| Candidate {
                pane: pane.clone(),
                agent: Some(agent),
            })
        })
        .collect();
    Ok(Scan {
        panes,
        candidates,
        agent_panes,
        warnings,
    })
}

/// Discovers this project's agents and rewrites the registry.
pub fn refresh(
    tmux: &Tmux,
    store: &dyn RegistryStore,
    paths: &Paths,
    matcher: &AgentMatcher,
    opts: &DiscoverOptions,
) -> Result<Discovery, Error> {
    let Scan {
        panes,
        candidates,
        agent_panes,
        warnings,
    } = scan(tmux, paths.root(), matcher, opts.cross_project)?;
    let mut discovery = commit(store, paths, &panes, candidates, opts, warnings)?;
    note_exits(&mut discovery, &agent_panes);
    label(tmux, paths, &panes, &mut discovery);
    Ok(discovery)
}

/// Registers panes that `launch` just created as agents, whether or not
/// their agent process has started yet.
pub(crate) fn register_panes(
    tmux: &Tmux,
    store: &dyn RegistryStore,
    paths: &Paths,
    matcher: &AgentMatcher,
    new: &[PaneId],
    opts: &DiscoverOptions,
) -> Result<Discovery, Error> {
    let Scan {
        panes,
        mut candidates,
        agent_panes,
        warnings,
    } = scan(tmux, paths.root(), matcher, opts.cross_project)?;
    for id in new {
        if candidates.iter().any(|c| &c.pane.id == id) {
            continue;
        }
        if let Some(pane) = panes.iter().find(|p| &p.id == id && !p.dead) {
            candidates.push(Candidate {
                pane: pane.clone(),
                agent: None,
            });
        }
    }
    let mut discovery = commit(store, paths, &panes, candidates, opts, warnings)?;
    note_exits(&mut discovery, &agent_panes);
    label(tmux, paths, &panes, &mut discovery);
    Ok(discovery)
}

/// Notes which of the agents that went stale exited: no agent program
/// runs in their pane any more. Whoever runs the refresh is then the first
/// to see them gone, and `Operator::record_roster` raises `exited` at once
/// rather than when the stale entry is dropped (which may be never, if
/// the agent comes back in its pane).
fn note_exits(discovery: &mut Discovery, agent_panes: &HashSet<PaneId>) {
    let registry = &discovery.registry;
    discovery.exited = discovery
        .went_stale
        .iter()
        .filter(|id| {
            registry
                .find(id)
                .and_then(|a| a.tmux_pane_id.as_ref())
                .is_none_or(|p| !agent_panes.contains(p))
        })
        .cloned()
        .collect();
}

/// Empties the registry because the tmux server is gone (after `down`
/// killed its last session): every agent went with it.
pub(crate) fn forget_all(store: &dyn RegistryStore, paths: &Paths) -> Result<Discovery, Error> {
    let opts = DiscoverOptions {
        stale_after_secs: 0,
        cross_project: false,
    };
    commit(store, paths, &[], Vec::new(), &opts, Vec::new())
}

fn commit(
    store: &dyn RegistryStore,
    paths: &Paths,
    panes: &[Pane],
    candidates: Vec<Candidate>,
    opts: &DiscoverOptions,
    mut warnings: Vec<String>,
) -> Result<Discovery, Error> {
    let fingerprint = paths.fingerprint();
    let now = time::now();
    let mut merged = None;
    warnings.extend(store.update(&mut |doc| {
        let out = merge(&MergeInput {
            now,
            candidates: &candidates,
            panes,
            previous: doc.registry.as_ref(),
            next_id: doc.ids.next,
            servers: &doc.ids.servers,
            fingerprint: &fingerprint,
            stale_after_secs: opts.stale_after_secs,
            host: store.host(),
        });
        doc.registry = Some(out.registry.clone());
        doc.ids = AgentIds::new(out.next_id, out.servers.clone());
        merged = Some(out);
    })?);
    let merged =
        merged.ok_or_else(|| Error::Invalid("the registry store skipped the change".into()))?;
    Ok(Discovery {
        registry: merged.registry,
        added: merged.added,
        went_stale: merged.went_stale,
        exited: Vec::new(),
        dropped: merged.dropped,
        warnings,
    })
}

/// Writes each active agent's id into its pane where it is not there yet.
fn label(tmux: &Tmux, paths: &Paths, panes: &[Pane], discovery: &mut Discovery) {
    let fingerprint = paths.fingerprint();
    let labels: Vec<PaneLabel> = discovery
        .registry
        .active()
        .filter_map(|a| {
            let pane = panes
                .iter()
                .find(|p| a.tmux_pane_id.as_ref() == Some(&p.id))?;
            let current = pane.agent_label.as_deref() == Some(a.id.as_str())
                && pane.project_label.as_deref() == Some(fingerprint.as_str());
            (!current).then(|| PaneLabel {
                pane: pane.id.clone(),
                agent: a.id.to_string(),
                project: fingerprint.clone(),
            })
        })
        .collect();
    if let Err(e) = tmux.label_panes(&labels) {
        discovery
            .warnings
            .push(format!("could not label the agent panes: {e}"));
    }
}

/// Everything `merge` looks at.
#[derive(Clone, Debug)]
pub(crate) struct MergeInput<'a> {
    /// The discovery time.
    pub now: DateTime<Utc>,
    /// Agent panes found now, in tmux order.
    pub candidates: &'a [Candidate],
    /// Every pane of the server.
    pub panes: &'a [Pane],
    /// The registry before this run, if usable.
    pub previous: Option<&'a Registry>,
    /// The high-water mark: the next number to hand out.
    pub next_id: u64,
    /// The server instance of each previous agent's pane, where known.
    pub servers: &'a BTreeMap<String, String>,
    /// This project's `@swarm_project` fingerprint.
    pub fingerprint: &'a str,
    /// Grace period for agents whose pane lives on.
    pub stale_after_secs: u64,
    /// This host's name on a store shared by several hosts (`None`: the
    /// files, one host). Agents of other hosts are kept as they are: only
    /// their own host can see their panes.
    pub host: Option<&'a str>,
}

/// The next registry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MergeOutput {
    /// The registry to write.
    pub registry: Registry,
    /// The new high-water mark.
    pub next_id: u64,
    /// The server instance of each agent of the new registry, where known.
    pub servers: BTreeMap<String, String>,
    /// Ids that appeared.
    pub added: Vec<String>,
    /// Ids that became stale.
    pub went_stale: Vec<String>,
    /// Ids that were dropped.
    pub dropped: Vec<String>,
}

/// Assigns ids and statuses. A candidate keeps the id the previous registry
/// gave its pane (the same pane id on the same server instance); failing that, the id its `@swarm_agent` label carries when
/// the label is this project's and no other live entry holds it; failing
/// that, a new id above every id ever seen. A previous agent that is no
/// longer a candidate stays `stale` while its pane lives and it was seen
/// less than `stale_after_secs` ago, and is dropped otherwise.
pub(crate) fn merge(input: &MergeInput<'_>) -> MergeOutput {
    let now_iso = time::utc_iso(input.now);
    let empty = Vec::new();
    let all_previous = input.previous.map(|r| &r.agents).unwrap_or(&empty);
    let elsewhere = |a: &AgentRecord| a.elsewhere(input.host).is_some();
    let (foreign, previous): (Vec<AgentRecord>, Vec<AgentRecord>) =
        all_previous.iter().cloned().partition(|a| elsewhere(a));
    let previous = &previous;
    // An agent whose server is not recorded (an older or Python registry)
    // is taken to be on the server being listed.
    let same_server = |a: &AgentRecord, pane: &Pane| {
        input
            .servers
            .get(a.id.as_str())
            .is_none_or(|s| *s == pane.server)
    };
    let prev_for = |pane: &Pane| -> Option<&AgentRecord> {
        previous
            .iter()
            .find(|a| a.tmux_pane_id.as_ref() == Some(&pane.id) && same_server(a, pane))
            .or_else(|| {
                previous.iter().find(|a| {
                    a.tmux_pane_id.is_none()
                        && a.pane_index == pane.address()
                        && same_server(a, pane)
                })
            })
    };
    let ours = |pane: &Pane| pane.project_label.as_deref() == Some(input.fingerprint);

    // Never hand out a number at or below one already in use anywhere.
    let mut next_id = input.next_id;
    let seen_numbers = all_previous.iter().filter_map(|a| a.id.number()).chain(
        input
            .panes
            .iter()
            .filter(|p| ours(p))
            .filter_map(|p| p.agent_label.as_deref())
            .filter_map(validate::agent_number),
    );
    for n in seen_numbers {
        next_id = next_id.max(n.saturating_add(1));
    }

    // Pass 1: panes the previous registry knows keep their id.
    let mut ids: Vec<Option<AgentId>> = input
        .candidates
        .iter()
        .map(|c| prev_for(&c.pane).map(|a| a.id.clone()))
        .collect();
    let mut taken: HashSet<AgentId> = ids
        .iter()
        .flatten()
        .cloned()
        .chain(foreign.iter().map(|a| a.id.clone()))
        .collect();
    // Ids of previous agents whose pane is still alive but not a candidate
    // are reserved too: they may come back as stale entries below.
    let candidate_panes: HashSet<&str> = input
        .candidates
        .iter()
        .map(|c| c.pane.id.as_str())
        .collect();
    // The live pane of a previous agent: same pane id, same server.
    let live_pane = |a: &AgentRecord| -> Option<&str> {
        let id = a.tmux_pane_id.as_ref()?.as_str();
        input
            .panes
            .iter()
            .find(|p| !p.dead && p.id.as_str() == id && same_server(a, p))
            .map(|p| p.id.as_str())
    };
    for a in previous {
        if let Some(p) = live_pane(a)
            && !candidate_panes.contains(p)
        {
            taken.insert(a.id.clone());
        }
    }
    // Pass 2: this project's pane labels; pass 3: fresh ids.
    for (slot, cand) in ids.iter_mut().zip(input.candidates) {
        if slot.is_some() {
            continue;
        }
        let label = cand
            .pane
            .agent_label
            .as_deref()
            .filter(|_| ours(&cand.pane))
            .and_then(|l| AgentId::parse(l).ok().filter(|id| id.as_str() == l))
            .filter(|id| !taken.contains(id));
        if let Some(label) = label {
            taken.insert(label.clone());
            *slot = Some(label);
        }
    }
    let mut added = Vec::new();
    let mut servers = BTreeMap::new();
    let mut agents = Vec::with_capacity(input.candidates.len());
    for (slot, cand) in ids.into_iter().zip(input.candidates) {
        let id = match slot {
            Some(id) => id,
            None => loop {
                let id = AgentId::numbered(next_id);
                next_id += 1;
                if taken.insert(id.clone()) {
                    break id;
                }
            },
        };
        if prev_for(&cand.pane).is_none_or(|a| a.status != AgentStatus::Active) {
            added.push(id.to_string());
        }
        servers.insert(id.to_string(), cand.pane.server.clone());
        agents.push(AgentRecord {
            id,
            pane_index: cand.pane.address(),
            pid: cand.pane.pid,
            status: AgentStatus::Active,
            last_seen: now_iso.clone(),
            session_name: cand.pane.session.clone(),
            tmux_pane_id: Some(cand.pane.id.clone()),
            host: input.host.map(str::to_owned),
        });
    }

    let mut went_stale = Vec::new();
    let mut dropped = Vec::new();
    let current: HashSet<AgentId> = agents.iter().map(|a| a.id.clone()).collect();
    for a in previous {
        if current.contains(&a.id) {
            continue;
        }
        let pane_alive = live_pane(a).is_some();
        let recent = time::parse_iso(&a.last_seen)
            .is_some_and(|t| time::age_seconds(t, input.now) < input.stale_after_secs as f64);
        if pane_alive && recent {
            if a.status == AgentStatus::Active {
                went_stale.push(a.id.to_string());
            }
            if let Some(server) = input.servers.get(a.id.as_str()) {
                servers.insert(a.id.to_string(), server.clone());
            }
            agents.push(AgentRecord {
                status: AgentStatus::Stale,
                ..a.clone()
            });
        } else {
            dropped.push(a.id.to_string());
        }
    }

    for a in foreign {
        if let Some(server) = input.servers.get(a.id.as_str()) {
            servers.insert(a.id.to_string(), server.clone());
        }
        agents.push(a);
    }
    let mut registry = Registry::empty(now_iso);
    registry.agents = agents;
    registry.recompute_sessions();
    MergeOutput {
        registry,
        next_id,
        servers,
        added,
        went_stale,
        dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    const FP: &str = "fp";

    fn pane(n: u32, label: Option<&str>) -> Pane {
        Pane {
            id: format!("%{n}").parse().expect("pane id"),
            pid: 1000 + n,
            session: "s".into(),
            window_index: 0,
            pane_index: n,
            dead: false,
            agent_label: label.map(str::to_owned),
            project_label: label.map(|_| FP.to_owned()),
            current_path: None,
            server: "100:1".into(),
        }
    }

    fn cand(p: &Pane) -> Candidate {
        Candidate {
            pane: p.clone(),
            agent: None,
        }
    }

    fn run(
        now: DateTime<Utc>,
        panes: &[Pane],
        agents: &[&Pane],
        prev: Option<&Registry>,
        next: u64,
    ) -> MergeOutput {
        run_on(now, panes, agents, prev, next, &BTreeMap::new())
    }

    fn run_on(
        now: DateTime<Utc>,
        panes: &[Pane],
        agents: &[&Pane],
        prev: Option<&Registry>,
        next: u64,
        servers: &BTreeMap<String, String>,
    ) -> MergeOutput {
        let candidates: Vec<Candidate> = agents.iter().map(|p| cand(p)).collect();
        merge(&MergeInput {
            now,
            candidates: &candidates,
            panes,
            previous: prev,
            next_id: next,
            servers,
            fingerprint: FP,
            stale_after_secs: 60,
            host: None,
        })
    }

    #[test]
    fn each_host_keeps_the_agents_of_the_others() {
        let now = time::now();
        let panes = [pane(0, None), pane(1, None)];
        let mut on_b = run(now, &panes, &[&panes[0], &panes[1]], None, 0);
        for a in &mut on_b.registry.agents {
            a.host = Some("host-b".into());
        }
        // Host A's server has pane %0 too: it is another pane, and another
        // agent; host B's agents are kept, active, whatever A's panes are.
        let candidates = [cand(&panes[0])];
        let out = merge(&MergeInput {
            now,
            candidates: &candidates,
            panes: &panes[..1],
            previous: Some(&on_b.registry),
            next_id: on_b.next_id,
            servers: &on_b.servers,
            fingerprint: FP,
            stale_after_secs: 60,
            host: Some("host-a"),
        });
        let got: Vec<(&str, &str, Option<&str>)> = out
            .registry
            .agents
            .iter()
            .map(|a| (a.id.as_str(), a.status.as_str(), a.host.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("agent-2", "active", Some("host-a")),
                ("agent-0", "active", Some("host-b")),
                ("agent-1", "active", Some("host-b")),
            ]
        );
        assert_eq!(out.added, ["agent-2"]);
        assert!(out.dropped.is_empty() && out.went_stale.is_empty());
        assert_eq!(out.servers.len(), 3);
    }

    fn ids(out: &MergeOutput) -> Vec<(&str, &str, &str)> {
        out.registry
            .agents
            .iter()
            .map(|a| {
                (
                    a.id.as_str(),
                    a.tmux_pane_id.as_ref().map_or("-", |p| p.as_str()),
                    a.status.as_str(),
                )
            })
            .collect()
    }

    #[test]
    fn first_run_numbers_from_zero_in_tmux_order() {
        let panes = [pane(3, None), pane(1, None), pane(2, None)];
        let out = run(time::now(), &panes, &[&panes[0], &panes[2]], None, 0);
        assert_eq!(
            ids(&out),
            [("agent-0", "%3", "active"), ("agent-1", "%2", "active")]
        );
        assert_eq!(out.next_id, 2);
        assert_eq!(out.added, ["agent-0", "agent-1"]);
    }

    #[test]
    fn ids_are_stable_and_never_reused() {
        let now = time::now();
        let panes = [pane(0, None), pane(1, None), pane(2, None)];
        let first = run(now, &panes, &[&panes[0], &panes[1], &panes[2]], None, 0);
        // %1 closes: it is dropped (its pane is gone), the others keep ids.
        let panes2 = [pane(0, None), pane(2, None), pane(5, None)];
        let second = run(
            now,
            &panes2,
            &[&panes2[0], &panes2[1]],
            Some(&first.registry),
            first.next_id,
        );
        assert_eq!(
            ids(&second),
            [("agent-0", "%0", "active"), ("agent-2", "%2", "active")]
        );
        assert_eq!(second.dropped, ["agent-1"]);
        // A new pane gets agent-3, not the freed agent-1.
        let third = run(
            now,
            &panes2,
            &[&panes2[0], &panes2[1], &panes2[2]],
            Some(&second.registry),
            second.next_id,
        );
        assert_eq!(third.registry.agents[2].id, "agent-3");
        assert_eq!(third.added, ["agent-3"]);
    }

    #[test]
    fn a_quiet_pane_goes_stale_then_is_dropped() {
        let t0 = time::now();
        let panes = [pane(0, None), pane(1, None)];
        let first = run(t0, &panes, &[&panes[0], &panes[1]], None, 0);
        let second = run(
            t0 + Duration::seconds(30),
            &panes,
            &[&panes[0]],
            Some(&first.registry),
            2,
        );
        assert_eq!(ids(&second)[1], ("agent-1", "%1", "stale"));
        assert_eq!(second.went_stale, ["agent-1"]);
        // Stale entries keep their last_seen.
        assert_eq!(
            second.registry.agents[1].last_seen,
            first.registry.agents[1].last_seen
        );
        let third = run(
            t0 + Duration::seconds(61),
            &panes,
            &[&panes[0]],
            Some(&second.registry),
            2,
        );
        assert_eq!(third.registry.agents.len(), 1);
        assert_eq!(third.dropped, ["agent-1"]);
        // ...and when the agent restarts in that pane it gets a fresh id,
        // unless the pane still carries its label.
        let back = run(
            t0 + Duration::seconds(62),
            &panes,
            &[&panes[0], &panes[1]],
            Some(&third.registry),
            2,
        );
        assert_eq!(back.registry.agents[1].id, "agent-2");
        let labelled = [pane(0, None), pane(1, Some("agent-1"))];
        let back = run(
            t0 + Duration::seconds(62),
            &labelled,
            &[&labelled[0], &labelled[1]],
            Some(&third.registry),
            2,
        );
        assert_eq!(back.registry.agents[1].id, "agent-1");
    }

    #[test]
    fn a_lost_registry_is_rebuilt_from_labels() {
        let panes = [
            pane(4, Some("agent-7")),
            pane(5, Some("agent-2")),
            pane(6, None),
        ];
        let out = run(
            time::now(),
            &panes,
            &[&panes[0], &panes[1], &panes[2]],
            None,
            0,
        );
        assert_eq!(
            ids(&out),
            [
                ("agent-7", "%4", "active"),
                ("agent-2", "%5", "active"),
                ("agent-8", "%6", "active")
            ]
        );
    }

    #[test]
    fn foreign_or_duplicate_labels_are_not_trusted() {
        let mut foreign = pane(1, Some("agent-0"));
        foreign.project_label = Some("other-project".into());
        let dup = pane(2, Some("agent-5"));
        let dup2 = pane(3, Some("agent-5"));
        let panes = [foreign, dup, dup2];
        let out = run(
            time::now(),
            &panes,
            &[&panes[0], &panes[1], &panes[2]],
            None,
            0,
        );
        // agent-5 goes to the first pane carrying it; ids continue above 5.
        assert_eq!(
            ids(&out),
            [
                ("agent-6", "%1", "active"),
                ("agent-5", "%2", "active"),
                ("agent-7", "%3", "active")
            ]
        );
    }

    #[test]
    fn the_registry_beats_a_label_that_claims_a_live_id() {
        let panes = [pane(0, None), pane(1, None)];
        let first = run(time::now(), &panes, &[&panes[0]], None, 0);
        // Someone copies agent-0's label onto another pane.
        let panes = [pane(0, None), pane(1, Some("agent-0"))];
        let out = run(
            time::now(),
            &panes,
            &[&panes[0], &panes[1]],
            Some(&first.registry),
            first.next_id,
        );
        assert_eq!(
            ids(&out),
            [("agent-0", "%0", "active"), ("agent-1", "%1", "active")]
        );
    }

    #[test]
    fn labels_reserve_their_ids_even_on_quiet_panes() {
        let panes = [pane(0, None), pane(1, Some("agent-0"))];
        let out = run(time::now(), &panes, &[&panes[0]], None, 0);
        assert_eq!(ids(&out), [("agent-1", "%0", "active")]);
    }

    #[test]
    fn python_registries_without_pane_ids_match_by_address() {
        let panes = [pane(0, None)];
        let mut prev = run(time::now(), &panes, &[&panes[0]], None, 0).registry;
        prev.agents[0].id = AgentId::numbered(4);
        prev.agents[0].tmux_pane_id = None;
        let out = run(time::now(), &panes, &[&panes[0]], Some(&prev), 0);
        assert_eq!(ids(&out), [("agent-4", "%0", "active")]);
        assert_eq!(out.next_id, 5);
    }

    #[test]
    fn a_restarted_server_gets_new_agents() {
        let now = time::now();
        let panes = [pane(0, None), pane(1, None)];
        let first = run(now, &panes, &[&panes[0], &panes[1]], None, 0);
        assert_eq!(
            first.servers.get("agent-1").map(String::as_str),
            Some("100:1")
        );
        // The server restarts: its panes are %0 and %1 again.
        let restarted: Vec<Pane> = panes
            .iter()
            .map(|p| Pane {
                server: "200:9".into(),
                ..p.clone()
            })
            .collect();
        let out = run_on(
            now,
            &restarted,
            &[&restarted[0], &restarted[1]],
            Some(&first.registry),
            first.next_id,
            &first.servers,
        );
        assert_eq!(
            ids(&out),
            [("agent-2", "%0", "active"), ("agent-3", "%1", "active")]
        );
        assert_eq!(out.dropped, ["agent-0", "agent-1"]);
        assert_eq!(
            out.servers.get("agent-2").map(String::as_str),
            Some("200:9")
        );
        // On the same server, the same panes keep their ids.
        let again = run_on(
            now,
            &restarted,
            &[&restarted[0], &restarted[1]],
            Some(&out.registry),
            out.next_id,
            &out.servers,
        );
        assert_eq!(ids(&again), ids(&out));
    }
}
