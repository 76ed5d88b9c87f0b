//! How keys and pasted text change the monitor: scrolling, the key
//! filters and search, answering the dialog of an agent that waits (Tab
//! chooses which), and writing a message field by field, with Tab
//! completion.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use swarm_core::domain::message;
use swarm_core::domain::validate;
use swarm_core::support::sanitize;
use swarm_core::{BUILTIN_TYPES, MessageType};

use super::filter::ViewFilter;
use super::needs::SELECTED_MARK;
use super::state::{
    Action, Answering, Compose, ComposeStep, Level, Mode, MonitorState, Outgoing, Reply,
};

impl MonitorState {
    /// Handles a key press.
    pub fn handle_key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return Action::Quit;
        }
        match self.mode.clone() {
            Mode::Normal => self.normal_key(key.code),
            Mode::Help => {
                self.mode = Mode::Normal;
                Action::None
            }
            Mode::Search { before } => {
                match key.code {
                    KeyCode::Enter => self.mode = Mode::Normal,
                    KeyCode::Esc => {
                        self.view.text = before;
                        self.mode = Mode::Normal;
                    }
                    KeyCode::Backspace => {
                        self.view.text.pop();
                    }
                    KeyCode::Char('u') if ctrl => self.view.text.clear(),
                    KeyCode::Char(c) if !ctrl => self.view.text.push(c),
                    _ => {}
                }
                self.scroll = 0;
                Action::None
            }
            Mode::Compose(compose) => self.compose_key(compose, key.code, ctrl),
        }
    }

    /// Handles pasted text: it goes into whatever is being typed.
    pub fn handle_paste(&mut self, text: &str) {
        match &mut self.mode {
            Mode::Search { .. } => {
                self.view.text.push_str(&sanitize::one_line(text));
                self.scroll = 0;
            }
            Mode::Compose(c) => match c.step {
                ComposeStep::To => c.to.push_str(sanitize::one_line(text).trim()),
                ComposeStep::Type => c.msg_type.push_str(sanitize::one_line(text).trim()),
                // A message may have several lines.
                ComposeStep::Text => c.text.push_str(&sanitize::strip_controls(text)),
            },
            Mode::Normal | Mode::Help => {}
        }
    }

    fn normal_key(&mut self, code: KeyCode) -> Action {
        if matches!(code, KeyCode::Tab | KeyCode::BackTab) {
            if self.select_next(code == KeyCode::BackTab).is_none() {
                self.notify(Level::Warn, "no agent waits for an answer");
            }
            return Action::None;
        }
        let page = self.page() as isize;
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return Action::Quit,
            KeyCode::Char('?') => self.mode = Mode::Help,
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(-1),
            KeyCode::PageUp => self.scroll_by(page),
            KeyCode::PageDown => self.scroll_by(-page),
            KeyCode::Home | KeyCode::Char('g') => self.scroll = self.max_scroll(),
            KeyCode::End | KeyCode::Char('G') => self.scroll = 0,
            KeyCode::Char('/') => {
                self.mode = Mode::Search {
                    before: self.view.text.clone(),
                }
            }
            KeyCode::Char('t') => {
                self.view.msg_type = next_in(&self.types_present(), self.view.msg_type.as_deref());
                self.scroll = 0;
            }
            KeyCode::Char('a') => {
                self.view.agent = next_in(&self.agents_known(), self.view.agent.as_deref());
                self.scroll = 0;
            }
            KeyCode::Char('c') => {
                self.view = ViewFilter::default();
                self.scroll = 0;
            }
            KeyCode::Char('y') => return self.answer_key(Reply::Yes),
            KeyCode::Char('n') => return self.answer_key(Reply::No),
            KeyCode::Char('x') => return self.answer_key(Reply::Cancel),
            KeyCode::Char(c @ '1'..='9') => {
                return self.answer_key(Reply::Option(c.to_digit(10).unwrap_or(1)));
            }
            KeyCode::Char('m') => {
                self.mode = Mode::Compose(Compose {
                    step: ComposeStep::To,
                    to: self.view.agent.clone().unwrap_or_default(),
                    msg_type: String::new(),
                    text: String::new(),
                    error: None,
                })
            }
            _ => {}
        }
        Action::None
    }

    /// Answers the dialog of the agent marked `▶`, naming the dialog its
    /// screen showed when last read, so that nothing is typed into another.
    fn answer_key(&mut self, reply: Reply) -> Action {
        let Some(agent) = self.answering() else {
            self.notify(
                Level::Warn,
                &format!(
                    "no agent waits for an answer (y, n, 1-9 and x answer the dialog of the agent marked {SELECTED_MARK})"
                ),
            );
            return Action::None;
        };
        let dialog = self
            .screens
            .get(&agent)
            .and_then(|s| s.dialog.as_ref())
            .map(|d| d.fingerprint.clone());
        let what = match reply {
            Reply::Yes => "yes".to_owned(),
            Reply::No => "no".to_owned(),
            Reply::Option(n) => format!("option {n}"),
            Reply::Cancel => "cancel (Escape)".to_owned(),
        };
        self.notify(Level::Info, &format!("answering {agent}: {what}..."));
        Action::Answer(Answering {
            agent,
            reply,
            dialog,
        })
    }

    fn compose_key(&mut self, mut c: Compose, code: KeyCode, ctrl: bool) -> Action {
        let field = match c.step {
            ComposeStep::To => &mut c.to,
            ComposeStep::Type => &mut c.msg_type,
            ComposeStep::Text => &mut c.text,
        };
        match code {
            KeyCode::Esc => {
                self.mode = Mode::Normal;
                return Action::None;
            }
            KeyCode::Backspace => {
                field.pop();
            }
            KeyCode::Char('u') if ctrl => field.clear(),
            KeyCode::Char(ch) if !ctrl => field.push(ch),
            KeyCode::Tab => {
                let options = match c.step {
                    ComposeStep::To => {
                        let mut o = vec!["all".to_owned()];
                        o.extend(self.agents_registered());
                        o
                    }
                    ComposeStep::Type => self.known_types.clone(),
                    ComposeStep::Text => Vec::new(),
                };
                if let Some(next) = complete(&options, field) {
                    *field = next;
                }
            }
            KeyCode::Enter => {
                c.error = None;
                match c.step {
                    ComposeStep::To => {
                        let to = c.to.trim().to_owned();
                        if to.eq_ignore_ascii_case("all") {
                            c.to = "all".into();
                            c.step = ComposeStep::Type;
                        } else {
                            match validate::agent_id(&to) {
                                Ok(id) => {
                                    c.to = id;
                                    c.step = ComposeStep::Type;
                                }
                                Err(e) => c.error = Some(e.to_string()),
                            }
                        }
                    }
                    ComposeStep::Type => {
                        let input = if c.msg_type.trim().is_empty() {
                            "INFO"
                        } else {
                            c.msg_type.as_str()
                        };
                        let custom: Vec<String> = self
                            .known_types
                            .iter()
                            .filter(|t| !BUILTIN_TYPES.contains(&t.as_str()))
                            .cloned()
                            .collect();
                        match MessageType::parse(input, &custom) {
                            Ok(t) => {
                                c.msg_type = t.as_str().to_owned();
                                c.step = ComposeStep::Text;
                            }
                            // The full list does not fit a footer; Tab
                            // goes through it.
                            Err(_) => {
                                c.error = Some(format!(
                                    "unknown type {:?} (Tab goes through the types)",
                                    input.trim()
                                ))
                            }
                        }
                    }
                    ComposeStep::Text => match message::clean_content(&c.text) {
                        Ok(content) => {
                            self.mode = Mode::Normal;
                            self.notify(
                                Level::Info,
                                &format!("sending {} to {}...", c.msg_type, c.to),
                            );
                            return Action::Send(Outgoing {
                                to: c.to,
                                msg_type: c.msg_type,
                                content,
                            });
                        }
                        Err(e) => c.error = Some(e.to_string()),
                    },
                }
            }
            _ => {}
        }
        self.mode = Mode::Compose(c);
        Action::None
    }

    /// Types of the kept messages, built-in ones in their usual order
    /// first.
    fn types_present(&self) -> Vec<String> {
        let mut types: Vec<String> = Vec::new();
        for m in &self.messages {
            let t = m.message.msg_type.as_str();
            if !types.iter().any(|known| known == t) {
                types.push(t.to_owned());
            }
        }
        types.sort_by_key(|t| {
            (
                BUILTIN_TYPES
                    .iter()
                    .position(|b| b == t)
                    .unwrap_or(BUILTIN_TYPES.len()),
                t.clone(),
            )
        });
        types
    }

    fn agents_registered(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .status
            .registry
            .iter()
            .flat_map(|r| r.agents.iter().map(|a| a.id.to_string()))
            .collect();
        ids.sort_by_key(|id| agent_sort_key(id));
        ids
    }

    /// Registered agents and everyone who sent or received a kept
    /// message.
    fn agents_known(&self) -> Vec<String> {
        let mut ids = self.agents_registered();
        for m in &self.messages {
            for id in std::iter::once(&m.message.sender).chain(&m.message.recipients) {
                if id != "all" && !ids.iter().any(|known| id == known.as_str()) {
                    ids.push(id.to_string());
                }
            }
        }
        ids.sort_by_key(|id| agent_sort_key(id));
        ids
    }
}

/// `agent-2` before `agent-10`.
fn agent_sort_key(id: &str) -> (String, u64, String) {
    match validate::agent_number(id) {
        Some(n) => ("agent-".into(), n, String::new()),
        None => (id.to_owned(), 0, id.to_owned()),
    }
}

/// The option after `current`, or the first; `None` after the last (so
/// cycling comes back to "no filter").
fn next_in(options: &[String], current: Option<&str>) -> Option<String> {
    match current {
        None => options.first().cloned(),
        Some(cur) => options
            .iter()
            .position(|o| o == cur)
            .and_then(|i| options.get(i + 1))
            .cloned(),
    }
}

/// Tab completion: the first option starting with what was typed; when
/// what was typed is an option already, the next one.
fn complete(options: &[String], typed: &str) -> Option<String> {
    if let Some(i) = options.iter().position(|o| o.eq_ignore_ascii_case(typed)) {
        return options.get((i + 1) % options.len()).cloned();
    }
    let lower = typed.to_lowercase();
    options
        .iter()
        .find(|o| o.to_lowercase().starts_with(&lower))
        .cloned()
}
