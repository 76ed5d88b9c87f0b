//! The live view in a terminal: raw mode and the alternate screen for as
//! long as it runs, a thread reading keys into the session's channel, and
//! a redraw after every wake-up. The terminal is restored on every way
//! out: a normal quit, an error (the guard's drop), a stop signal (it ends
//! the loop like `q`), and a panic (a panic hook restores it before the
//! panic message is printed).

use std::io::{self, Stdout};
use std::sync::Once;

use chrono::{Local, Offset};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, EnableBracketedPaste, Event as TermEvent, KeyEventKind,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

use swarm_core::support::time;
use swarm_core::{Error, Result};

use super::render::render;
use super::session::{Event, Session};
use super::state::{Action, Level, MonitorState};
use super::worker::{Job, Report};

/// Puts the terminal back as it was; every step is tried even when an
/// earlier one fails.
fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// The terminal in raw mode on the alternate screen; restored on drop.
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    fn enter() -> io::Result<TerminalGuard> {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        enable_raw_mode()?;
        // From here on, a failure must undo what was done.
        let started = (|| {
            execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
            let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
            terminal.hide_cursor()?;
            terminal.clear()?;
            Ok(terminal)
        })();
        match started {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

fn term_err(what: &str) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        what: what.into(),
        source,
    }
}

/// Runs the live view until `q`, Esc, Ctrl-C or a stop signal.
pub fn run(session: &mut Session, state: &mut MonitorState) -> Result<()> {
    let mut guard = TerminalGuard::enter().map_err(term_err("set up the terminal"))?;
    let keys = session.sender();
    std::thread::spawn(move || {
        loop {
            match event::read() {
                Ok(e @ (TermEvent::Key(_) | TermEvent::Paste(_) | TermEvent::Resize(..))) => {
                    if keys.send(Event::Input(e)).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let _ = keys.send(Event::Note(
                        Level::Error,
                        format!("cannot read keys any more: {e}"),
                    ));
                    return;
                }
            }
        }
    });
    loop {
        let size = guard
            .terminal
            .size()
            .map_err(term_err("read the terminal size"))?;
        state.set_viewport(size.width, size.height);
        state.set_now(time::now(), Local::now().offset().fix());
        guard
            .terminal
            .draw(|frame| render(state, frame))
            .map_err(term_err("draw on the terminal"))?;
        let mut update = session.wait();
        if update.stop {
            return Ok(());
        }
        let problems = state.absorb(&mut update, None);
        for (level, text) in problems.into_iter().chain(update.notes) {
            state.notify(level, &text);
        }
        for report in update.reports {
            match report {
                Report::Sent(lines) | Report::Acks(lines) | Report::Answered(lines) => {
                    for (level, text) in lines {
                        state.notify(level, &text);
                    }
                }
                Report::Screens(screens) => state.set_screens(screens),
                Report::Usage(spend, lines) => {
                    if let Some(spend) = spend {
                        state.set_usage(spend);
                    }
                    for (level, text) in lines {
                        state.notify(level, &text);
                    }
                }
            }
        }
        for input in update.inputs {
            let action = match input {
                TermEvent::Key(key) if key.kind != KeyEventKind::Release => state.handle_key(key),
                TermEvent::Paste(text) => {
                    state.handle_paste(&text);
                    Action::None
                }
                _ => Action::None,
            };
            match action {
                Action::None => {}
                Action::Quit => return Ok(()),
                Action::Send(out) => session.submit(Job::Send(out)),
                Action::Answer(a) => session.submit(Job::Answer(a)),
            }
        }
    }
}
