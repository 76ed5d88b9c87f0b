//! The open attention episodes on Redis: the hash `{swarm:NAME}:episodes`,
//! one field per agent and condition (`agent-1/needs_input`) holding the
//! record as JSON, in the shape of `.swarm/episodes.json`'s records. A
//! change `WATCH`es the hash, applies the rule every store keeps
//! (`EpisodeRecord::apply`) and writes in one `MULTI`/`EXEC`, so of the
//! watchers of every host that report the same change, one opens the
//! episode.

use swarm_core::{
    EpisodeRecord, EpisodeStore, EventKind, OpenEpisode, StoreError, Timestamp, Transition,
};

use super::conn::{Redis, RedisTarget};

/// The episodes of one swarm on Redis.
pub(crate) struct RedisEpisodes {
    target: RedisTarget,
}

impl RedisEpisodes {
    /// The episodes of the swarm at `target`.
    pub(crate) fn new(target: RedisTarget) -> RedisEpisodes {
        RedisEpisodes { target }
    }
}

/// The hash field of an agent's condition.
fn field(agent: &str, kind: EventKind) -> String {
    format!("{agent}/{}", kind.as_str())
}

impl EpisodeStore for RedisEpisodes {
    fn transition(
        &self,
        agent: &str,
        kind: EventKind,
        open: bool,
        seen: Timestamp,
        detail: &str,
        episode_key: &str,
    ) -> Result<Transition, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.episodes();
        let f = field(agent, kind);
        r.transaction(std::slice::from_ref(&key), |r: &mut Redis| {
            let raw: Option<Vec<u8>> = r.query(redis::cmd("HGET").arg(&key).arg(&f))?;
            // A damaged record counts as none: at worst an episode is told
            // twice, never lost.
            let record: Option<EpisodeRecord> = raw.and_then(|b| serde_json::from_slice(&b).ok());
            let (t, next) = EpisodeRecord::apply(record.as_ref(), open, seen, detail, episode_key);
            let Some(next) = next else {
                return Ok::<_, StoreError>((None, t));
            };
            let bytes = serde_json::to_vec(&next).map_err(|source| StoreError::Encode {
                path: key.clone().into(),
                source,
            })?;
            let mut pipe = redis::pipe();
            pipe.cmd("HSET").arg(&key).arg(&f).arg(bytes).ignore();
            Ok((Some(pipe), t))
        })
    }

    fn open(&self) -> Result<Vec<OpenEpisode>, StoreError> {
        let mut r = self.target.connect()?;
        let key = r.keys.episodes();
        let all: Vec<(String, Vec<u8>)> = r.query(redis::cmd("HGETALL").arg(&key))?;
        let mut out: Vec<OpenEpisode> = all
            .into_iter()
            .filter_map(|(f, raw)| {
                let (agent, kind) = f.rsplit_once('/')?;
                let kind = EventKind::parse(kind)?;
                let rec: EpisodeRecord = serde_json::from_slice(&raw).ok()?;
                rec.open.then(|| OpenEpisode {
                    agent: agent.to_owned(),
                    kind,
                    episode: rec.episode,
                    since: rec.changed,
                    detail: rec.detail,
                })
            })
            .collect();
        out.sort_by_key(|e| e.since);
        Ok(out)
    }

    fn forget(&self, agents: &[String]) -> Result<(), StoreError> {
        if agents.is_empty() {
            return Ok(());
        }
        let mut r = self.target.connect()?;
        let key = r.keys.episodes();
        let fields: Vec<String> = agents
            .iter()
            .flat_map(|a| swarm_core::ALL_KINDS.iter().map(move |k| field(a, *k)))
            .collect();
        r.query::<()>(redis::cmd("HDEL").arg(&key).arg(fields))
    }
}
