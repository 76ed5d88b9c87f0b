//! Agent profiles: the built-in ones (data in `config/profiles.toml`) with
//! the project's `[profiles.NAME]` tables laid over them, and the lookup
//! from an agent program (as discovery names it) to its profile.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use crate::agents::screen::{Reading, Screen, ScreenRules};
use crate::agents::transcript::{PrintRules, Printed};
use crate::config::profile::{GENERIC, builtin};
use crate::config::{Echo, ProfileSpec};
use crate::tmux::ScreenDetail;

/// One profile, ready to use.
#[derive(Clone, Debug)]
pub struct Profile {
    /// Its name (`claude`, `gemini`, `generic`, ...).
    pub name: String,
    /// Pause between the paste and Enter.
    pub pause: Duration,
    /// Leading characters the agent takes as a command.
    pub command_chars: String,
    /// The keys that stop its current turn; empty: none.
    pub interrupt: Vec<String>,
    /// Stopping a turn puts its prompt back into the input box, so a
    /// message is never typed right after one.
    pub interrupt_restores_prompt: bool,
    /// How long after a usage limit's reset it may take to carry on by
    /// itself.
    pub continues_after_limit: Duration,
    /// Whether a message may go through the agent's own channel.
    pub native: crate::config::NativeMode,
    /// How to read its screen; `None`: it is not read. Shared by every
    /// copy of the profile, so that a broadcast's copies reuse one set of
    /// compiled patterns and their search caches instead of cloning them.
    pub rules: Option<Arc<ScreenRules>>,
    /// How its transcript shows prompts, when the watcher reads what it
    /// prints (print-to-send); `None`: it does not.
    pub print: Option<Arc<PrintRules>>,
}

impl Profile {
    /// Reads a `capture-pane -p -J` capture (with `-e` when
    /// `screen_detail` says so); `None` when this profile
    /// does not read screens.
    pub(crate) fn read(&self, capture: &str) -> Option<Reading> {
        Some(self.rules.as_ref()?.read(&Screen::parse(capture)))
    }

    /// The usage limit a `capture-pane` capture shows (see
    /// `ScreenRules::limit`): the row and the reset time as printed;
    /// `None` when it shows none, is busy, or is not read.
    pub(crate) fn limit(&self, capture: &str) -> Option<(String, Option<String>)> {
        let rules = self.rules.as_ref()?;
        let screen = Screen::parse(capture);
        if rules.read(&screen).state == crate::agents::screen::ScreenState::Busy {
            return None;
        }
        rules.limit(&screen)
    }

    /// The screen's fingerprint without its spinner and timer rows (see
    /// `ScreenRules::quiet_fingerprint`); `None` when this profile does
    /// not read screens.
    pub(crate) fn quiet_fingerprint(&self, capture: &str) -> Option<u64> {
        Some(
            self.rules
                .as_ref()?
                .quiet_fingerprint(&Screen::parse(capture)),
        )
    }

    /// True when a capture shows a dialog, even beside an input box (see
    /// `ScreenRules::shows_dialog`); false when the screen is not read.
    pub(crate) fn shows_dialog(&self, capture: &str) -> bool {
        self.rules
            .as_ref()
            .is_some_and(|r| r.shows_dialog(&Screen::parse(capture)))
    }

    /// How many rows of a capture above the input box show `text` (see
    /// `ScreenRules::rows_above_box_showing`); `None` when the screen is
    /// not read.
    pub(crate) fn rows_above_box_showing(&self, capture: &str, text: &str) -> Option<usize> {
        Some(
            self.rules
                .as_ref()?
                .rows_above_box_showing(&Screen::parse(capture), text),
        )
    }

    /// How much of the screen a capture must keep for this profile.
    pub(crate) fn screen_detail(&self) -> ScreenDetail {
        if self.rules.as_ref().is_some_and(|r| r.needs_attributes())
            || self.print.as_ref().is_some_and(|p| p.needs_attributes())
        {
            ScreenDetail::Attributes
        } else {
            ScreenDetail::Text
        }
    }

    /// True when the profile reads the agent's screen.
    pub(crate) fn reads_screen(&self) -> bool {
        self.rules.is_some()
    }

    /// The `@swarm:` lines the agent printed (see `PrintRules::printed`)
    /// in `history` and `screen`, above its input box; `None` when the
    /// watcher does not read what it prints.
    pub(crate) fn printed(
        &self,
        history: Option<&str>,
        screen: &str,
        history_complete: bool,
    ) -> Option<Printed> {
        let print = self.print.as_ref()?;
        let box_start = self
            .rules
            .as_ref()
            .and_then(|r| r.box_start(&Screen::parse(screen)));
        Some(print.printed(history, screen, box_start, history_complete))
    }

    /// True when the watcher reads what the agent prints.
    pub(crate) fn prints_to_send(&self) -> bool {
        self.print.is_some()
    }
}

/// All profiles of a project.
#[derive(Clone, Debug)]
pub struct Profiles {
    /// The project's own profile tables.
    configured: Arc<BTreeMap<String, ProfileSpec>>,
    /// The built-in profiles with the configured ones laid over them,
    /// merged on first use: a command that never looks at a profile does
    /// not parse them, and a delivery parses them while tmux reads the
    /// screen.
    merged: Arc<OnceLock<BTreeMap<String, ProfileSpec>>>,
    /// Profiles already compiled, by name: a broadcast looks up the same
    /// profile for every recipient, and compiling its patterns costs more
    /// than reading a screen with them.
    compiled: Arc<Mutex<BTreeMap<String, Profile>>>,
}

impl Default for Profiles {
    fn default() -> Self {
        Profiles::new(&BTreeMap::new())
    }
}

impl Profiles {
    /// The built-in profiles with `configured` laid over them.
    pub fn new(configured: &BTreeMap<String, ProfileSpec>) -> Profiles {
        Profiles {
            configured: Arc::new(configured.clone()),
            merged: Arc::default(),
            compiled: Arc::default(),
        }
    }

    fn specs(&self) -> &BTreeMap<String, ProfileSpec> {
        self.merged.get_or_init(|| {
            let mut specs = builtin();
            for (name, spec) in self.configured.iter() {
                let merged = match specs.get(name) {
                    Some(base) => base.overlay(spec),
                    None => spec.clone(),
                };
                specs.insert(name.clone(), merged);
            }
            specs
        })
    }

    /// The name of the profile for an agent program: a profile the
    /// project added wins over a built-in one naming the same program;
    /// `generic` when none does.
    pub fn name_for(&self, command: &str) -> &str {
        let builtin = crate::config::profile::BUILTIN_NAMES;
        let names = |s: &ProfileSpec| {
            s.commands
                .iter()
                .flatten()
                .any(|c| c.eq_ignore_ascii_case(command))
        };
        self.specs()
            .iter()
            .filter(|(_, s)| names(s))
            .min_by_key(|(n, _)| builtin.contains(&n.as_str()))
            .map(|(n, _)| n.as_str())
            .unwrap_or(GENERIC)
    }

    /// The arguments that start profile `name`'s program with a
    /// conversation id swarm chooses, and those that continue a
    /// conversation (see `ProfileSpec::start_session` and `resume`).
    pub(crate) fn session_arguments(
        &self,
        name: &str,
    ) -> (Option<Vec<String>>, Option<Vec<String>>) {
        match self.specs().get(name) {
            Some(spec) => (spec.start_session.clone(), spec.resume.clone()),
            None => (None, None),
        }
    }

    /// The profile for an agent program, compiled. A pattern that does not
    /// compile (the config check rejects those first) leaves the screen
    /// unread rather than failing a delivery.
    pub(crate) fn for_command(&self, command: &str) -> Profile {
        let name = self.name_for(command).to_owned();
        let mut compiled = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
        compiled
            .entry(name)
            .or_insert_with_key(|name| self.compile(name))
            .clone()
    }

    fn compile(&self, name: &str) -> Profile {
        let spec = self.specs().get(name).cloned().unwrap_or_default();
        let rules = ScreenRules::new(
            spec.dialog.as_deref().unwrap_or_default(),
            spec.busy.as_deref().unwrap_or_default(),
            spec.limit.as_deref().unwrap_or_default(),
            spec.input.as_ref(),
        )
        .ok()
        .flatten()
        .map(Arc::new);
        // Without an echo of its own, a prompt in the transcript looks
        // like the input box it was typed in.
        let echo = spec.echo.clone().or_else(|| {
            spec.input.as_ref().map(|i| Echo {
                start: i.start.clone(),
                indent: i.indent,
            })
        });
        let print = spec
            .print_to_send
            .unwrap_or(rules.is_some())
            .then(|| PrintRules::new(echo.as_ref()).ok())
            .flatten()
            .map(Arc::new);
        Profile {
            name: name.to_owned(),
            pause: Duration::from_millis(u64::from(spec.pause_ms.unwrap_or(150))),
            command_chars: spec.command_chars.clone().unwrap_or_default(),
            interrupt: spec.interrupt.clone().unwrap_or_default(),
            interrupt_restores_prompt: spec.interrupt_restores_prompt.unwrap_or(false),
            continues_after_limit: Duration::from_secs(u64::from(
                spec.continues_after_limit_secs.unwrap_or(0),
            )),
            native: spec.native.unwrap_or_default(),
            rules,
            print,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::screen::ScreenState;
    use std::path::PathBuf;

    fn fixtures() -> PathBuf {
        crate::support::repo::path("tests/fixtures/screens")
    }

    /// Every captured screen of the real agents reads as recorded in
    /// EXPECTED.tsv, box text included.
    #[test]
    fn real_agent_screens_read_as_expected() {
        let profiles = Profiles::default();
        let table = std::fs::read_to_string(fixtures().join("EXPECTED.tsv")).expect("EXPECTED.tsv");
        let mut checked = 0;
        let mut wrong = Vec::new();
        for line in table.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let cols: Vec<&str> = line.split('\t').collect();
            let (name, state, has_text) = (cols[0], cols[1], cols[2]);
            let agent = name.split('-').next().unwrap_or_default();
            let capture = std::fs::read_to_string(fixtures().join(format!("{name}.ansi.txt")))
                .expect("fixture");
            let profile = profiles.for_command(agent);
            assert_eq!(profile.name, agent);
            let reading = profile.read(&capture).expect("these profiles read screens");
            let text = match &reading.box_text {
                None => "-",
                Some(t) if t.is_empty() => "no",
                Some(_) => "yes",
            };
            // With a dialog or an unknown screen the box is not read.
            let text_ok = text == has_text || matches!(state, "dialog" | "unknown");
            if reading.state.as_str() != state || !text_ok {
                wrong.push(format!(
                    "{name}: read {} (box text {text}), expected {state} ({has_text})",
                    reading.state
                ));
            }
            let safe = reading.is_safe();
            let should = (state == "idle" || state == "busy") && has_text == "no";
            assert_eq!(safe, should, "{name}");
            checked += 1;
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        assert!(checked >= 46, "only {checked} fixtures");
    }

    /// The real agents' usage-limit screens show a limit (with the reset
    /// time where the agent printed one), and no other screen does.
    #[test]
    fn real_agent_limit_screens_read_as_limits() {
        let profiles = Profiles::default();
        let table = std::fs::read_to_string(fixtures().join("EXPECTED.tsv")).expect("EXPECTED.tsv");
        let resets = [
            ("claude-limit-apikey", None),
            ("claude-limit-signedin", Some("12:19am")),
            ("codex-limit-menu", None),
            ("codex-limit-after-escape", Some("Nov 29th, 2026 12:19 AM")),
            ("gemini-limit-menu", None),
            ("gemini-limit-stopped", None),
        ];
        let mut limits = 0;
        for line in table.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let name = line.split('\t').next().unwrap_or_default();
            let agent = name.split('-').next().unwrap_or_default();
            let capture = std::fs::read_to_string(fixtures().join(format!("{name}.ansi.txt")))
                .expect("fixture");
            let seen = profiles.for_command(agent).limit(&capture);
            match resets.iter().find(|(n, _)| *n == name) {
                Some((_, reset)) => {
                    let (_, got) = seen.unwrap_or_else(|| panic!("{name}: no limit read"));
                    assert_eq!(got.as_deref(), *reset, "{name}");
                    limits += 1;
                }
                None => assert_eq!(seen, None, "{name}"),
            }
        }
        assert_eq!(limits, resets.len());
    }

    #[test]
    fn the_box_text_is_what_was_typed() {
        let profiles = Profiles::default();
        for (name, agent, want) in [
            ("claude-typing", "claude", "half typed text"),
            ("gemini-typing", "gemini", "half typed text"),
            ("codex-typing", "codex", "half typed text"),
            ("claude-busy-typing", "claude", "typed while busy"),
        ] {
            let capture = std::fs::read_to_string(fixtures().join(format!("{name}.ansi.txt")))
                .expect("fixture");
            let reading = profiles.for_command(agent).read(&capture).expect("read");
            assert_eq!(reading.box_text.as_deref(), Some(want), "{name}");
        }
    }

    #[test]
    fn programs_map_to_profiles() {
        let p = Profiles::default();
        assert_eq!(p.name_for("claude"), "claude");
        assert_eq!(p.name_for("claude-code"), "claude");
        assert_eq!(p.name_for("gemini"), "gemini");
        assert_eq!(p.name_for("swarm-demo"), "swarm-demo");
        assert_eq!(p.name_for("opencode"), "generic");
        assert!(!p.for_command("aider").reads_screen());
        // Print-to-send: on where the screen is read, off elsewhere unless
        // the profile asks for it.
        for on in ["claude", "codex", "gemini", "swarm-demo"] {
            assert!(p.for_command(on).prints_to_send(), "{on}");
        }
        assert!(!p.for_command("aider").prints_to_send());
        assert!(!p.for_command("opencode").prints_to_send());
        assert_eq!(p.for_command("claude").pause, Duration::ZERO);
        assert!(p.for_command("gemini").pause >= Duration::from_millis(100));
    }

    #[test]
    fn a_config_profile_changes_or_adds() {
        let mut configured = BTreeMap::new();
        configured.insert(
            "claude".to_owned(),
            ProfileSpec {
                pause_ms: Some(40),
                ..ProfileSpec::default()
            },
        );
        configured.insert(
            "mine".to_owned(),
            ProfileSpec {
                commands: Some(vec!["claude".into(), "opencode".into()]),
                ..ProfileSpec::default()
            },
        );
        configured.insert(
            "aider".to_owned(),
            ProfileSpec {
                print_to_send: Some(true),
                ..ProfileSpec::default()
            },
        );
        configured.insert(
            "codex".to_owned(),
            ProfileSpec {
                print_to_send: Some(false),
                ..ProfileSpec::default()
            },
        );
        let p = Profiles::new(&configured);
        assert!(p.for_command("aider").prints_to_send());
        assert!(!p.for_command("aider").reads_screen());
        assert!(!p.for_command("codex").prints_to_send());
        assert_eq!(p.name_for("opencode"), "mine");
        // The project's own profile wins over the built-in one.
        assert_eq!(p.name_for("claude"), "mine");
        assert_eq!(p.compile("claude").pause, Duration::from_millis(40));
        assert!(p.compile("claude").reads_screen());
        assert_eq!(p.compile("claude").interrupt, ["Escape"]);
        let _ = ScreenState::Idle;
    }

    #[test]
    fn one_key_list_stops_a_turn_and_claude_code_keeps_its_prompt() {
        let p = Profiles::new(&BTreeMap::new());
        for name in ["claude", "gemini", "codex", "swarm-demo"] {
            assert_eq!(p.compile(name).interrupt, ["Escape"], "{name}");
        }
        // Claude Code's Escape puts the prompt back into its box: an
        // `--interrupt` message must not stop its turn.
        assert!(p.compile("claude").interrupt_restores_prompt);
        for name in ["gemini", "codex", "swarm-demo"] {
            assert!(!p.compile(name).interrupt_restores_prompt, "{name}");
        }
        assert!(p.compile("aider").interrupt.is_empty());
    }
}
