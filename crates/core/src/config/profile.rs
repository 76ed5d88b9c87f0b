//! `[profiles.NAME]`: how swarm recognises one agent program and reads its
//! screen. The built-in profiles use the same shape (see
//! `config/profiles.toml`); a table in the config file changes the fields
//! it names of the built-in profile with that name, or adds a new profile.
//! docs/PROFILES.md describes every field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schema::{Finding, describe};

/// The built-in profiles, as data.
const BUILTIN: &str = include_str!("profiles.toml");

/// Names of the built-in profiles (a unit test keeps this in step with
/// `profiles.toml`).
pub(crate) const BUILTIN_NAMES: [&str; 6] = [
    "claude",
    "gemini",
    "codex",
    "aider",
    "swarm-demo",
    "generic",
];

/// The profile used for an agent program no profile names.
pub(crate) const GENERIC: &str = "generic";

/// The built-in profiles by name.
pub(crate) fn builtin() -> BTreeMap<String, ProfileSpec> {
    // The file is part of the binary and a unit test parses it, so this
    // cannot fail at run time; an empty table would only disable screen
    // reading, never break delivery.
    toml::from_str(BUILTIN).unwrap_or_default()
}

/// Names of the built-in profiles.
pub(crate) fn builtin_names() -> Vec<&'static str> {
    BUILTIN_NAMES.to_vec()
}

/// Most profiles a config may declare.
pub(crate) const MAX_PROFILES: usize = 50;
/// Longest pause before Enter a profile may ask for, in milliseconds.
pub(crate) const MAX_PAUSE_MS: u32 = 5000;
/// Most rows a marker's region may span.
pub(crate) const MAX_REGION_ROWS: usize = 500;
/// Most markers of one kind in a profile.
const MAX_MARKERS: usize = 50;
/// Longest regular expression accepted, in bytes.
const MAX_PATTERN_BYTES: usize = 500;

/// One profile, every field optional so that a config table can change
/// only some fields of a built-in profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// What the profile is for, shown by `swarm doctor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Agent program names (as discovery names them: `claude`, `codex`,
    /// `gemini`, `swarm-demo`) that this profile applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<String>>,
    /// Milliseconds between the paste and Enter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_ms: Option<u32>,
    /// Characters that make the agent take a prompt starting with them as
    /// a command (`!` runs a shell command in Claude Code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_chars: Option<String>,
    /// Any of these on screen (with no input box drawn) means a dialog is
    /// open: Enter would pick an option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Vec<Marker>>,
    /// Any of these means the agent is working (it queues new input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy: Option<Vec<Marker>>,
    /// Any of these on a screen that is not busy means the agent is at its
    /// usage limit; a `plain` pattern's group named `reset` holds the
    /// reset time the agent printed (`resets (?P<reset>.+)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Vec<Marker>>,
    /// Where the input box is. A profile without one cannot read the
    /// screen: messages are delivered without looking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<InputBox>,
    /// Arguments that start the program with a conversation id swarm
    /// chooses (`{id}` is replaced by a new UUID), so that `resume` can
    /// continue exactly that conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_session: Option<Vec<String>>,
    /// Arguments that start the program continuing an earlier
    /// conversation: `{id}` is replaced by the id `start_session` chose;
    /// without `{id}`, they continue the most recent conversation in the
    /// directory (used only for a session's one agent of the profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Vec<String>>,
    /// The keys that stop the agent's current turn (tmux key names, such
    /// as `Escape` or `C-c`): pressed before `swarm msg --interrupt`
    /// types, and for an agent over its budget with `budget.on_exceed =
    /// "interrupt"`. None: it is never interrupted (an `--interrupt`
    /// message goes in as an urgent one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<Vec<String>>,
    /// How a prompt already submitted shows in the agent's transcript, so
    /// that print-to-send never takes a prompt's echo for the agent's own
    /// output. Unset: the input box's `start` and `indent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo: Option<Echo>,
    /// Whether the watcher reads what this agent prints and sends its
    /// `@swarm:AGENT text` lines. Unset: on when the profile reads the
    /// screen (it has an `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub print_to_send: Option<bool>,
    /// Stopping a turn puts its prompt back into the input box (Claude
    /// Code), where a message typed next would join it: `--interrupt`
    /// then does not stop the turn and goes in as an urgent message; a
    /// budget's interrupt still stops it. Unset: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt_restores_prompt: Option<bool>,
    /// Seconds after a usage limit's reset within which the agent carries
    /// on by itself (Claude Code signed in does): `limits.on_reset =
    /// "resume"` types nothing into it before then. Unset: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continues_after_limit_secs: Option<u32>,
    /// Whether a message may go through this agent's own channel
    /// (`auto`) or is always typed (`off`); `[delivery] native = "off"`
    /// turns it off for every agent. Unset: auto.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<super::model::NativeMode>,
}

/// A pattern to look for in the rows of the screen. `plain` is matched
/// against a row's text, `ansi` against the row with its SGR attribute
/// sequences (`ESC[1m`); both must match when both are given. At most one
/// of `above`, `below` and `tail` limits where: that many rows above the
/// input box, below it, or the last rows holding text. None: anywhere.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Marker {
    /// Regular expression over the row's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plain: Option<String>,
    /// Regular expression over the row with its attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ansi: Option<String>,
    /// Only the rows just above the input box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub above: Option<usize>,
    /// Only the rows just below the input box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<usize>,
    /// Only the last rows that hold text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<usize>,
}

/// How to find the input box and its text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputBox {
    /// The box's first row (the last row on screen that matches, and
    /// satisfies `require`).
    pub start: Marker,
    /// `start` is a frame row drawn above the text, not a text row.
    #[serde(default)]
    pub frame: bool,
    /// The first row after `start` that matches ends the box (it is not
    /// part of it). None: the box runs to the end of the screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<Marker>,
    /// The box's rows must hold a match of this (an agent's cursor
    /// cell), else the next candidate higher up is tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require: Option<Marker>,
    /// Columns at the start of each box row that are not text (`> `).
    #[serde(default)]
    pub indent: usize,
    /// When the box's first text row matches this, the box is empty (the
    /// agent shows a hint in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<Marker>,
}

/// A prompt in the transcript: a row matching `start`, then the rows
/// after it that begin with `indent` spaces (blank rows between such rows
/// included). `indent = 0`: the start row alone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Echo {
    /// The prompt's first row.
    pub start: Marker,
    /// Spaces that begin each further row of the prompt.
    #[serde(default)]
    pub indent: usize,
}

impl ProfileSpec {
    /// This profile with every field `other` sets replaced.
    pub fn overlay(&self, other: &ProfileSpec) -> ProfileSpec {
        ProfileSpec {
            description: other.description.clone().or(self.description.clone()),
            commands: other.commands.clone().or(self.commands.clone()),
            pause_ms: other.pause_ms.or(self.pause_ms),
            command_chars: other.command_chars.clone().or(self.command_chars.clone()),
            dialog: other.dialog.clone().or(self.dialog.clone()),
            busy: other.busy.clone().or(self.busy.clone()),
            limit: other.limit.clone().or(self.limit.clone()),
            input: other.input.clone().or(self.input.clone()),
            start_session: other.start_session.clone().or(self.start_session.clone()),
            resume: other.resume.clone().or(self.resume.clone()),
            interrupt: other.interrupt.clone().or(self.interrupt.clone()),
            echo: other.echo.clone().or(self.echo.clone()),
            print_to_send: other.print_to_send.or(self.print_to_send),
            interrupt_restores_prompt: other
                .interrupt_restores_prompt
                .or(self.interrupt_restores_prompt),
            continues_after_limit_secs: other
                .continues_after_limit_secs
                .or(self.continues_after_limit_secs),
            native: other.native.or(self.native),
        }
    }
}

/// Checks the `profiles` section of a config document: a table of
/// profiles, each with known fields of the right type, patterns that
/// compile, and numbers in range. `builtin` names the built-in profiles
/// (a new profile must say which `commands` it is for).
pub(crate) fn check_section(value: &Value, builtin: &[&str]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut add = |key: String, message: String| out.push(Finding { key, message });
    let Value::Object(profiles) = value else {
        add(
            "profiles".into(),
            format!(
                "must be a table of profiles ([profiles.NAME]), got {}",
                describe(value)
            ),
        );
        return out;
    };
    if profiles.len() > MAX_PROFILES {
        add(
            "profiles".into(),
            format!(
                "too many profiles ({}, at most {MAX_PROFILES})",
                profiles.len()
            ),
        );
    }
    for (name, table) in profiles {
        let at = format!("profiles.{name}");
        if !valid_name(name) {
            add(
                at.clone(),
                "a profile name is 1-40 letters, digits, `-` or `_`".into(),
            );
            continue;
        }
        let spec: ProfileSpec = match serde_json::from_value(table.clone()) {
            Ok(spec) => spec,
            Err(e) => {
                add(at, e.to_string());
                continue;
            }
        };
        for (key, message) in check_spec(&spec, builtin.contains(&name.as_str())) {
            add(format!("{at}.{key}"), message);
        }
    }
    out
}

fn valid_name(name: &str) -> bool {
    (1..=40).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Problems of one profile, as `(field, message)`.
pub(crate) fn check_spec(spec: &ProfileSpec, builtin: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    match &spec.commands {
        Some(list) if list.is_empty() => out.push(("commands".into(), "cannot be empty".into())),
        Some(list) => {
            for (i, c) in list.iter().enumerate() {
                if c.trim().is_empty() || c.contains('/') || c.chars().any(char::is_whitespace) {
                    out.push((
                        format!("commands[{i}]"),
                        format!("{c:?} is not a program name (no spaces or `/`)"),
                    ));
                } else if let Some(why) = super::shells::refusal(c) {
                    out.push((format!("commands[{i}]"), why));
                }
            }
        }
        None if !builtin => out.push((
            "commands".into(),
            "a new profile must list the agent programs it is for".into(),
        )),
        None => {}
    }
    if let Some(ms) = spec.pause_ms.filter(|ms| *ms > MAX_PAUSE_MS) {
        out.push((
            "pause_ms".into(),
            format!("must be between 0 and {MAX_PAUSE_MS}, got {ms}"),
        ));
    }
    if let Some(keys) = &spec.interrupt
        && (keys.is_empty()
            || keys.len() > 4
            || !keys.iter().all(|k| {
                (1..=16).contains(&k.len())
                    && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            }))
    {
        out.push((
            "interrupt".into(),
            "1-4 tmux key names (letters, digits and `-`: `Escape`, `C-c`)".into(),
        ));
    }
    if let Some(chars) = &spec.command_chars
        && (chars.chars().count() > 16 || chars.chars().any(char::is_whitespace))
    {
        out.push((
            "command_chars".into(),
            "at most 16 characters, no spaces".into(),
        ));
    }
    for (field, markers) in [
        ("dialog", &spec.dialog),
        ("busy", &spec.busy),
        ("limit", &spec.limit),
    ] {
        let Some(markers) = markers else { continue };
        if markers.len() > MAX_MARKERS {
            out.push((field.into(), format!("at most {MAX_MARKERS} markers")));
        }
        for (i, m) in markers.iter().enumerate() {
            out.extend(check_marker(&format!("{field}[{i}]"), m));
        }
    }
    for (field, words) in [
        ("start_session", &spec.start_session),
        ("resume", &spec.resume),
    ] {
        if let Some(words) = words {
            out.extend(check_arguments(field, words));
        }
    }
    if spec.start_session.as_ref().is_some_and(|w| !mentions_id(w)) {
        out.push((
            "start_session".into(),
            "must hold `{id}`, where swarm puts the conversation id it chooses".into(),
        ));
    }
    if let Some(input) = &spec.input {
        out.extend(check_marker("input.start", &input.start));
        for (field, m) in [
            ("input.end", &input.end),
            ("input.require", &input.require),
            ("input.placeholder", &input.placeholder),
        ] {
            if let Some(m) = m {
                out.extend(check_marker(field, m));
            }
        }
        if input.indent > 40 {
            out.push(("input.indent".into(), "must be at most 40".into()));
        }
    }
    if let Some(echo) = &spec.echo {
        out.extend(check_marker("echo.start", &echo.start));
        if echo.indent > 40 {
            out.push(("echo.indent".into(), "must be at most 40".into()));
        }
    }
    out
}

/// Most arguments in `start_session` or `resume`.
const MAX_ARGUMENTS: usize = 8;
/// Longest one of them, in bytes.
const MAX_ARGUMENT_BYTES: usize = 200;

/// True when one of `words` holds the `{id}` placeholder.
pub(crate) fn mentions_id(words: &[String]) -> bool {
    words.iter().any(|w| w.contains("{id}"))
}

/// Problems of a list of program arguments: a few short, non-empty words
/// without control characters.
fn check_arguments(at: &str, words: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if words.is_empty() || words.len() > MAX_ARGUMENTS {
        out.push((
            at.into(),
            format!("must hold 1 to {MAX_ARGUMENTS} arguments"),
        ));
    }
    for (i, w) in words.iter().enumerate() {
        if w.is_empty() || w.len() > MAX_ARGUMENT_BYTES || w.chars().any(char::is_control) {
            out.push((
                format!("{at}[{i}]"),
                format!("an argument is 1 to {MAX_ARGUMENT_BYTES} bytes, no control characters"),
            ));
        }
    }
    out
}

fn check_marker(at: &str, m: &Marker) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if m.plain.is_none() && m.ansi.is_none() {
        out.push((at.into(), "needs `plain` or `ansi` (a pattern)".into()));
    }
    for (field, pattern) in [("plain", &m.plain), ("ansi", &m.ansi)] {
        let Some(p) = pattern else { continue };
        if p.len() > MAX_PATTERN_BYTES {
            out.push((
                format!("{at}.{field}"),
                format!("pattern too long (at most {MAX_PATTERN_BYTES} bytes)"),
            ));
        } else if let Err(e) = regex::Regex::new(p) {
            let first = e.to_string();
            let short = first.lines().last().unwrap_or("invalid pattern").trim();
            out.push((
                format!("{at}.{field}"),
                format!("not a valid regular expression: {short}"),
            ));
        }
    }
    let regions = [m.above, m.below, m.tail];
    if regions.iter().flatten().count() > 1 {
        out.push((at.into(), "at most one of `above`, `below`, `tail`".into()));
    }
    if regions
        .iter()
        .flatten()
        .any(|n| *n == 0 || *n > MAX_REGION_ROWS)
    {
        out.push((
            at.into(),
            format!("a region is 1 to {MAX_REGION_ROWS} rows"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(v: Value) -> Vec<String> {
        check_section(&v, &["claude"])
            .into_iter()
            .map(|f| format!("{}: {}", f.key, f.message))
            .collect()
    }

    #[test]
    fn the_default_agent_commands_are_the_builtin_agents_commands() {
        // Discovery's default list and the profiles name the same
        // programs: a profile added without its command would never be
        // recognised, and a command without a profile never read.
        let all: BTreeMap<String, ProfileSpec> = toml::from_str(BUILTIN).expect("profiles.toml");
        let mut from_profiles: Vec<String> = all
            .iter()
            .filter(|(name, _)| !matches!(name.as_str(), "generic" | "swarm-demo"))
            .flat_map(|(_, spec)| spec.commands.clone().unwrap_or_default())
            .collect();
        let mut defaults: Vec<String> = crate::config::DEFAULT_AGENT_COMMANDS
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        from_profiles.sort();
        defaults.sort();
        assert_eq!(from_profiles, defaults);
    }

    #[test]
    fn the_builtin_profiles_parse_and_pass_their_own_checks() {
        let all: BTreeMap<String, ProfileSpec> = toml::from_str(BUILTIN).expect("profiles.toml");
        let mut names: Vec<&str> = all.keys().map(String::as_str).collect();
        let mut expected = BUILTIN_NAMES.to_vec();
        names.sort();
        expected.sort();
        assert_eq!(names, expected);
        for (name, spec) in &all {
            assert_eq!(
                check_spec(spec, true),
                Vec::<(String, String)>::new(),
                "{name}"
            );
        }
    }

    #[test]
    fn a_partial_override_of_a_builtin_is_fine() {
        assert!(check(json!({"claude": {"pause_ms": 20}})).is_empty());
    }

    #[test]
    fn problems_name_the_field() {
        let found = check(json!({
            "mine": {"pause_ms": 9000},
            "claude": {"busy": [{"plain": "("}, {"above": 3}], "colour": 1},
            "x y": {},
        }));
        let text = found.join("\n");
        assert!(
            text.contains("profiles.mine.commands: a new profile must list"),
            "{text}"
        );
        assert!(
            text.contains("profiles.mine.pause_ms: must be between 0 and 5000"),
            "{text}"
        );
        assert!(text.contains("unknown field `colour`"), "{text}");
        assert!(text.contains("profiles.x y: a profile name"), "{text}");
        let found = check(json!({"claude": {"busy": [{"plain": "("}, {"above": 3}]}}));
        let text = found.join("\n");
        assert!(
            text.contains("profiles.claude.busy[0].plain: not a valid regular expression"),
            "{text}"
        );
        assert!(
            text.contains("profiles.claude.busy[1]: needs `plain` or `ansi`"),
            "{text}"
        );
        let found = check(json!({"aider": {"echo": {"start": {"plain": "("}, "indent": 50}}}));
        let text = found.join("\n");
        assert!(
            text.contains("profiles.aider.echo.start.plain: not a valid regular expression"),
            "{text}"
        );
        assert!(
            text.contains("profiles.aider.echo.indent: must be at most 40"),
            "{text}"
        );
    }

    #[test]
    fn session_arguments_are_checked() {
        assert!(check(json!({"claude": {"resume": ["--continue"]}})).is_empty());
        let text = check(json!({"claude": {
            "start_session": ["--session-id"],
            "resume": ["", "x"],
        }}))
        .join("\n");
        assert!(
            text.contains("profiles.claude.start_session: must hold `{id}`"),
            "{text}"
        );
        assert!(
            text.contains("profiles.claude.resume[0]: an argument is"),
            "{text}"
        );
    }

    #[test]
    fn overlay_replaces_only_what_is_set() {
        let base = ProfileSpec {
            commands: Some(vec!["a".into()]),
            pause_ms: Some(5),
            ..ProfileSpec::default()
        };
        let top = ProfileSpec {
            pause_ms: Some(0),
            ..ProfileSpec::default()
        };
        let both = base.overlay(&top);
        assert_eq!(both.pause_ms, Some(0));
        let bad = ProfileSpec {
            interrupt: Some(vec!["Escape; rm".into()]),
            ..ProfileSpec::default()
        };
        assert_eq!(check_spec(&bad, true).len(), 1);
        let good = ProfileSpec {
            interrupt: Some(vec!["C-c".into()]),
            ..ProfileSpec::default()
        };
        assert!(check_spec(&good, true).is_empty());
        assert_eq!(both.commands, Some(vec!["a".into()]));
    }
}
