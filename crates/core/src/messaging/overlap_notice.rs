//! Telling agents, once, that a file they changed on their branch is
//! changed on another agent's branch too: what `swarm changes` does after
//! it looks, and what the project's watcher does every discovery round,
//! so that overlaps are told as they appear (`notice_overlaps`).

use crate::agents::registry::Registry;
use crate::domain::message::MessageType;
use crate::error::Result;
use crate::store::Paths;
use crate::support::sanitize;
use crate::worktrees::{self, Changes, Overlap, OverlapNotices, Repository};

use super::messenger::Messenger;
use super::send::{Recipients, SendRequest};

/// An overlap told now, and to whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToldOverlap {
    /// The overlap.
    pub overlap: Overlap,
    /// The agents the notice went to (those of the overlap still active).
    pub told: Vec<String>,
}

/// Records `overlaps` as the current ones (`.swarm/overlaps.json`, which
/// the monitor and the dashboard show) and, with `from`, tells the agents
/// of each that was not told yet, one `CONFLICT` message each, sent as
/// `from` by swarm itself (no rate limit). An overlap none of whose agents
/// is active now is left for a later look. Returns the overlaps told and
/// what the user should know.
pub(crate) fn tell_new_overlaps(
    messenger: &Messenger<'_>,
    registry: &Registry,
    paths: &Paths,
    overlaps: &[Overlap],
    from: Option<&str>,
) -> Result<(Vec<ToldOverlap>, Vec<String>)> {
    let mut told = Vec::new();
    let mut warnings = Vec::new();
    let mut tell = |overlap: &Overlap| {
        let Some(from) = from else { return false };
        let active: Vec<&String> = overlap
            .agents
            .iter()
            .filter(|a| registry.active().any(|r| r.id.as_str() == a.as_str()))
            .collect();
        let mut reached = Vec::new();
        for agent in active {
            let req = {
                let mut req = SendRequest::new(
                    from.to_owned(),
                    Recipients::One(agent.clone()),
                    MessageType::builtin("CONFLICT"),
                    notice_text(overlap, agent),
                );
                req.system = true;
                req
            };
            match messenger.send(registry, req) {
                Ok(report) => {
                    warnings.extend(report.warnings);
                    reached.push(agent.clone());
                }
                Err(e) => warnings.push(format!(
                    "could not tell {agent} about the overlap on {}: {e}",
                    sanitize::one_line(&overlap.path)
                )),
            }
        }
        if reached.is_empty() {
            return false;
        }
        told.push(ToldOverlap {
            overlap: overlap.clone(),
            told: reached,
        });
        true
    };
    let (_, more) = OverlapNotices::new(paths).record(
        overlaps,
        from.is_some()
            .then_some(&mut tell as &mut dyn FnMut(&Overlap) -> bool),
    )?;
    warnings.extend(more);
    Ok((told, warnings))
}

/// Looks at the agents' branches of the repository whose main worktree is
/// the project root, records the overlaps and, with `from`, tells each new
/// one once (see `tell_new_overlaps`). Returns what it saw, the overlaps
/// told now and warnings.
pub(crate) fn notice_overlaps(
    messenger: &Messenger<'_>,
    registry: &Registry,
    paths: &Paths,
    from: Option<&str>,
) -> Result<(Changes, Vec<ToldOverlap>, Vec<String>)> {
    let repo = Repository::open(paths.root())?;
    let changes = worktrees::changes(&repo)?;
    let (told, warnings) = tell_new_overlaps(messenger, registry, paths, &changes.overlaps, from)?;
    Ok((changes, told, warnings))
}

/// The notice `agent` gets about `overlap`.
fn notice_text(overlap: &Overlap, agent: &str) -> String {
    let others: Vec<&str> = overlap
        .agents
        .iter()
        .map(String::as_str)
        .filter(|a| *a != agent)
        .collect();
    format!(
        "overlap: {} is changed on your branch and on the branch of {} too. Agree with {} who \
         goes on with it before either of you changes it further: the two changes may conflict \
         when both are merged (`swarm merge` asks git before it merges). `swarm changes` lists \
         every overlap.",
        sanitize::one_line(&overlap.path),
        others.join(", "),
        if others.len() == 1 {
            "them"
        } else {
            "each of them"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_names_the_file_and_the_others() {
        let overlap = Overlap {
            path: "src/a\u{1b}[31m.py".into(),
            agents: vec!["agent-0".into(), "agent-1".into(), "agent-2".into()],
        };
        let text = notice_text(&overlap, "agent-1");
        assert!(text.starts_with("overlap: src/a"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.contains("branch of agent-0, agent-2 too"), "{text}");
        // Only git knows whether the two changes conflict: the notice
        // says they may, never that they will.
        assert!(!text.contains("will conflict"), "{text}");
        assert!(text.contains("may conflict"), "{text}");
    }
}
