//! `OverlapNotices`: the overlaps between agents' branches found by the
//! last look (for the monitor and the dashboard) and which of them the
//! agents involved have been told about, kept in `.swarm/overlaps.json`
//! (docs/FORMATS.md), so that each overlap is told once, however many
//! processes look for overlaps at the same time.

use serde::{Deserialize, Serialize};

use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};
use crate::support::time;

use super::changes::Overlap;

/// The file's layout version: 2 added `current`.
const VERSION: u32 = 2;

/// The file's content.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Told {
    version: u32,
    /// Every overlap the last look found, told or not.
    #[serde(default)]
    current: Vec<Overlap>,
    told: Vec<ToldOverlap>,
}

/// One overlap that was told, and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct ToldOverlap {
    path: String,
    agents: Vec<String>,
    told_at: String,
}

/// The told overlaps of one project.
#[derive(Clone, Debug)]
pub struct OverlapNotices {
    file: StateFile,
}

impl OverlapNotices {
    /// The notices of the project laid out by `paths`.
    pub fn new(paths: &Paths) -> OverlapNotices {
        OverlapNotices {
            file: StateFile::new(paths.overlap_notices()),
        }
    }

    /// The overlaps the last look found (none before any look), for the
    /// views; a damaged file reads as none, with a note.
    pub fn current(&self) -> (Vec<Overlap>, Option<String>) {
        match self.file.read_json::<Told>() {
            Ok(Loaded::Valid(t)) => (t.current, None),
            Ok(Loaded::Missing) => (Vec::new(), None),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => (
                Vec::new(),
                Some(format!("{} is damaged ({why})", self.file.path().display())),
            ),
            Err(e) => (
                Vec::new(),
                Some(format!("could not read the overlaps: {e}")),
            ),
        }
    }

    /// Under the file's lock: records `current` as what the last look
    /// found and, with `tell`, hands each overlap of it that was not told
    /// yet (the same file with the same agents) to `tell`, recording those
    /// it says it told. Overlaps no longer current are forgotten, so that
    /// one that goes away (merged) and comes back is told again. Returns
    /// the overlaps told now and what the user should know (a damaged
    /// file, moved aside).
    pub(crate) fn record(
        &self,
        current: &[Overlap],
        mut tell: Option<&mut dyn FnMut(&Overlap) -> bool>,
    ) -> Result<(Vec<Overlap>, Vec<String>), StoreError> {
        let lock = self.file.lock(DEFAULT_LOCK_TIMEOUT)?;
        let mut warnings = Vec::new();
        let mut told = match self.file.read_json::<Told>() {
            Ok(Loaded::Valid(t)) => t,
            Ok(Loaded::Missing) => Told::default(),
            Ok(Loaded::Corrupt(why)) | Err(StoreError::Corrupt { reason: why, .. }) => {
                let aside = self.file.preserve(&lock)?;
                warnings.push(format!(
                    "{} was damaged ({why}); moved aside{}, so overlaps already told may be told again",
                    self.file.path().display(),
                    aside
                        .map(|p| format!(" to {}", p.display()))
                        .unwrap_or_default()
                ));
                Told::default()
            }
            Err(e) => return Err(e),
        };
        let before = (told.current.clone(), told.told.clone());
        told.current = current.to_vec();
        told.told.retain(|t| {
            current
                .iter()
                .any(|o| o.path == t.path && o.agents == t.agents)
        });
        let mut now_told = Vec::new();
        for overlap in current {
            let known = told
                .told
                .iter()
                .any(|t| t.path == overlap.path && t.agents == overlap.agents);
            let Some(tell) = tell.as_mut() else { break };
            if known || !tell(overlap) {
                continue;
            }
            told.told.push(ToldOverlap {
                path: overlap.path.clone(),
                agents: overlap.agents.clone(),
                told_at: time::utc_iso(time::now()),
            });
            now_told.push(overlap.clone());
        }
        if (told.current.clone(), told.told.clone()) != before || told.version != VERSION {
            told.version = VERSION;
            let bytes =
                json::to_vec(&told, Layout::Indent2).map_err(|source| StoreError::Encode {
                    path: self.file.path().to_owned(),
                    source,
                })?;
            self.file.write(&lock, &bytes)?;
        }
        Ok((now_told, warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap(path: &str, agents: &[&str]) -> Overlap {
        Overlap {
            path: path.into(),
            agents: agents.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn each_overlap_is_told_once_until_it_goes_away() {
        let dir = tempfile::tempdir().expect("tempdir");
        let notices = OverlapNotices::new(&Paths::new(dir.path()));
        let a = overlap("src/a.py", &["agent-0", "agent-1"]);
        let b = overlap("b", &["agent-1", "agent-2"]);
        let mut seen = Vec::new();
        let mut tell = |o: &Overlap| {
            seen.push(o.path.clone());
            true
        };
        let (told, _) = notices
            .record(std::slice::from_ref(&a), Some(&mut tell))
            .expect("tell");
        assert_eq!(told, std::slice::from_ref(&a));
        let (told, _) = notices
            .record(&[a.clone(), b.clone()], Some(&mut tell))
            .expect("tell");
        assert_eq!(told, std::slice::from_ref(&b));
        // A third agent joins the overlap: a new one to tell.
        let a3 = overlap("src/a.py", &["agent-0", "agent-1", "agent-3"]);
        let (told, _) = notices
            .record(std::slice::from_ref(&a3), Some(&mut tell))
            .expect("tell");
        assert_eq!(told, std::slice::from_ref(&a3));
        // Gone, then back: told again.
        notices.record(&[], Some(&mut tell)).expect("tell");
        let (told, _) = notices
            .record(std::slice::from_ref(&a3), Some(&mut tell))
            .expect("tell");
        assert_eq!(told, [a3]);
        assert_eq!(seen, ["src/a.py", "b", "src/a.py", "src/a.py"]);
    }

    #[test]
    fn every_look_records_what_it_found_told_or_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let notices = OverlapNotices::new(&Paths::new(dir.path()));
        assert_eq!(notices.current(), (Vec::new(), None));
        let a = overlap("a", &["agent-0", "agent-1"]);
        let (told, _) = notices
            .record(std::slice::from_ref(&a), None)
            .expect("record");
        assert!(told.is_empty());
        assert_eq!(notices.current().0, std::slice::from_ref(&a));
        // Not told while nobody was to be told: a look that tells does.
        let (told, _) = notices
            .record(std::slice::from_ref(&a), Some(&mut |_| true))
            .expect("record");
        assert_eq!(told, std::slice::from_ref(&a));
        notices.record(&[], None).expect("record");
        assert!(notices.current().0.is_empty());
    }

    #[test]
    fn an_overlap_not_told_is_offered_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let notices = OverlapNotices::new(&Paths::new(dir.path()));
        let a = overlap("a", &["agent-0", "agent-1"]);
        let (told, _) = notices
            .record(std::slice::from_ref(&a), Some(&mut |_| false))
            .expect("tell");
        assert!(told.is_empty());
        let (told, _) = notices
            .record(std::slice::from_ref(&a), Some(&mut |_| true))
            .expect("tell");
        assert_eq!(told, [a]);
    }

    #[test]
    fn a_damaged_file_is_moved_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        std::fs::create_dir_all(paths.swarm_dir()).expect("mkdir");
        std::fs::write(paths.overlap_notices(), "{not json").expect("write");
        let (told, warnings) = OverlapNotices::new(&paths)
            .record(
                &[overlap("a", &["agent-0", "agent-1"])],
                Some(&mut |_| true),
            )
            .expect("tell");
        assert_eq!(told.len(), 1);
        assert!(warnings[0].contains("damaged"), "{warnings:?}");
    }
}
