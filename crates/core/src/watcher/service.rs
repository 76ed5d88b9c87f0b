//! The project's watcher as a service on this host: the record the
//! running watcher keeps of itself (`.swarm/watcher.json`: its process,
//! since when it runs, a fingerprint of the settings it runs with, its
//! notification channels, its last error), whether one runs, and stopping
//! it. "Does one run" is always the presence lock (the kernel drops it
//! when the process dies), never the record, which may outlive it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::backend;
use crate::config::Config;
use crate::config::keys::KEYS;
use crate::error::{Error, Result};
use crate::notify::NotifySettings;
use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::sys;

/// The record's format version.
const VERSION: u32 = 1;

/// What a running watcher says of itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatcherRecord {
    /// The format's version.
    #[serde(default)]
    pub version: u32,
    /// Its process id.
    pub pid: u32,
    /// This host's name in the swarm.
    pub host: String,
    /// When it started (RFC 3339).
    pub since: String,
    /// When it last read its settings (RFC 3339): at the start and at each
    /// change of a config file.
    #[serde(default)]
    pub settings_read: String,
    /// A fingerprint of every setting it runs with.
    pub fingerprint: String,
    /// A fingerprint of each setting, by key (`notify.webhook`): `config
    /// show` marks a value the watcher does not have. Hashes, never values.
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
    /// The notification channels that are on (`tmux`, `desktop`,
    /// `webhook`, `command`): names, never their secrets.
    pub channels: Vec<String>,
    /// Started by a command rather than by a person.
    #[serde(default)]
    pub background: bool,
    /// The last thing that went wrong, as it said it.
    #[serde(default)]
    pub last_error: Option<String>,
}

/// Whether the watcher runs, and what it last said of itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatcherStatus {
    /// A watcher of this project runs on this host.
    pub running: bool,
    /// Its record (while one runs), or the last one's (when none does).
    pub record: Option<WatcherRecord>,
}

/// The fingerprint of a config: of the whole and of each key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// Of every setting together.
    pub whole: String,
    /// Of each setting, by its key.
    pub keys: BTreeMap<String, String>,
}

impl Fingerprint {
    /// The fingerprint of `config`, environment overrides included (they
    /// are part of it): a short SHA-256 of each value's JSON form, so that
    /// a secret changes the hash and is never shown.
    pub fn of(config: &Config) -> Fingerprint {
        let doc = serde_json::to_value(config).unwrap_or(serde_json::Value::Null);
        let mut keys = BTreeMap::new();
        let mut whole = Sha256::new();
        for key in KEYS {
            let path = key.path();
            let value = doc
                .pointer(&format!("/{}/{}", key.section, key.name))
                .map(ToString::to_string)
                .unwrap_or_default();
            whole.update(path.as_bytes());
            whole.update([0]);
            whole.update(value.as_bytes());
            whole.update([0]);
            keys.insert(path, short_hash(value.as_bytes()));
        }
        Fingerprint {
            whole: hex(&whole.finalize()[..8]),
            keys,
        }
    }
}

impl WatcherRecord {
    /// The keys whose value in `config` this watcher does not run with.
    pub fn lacks(&self, config: &Config) -> Vec<String> {
        Fingerprint::of(config)
            .keys
            .into_iter()
            .filter(|(key, hash)| self.settings.get(key).is_some_and(|h| h != hash))
            .map(|(key, _)| key)
            .collect()
    }
}

fn short_hash(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes)[..8])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The notification channels `settings` turns on, by name.
pub fn channels(settings: &NotifySettings) -> Vec<String> {
    [
        (settings.tmux, "tmux"),
        (settings.desktop, "desktop"),
        (settings.webhook.is_some(), "webhook"),
        (settings.command.is_some(), "command"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name.to_owned())
    .collect()
}

/// The record file of `paths`'s project.
fn record_file(paths: &Paths) -> StateFile {
    StateFile::new(paths.watcher_record())
}

/// The last record a watcher wrote; `None` when there is none or it is
/// damaged (it is rewritten by the next watcher).
pub fn read_record(paths: &Paths) -> Result<Option<WatcherRecord>> {
    Ok(match record_file(paths).read_json::<WatcherRecord>()? {
        Loaded::Valid(r) => Some(r),
        Loaded::Missing | Loaded::Corrupt(_) => None,
    })
}

/// Writes `record` as this project's watcher's.
pub fn write_record(paths: &Paths, record: &WatcherRecord) -> Result<()> {
    let file = record_file(paths);
    let mut record = record.clone();
    record.version = VERSION;
    let bytes = serde_json::to_vec_pretty(&record).map_err(|e| StoreError::Corrupt {
        path: file.path().to_owned(),
        reason: e.to_string(),
    })?;
    let lock = file.lock(DEFAULT_LOCK_TIMEOUT)?;
    file.write_unsynced(&lock, &bytes)?;
    Ok(())
}

/// Whether this project's watcher runs on this host, with its record.
pub fn status(paths: &Paths) -> Result<WatcherStatus> {
    Ok(WatcherStatus {
        running: backend::watcher_runs(paths)?,
        record: read_record(paths)?,
    })
}

/// What `stop` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// No watcher ran.
    NoneRan,
    /// The watcher with this process id stopped.
    Stopped(u32),
    /// The watcher with this process id was asked to stop and still runs
    /// after the wait.
    StillRunning(u32),
    /// A watcher runs, but its record names no process of this host
    /// (written by another version, or damaged): it cannot be stopped
    /// from here.
    Unknown,
}

/// Asks this project's watcher on this host to stop (SIGTERM: it ends its
/// round and leaves cleanly) and waits up to `wait` for it to be gone.
pub fn stop(paths: &Paths, wait: Duration) -> Result<Stopped> {
    let status = status(paths)?;
    if !status.running {
        return Ok(Stopped::NoneRan);
    }
    let Some(pid) = status.record.map(|r| r.pid) else {
        return Ok(Stopped::Unknown);
    };
    match sys::terminate(pid) {
        Ok(()) => {}
        // Gone between the look and the signal.
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => return Ok(Stopped::Stopped(pid)),
        Err(source) => {
            return Err(Error::Io {
                what: format!("stop the watcher (process {pid})"),
                source,
            });
        }
    }
    let deadline = Instant::now() + wait;
    // The presence lock is dropped by the kernel as the process ends: wait
    // for that, not for the process id, which may be reused.
    while backend::watcher_runs(paths)? {
        if Instant::now() >= deadline {
            return Ok(Stopped::StillRunning(pid));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Stopped::Stopped(pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_follows_each_value_and_never_holds_it() {
        let mut c = Config::default();
        let before = Fingerprint::of(&c);
        assert_eq!(before, Fingerprint::of(&c.clone()));
        c.notify.webhook = Some("https://ntfy.sh/a-secret-topic".into());
        let after = Fingerprint::of(&c);
        assert_ne!(before.whole, after.whole);
        assert_ne!(before.keys["notify.webhook"], after.keys["notify.webhook"]);
        assert_eq!(before.keys["notify.events"], after.keys["notify.events"]);
        let text = format!("{after:?}");
        assert!(!text.contains("secret"), "{text}");
    }

    #[test]
    fn channels_are_named_not_shown() {
        let mut c = Config::default();
        c.notify.webhook = Some("https://u:pw@example.org/hook".into());
        c.notify.command = Some("notify-send hi".into());
        let names = channels(&NotifySettings::from_config(&c));
        assert!(names.contains(&"webhook".to_owned()), "{names:?}");
        assert!(names.contains(&"command".to_owned()), "{names:?}");
        assert!(names.iter().all(|n| !n.contains("pw")));
    }

    #[test]
    fn the_record_is_written_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        assert_eq!(read_record(&paths).expect("read"), None);
        let record = WatcherRecord {
            version: VERSION,
            pid: 42,
            host: "h".into(),
            since: "2026-11-28T10:00:00Z".into(),
            settings_read: "2026-11-28T10:00:00Z".into(),
            fingerprint: "ab".into(),
            settings: BTreeMap::new(),
            channels: vec!["tmux".into()],
            background: true,
            last_error: None,
        };
        write_record(&paths, &record).expect("write");
        assert_eq!(read_record(&paths).expect("read"), Some(record));
        let status = status(&paths).expect("status");
        assert!(!status.running);
        assert_eq!(
            stop(&paths, Duration::ZERO).expect("stop"),
            Stopped::NoneRan
        );
    }
}
