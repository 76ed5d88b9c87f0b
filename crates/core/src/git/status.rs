//! `StatusEntry`: one line of `git status --porcelain=v1 -z --no-renames`.

/// One uncommitted change of a worktree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StatusEntry {
    /// The index column (`M`, `A`, `D`, ..., `?` for untracked, ` `).
    pub index: char,
    /// The worktree column.
    pub worktree: char,
    /// The path, relative to the top of the worktree.
    pub path: String,
}

impl StatusEntry {
    /// True for a file git does not track (`??`).
    pub(crate) fn is_untracked(&self) -> bool {
        self.index == '?'
    }
}

/// Reads the entries; `XY path` each, NUL-terminated. A record too short
/// to hold both columns is skipped.
pub(crate) fn parse_status(out: &[u8]) -> Vec<StatusEntry> {
    out.split(|b| *b == 0)
        .filter(|r| r.len() > 3 && r[2] == b' ')
        .map(|r| StatusEntry {
            index: char::from(r[0]),
            worktree: char::from(r[1]),
            path: String::from_utf8_lossy(&r[3..]).into_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tracked_and_untracked_entries() {
        let got = parse_status(b" M src/a.py\0A  new file.txt\0?? notes/x\0\0junk\0");
        let cols: Vec<(char, char, &str)> = got
            .iter()
            .map(|e| (e.index, e.worktree, e.path.as_str()))
            .collect();
        assert_eq!(
            cols,
            [
                (' ', 'M', "src/a.py"),
                ('A', ' ', "new file.txt"),
                ('?', '?', "notes/x")
            ]
        );
        assert!(got[2].is_untracked() && !got[0].is_untracked());
    }
}
