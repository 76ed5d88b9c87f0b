//! Typing one message into one agent's pane, safely and exactly once.
//!
//! Under a per-pane delivery lock (so concurrent senders never interleave):
//! check that an agent, not a shell or anything else, holds the pane's
//! terminal; find the agent's profile; when the profile reads screens, read
//! the screen and type only into an empty input box (idle, or busy for a
//! message that does not wait for the turn to end: the agent queues it;
//! `wait.rs` says what waits for what); paste the text as one bracketed paste from a uniquely
//! named buffer; wait the profile's pause; press Enter as its own key; then
//! check that the text left the input box, pressing Enter once more if it
//! did not (and a look just before shows it still waiting, under no
//! dialog, and the agent's prompt hook has not seen it). Once Enter was pressed the text is never pasted again; before
//! it, a paste the agent showed and then lost in a redraw goes in once
//! more. Agents whose profile does not
//! read screens get today's paste, pause, Enter.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use crate::agents::agent_matcher::{AgentMatcher, Foreground, ForegroundKind};
use crate::agents::profile::{Profile, Profiles};
use crate::agents::screen::{Reading, ScreenState, rows_showing};
use crate::hooks::HookSightings;
use crate::log::record::DeliveryOutcome;
use crate::store::{Paths, StateFile, StateLock};
use crate::tmux::{PaneId, PendingScreens, PreparedPaste, ScreenDetail, Tmux, TmuxError};

mod box_watch;

use box_watch::{Baseline, BoxWatch, shows_text};

pub(crate) use super::wait::{Wait, wait_for};

/// How deliveries behave.
#[derive(Clone, Debug)]
pub struct DeliverySettings {
    /// Pause between the paste and Enter for every agent; `None`: the
    /// agent's profile says.
    pub pause: Option<Duration>,
    /// For agents whose screen is not read: look at the screen after Enter
    /// and press it once more if the text is still in the input box.
    pub confirm: bool,
    /// How long to wait for other deliveries to the same pane.
    pub lock_timeout: Duration,
    /// The agent profiles.
    pub profiles: Profiles,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        DeliverySettings {
            pause: None,
            confirm: false,
            lock_timeout: Duration::from_secs(120),
            profiles: Profiles::default(),
        }
    }
}

/// Where a message goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// The recipient's agent id.
    pub agent: String,
    /// Its pane, when the registry knows it.
    pub pane: Option<PaneId>,
    /// The pane's root process (the registry's `pid`).
    pub pane_pid: u32,
}

/// A pane whose delivery lock is held and whose foreground is an agent.
pub(crate) struct PaneSession<'a> {
    tmux: &'a Tmux,
    pane: PaneId,
    agent: String,
    profile: Profile,
    pause: Duration,
    confirm: bool,
    /// The screen, being captured since the lock was taken; the first
    /// reading uses it.
    early: RefCell<Option<PendingScreens<'a>>>,
    /// A paste and Enter started ahead, waiting for the text (agents that
    /// need no pause); dropped unused, it types nothing.
    prepared: RefCell<Option<PreparedPaste<'a>>>,
    /// The last screen read, until a paste takes it as its baseline.
    last_capture: RefCell<Option<String>>,
    /// What the agents' own hooks reported: a message the prompt hook saw
    /// submitted never gets a second Enter.
    sightings: HookSightings,
    _lock: StateLock,
}

/// A pane whose delivery lock is held; what runs in it is not checked yet.
pub(crate) struct LockedPane<'a> {
    tmux: &'a Tmux,
    pane: PaneId,
    agent: String,
    pane_pid: u32,
    sightings: HookSightings,
    lock: StateLock,
}

/// Takes the pane's delivery lock, checks its foreground and finds the
/// agent's profile. `Err` is the outcome when nothing can be typed there at
/// all (queued, with why). The screen is captured as soon as the profile
/// says how (with attributes or not), so tmux answers while the caller
/// goes on.
pub(crate) fn open<'a>(
    tmux: &'a Tmux,
    paths: &Paths,
    matcher: &AgentMatcher,
    target: &Target,
    settings: &DeliverySettings,
) -> Result<PaneSession<'a>, DeliveryOutcome> {
    let session = lock(tmux, paths, target, settings)?.check(matcher, settings)?;
    if session.profile.reads_screen() {
        *session.early.borrow_mut() = Some(tmux.start_capture_screens(&[session.screen_request()]));
    }
    Ok(session)
}

/// Panes to type into, and a paste and Enter into exactly those panes
/// started ahead, waiting for the text (see `Tmux::prepare_paste_and_press`).
/// Dropped unused, it types nothing.
pub(crate) struct TypingAhead<'a> {
    panes: Vec<PaneId>,
    call: PreparedPaste<'a>,
}

impl<'a> TypingAhead<'a> {
    /// Starts a paste and Enter into `panes` (in the order a delivery
    /// locks them: by pane number), before anything is known of their
    /// screens: the tmux client starts while the caller logs the message
    /// and takes the locks. It is used only if exactly these panes turn out
    /// safe and need no pause.
    pub(crate) fn start(tmux: &'a Tmux, mut panes: Vec<PaneId>) -> TypingAhead<'a> {
        panes.sort_by_key(PaneId::number);
        let call = tmux.prepare_paste_and_press(&panes, PASTE_GAP, "Enter");
        TypingAhead { panes, call }
    }

    /// `ahead` when it is for exactly `panes`, else a paste and Enter into
    /// them started now (`ahead` is dropped, typing nothing).
    fn for_panes(
        ahead: Option<TypingAhead<'a>>,
        tmux: &'a Tmux,
        panes: &[PaneId],
    ) -> TypingAhead<'a> {
        match ahead {
            Some(a) if a.panes == panes => a,
            _ => TypingAhead::start(tmux, panes.to_vec()),
        }
    }
}

/// Takes the pane's delivery lock (so concurrent senders never
/// interleave). `Err` is the outcome when there is no pane or no lock.
pub(crate) fn lock<'a>(
    tmux: &'a Tmux,
    paths: &Paths,
    target: &Target,
    settings: &DeliverySettings,
) -> Result<LockedPane<'a>, DeliveryOutcome> {
    let Some(pane) = &target.pane else {
        return Err(DeliveryOutcome::queued(
            "the registry has no tmux pane id for this agent (run `swarm discover`)",
        ));
    };
    let lock_file = StateFile::new(paths.delivery_lock(pane.number()));
    let lock = lock_file.lock_only(settings.lock_timeout).map_err(|e| {
        DeliveryOutcome::queued(format!("could not take the delivery lock of {pane}: {e}"))
    })?;
    Ok(LockedPane {
        tmux,
        pane: pane.clone(),
        agent: target.agent.clone(),
        pane_pid: target.pane_pid,
        sightings: HookSightings::new(paths),
        lock,
    })
}

impl<'a> LockedPane<'a> {
    /// Checks that an agent, not a shell or anything else, holds the
    /// pane's terminal, and finds its profile.
    pub(crate) fn check(
        self,
        matcher: &AgentMatcher,
        settings: &DeliverySettings,
    ) -> Result<PaneSession<'a>, DeliveryOutcome> {
        let foreground = matcher.pane_foreground(self.tmux, &self.pane, self.pane_pid);
        self.check_foreground(foreground, settings)
    }

    /// Checks several locked panes with one look at the processes (one
    /// `ps` for the portable backend, instead of one per pane).
    pub(crate) fn check_all(
        locked: Vec<LockedPane<'a>>,
        matcher: &AgentMatcher,
        settings: &DeliverySettings,
    ) -> Vec<Result<PaneSession<'a>, DeliveryOutcome>> {
        if locked.len() < 2 {
            return locked
                .into_iter()
                .map(|l| l.check(matcher, settings))
                .collect();
        }
        let survey = matcher.processes().survey();
        locked
            .into_iter()
            .map(|l| {
                let foreground = match &survey {
                    Ok(view) => Ok(matcher.foreground(view, l.pane_pid)),
                    Err(e) => Err(e.to_string()),
                };
                l.check_foreground(foreground, settings)
            })
            .collect()
    }

    /// The check, given what runs in the pane's foreground.
    fn check_foreground<E: std::fmt::Display>(
        self,
        foreground: Result<Option<Foreground>, E>,
        settings: &DeliverySettings,
    ) -> Result<PaneSession<'a>, DeliveryOutcome> {
        let LockedPane {
            tmux,
            pane,
            agent,
            pane_pid,
            sightings,
            lock,
        } = self;
        let command = match foreground {
            Err(e) => {
                return Err(DeliveryOutcome::queued(format!(
                    "could not tell what runs in pane {pane}: {e}"
                )));
            }
            Ok(None) => {
                return Err(DeliveryOutcome::queued(format!(
                    "pane {pane} is gone (its process {pane_pid} no longer runs)"
                )));
            }
            Ok(Some(fg)) => match fg.kind {
                ForegroundKind::Agent(command) => command,
                ForegroundKind::Shell => {
                    return Err(DeliveryOutcome::queued(format!(
                        "a shell ({}) is in the foreground of pane {pane}: typing there would run the message as commands",
                        fg.program
                    )));
                }
                ForegroundKind::Other => {
                    return Err(DeliveryOutcome::queued(format!(
                        "{} is in the foreground of pane {pane}, not an agent",
                        fg.program
                    )));
                }
            },
        };
        let profile = settings.profiles.for_command(&command);
        Ok(PaneSession {
            tmux,
            pane,
            agent,
            pause: settings.pause.unwrap_or(profile.pause),
            confirm: settings.confirm,
            profile,
            early: RefCell::new(None),
            prepared: RefCell::new(None),
            last_capture: RefCell::new(None),
            sightings,
            _lock: lock,
        })
    }
}

impl<'a> PaneSession<'a> {
    /// For a message about to be typed: when the agent needs no pause,
    /// makes sure its paste and Enter are started (tmux waits for the
    /// text), using `ahead` when it is for this pane alone, so that once
    /// the screen says it is safe, typing costs only tmux's own work.
    /// Nothing is typed unless `type_text` is called.
    pub(crate) fn prepare_typing(&self, ahead: Option<TypingAhead<'a>>) {
        if self.pause.is_zero() {
            let ahead = TypingAhead::for_panes(ahead, self.tmux, std::slice::from_ref(&self.pane));
            *self.prepared.borrow_mut() = Some(ahead.call);
        }
    }
}

impl PaneSession<'_> {
    /// The pane.
    pub(crate) fn pane(&self) -> &PaneId {
        &self.pane
    }

    /// The pane and how its screen is captured for this agent's profile.
    pub(crate) fn screen_request(&self) -> (PaneId, ScreenDetail) {
        (self.pane.clone(), self.profile.screen_detail())
    }

    /// Reads the screen; `None` when the profile does not read screens.
    /// A capture that fails reads as unknown.
    pub(crate) fn read(&self) -> Option<Reading> {
        if !self.profile.reads_screen() {
            return None;
        }
        let early = self.early.borrow_mut().take();
        let capture = match early {
            Some(pending) => pending.finish().into_iter().next().flatten(),
            None => self
                .tmux
                .capture_screen(&self.pane, self.profile.screen_detail())
                .ok(),
        };
        self.read_capture(capture.as_deref())
    }

    /// Reads the screen now and keeps the capture: the reading and what
    /// tmux showed (`None` when the profile does not read screens).
    pub(crate) fn look_now(&self) -> Option<(Reading, String)> {
        if !self.profile.reads_screen() {
            return None;
        }
        drop(self.early.borrow_mut().take());
        let capture = self
            .tmux
            .capture_screen(&self.pane, self.profile.screen_detail())
            .ok()?;
        let reading = self.read_capture(Some(&capture))?;
        Some((reading, capture))
    }

    /// Presses keys in the pane (tmux key names: `Down`, `Enter`, `4`).
    pub(crate) fn press(&self, keys: &[&str]) -> Result<(), TmuxError> {
        self.tmux.send_keys(&self.pane, keys)
    }

    /// The agent's profile.
    pub(crate) fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Reads a capture taken elsewhere (several panes at once); `None`
    /// when the profile does not read screens. No capture reads as unknown.
    pub(crate) fn read_capture(&self, capture: Option<&str>) -> Option<Reading> {
        if !self.profile.reads_screen() {
            return None;
        }
        // A capture from before this one must never be read after it.
        drop(self.early.borrow_mut().take());
        *self.last_capture.borrow_mut() = capture.map(str::to_owned);
        Some(
            capture
                .and_then(|c| self.profile.read(c))
                .unwrap_or(Reading {
                    state: ScreenState::Unknown,
                    box_text: None,
                }),
        )
    }

    /// The last screen read, taken just before a paste (used once: a later
    /// paste needs a new reading).
    fn take_before(&self) -> Option<String> {
        self.last_capture.borrow_mut().take()
    }

    /// What the screen `before` a paste of the text `marker` showed. Made
    /// after Enter, so that reading it costs nothing between paste and
    /// Enter.
    fn baseline(&self, before: Option<String>, marker: &str) -> Option<Baseline> {
        let capture = before?;
        Some(Baseline {
            shown: rows_showing(&capture, marker),
            idle: self
                .profile
                .read(&capture)
                .is_some_and(|r| r.state == ScreenState::Idle),
            capture,
            marker: marker.to_owned(),
            profile: Some(self.profile.clone()),
        })
    }

    /// Just before a second Enter: true only when a look taken now shows
    /// text in the input box, no dialog anywhere on screen (even beside a
    /// box: a row left over from an earlier frame can look like one),
    /// nothing above the box saying the agent took the text (`baseline`),
    /// and the agent's own prompt hook has not reported the message. An
    /// Enter the agent does not need lands on whatever the message opened:
    /// a dialog would take it as its answer.
    fn may_press_again(&self, marker: &str, baseline: Option<&Baseline>) -> bool {
        if self.hook_saw(marker) {
            return false;
        }
        let (Some(reading), Some(capture)) = self.look() else {
            return false;
        };
        shows_text(&reading)
            && reading.state != ScreenState::Dialog
            && !self.profile.shows_dialog(&capture)
            && !baseline.is_some_and(|b| b.in_transcript(&capture))
    }

    /// True when the agent's prompt hook, reporting from this pane, saw
    /// the message `marker` names submitted.
    fn hook_saw(&self, marker: &str) -> bool {
        let Some(id) = msg_id_of(marker) else {
            return false;
        };
        self.sightings
            .load()
            .get(&self.agent)
            .is_some_and(|s| s.serves(Some(self.pane.as_str())) && s.confirmed_at(id).is_some())
    }

    /// Reads the screen for confirming: the reading and the capture.
    fn look(&self) -> (Option<Reading>, Option<String>) {
        let capture = self
            .tmux
            .capture_screens(&[self.screen_request()])
            .into_iter()
            .next()
            .flatten();
        (self.read_capture(capture.as_deref()), capture)
    }

    /// True when the agent's profile reads its screen.
    pub(crate) fn reads_screen(&self) -> bool {
        self.profile.reads_screen()
    }

    /// The agent id.
    pub(crate) fn agent(&self) -> &str {
        &self.agent
    }

    /// What keeps messages out of the pane now (`None`: anything may be
    /// typed). Agents whose screen is not read are always typed into.
    pub(crate) fn wait(&self) -> Option<Wait> {
        let reading = self.read()?;
        let wait = wait_for(&reading, &self.agent)?;
        // A screen that cannot be read at all may be a tmux server that is
        // not there: say that, not "no input box" (one more call, only on
        // this path).
        if reading.state == ScreenState::Unknown
            && reading.box_text.is_none()
            && let Err(e @ TmuxError::NoServer { .. }) = self.tmux.server_info()
        {
            return Some(Wait::Unsafe(format!(
                "{e}; {}'s pane cannot be reached (it goes in once the pane is back)",
                self.agent
            )));
        }
        Some(wait)
    }

    /// Pastes `text`, waits the pause, presses Enter, and checks the text
    /// left the input box. `marker` identifies the text on screen.
    pub(crate) fn type_text(&self, text: &str, marker: &str) -> DeliveryOutcome {
        // A prompt that starts with one of these runs as a command; the
        // swarm header never does, but a leading space makes sure.
        let guarded;
        let text = if text
            .chars()
            .next()
            .is_some_and(|c| self.profile.command_chars.contains(c))
        {
            guarded = format!(" {text}");
            guarded.as_str()
        } else {
            text
        };
        // A screen captured before the paste is never read after it.
        drop(self.early.borrow_mut().take());
        let before = self.take_before();
        if self.pause.is_zero() {
            // No pause needed: paste and Enter go in one tmux call.
            let prepared = self.prepared.borrow_mut().take();
            let call = prepared
                .unwrap_or_else(|| TypingAhead::start(self.tmux, vec![self.pane.clone()]).call);
            if let Err(e) = call.send(text.as_bytes()) {
                return DeliveryOutcome::queued(describe(&self.pane, "paste into", &e));
            }
            return self.after_enter(text, marker, false, before);
        }
        let mut seen = match self.paste_and_pause(text) {
            Ok(seen) => seen,
            Err(outcome) => return outcome,
        };
        let again = seen && self.dropped_before_enter(before.as_deref(), marker);
        if again {
            // The agent redrew its whole screen and lost the paste (Gemini
            // CLI replaying a resumed conversation right after its first
            // frame): nothing was submitted, so it goes in once more.
            seen = match self.paste_and_pause(text) {
                Ok(seen) => seen,
                Err(outcome) => return outcome,
            };
        }
        if let Err(e) = self.tmux.send_keys(&self.pane, &["Enter"]) {
            return DeliveryOutcome::queued(describe(&self.pane, "press Enter in", &e));
        }
        let outcome = self.after_enter(text, marker, seen, before);
        if again {
            outcome.after_second_paste()
        } else {
            outcome
        }
    }

    /// Pastes `text` and waits the pause; true when the box was seen
    /// showing it. An agent that needs a pause (Gemini CLI) also drops an
    /// Enter that comes before its box shows the paste: that is waited for
    /// too, up to `VISIBLE_WINDOW`.
    fn paste_and_pause(&self, text: &str) -> Result<bool, DeliveryOutcome> {
        let pasted = Instant::now();
        if let Err(e) = self.tmux.paste_text(&self.pane, text.as_bytes()) {
            let why = describe(&self.pane, "paste into", &e);
            return Err(DeliveryOutcome::queued(why));
        }
        let mut seen = false;
        if self.profile.reads_screen() {
            let deadline = pasted + VISIBLE_WINDOW;
            while Instant::now() < deadline {
                if self.read().is_some_and(|r| shows_text(&r)) {
                    seen = true;
                    break;
                }
                std::thread::sleep(CONFIRM_POLL);
            }
        }
        let wait = self.pause.saturating_sub(pasted.elapsed());
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
        Ok(seen)
    }

    /// Just before Enter, for a paste that was seen in the box: true when
    /// the box is back on screen empty and safe to type into and the text
    /// (its `marker`) is on no more rows than `before` the paste, so it is
    /// gone without having been submitted (no Enter was pressed yet). A
    /// box hidden for a moment (the agent redrawing) is waited for, up to
    /// `VISIBLE_WINDOW`; one that shows the text, or stays hidden, or sits
    /// under a dialog is left to Enter and the check after it.
    fn dropped_before_enter(&self, before: Option<&str>, marker: &str) -> bool {
        let shown_before = before.map_or(0, |b| rows_showing(b, marker));
        let deadline = Instant::now() + VISIBLE_WINDOW;
        loop {
            if let (Some(r), Some(capture)) = self.look()
                && r.box_text.is_some()
            {
                return r.is_safe() && rows_showing(&capture, marker) <= shown_before;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(CONFIRM_POLL);
        }
    }

    /// After Enter: checks that the text left the input box (`seen`: it
    /// was seen in the box before Enter; `before`: the screen before the
    /// paste).
    fn after_enter(
        &self,
        text: &str,
        marker: &str,
        seen: bool,
        before: Option<String>,
    ) -> DeliveryOutcome {
        if self.profile.reads_screen() {
            let baseline = self.baseline(before, marker);
            return self.confirm_left_box(BoxWatch::new(seen, baseline), marker);
        }
        if self.confirm {
            confirm(self.tmux, &self.pane, text, marker, self.pause);
        }
        DeliveryOutcome::delivered()
    }

    /// Waits for the text to leave the input box. If it is still there
    /// after a while (the agent dropped the Enter: Gemini CLI does when it
    /// comes too soon), presses Enter once more, but only when a look just
    /// before shows it still waiting (see `may_press_again`): never when a
    /// dialog is on screen, the transcript or the agent's hook shows the
    /// text taken, or the box is not on screen. An empty box
    /// counts once the agent shows the text above it (its transcript), or
    /// the text was seen in the box, or the box stayed empty long enough
    /// that a paste still on its way would have shown.
    fn confirm_left_box(&self, mut watch: BoxWatch, marker: &str) -> DeliveryOutcome {
        for attempt in 0..2 {
            let deadline = Instant::now() + CONFIRM_WINDOW;
            let mut looks = 0;
            while Instant::now() < deadline {
                // The client for this look starts while the agent takes
                // the text, so the look costs only tmux's answer.
                self.tmux.warm_up();
                std::thread::sleep(poll_delay(looks));
                looks += 1;
                let (reading, capture) = self.look();
                if watch.look(reading.as_ref(), capture.as_deref()) {
                    return watch.outcome(true);
                }
            }
            if attempt == 0
                && watch.text_in_box
                && self.may_press_again(marker, watch.baseline.as_ref())
            {
                if self.tmux.send_keys(&self.pane, &["Enter"]).is_err() {
                    break;
                }
                watch.pressed_again();
                continue;
            }
            break;
        }
        watch.outcome(false)
    }
}

/// For a broadcast: when no agent among `sessions` needs a pause, one
/// paste and Enter into all their panes, waiting for the text: `ahead`
/// when it is for exactly these panes, else one started now, so it can
/// start while their screens are read.
pub(crate) fn prepare_many<'a>(
    sessions: &[&PaneSession<'a>],
    ahead: Option<TypingAhead<'a>>,
) -> Option<TypingAhead<'a>> {
    let first = sessions.first()?;
    if sessions.len() < 2 || sessions.iter().any(|s| !s.pause.is_zero()) {
        return None;
    }
    let panes: Vec<PaneId> = sessions.iter().map(|s| s.pane.clone()).collect();
    Some(TypingAhead::for_panes(ahead, first.tmux, &panes))
}

/// Types the same text into several panes at once, as a broadcast does:
/// one tmux call pastes into all of them, then after the longest pause any
/// of them needs, one call presses Enter in all; then each box is checked
/// (all screens in one call per look) and Enter pressed once more where
/// the text is still waiting. Never pastes twice.
/// `prepared`: a paste and Enter started ahead for some panes (see
/// `prepare_many`); used when they are exactly the panes typed into,
/// otherwise dropped, typing nothing.
pub(crate) fn type_text_many<'a>(
    sessions: &[&PaneSession<'a>],
    text: &str,
    marker: &str,
    prepared: Option<TypingAhead<'a>>,
) -> Vec<DeliveryOutcome> {
    let Some(first) = sessions.first() else {
        return Vec::new();
    };
    let tmux = first.tmux;
    let guarded = sessions.iter().any(|s| {
        text.chars()
            .next()
            .is_some_and(|c| s.profile.command_chars.contains(c))
    });
    if guarded || sessions.len() == 1 {
        return sessions.iter().map(|s| s.type_text(text, marker)).collect();
    }
    let panes: Vec<PaneId> = sessions.iter().map(|s| s.pane.clone()).collect();
    let befores: Vec<Option<String>> = sessions.iter().map(|s| s.take_before()).collect();
    let mut watches: Vec<BoxWatch> = sessions
        .iter()
        .map(|_| BoxWatch::new(false, None))
        .collect();
    let pause = sessions.iter().map(|s| s.pause).max().unwrap_or_default();
    if pause.is_zero() {
        // No pause needed: the pastes and the Enters go in one tmux call.
        let call = TypingAhead::for_panes(prepared, tmux, &panes).call;
        if let Err(e) = call.send(text.as_bytes()) {
            let why = format!("could not paste the broadcast: {e}");
            return sessions
                .iter()
                .map(|_| DeliveryOutcome::queued(why.clone()))
                .collect();
        }
    } else if let Err(e) = paste_wait_press(sessions, &panes, &mut watches, text, pause) {
        return sessions
            .iter()
            .map(|_| DeliveryOutcome::queued(e.clone()))
            .collect();
    }
    finish_many(sessions, &panes, watches, befores, text, marker)
}

/// For a broadcast to agents that need a pause: pastes into every pane,
/// waits until each box shows the paste (or a while), waits the pause, and
/// presses Enter in all. `Err`: why nothing more can be done.
fn paste_wait_press(
    sessions: &[&PaneSession<'_>],
    panes: &[PaneId],
    watches: &mut [BoxWatch],
    text: &str,
    pause: Duration,
) -> Result<(), String> {
    let tmux = sessions[0].tmux;
    let pasted = Instant::now();
    tmux.paste_text_many(panes, text.as_bytes())
        .map_err(|e| format!("could not paste the broadcast: {e}"))?;
    let reading: Vec<usize> = (0..sessions.len())
        .filter(|&i| sessions[i].profile.reads_screen())
        .collect();
    // As for one pane: wait until every box shows the paste.
    let deadline = pasted + VISIBLE_WINDOW;
    while Instant::now() < deadline {
        let waiting: Vec<usize> = reading
            .iter()
            .copied()
            .filter(|&i| !watches[i].seen)
            .collect();
        if waiting.is_empty() {
            break;
        }
        let ids: Vec<(PaneId, ScreenDetail)> = waiting
            .iter()
            .map(|&i| sessions[i].screen_request())
            .collect();
        for (&i, capture) in waiting.iter().zip(tmux.capture_screens(&ids)) {
            if sessions[i]
                .read_capture(capture.as_deref())
                .is_some_and(|r| shows_text(&r))
            {
                watches[i].seen = true;
            }
        }
        std::thread::sleep(CONFIRM_POLL);
    }
    let wait = pause.saturating_sub(pasted.elapsed());
    if !wait.is_zero() {
        std::thread::sleep(wait);
    }
    tmux.send_key_many(panes, "Enter")
        .map_err(|e| format!("could not press Enter after the broadcast: {e}"))
}

/// After Enter in every pane of a broadcast: confirms each box emptied,
/// pressing Enter once more where the text still waits.
fn finish_many(
    sessions: &[&PaneSession<'_>],
    panes: &[PaneId],
    mut watches: Vec<BoxWatch>,
    befores: Vec<Option<String>>,
    text: &str,
    marker: &str,
) -> Vec<DeliveryOutcome> {
    let tmux = sessions[0].tmux;
    for ((watch, s), before) in watches.iter_mut().zip(sessions).zip(befores) {
        watch.baseline = s.baseline(before, marker);
    }
    let mut outcomes: Vec<Option<DeliveryOutcome>> = sessions
        .iter()
        .map(|s| {
            (!s.profile.reads_screen()).then(|| {
                if s.confirm {
                    confirm(tmux, &s.pane, text, marker, s.pause);
                }
                DeliveryOutcome::delivered()
            })
        })
        .collect();
    for attempt in 0..2 {
        let deadline = Instant::now() + CONFIRM_WINDOW;
        let mut looks = 0;
        loop {
            let open: Vec<usize> = (0..sessions.len())
                .filter(|&i| outcomes[i].is_none())
                .collect();
            if open.is_empty() || Instant::now() >= deadline {
                break;
            }
            // As for one pane: the look's client starts during the wait.
            tmux.warm_up();
            std::thread::sleep(poll_delay(looks));
            looks += 1;
            let ids: Vec<(PaneId, ScreenDetail)> =
                open.iter().map(|&i| sessions[i].screen_request()).collect();
            for (&i, capture) in open.iter().zip(tmux.capture_screens(&ids)) {
                let reading = sessions[i].read_capture(capture.as_deref());
                if watches[i].look(reading.as_ref(), capture.as_deref()) {
                    outcomes[i] = Some(watches[i].outcome(true));
                }
            }
        }
        let again: Vec<usize> = (0..sessions.len())
            .filter(|&i| outcomes[i].is_none() && watches[i].text_in_box)
            .filter(|&i| {
                attempt == 0 && sessions[i].may_press_again(marker, watches[i].baseline.as_ref())
            })
            .collect();
        if attempt == 1 || again.is_empty() {
            break;
        }
        let ids: Vec<PaneId> = again.iter().map(|&i| panes[i].clone()).collect();
        if tmux.send_key_many(&ids, "Enter").is_err() {
            break;
        }
        for &i in &again {
            watches[i].pressed_again();
        }
    }
    outcomes
        .into_iter()
        .zip(&watches)
        .map(|(o, watch)| o.unwrap_or_else(|| watch.outcome(false)))
        .collect()
}

/// For agents that need no pause: the time tmux waits between writing a
/// paste and writing Enter, within one call, so that the agent reads them
/// as two inputs (Claude Code and Codex CLI submit every paste at once even
/// with none; see docs/PROFILES.md).
const PASTE_GAP: Duration = Duration::from_millis(0);

/// How long to wait for a paste to show in the box before pressing Enter
/// anyway (for agents that need a pause).
const VISIBLE_WINDOW: Duration = Duration::from_secs(1);
/// How long an empty box must stay empty to count as "the text left it"
/// when the text was never seen in it (longer than a paste takes to show:
/// at most ~90 ms measured).
const EMPTY_SETTLE: Duration = Duration::from_millis(200);

/// How long to wait for the input box to empty after Enter.
const CONFIRM_WINDOW: Duration = Duration::from_millis(600);
/// Time between looks at the screen while confirming.
const CONFIRM_POLL: Duration = Duration::from_millis(5);

/// The wait before look number `n` (from 0) at a screen after Enter: the
/// first looks come soon (an agent that takes the text redraws within a few
/// milliseconds), later ones every `CONFIRM_POLL`.
fn poll_delay(n: u32) -> Duration {
    match n {
        0 => Duration::from_millis(1),
        1 => Duration::from_millis(2),
        _ => CONFIRM_POLL,
    }
}

/// Least wait before looking at the screen: the agent needs a moment to
/// redraw after Enter.
const CONFIRM_WAIT: Duration = Duration::from_millis(100);

/// For agents whose screen is not read: if the rows ending at the cursor
/// (the agent's input box) still hold the message, its Enter was dropped:
/// press Enter once more. Never pastes, so it can never duplicate a
/// message; if it sees the message elsewhere near the cursor (an agent
/// echoing it), the extra Enter lands on an empty prompt, which submits
/// nothing.
fn confirm(tmux: &Tmux, pane: &PaneId, text: &str, marker: &str, pause: Duration) {
    std::thread::sleep(pause.max(CONFIRM_WAIT));
    let Ok(geometry) = tmux.display(pane.as_str(), "#{cursor_y} #{pane_width}") else {
        return;
    };
    let mut numbers = geometry.split_whitespace().map(|n| n.parse::<usize>().ok());
    let (Some(Some(y)), Some(Some(width))) = (numbers.next(), numbers.next()) else {
        return;
    };
    let Ok(screen) = tmux.capture_rows(pane) else {
        return;
    };
    // The rows the message can take up when wrapped at the pane's width.
    let rows: usize = text
        .lines()
        .map(|l| l.chars().count() / width.max(1) + 1)
        .sum::<usize>()
        .clamp(1, 50);
    let start = (y + 1).saturating_sub(rows + 1);
    let near_cursor: String = screen.lines().skip(start).take(y + 1 - start).collect();
    // A piece of the header without spaces ("15:14:20][INFO]:"), so that
    // joining wrapped rows (which lose a space at the wrap) still finds it.
    let token = format!("{}:", marker.rsplit(' ').next().unwrap_or(marker));
    if near_cursor.contains(&token) {
        let _ = tmux.send_keys(pane, &["Enter"]);
    }
}

/// The message id a marker names: the short id its pane header ends with
/// (`[#9c2c68bd]`, see `pane_text::pane_header`); `None` for text typed
/// without one (a resume prompt).
fn msg_id_of(marker: &str) -> Option<&str> {
    let (_, rest) = marker.rsplit_once("[#")?;
    rest.strip_suffix(']').filter(|id| !id.is_empty())
}

fn describe(pane: &PaneId, what: &str, e: &TmuxError) -> String {
    match e {
        TmuxError::TargetNotFound { .. } => format!("pane {pane} is gone"),
        other => format!("could not {what} pane {pane}: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_id_is_read_off_the_pane_header() {
        assert_eq!(
            msg_id_of("[operator][2026-11-23 22:15:31][INFO][#9c2c68bd]"),
            Some("9c2c68bd")
        );
        assert_eq!(msg_id_of("continue where you left off"), None);
        assert_eq!(msg_id_of("[a][#]"), None);
    }
}
