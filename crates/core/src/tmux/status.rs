//! swarm's one area of a session's status line and its marker on windows:
//! the session option `@swarm_status` (shown by `status-right`) holds the
//! most urgent notice of the session's agents, and the window option
//! `@swarm_attention` marks a window where an agent needs the person
//! (shown by the window status formats). swarm adds the two formats to a
//! session's own options the first time it shows something there, and
//! never again.

use super::args::Args;
use super::client::Tmux;
use super::error::TmuxError;

/// What `status-right` gets in front: the notice, reversed, when set.
const STATUS_AREA: &str = "#{?@swarm_status,#[reverse] #{@swarm_status} #[noreverse] ,}";

/// What the window status formats get in front: a `!` when marked.
const WINDOW_MARK: &str = "#{?@swarm_attention,#[reverse]#{@swarm_attention}#[noreverse],}";

/// Room on the right of the status line for a notice.
const STATUS_LENGTH: u32 = 120;

/// One session's notice, and the marks of its windows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SessionNotice {
    /// The session.
    pub session: String,
    /// The notice (`None`: nothing to say).
    pub text: Option<String>,
    /// Each window index with its mark (`None`: unmarked).
    pub windows: Vec<(u32, Option<String>)>,
}

impl Tmux {
    /// Adds swarm's area and window marks to `session`'s formats, unless
    /// they are there already (one call to read them, one to set them).
    pub(crate) fn add_status_area(&self, session: &str) -> Result<(), TmuxError> {
        let target = format!("={session}:");
        let read = |option: &str| -> Result<String, TmuxError> {
            let out = self.exec(
                Args::new("show-options")
                    .flag("-v")
                    .flag("-t")
                    .text(&target)
                    .text(option)
                    .then("show-options")
                    .flag("-gv")
                    .text(option),
                None,
            )?;
            // The session's own value when it has one, else the global.
            Ok(out.lines().next().unwrap_or("").to_owned())
        };
        let right = read("status-right")?;
        if right.contains("@swarm_status") {
            return Ok(());
        }
        let window = read("window-status-format")?;
        let current = read("window-status-current-format")?;
        let args = Args::new("set-option")
            .flag("-t")
            .text(&target)
            .text("status-right")
            .text(format!("{STATUS_AREA}{right}"))
            .then("set-option")
            .flag("-t")
            .text(&target)
            .text("status-right-length")
            .text(STATUS_LENGTH.to_string())
            .then("set-option")
            .flag("-t")
            .text(&target)
            .text("window-status-format")
            .text(format!("{WINDOW_MARK}{window}"))
            .then("set-option")
            .flag("-t")
            .text(&target)
            .text("window-status-current-format")
            .text(format!("{WINDOW_MARK}{current}"));
        self.exec(args, None).map(drop)
    }

    /// Sets the notices of sessions and the marks of their windows, in one
    /// call. Texts must already be sanitised; `#` is doubled so that tmux
    /// shows it instead of expanding a format.
    pub(crate) fn show_notices(&self, notices: &[SessionNotice]) -> Result<(), TmuxError> {
        let mut args: Option<Args> = None;
        let mut add = |next: Args| {
            args = Some(match args.take() {
                None => next,
                Some(prev) => prev.join(next),
            });
        };
        for n in notices {
            let target = format!("={}:", n.session);
            add(match &n.text {
                Some(t) => Args::new("set-option")
                    .flag("-t")
                    .text(&target)
                    .text("@swarm_status")
                    .text(t.replace('#', "##")),
                None => Args::new("set-option")
                    .flag("-u")
                    .flag("-t")
                    .text(&target)
                    .text("@swarm_status"),
            });
            for (window, mark) in &n.windows {
                let w = format!("={}:{window}", n.session);
                add(match mark {
                    Some(m) => Args::new("set-option")
                        .flag("-w")
                        .flag("-t")
                        .text(&w)
                        .text("@swarm_attention")
                        .text(m.replace('#', "##")),
                    None => Args::new("set-option")
                        .flag("-w")
                        .flag("-u")
                        .flag("-t")
                        .text(&w)
                        .text("@swarm_attention"),
                });
            }
        }
        match args {
            Some(a) => self.exec(a, None).map(drop),
            None => Ok(()),
        }
    }
}
