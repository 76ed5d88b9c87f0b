//! Which rotated segments of the message log are kept, and why. A segment
//! goes once the rotated segments together exceed the configured size or
//! it is older than the configured age, but never while it holds a message
//! that an agent of the registry has not read yet. The same decision is
//! what `swarm doctor` reports.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use crate::agents::on_files::FileRegistry;
use crate::agents::registry_store::{RegistryState, RegistryStore};
use crate::log::inbox::{Cursor, ReadState};
use crate::log::segments::SegmentSummary;
use crate::store::{Paths, StoreError};

/// How much rotated history is kept (`[message_log]` in the config).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LogPolicy {
    /// The live log is rotated once it is larger than this.
    pub rotate_bytes: u64,
    /// Rotated segments are removed, oldest first, while together they
    /// are larger than this...
    pub keep_bytes: u64,
    /// ...or once they are older than this (since their last write).
    pub keep_age: Duration,
}

impl LogPolicy {
    /// The policy the config's `[message_log]` section sets.
    pub(crate) fn from_config(c: &crate::config::Config) -> LogPolicy {
        LogPolicy {
            rotate_bytes: c.message_log.rotate_bytes,
            keep_bytes: c.message_log.keep_bytes,
            keep_age: Duration::from_secs(u64::from(c.message_log.keep_days) * 86_400),
        }
    }
}

impl Default for LogPolicy {
    fn default() -> Self {
        LogPolicy {
            rotate_bytes: 10 * 1024 * 1024,
            keep_bytes: 100 * 1024 * 1024,
            keep_age: Duration::from_secs(30 * 86_400),
        }
    }
}

/// What happens to one rotated segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SegmentVerdict {
    /// The segment's number.
    pub number: u64,
    /// Its size.
    pub bytes: u64,
    /// Seconds since it was last written.
    pub age_secs: u64,
    /// Whether it is kept.
    pub keep: bool,
    /// Why, in a few words.
    pub reason: String,
}

/// Who must still read what: the agents of the registry and their read
/// cursors. `None` for the agents when the registry cannot be read, which
/// keeps every segment that might hold unread messages for anyone.
#[derive(Clone, Debug, Default)]
pub(crate) struct Readers {
    /// Registered agent ids, or `None` when unknown.
    pub agents: Option<Vec<String>>,
    /// Read cursors by agent.
    pub cursors: BTreeMap<String, Cursor>,
}

impl Readers {
    /// The registry's agents and their cursors. The message log's files
    /// keep what the file registry's agents have not read.
    pub(crate) fn load(paths: &Paths) -> Result<Readers, StoreError> {
        let registry: &dyn RegistryStore = &FileRegistry::new(paths);
        let agents = match registry.read()? {
            RegistryState::Missing => Some(Vec::new()),
            RegistryState::Valid(reg, _) => {
                Some(reg.agents.into_iter().map(|a| String::from(a.id)).collect())
            }
            RegistryState::Corrupt(_) => None,
        };
        let cursors = ReadState::new(paths).all()?;
        Ok(Readers { agents, cursors })
    }

    /// The agents with an unread message in `segment`.
    pub(crate) fn unread_in(&self, segment: &SegmentSummary) -> Option<Vec<String>> {
        let agents = self.agents.as_ref()?;
        Some(
            agents
                .iter()
                .filter(|a| {
                    let after = match self.cursors.get(*a).and_then(|c| c.at) {
                        None => 0,
                        Some(at) if at.segment > segment.number => return false,
                        Some(at) if at.segment == segment.number && at.ino == segment.ino => {
                            at.offset
                        }
                        Some(_) => 0,
                    };
                    segment.has_message_for(a, after)
                })
                .cloned()
                .collect(),
        )
    }
}

/// Decides for each rotated segment (oldest first, with when it was last
/// written) whether it is kept.
pub(crate) fn plan(
    segments: &[(SegmentSummary, Option<SystemTime>)],
    policy: &LogPolicy,
    readers: &Readers,
    now: SystemTime,
) -> Vec<SegmentVerdict> {
    let mut total: u64 = segments.iter().map(|(s, _)| s.bytes).sum();
    let mut out = Vec::new();
    for (s, modified) in segments {
        let age = modified
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default();
        let over_size = total > policy.keep_bytes;
        let too_old = age > policy.keep_age;
        let mut verdict = SegmentVerdict {
            number: s.number,
            bytes: s.bytes,
            age_secs: age.as_secs(),
            keep: true,
            reason: String::new(),
        };
        if !over_size && !too_old {
            verdict.reason = "within the kept size and age".into();
            out.push(verdict);
            continue;
        }
        let why = if over_size {
            "past the kept size"
        } else {
            "past the kept age"
        };
        match readers.unread_in(s) {
            None => {
                verdict.reason =
                    format!("{why}, but kept: the registry cannot be read to tell who has read it");
            }
            Some(agents) if !agents.is_empty() => {
                verdict.reason =
                    format!("{why}, but holds unread messages for {}", agents.join(", "));
            }
            Some(_) => {
                verdict.keep = false;
                verdict.reason = format!("{why}, and every agent has read its messages");
                total = total.saturating_sub(s.bytes);
            }
        }
        out.push(verdict);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::record::LogPos;
    use crate::log::segments::Span;

    fn seg(number: u64, bytes: u64, for_agent: Option<(&str, u64)>) -> SegmentSummary {
        let mut s = SegmentSummary {
            number,
            ino: number * 10,
            bytes,
            ..SegmentSummary::default()
        };
        if let Some((a, end)) = for_agent {
            s.recipients.insert(
                a.into(),
                Span {
                    messages: 1,
                    last_end: end,
                },
            );
        }
        s
    }

    fn cursor(segment: u64, offset: u64) -> Cursor {
        Cursor {
            msg_id: String::new(),
            timestamp: String::new(),
            at: Some(LogPos {
                segment,
                ino: segment * 10,
                offset,
            }),
        }
    }

    #[test]
    fn unread_segments_stay_past_the_size_and_the_rest_go_oldest_first() {
        let policy = LogPolicy {
            rotate_bytes: 100,
            keep_bytes: 250,
            keep_age: Duration::from_secs(3600),
        };
        let now = SystemTime::now();
        let segments = vec![
            (seg(1, 100, Some(("agent-1", 50))), Some(now)),
            (seg(2, 100, Some(("agent-2", 80))), Some(now)),
            (seg(3, 100, None), Some(now)),
            (seg(4, 100, None), Some(now)),
        ];
        let mut readers = Readers {
            agents: Some(vec!["agent-1".into(), "agent-2".into()]),
            cursors: BTreeMap::new(),
        };
        readers.cursors.insert("agent-1".into(), cursor(1, 40));
        readers.cursors.insert("agent-2".into(), cursor(2, 80));
        let v = plan(&segments, &policy, &readers, now);
        let keep: Vec<bool> = v.iter().map(|v| v.keep).collect();
        // 1 is pinned by agent-1 (read to byte 40 of 50); 2 is read and
        // goes (400 -> 300 bytes, still over 250), so 3 goes too (200);
        // 4 is within the size.
        assert_eq!(keep, [true, false, false, true]);
        assert!(v[0].reason.contains("agent-1"), "{}", v[0].reason);
        // Once agent-1 has read it, it goes.
        readers.cursors.insert("agent-1".into(), cursor(3, 0));
        let v = plan(&segments, &policy, &readers, now);
        assert!(!v[0].keep);
        // An agent that never read anything pins what is addressed to it.
        readers.cursors.clear();
        let v = plan(&segments, &policy, &readers, now);
        assert!(v[0].keep && v[1].keep);
        // Unknown registry: keep.
        let v = plan(&segments, &policy, &Readers::default(), now);
        assert!(v.iter().all(|v| v.keep), "{v:?}");
        assert!(v[0].reason.contains("cannot be read"), "{}", v[0].reason);
    }

    #[test]
    fn age_alone_removes_a_read_segment() {
        let policy = LogPolicy {
            rotate_bytes: 100,
            keep_bytes: u64::MAX,
            keep_age: Duration::from_secs(60),
        };
        let now = SystemTime::now();
        let old = now - Duration::from_secs(120);
        let segments = vec![(seg(1, 10, None), Some(old)), (seg(2, 10, None), Some(now))];
        let readers = Readers {
            agents: Some(Vec::new()),
            cursors: BTreeMap::new(),
        };
        let v = plan(&segments, &policy, &readers, now);
        assert_eq!((v[0].keep, v[1].keep), (false, true));
    }
}
