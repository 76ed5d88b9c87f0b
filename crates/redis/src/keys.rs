//! `Keys`: the name of every key a swarm keeps on Redis, one function per
//! key (docs/SCALING.md lists the same keys in the same order). Each name
//! is the swarm's prefix, made by `prefix` alone, followed by the key's
//! own name; the keys that go with another key (its lock, a damaged value
//! set aside) add to that key's full name. Nothing else in `on_redis`
//! spells a key.

use swarm_core::a2a::a2a_store::Collection;
use swarm_core::{AgentId, Handoff};

/// The prefix of every key of the swarm called `swarm`: `{swarm:NAME}:`.
/// The braces are a Redis Cluster hash tag, so all of a swarm's keys hash
/// to one slot and its multi-key transactions and scripts work on a
/// cluster too.
fn prefix(swarm: &str) -> String {
    format!("{{swarm:{swarm}}}:")
}

/// The key names of one swarm.
#[derive(Clone, Debug)]
pub(crate) struct Keys {
    prefix: String,
}

impl Keys {
    /// The keys of the swarm called `swarm`.
    pub(crate) fn new(swarm: &str) -> Keys {
        Keys {
            prefix: prefix(swarm),
        }
    }

    /// The swarm's key `what`.
    fn key(&self, what: &str) -> String {
        format!("{}{what}", self.prefix)
    }

    /// `locks`, a hash: one field per lock, the normalised path or pattern
    /// -> the lock as JSON (`agent_id`, `filepath`, `locked_at`, `reason`,
    /// `fence`, `host`; `expires_at` for a lease, `shared` and `sharers`
    /// for a shared lock).
    pub(crate) fn locks(&self) -> String {
        self.key("locks")
    }

    /// `fence`, a string (integer): the last fencing token handed out.
    pub(crate) fn fence(&self) -> String {
        self.key("fence")
    }

    /// `audit`, a stream: forced unlocks, stale takeovers, cleanups, ended
    /// and renewed leases, one JSON event per entry, written in the
    /// transaction of the change.
    pub(crate) fn audit(&self) -> String {
        self.key("audit")
    }

    /// `rate:<sender>`, a string (JSON array): the Unix times of the
    /// sender's sends in the current window; expires one window after its
    /// last send.
    pub(crate) fn rate(&self, sender: &AgentId) -> String {
        self.key(&format!("rate:{sender}"))
    }

    /// `registry`, a string (JSON): the agent registry, the bytes of the
    /// registry file.
    pub(crate) fn registry(&self) -> String {
        self.key("registry")
    }

    /// `ids`, a string (JSON): the agent-id mark (`next`, `servers`), the
    /// bytes of the id-mark file.
    pub(crate) fn ids(&self) -> String {
        self.key("ids")
    }

    /// `acks`, a string (JSON): the pending acknowledgements, in the shape
    /// of the pending-ACKs file (`version`, `pending_acks`).
    pub(crate) fn acks(&self) -> String {
        self.key("acks")
    }

    /// `acks:due`, a string: the earliest due time of `acks` in Unix
    /// microseconds, or `none`; written in the transaction of `acks`.
    pub(crate) fn acks_due(&self) -> String {
        self.key("acks:due")
    }

    /// `held`, a string (JSON): the messages held back from panes
    /// (`version`, `held`, `notified`); absent when nothing is held.
    pub(crate) fn held(&self) -> String {
        self.key("held")
    }

    /// `held:seq`, a string (integer): the last order number given to a
    /// held message; only grows.
    pub(crate) fn held_seq(&self) -> String {
        self.key("held:seq")
    }

    /// `a2a:cards`, `a2a:tasks`, `a2a:delegation_history`, `a2a:contexts`,
    /// `a2a:learning`, `a2a:conflicts`, strings (JSON): one A2A collection
    /// each, in the Python tool's document shape.
    pub(crate) fn a2a(&self, which: Collection) -> String {
        self.key(match which {
            Collection::Cards => "a2a:cards",
            Collection::Tasks => "a2a:tasks",
            Collection::DelegationHistory => "a2a:delegation_history",
            Collection::Contexts => "a2a:contexts",
            Collection::Learning => "a2a:learning",
            Collection::Conflicts => "a2a:conflicts",
        })
    }

    /// `a2a:memory:<agent>`, a string (JSON): one agent's memory document
    /// (an agent id is a plain name: no `:` or `*` gets through).
    pub(crate) fn memory(&self, agent: &AgentId) -> String {
        self.key(&format!("a2a:memory:{agent}"))
    }

    /// `coordination`, a string: the text of the coordination notes.
    pub(crate) fn coordination(&self) -> String {
        self.key("coordination")
    }

    /// `<key>:lock`, a string: for each A2A key and `coordination`, a
    /// random token while one change of it runs; expires after 8 s.
    pub(crate) fn lock_of(key: &str) -> String {
        format!("{key}:lock")
    }

    /// `<key>:damaged:<unix-ms>-<random>`, a string: where a damaged value
    /// of `key` is kept aside (for inspection) before it is replaced. The
    /// random part keeps two copies set aside in the same millisecond
    /// apart.
    pub(crate) fn damaged(key: &str) -> String {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let tag = uuid::Uuid::new_v4().simple().to_string();
        format!("{key}:damaged:{ms}-{}", &tag[..8])
    }

    /// `log`, a stream: the message log, one entry per record, field `r`
    /// holding the line the log file would hold.
    pub(crate) fn log(&self) -> String {
        self.key("log")
    }

    /// `cursors`, a hash: agent id -> its read cursor as JSON.
    pub(crate) fn cursors(&self) -> String {
        self.key("cursors")
    }

    /// `deliver:<host>`, a stream: the deliveries handed to `host`, with
    /// the consumer group `watchers`.
    pub(crate) fn deliver(&self, host: &str) -> String {
        self.key(&format!("deliver:{host}"))
    }

    /// `handed:<msg id>:<agent>:<text hash>`, a string: marks a delivery
    /// that waits in a host's stream, so that handing it over again adds
    /// nothing.
    pub(crate) fn handed(&self, handoff: &Handoff) -> String {
        self.key(&format!("handed:{}", handoff.identity()))
    }

    /// `episodes`, a hash: `<agent>/<condition>` -> the attention episode
    /// record as JSON (`open`, `changed`, `episode`, `opened`, `detail`).
    pub(crate) fn episodes(&self) -> String {
        self.key("episodes")
    }

    /// `printed`, a hash: `<agent>/<line key>` -> when the watcher that
    /// claimed the printed line sent it (Unix seconds).
    pub(crate) fn printed(&self) -> String {
        self.key("printed")
    }

    /// `feed`, a stream: the activity feed, one entry per line (field
    /// `e`: the line's JSON); trimmed by size and age on append.
    pub(crate) fn feed(&self) -> String {
        self.key("feed")
    }

    /// `sessions`, a hash: session name -> the recorded session as JSON
    /// (`name`, `state`, `layout`, `cwd`, `agents`, ...; the records of
    /// `.swarm/sessions.json`).
    pub(crate) fn sessions(&self) -> String {
        self.key("sessions")
    }

    /// `limits`, a string: the usage limits as JSON (the shape of
    /// `.swarm/limits.json` without its version).
    pub(crate) fn limits(&self) -> String {
        self.key("limits")
    }

    /// `topics`, a hash: topic -> its subscribers as a JSON array of agent
    /// ids (`swarm subscribe`); a topic nobody follows has no field.
    pub(crate) fn topics(&self) -> String {
        self.key("topics")
    }

    /// A `KEYS` pattern below the swarm's prefix, for tests that look for
    /// keys made by the functions above.
    #[cfg(test)]
    pub(crate) fn pattern(&self, glob: &str) -> String {
        self.key(glob)
    }
}

/// The Redis Cluster hash slot of `key`: CRC16 (XMODEM) of its hash tag
/// (what stands between the first `{` and the next `}`, when that is not
/// empty), else of the whole key, modulo 16384.
#[cfg(test)]
pub(crate) fn slot(key: &str) -> u16 {
    let tagged = key.find('{').and_then(|open| {
        let rest = &key[open + 1..];
        rest.find('}')
            .filter(|&close| close > 0)
            .map(|close| &rest[..close])
    });
    let mut crc: u16 = 0;
    for byte in tagged.unwrap_or(key).bytes() {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % 16384
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_rule_matches_redis() {
        // Figures from the Redis Cluster specification and CLUSTER KEYSLOT.
        assert_eq!(slot("123456789"), 0x31C3);
        assert_eq!(slot("somekey"), 11058);
        assert_eq!(slot("{user1000}.following"), slot("user1000"));
        assert_eq!(slot("foo{}{bar}"), slot("foo{}{bar}"));
        assert_ne!(slot("foo{}{bar}"), slot("bar"));
    }

    #[test]
    fn keys_share_one_hash_tag() {
        let k = Keys::new("proj");
        assert_eq!(k.locks(), "{swarm:proj}:locks");
        assert_eq!(k.fence(), "{swarm:proj}:fence");
    }

    /// The keys of `k` named by one function each (the agent's and the
    /// host's where a key belongs to one), in the order of docs/SCALING.md.
    fn named(k: &Keys, agent: &AgentId, host: &str) -> Vec<String> {
        vec![
            k.locks(),
            k.fence(),
            k.audit(),
            k.rate(agent),
            k.registry(),
            k.ids(),
            k.acks(),
            k.acks_due(),
            k.held(),
            k.held_seq(),
            k.memory(agent),
            k.coordination(),
            k.log(),
            k.cursors(),
            k.deliver(host),
            Keys::lock_of(&k.coordination()),
            k.episodes(),
            k.feed(),
            k.sessions(),
            k.printed(),
            k.topics(),
            k.limits(),
        ]
    }

    #[test]
    fn every_key_keeps_the_name_existing_data_is_stored_under() {
        let k = Keys::new("p");
        let agent = AgentId::numbered(2);
        assert_eq!(
            named(&k, &agent, "h1"),
            [
                "{swarm:p}:locks",
                "{swarm:p}:fence",
                "{swarm:p}:audit",
                "{swarm:p}:rate:agent-2",
                "{swarm:p}:registry",
                "{swarm:p}:ids",
                "{swarm:p}:acks",
                "{swarm:p}:acks:due",
                "{swarm:p}:held",
                "{swarm:p}:held:seq",
                "{swarm:p}:a2a:memory:agent-2",
                "{swarm:p}:coordination",
                "{swarm:p}:log",
                "{swarm:p}:cursors",
                "{swarm:p}:deliver:h1",
                "{swarm:p}:coordination:lock",
                "{swarm:p}:episodes",
                "{swarm:p}:feed",
                "{swarm:p}:sessions",
                "{swarm:p}:printed",
                "{swarm:p}:topics",
                "{swarm:p}:limits",
            ]
        );
        let collections: Vec<String> = Collection::ALL.iter().map(|c| k.a2a(*c)).collect();
        assert_eq!(
            collections,
            [
                "{swarm:p}:a2a:cards",
                "{swarm:p}:a2a:tasks",
                "{swarm:p}:a2a:delegation_history",
                "{swarm:p}:a2a:contexts",
                "{swarm:p}:a2a:learning",
                "{swarm:p}:a2a:conflicts",
            ]
        );
        let aside = Keys::damaged(&k.acks());
        assert!(aside.starts_with("{swarm:p}:acks:damaged:"), "{aside}");
    }

    #[test]
    fn every_key_of_a_swarm_maps_to_one_cluster_slot() {
        let agent = AgentId::numbered(7);
        let handoff = Handoff {
            msg_id: "m1".into(),
            agent: "agent-7".into(),
            text: "hello {other}".into(),
            marker: "[agent-1".into(),
            from: "host-a".into(),
            note: None,
            urgency: swarm_core::Urgency::Normal,
        };
        for name in ["proj", "p", "team-api", "x}y", "{odd}"] {
            let k = Keys::new(name);
            let mut all = named(&k, &agent, "host-b");
            all.push(k.handed(&handoff));
            all.push(Keys::damaged(&k.acks()));
            all.extend(Collection::ALL.iter().map(|c| k.a2a(*c)));
            all.extend(Collection::ALL.iter().map(|c| Keys::lock_of(&k.a2a(*c))));
            let home = slot(&k.locks());
            for key in &all {
                assert_eq!(slot(key), home, "{key} of swarm {name}");
            }
        }
        // Swarms are spread over the slots, not all on one.
        assert_ne!(slot(&Keys::new("a").locks()), slot(&Keys::new("b").locks()));
    }
}
