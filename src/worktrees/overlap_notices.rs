//! `OverlapNotices`: which overlaps between agents' branches the agents
//! involved have been told about, kept in `.swarm/overlaps.json`
//! (docs/FORMATS.md), so that each overlap is told once, however many
//! processes look for overlaps at the same time.

use serde::{Deserialize, Serialize};

use crate::store::{DEFAULT_LOCK_TIMEOUT, Loaded, Paths, StateFile, StoreError};
use crate::support::json::{self, Layout};
use crate::support::time;

use super::changes::Overlap;

/// The file's content.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Told {
    version: u32,
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
pub(crate) struct OverlapNotices {
    file: StateFile,
}

impl OverlapNotices {
    /// The notices of the project laid out by `paths`.
    pub(crate) fn new(paths: &Paths) -> OverlapNotices {
        OverlapNotices {
            file: StateFile::new(paths.overlap_notices()),
        }
    }

    /// Under the file's lock: hands each overlap of `current` that was not
    /// told yet (the same file with the same agents) to `tell`, and records
    /// those it says it told. Overlaps no longer current are forgotten, so
    /// that one that goes away (merged) and comes back is told again.
    /// Returns the overlaps told now and what the user should know (a
    /// damaged file, moved aside).
    pub(crate) fn tell_new(
        &self,
        current: &[Overlap],
        tell: &mut dyn FnMut(&Overlap) -> bool,
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
        let before = told.told.clone();
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
        if told.told != before || told.version != 1 {
            told.version = 1;
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
            .tell_new(std::slice::from_ref(&a), &mut tell)
            .expect("tell");
        assert_eq!(told, std::slice::from_ref(&a));
        let (told, _) = notices
            .tell_new(&[a.clone(), b.clone()], &mut tell)
            .expect("tell");
        assert_eq!(told, std::slice::from_ref(&b));
        // A third agent joins the overlap: a new one to tell.
        let a3 = overlap("src/a.py", &["agent-0", "agent-1", "agent-3"]);
        let (told, _) = notices
            .tell_new(std::slice::from_ref(&a3), &mut tell)
            .expect("tell");
        assert_eq!(told, std::slice::from_ref(&a3));
        // Gone, then back: told again.
        notices.tell_new(&[], &mut tell).expect("tell");
        let (told, _) = notices
            .tell_new(std::slice::from_ref(&a3), &mut tell)
            .expect("tell");
        assert_eq!(told, [a3]);
        assert_eq!(seen, ["src/a.py", "b", "src/a.py", "src/a.py"]);
    }

    #[test]
    fn an_overlap_not_told_is_offered_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let notices = OverlapNotices::new(&Paths::new(dir.path()));
        let a = overlap("a", &["agent-0", "agent-1"]);
        let (told, _) = notices
            .tell_new(std::slice::from_ref(&a), &mut |_| false)
            .expect("tell");
        assert!(told.is_empty());
        let (told, _) = notices
            .tell_new(std::slice::from_ref(&a), &mut |_| true)
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
            .tell_new(&[overlap("a", &["agent-0", "agent-1"])], &mut |_| true)
            .expect("tell");
        assert_eq!(told.len(), 1);
        assert!(warnings[0].contains("damaged"), "{warnings:?}");
    }
}
