//! Panes as `list-panes -a` describes them, and the parser for its output.

use std::path::PathBuf;

pub use crate::domain::PaneId;

/// Field separator in our `-F` formats: ASCII unit separator, which tmux
/// escapes inside session names.
pub(super) const FIELD_SEPARATOR: char = '\x1f';

/// The `list-panes -a -F` format the parser expects. The pane's current
/// directory, the one field tmux does not escape (a directory name may
/// hold any byte but NUL), comes last so that nothing in it can shift the
/// others; the session name, escaped by tmux, just before it. `#{pid}` and
/// `#{start_time}` name the server instance.
pub(crate) const LIST_PANES_FORMAT: &str = "#{pane_id}\x1f#{pane_pid}\x1f#{window_index}\x1f#{pane_index}\x1f#{pane_dead}\x1f#{@swarm_agent}\x1f#{@swarm_project}\x1f#{pid}\x1f#{start_time}\x1f#{session_name}\x1f#{pane_current_path}";

/// One pane of the server, as listed by `list-panes -a`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pane {
    /// `%N`.
    pub id: PaneId,
    /// The pid of the pane's root process (usually a shell).
    pub pid: u32,
    /// Session the pane belongs to.
    pub session: String,
    /// Window index within the session.
    pub window_index: u32,
    /// Pane index within the window.
    pub pane_index: u32,
    /// The pane's process has exited but the pane remains (remain-on-exit).
    pub dead: bool,
    /// Our `@swarm_agent` pane option: the agent id we gave this pane.
    pub agent_label: Option<String>,
    /// Our `@swarm_project` pane option: which project gave that id.
    pub project_label: Option<String>,
    /// The directory of the program in the pane's foreground, as tmux
    /// finds it on each platform (`#{pane_current_path}`); `None` when
    /// tmux could not tell.
    pub current_path: Option<PathBuf>,
    /// The server instance the pane lives on (`<server pid>:<start time>`).
    /// Pane ids restart at `%0` when a server restarts, so a pane id names
    /// the same pane only together with this.
    pub server: String,
}

impl Pane {
    /// `session:window.pane`, the address the Python tool keys agents by.
    pub fn address(&self) -> String {
        format!("{}:{}.{}", self.session, self.window_index, self.pane_index)
    }
}

/// Parses `list-panes -a -F LIST_PANES_FORMAT` output. Lines that do not
/// have the expected shape are returned separately (with the reason) rather
/// than aborting the whole listing.
pub fn parse_list_panes(output: &str) -> (Vec<Pane>, Vec<String>) {
    let mut panes = Vec::new();
    let mut skipped = Vec::new();
    for line in output.lines().filter(|l| !l.is_empty()) {
        match parse_line(line) {
            Ok(pane) => panes.push(pane),
            Err(why) => skipped.push(format!("{why}: {:?}", line)),
        }
    }
    (panes, skipped)
}

fn parse_line(line: &str) -> Result<Pane, &'static str> {
    let mut fields = line.splitn(11, FIELD_SEPARATOR);
    let mut next = || fields.next().ok_or("too few fields");
    let id = next()?.parse().map_err(|_| "bad pane id")?;
    let pid = next()?.parse().map_err(|_| "bad pane pid")?;
    let window_index = next()?.parse().map_err(|_| "bad window index")?;
    let pane_index = next()?.parse().map_err(|_| "bad pane index")?;
    let dead = next()? == "1";
    let agent_label = Some(next()?.to_owned()).filter(|s| !s.is_empty());
    let project_label = Some(next()?.to_owned()).filter(|s| !s.is_empty());
    let server_pid: u32 = next()?.parse().map_err(|_| "bad server pid")?;
    let server_started: u64 = next()?.parse().map_err(|_| "bad server start time")?;
    let session = next()?.to_owned();
    let current_path = Some(next()?).filter(|s| !s.is_empty()).map(PathBuf::from);
    Ok(Pane {
        id,
        pid,
        session,
        window_index,
        pane_index,
        dead,
        agent_label,
        project_label,
        current_path,
        server: format!("{server_pid}:{server_started}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn line(fields: &[&str]) -> String {
        fields.join("\x1f")
    }

    #[test]
    fn parses_a_listing() {
        let out = format!(
            "{}\n{}\n",
            line(&[
                "%0",
                "101",
                "0",
                "0",
                "0",
                "agent-0",
                "ab12",
                "9",
                "1700000000",
                "swarm",
                "/src/p"
            ]),
            line(&[
                "%7",
                "202",
                "1",
                "3",
                "1",
                "",
                "",
                "9",
                "1700000000",
                "odd name",
                "/x\x1fy"
            ])
        );
        let (panes, skipped) = parse_list_panes(&out);
        assert!(skipped.is_empty(), "{skipped:?}");
        assert_eq!(panes.len(), 2);
        assert_eq!(panes[0].address(), "swarm:0.0");
        assert_eq!(panes[0].agent_label.as_deref(), Some("agent-0"));
        assert_eq!(panes[0].server, "9:1700000000");
        assert_eq!(panes[1].id.number(), 7);
        assert!(panes[1].dead);
        assert_eq!(panes[1].agent_label, None);
        assert_eq!(panes[0].current_path, Some(PathBuf::from("/src/p")));
        assert_eq!(panes[1].session, "odd name");
        // The unescaped field is last, so a separator inside it is kept.
        assert_eq!(panes[1].current_path, Some(PathBuf::from("/x\x1fy")));
    }

    #[test]
    fn skips_malformed_lines_and_says_why() {
        let out = format!(
            "garbage\n{}\n{}\n",
            line(&["%1", "x", "0", "0", "0", "", "", "9", "1", "s", "/p"]),
            line(&["%2", "5", "0", "0", "0", "", "", "9", "1", "s", ""])
        );
        let (panes, skipped) = parse_list_panes(&out);
        assert_eq!(panes.len(), 1);
        assert_eq!(skipped.len(), 2);
        assert!(skipped[1].starts_with("bad pane pid"));
    }

    #[test]
    fn pane_ids_are_strict() {
        assert!("%0".parse::<PaneId>().is_ok());
        assert!("%123".parse::<PaneId>().is_ok());
        for bad in [
            "",
            "%",
            "0",
            "%-1",
            "%+1",
            "% 1",
            "%1\n",
            "%１",
            "%99999999999",
        ] {
            assert!(bad.parse::<PaneId>().is_err(), "{bad:?} accepted");
        }
    }

    proptest! {
        #[test]
        fn parser_never_panics(s in "\\PC*") {
            let _ = parse_list_panes(&s);
        }

        #[test]
        fn parser_round_trips_any_session_name_and_path(
            name in "\\PC*",
            path in "/\\PC*",
            n in 0u32..100000,
        ) {
            // tmux escapes control characters in session names; a path
            // keeps whatever it holds except a line break, which ends the
            // listing's line.
            let name = name.replace(|c: char| c.is_control(), " ");
            let path = path.replace(['\n', '\r'], " ");
            let out = line(&[&format!("%{n}"), "42", "1", "2", "0", "", "", "9", "1", &name, &path]);
            let (panes, skipped) = parse_list_panes(&out);
            prop_assert!(skipped.is_empty());
            prop_assert_eq!(&panes[0].session, &name);
            prop_assert_eq!(panes[0].current_path.as_deref(), Some(std::path::Path::new(&path)));
            prop_assert_eq!(panes[0].id.number(), n);
        }
    }
}
