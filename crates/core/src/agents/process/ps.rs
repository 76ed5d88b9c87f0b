//! The portable backend of the process seam: one `ps` call lists every
//! process with a fixed set of columns that procps (Linux), macOS and the
//! BSDs all accept, and the answers come from that table.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::error::ProcessError;
use super::view::{ProcessInfo, ProcessView};

/// The arguments of the one `ps` call. `-ww`: never cut the argument
/// vector at the terminal's width; `=` after each column: no header. The
/// one free-text column (`args`) comes last, so nothing in it can shift
/// the others.
pub(crate) const PS_ARGS: [&str; 4] = ["-ww", "-A", "-o", "pid=,ppid=,pgid=,tpgid=,stat=,args="];

/// One process as `ps` listed it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Row {
    info: ProcessInfo,
    argv: Vec<String>,
}

/// Every process of the machine at the moment `ps` ran.
#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    rows: HashMap<u32, Row>,
    children: HashMap<u32, Vec<u32>>,
}

impl Table {
    /// Runs `ps` once and reads its table.
    pub(crate) fn read() -> Result<Table, ProcessError> {
        let out = Command::new("ps")
            .args(PS_ARGS)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .stdout(Stdio::piped())
            .output()
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => ProcessError::PsNotInstalled,
                _ => ProcessError::PsFailed {
                    detail: source.to_string(),
                },
            })?;
        if !out.status.success() {
            return Err(ProcessError::PsFailed {
                detail: format!(
                    "{}: {}",
                    out.status,
                    crate::support::sanitize::one_line(&String::from_utf8_lossy(&out.stderr))
                ),
            });
        }
        Ok(Table::parse(&String::from_utf8_lossy(&out.stdout)))
    }

    /// Builds the table from `ps` output. Lines that do not parse are
    /// skipped; a pid listed twice is dropped altogether, since one of its
    /// lines cannot be the real one (an argument vector that smuggled a
    /// line break into the listing).
    pub(crate) fn parse(text: &str) -> Table {
        let mut rows: HashMap<u32, Row> = HashMap::new();
        let mut doubled = Vec::new();
        for line in text.lines() {
            let Some((pid, row)) = parse_line(line) else {
                continue;
            };
            if rows.insert(pid, row).is_some() {
                doubled.push(pid);
            }
        }
        for pid in doubled {
            rows.remove(&pid);
        }
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for (&pid, row) in &rows {
            children.entry(row.info.ppid).or_default().push(pid);
        }
        for list in children.values_mut() {
            list.sort_unstable();
        }
        Table { rows, children }
    }

    /// How many processes the table holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }
}

/// `pid ppid pgid tpgid stat args...`, numbers right-aligned. A zombie
/// (`stat` starting with `Z`) has no program left to ask about: skipped.
fn parse_line(line: &str) -> Option<(u32, Row)> {
    let mut rest = line.trim_start();
    let mut next = || {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, tail) = rest.split_at(end);
        rest = tail.trim_start();
        (!word.is_empty()).then_some(word)
    };
    let pid: u32 = next()?.parse().ok().filter(|&p| p > 0)?;
    let ppid: u32 = next()?.parse().ok()?;
    let pgrp: u32 = next()?.parse().ok()?;
    // No terminal: -1 on Linux, 0 on macOS and the BSDs.
    let tpgid = next()?
        .parse::<i64>()
        .ok()
        .and_then(|t| u32::try_from(t).ok())
        .filter(|&t| t > 0);
    let stat = next()?;
    if stat.starts_with('Z') {
        return None;
    }
    // `ps` joins the arguments with spaces: an argument that itself
    // holds a space is split (the program and script names swarm looks
    // at rarely do).
    let argv: Vec<String> = rest.split_whitespace().map(str::to_owned).collect();
    let name = argv
        .first()
        .map(|a| {
            let base = a.rsplit('/').next().unwrap_or(a);
            base.trim_start_matches('-').to_lowercase()
        })
        .unwrap_or_default();
    Some((
        pid,
        Row {
            info: ProcessInfo {
                ppid,
                pgrp,
                tpgid,
                name,
            },
            argv,
        },
    ))
}

impl ProcessView for Table {
    fn info(&self, pid: u32) -> Option<ProcessInfo> {
        self.rows.get(&pid).map(|r| r.info.clone())
    }

    fn argv(&self, pid: u32) -> Option<Vec<String>> {
        self.rows.get(&pid).map(|r| r.argv.clone())
    }

    fn children(&self, pid: u32) -> Vec<u32> {
        self.children.get(&pid).cloned().unwrap_or_default()
    }

    /// `ps` does not show working directories; tmux's
    /// `#{pane_current_path}` answers that question instead.
    fn cwd(&self, _pid: u32) -> Option<PathBuf> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_linux_and_bsd_listings() {
        let text = "\
    1     0     1    -1 Ss   /sbin/init splash
  400     1   400   512 Ss   -bash
  512   400   512   512 S+   node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js --resume
  513   512   512   512 Z+   [node] <defunct>
  600     1   600     0 S    /usr/sbin/sshd -D
garbage line
";
        let t = Table::parse(text);
        assert_eq!(t.len(), 4);
        let shell = t.info(400).expect("shell");
        assert_eq!((shell.ppid, shell.pgrp, shell.tpgid), (1, 400, Some(512)));
        assert_eq!(shell.name, "bash");
        assert_eq!(
            t.argv(512).expect("argv"),
            [
                "node",
                "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js",
                "--resume"
            ]
        );
        assert_eq!(t.children(400), [512]);
        assert_eq!(t.children(1), [400, 600]);
        // A zombie is skipped; no terminal is None on either system.
        assert_eq!(t.info(513), None);
        assert_eq!(t.info(1).and_then(|i| i.tpgid), None);
        assert_eq!(t.info(600).and_then(|i| i.tpgid), None);
        assert_eq!(t.cwd(400), None);
    }

    #[test]
    fn a_pid_listed_twice_is_trusted_for_neither() {
        let t = Table::parse("  7  1  7  7 S  bash\n  7  1  7  7 S  claude\n  8  7  8  8 S  x\n");
        assert_eq!(t.info(7), None);
        assert_eq!(t.argv(7), None);
        assert!(t.info(8).is_some());
    }

    #[test]
    fn reads_this_machine() {
        let t = Table::read().expect("ps runs");
        let me = std::process::id();
        let info = t.info(me).expect("this process is listed");
        assert!(t.children(info.ppid).contains(&me));
        assert!(t.argv(me).is_some_and(|a| !a.is_empty()));
    }

    proptest! {
        #[test]
        fn parser_never_panics(s in "\\PC*") {
            let _ = Table::parse(&s);
        }

        #[test]
        fn any_argument_text_stays_in_its_row(args in "[^\\n\\r]*", pid in 1u32..1_000_000) {
            let t = Table::parse(&format!("{pid:>7} 1 {pid} -1 S {args}\n"));
            let want: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
            prop_assert_eq!(t.argv(pid), Some(want));
        }
    }
}
