//! `ConfigStamp`: what the config files looked like when they were read
//! (which files, their size and modification time), so that a
//! long-running process (the project's watcher) notices a change to the
//! project's file or the per-user file, or one appearing or going, and
//! reads the config again. The environment is not part of it: a process
//! keeps the environment it was started with.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::load::{find, user_file};

/// One file's look: `None` when it does not exist.
type Look = Option<(u64, Option<SystemTime>)>;

/// The config files of a project as they were at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigStamp {
    root: PathBuf,
    user: Option<PathBuf>,
    files: Vec<(PathBuf, Look)>,
}

impl ConfigStamp {
    /// The config files of the project at `root` (the one `find` finds,
    /// and the per-user file `env` locates) as they are now.
    pub fn now(root: &Path, env: &[(OsString, OsString)]) -> ConfigStamp {
        let user = user_file(env);
        ConfigStamp {
            files: looks(root, user.as_deref()),
            root: root.to_owned(),
            user,
        }
    }

    /// Whether a file changed, appeared or went since the stamp was taken.
    pub fn changed(&self) -> bool {
        looks(&self.root, self.user.as_deref()) != self.files
    }
}

fn looks(root: &Path, user: Option<&Path>) -> Vec<(PathBuf, Look)> {
    find(root)
        .into_iter()
        .chain(user.map(Path::to_owned))
        .map(|p| {
            let look = std::fs::metadata(&p)
                .ok()
                .map(|m| (m.len(), m.modified().ok()));
            (p, look)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_to_either_file_is_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&root).expect("mkdir");
        let env = vec![(OsString::from("HOME"), home.clone().into_os_string())];
        let stamp = ConfigStamp::now(&root, &env);
        assert!(!stamp.changed());
        std::fs::write(root.join(".claudeswarm.toml"), "[notify]\n").expect("write");
        assert!(stamp.changed(), "a project file that appears");
        let stamp = ConfigStamp::now(&root, &env);
        assert!(!stamp.changed());
        std::fs::create_dir_all(home.join(".config/swarm")).expect("mkdir");
        std::fs::write(
            home.join(".config/swarm/config.toml"),
            "[notify]\ntmux = false\n",
        )
        .expect("write");
        assert!(stamp.changed(), "a per-user file that appears");
        let stamp = ConfigStamp::now(&root, &env);
        std::fs::write(root.join(".claudeswarm.toml"), "[notify]\ntmux = false\n").expect("write");
        assert!(stamp.changed(), "a project file that grows");
    }
}
