//! Reading panes' screens: one pane's text or rows, and the screens of
//! several panes (and the rows of history just above them) in one script,
//! started early and finished when the caller needs them
//! (`PendingScreens`).

use super::args::Args;
use super::client::Tmux;
use super::error::TmuxError;
use super::pane::PaneId;
use super::pending::Pending;
use super::script::{refuse_scripts, scripts_refused};

/// How much of a screen a capture keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScreenDetail {
    /// The text only.
    Text,
    /// The text with its SGR attribute sequences (`capture-pane -e`), for
    /// agents whose screen markers look at colours or reverse video. About
    /// twice tmux's work of `Text` for a large pane.
    Attributes,
}

/// Which rows of a pane a capture takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rows {
    /// The visible screen.
    Screen,
    /// Up to this many rows of history, the rows that scrolled off the
    /// top of the screen, oldest first (empty when there are none).
    History(usize),
}

impl Tmux {
    /// The visible text of a pane, wrapped lines joined (`capture-pane -pJ`).
    pub fn capture_pane(&self, target: &PaneId) -> Result<String, TmuxError> {
        self.exec(
            Args::new("capture-pane")
                .flag("-p")
                .flag("-J")
                .flag("-t")
                .text(target.as_str()),
            None,
        )
    }

    /// The visible rows of a pane as the screen shows them (no joining of
    /// wrapped lines), so that row numbers match `#{cursor_y}`.
    pub fn capture_rows(&self, target: &PaneId) -> Result<String, TmuxError> {
        self.exec(
            Args::new("capture-pane")
                .flag("-p")
                .flag("-t")
                .text(target.as_str()),
            None,
        )
    }

    /// The visible screen of a pane (`capture-pane -p -J`, with `-e` for
    /// `ScreenDetail::Attributes`): wrapped lines joined, for reading an
    /// agent's state.
    pub(crate) fn capture_screen(
        &self,
        target: &PaneId,
        detail: ScreenDetail,
    ) -> Result<String, TmuxError> {
        let args = Args::new("capture-pane").flag("-p").flag("-J");
        let args = match detail {
            ScreenDetail::Text => args,
            ScreenDetail::Attributes => args.flag("-e"),
        };
        self.exec(args.flag("-t").text(target.as_str()), None)
    }

    /// Up to `rows` rows of a pane's history (as `capture_screen` reads
    /// its screen), empty when it has none: `capture-pane -S -N -E -1`
    /// would give the screen's first row then.
    pub(crate) fn capture_history(
        &self,
        target: &PaneId,
        detail: ScreenDetail,
        rows: usize,
    ) -> Result<String, TmuxError> {
        let size = self.display(target.as_str(), "#{history_size}")?;
        if size.trim() == "0" {
            return Ok(String::new());
        }
        let args = Args::new("capture-pane").flag("-p").flag("-J");
        let args = match detail {
            ScreenDetail::Text => args,
            ScreenDetail::Attributes => args.flag("-e"),
        };
        self.exec(
            args.flag("-S")
                .flag(&format!("-{}", rows.max(1)))
                .flag("-E")
                .flag("-1")
                .flag("-t")
                .text(target.as_str()),
            None,
        )
    }

    /// The screens of several panes (as `capture_screen`), in one tmux
    /// call; `None` for a pane that could not be captured (gone).
    pub(crate) fn capture_screens(
        &self,
        targets: &[(PaneId, ScreenDetail)],
    ) -> Vec<Option<String>> {
        self.start_capture_screens(targets).finish()
    }

    /// Starts `capture_screens` and returns at once: the caller does other
    /// work while tmux answers, then calls `finish`. The captures run as a
    /// script of one line per pane, `capture-pane ...; display-message
    /// TOKEN:i`, in a client started by `warm_up` when there is one: tmux
    /// runs every line even when one fails (a pane that is gone), and stops
    /// within a line at its first failure, so the numbered token after a
    /// screen says whose it is and that it is whole. The token is random, so
    /// no screen content can fake it.
    pub(crate) fn start_capture_screens(
        &self,
        targets: &[(PaneId, ScreenDetail)],
    ) -> PendingScreens<'_> {
        let targets: Vec<(PaneId, ScreenDetail, Rows)> = targets
            .iter()
            .map(|(p, d)| (p.clone(), *d, Rows::Screen))
            .collect();
        self.start_capture(targets)
    }

    /// The screens or histories of several panes (`Rows`), in one tmux
    /// call, as `capture_screens` takes screens; a history comes after
    /// the pane's history size, so that a pane without one (for which
    /// tmux would give the screen's first row) reads as empty.
    pub(crate) fn capture(
        &self,
        targets: Vec<(PaneId, ScreenDetail, Rows)>,
    ) -> Vec<Option<String>> {
        self.start_capture(targets).finish()
    }

    fn start_capture(&self, targets: Vec<(PaneId, ScreenDetail, Rows)>) -> PendingScreens<'_> {
        let token = format!("swarm-screen-end-{}", uuid::Uuid::new_v4().simple());
        let call = if targets.is_empty() || scripts_refused() {
            None
        } else {
            let mut script = String::new();
            for (i, (pane, detail, rows)) in targets.iter().enumerate() {
                let attributes = match detail {
                    ScreenDetail::Text => "",
                    ScreenDetail::Attributes => " -e",
                };
                // Pane ids are `%` and digits and the token is `[a-z0-9-]`:
                // nothing here needs quoting beyond the pane id's `%`.
                let capture = match rows {
                    Rows::Screen => format!("capture-pane -p -J{attributes} -t '{pane}'"),
                    Rows::History(n) => format!(
                        "display-message -p -t '{pane}' '#{{history_size}}' ; capture-pane -p -J{attributes} -S -{} -E -1 -t '{pane}'",
                        n.max(&1)
                    ),
                };
                script.push_str(&format!("{capture} ; display-message -p '{token}:{i}'\n"));
            }
            Some(self.start_script("capture-pane", script))
        };
        PendingScreens {
            call,
            tmux: self,
            targets,
            token,
        }
    }
}

/// Screens being captured (`Tmux::start_capture_screens`).
pub(crate) struct PendingScreens<'a> {
    tmux: &'a Tmux,
    call: Option<Pending<'a>>,
    targets: Vec<(PaneId, ScreenDetail, Rows)>,
    token: String,
}

impl PendingScreens<'_> {
    /// The screens, in the order the panes were given; `None` for a pane
    /// that could not be captured.
    pub(crate) fn finish(self) -> Vec<Option<String>> {
        let mut screens: Vec<Option<String>> = vec![None; self.targets.len()];
        let answered = self.call.map(Pending::finish_output);
        if let Some(Ok(out)) = &answered {
            let mut rest = out.as_str();
            while let Some(at) = rest.find(&self.token) {
                let (screen, after) = rest.split_at(at);
                let tail = &after[self.token.len()..];
                let (label, next) = tail.split_once('\n').unwrap_or((tail, ""));
                let index = label
                    .strip_prefix(':')
                    .and_then(|n| n.parse::<usize>().ok());
                if let Some(i) = index
                    && let Some(slot) = screens.get_mut(i)
                {
                    *slot = match self.targets[i].2 {
                        Rows::Screen => Some(screen.to_owned()),
                        Rows::History(_) => history_rows(screen),
                    };
                }
                rest = next;
            }
        }
        // Not one screen from a script (none was run, this tmux may not
        // read one from standard input, or every pane is gone): each screen
        // is taken by a call of its own. If a script ran and those calls
        // find screens, no script is used again in this process.
        if screens.iter().all(Option::is_none) {
            for (slot, (pane, detail, rows)) in screens.iter_mut().zip(&self.targets) {
                *slot = match rows {
                    Rows::Screen => self.tmux.capture_screen(pane, *detail).ok(),
                    Rows::History(n) => self.tmux.capture_history(pane, *detail, *n).ok(),
                };
            }
            if answered.is_some() && screens.iter().any(Option::is_some) {
                refuse_scripts();
            }
        }
        screens
    }
}

/// A history's script output, its size's line first: the rows, or
/// nothing when the size is 0.
fn history_rows(out: &str) -> Option<String> {
    let (size, rows) = out.split_once('\n').unwrap_or((out, ""));
    match size.trim().parse::<u64>().ok()? {
        0 => Some(String::new()),
        _ => Some(rows.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::test_pane::CatPane;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn screens_come_from_one_script_each_with_its_detail_and_a_gone_pane_gives_none() {
        let shown = CatPane::showing(r"\033[1mBOLD\033[0m plain\n");
        let pane = shown.pane.clone();
        let started = std::time::Instant::now();
        while !shown
            .tmux
            .capture_screen(&pane, ScreenDetail::Text)
            .is_ok_and(|s| s.contains("BOLD plain"))
        {
            assert!(started.elapsed() < Duration::from_secs(20), "never shown");
            thread::sleep(Duration::from_millis(10));
        }
        let gone: PaneId = "%999".parse().expect("pane id");
        let asked = [
            (pane.clone(), ScreenDetail::Attributes),
            (gone, ScreenDetail::Text),
            (pane.clone(), ScreenDetail::Text),
        ];
        // Once through a client started ahead, once through one started
        // for the capture.
        for warm in [true, false] {
            if warm {
                shown.tmux.warm_up();
            }
            let screens = shown.tmux.capture_screens(&asked);
            assert_eq!(screens.len(), 3);
            let with = screens[0].as_deref().expect("screen with attributes");
            assert!(with.contains("\x1b[1mBOLD"), "{with:?}");
            assert_eq!(screens[1], None, "the gone pane");
            let text = screens[2].as_deref().expect("screen as text");
            assert!(text.starts_with("BOLD plain\n"), "{text:?}");
            assert!(!text.contains('\x1b'), "{text:?}");
        }
        assert!(
            !scripts_refused(),
            "the script was used, not a call per pane"
        );
        // A client started ahead and never used types nothing, and is
        // ended by `cool_down`.
        shown.tmux.warm_up();
        drop(shown.tmux.capture_screens(&[]));
        shown.tmux.warm_up();
        shown.tmux.cool_down();
        assert!(shown.tmux.warm.lock().expect("warm").is_none());
        assert_eq!(std::fs::read_to_string(&shown.out).unwrap_or_default(), "");
    }
}
