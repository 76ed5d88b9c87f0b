//! How an agent of a session is started: at launch, with a conversation id
//! swarm chooses when its program takes one; on resume, with its
//! program's resume form when it has one that finds the conversation
//! exactly, else afresh (the caller then tells it what it had).

use crate::agents::launch::shell_quote;
use crate::agents::profile::Profiles;
use crate::config::profile::mentions_id;

use super::record::SessionAgent;

/// The kind recorded for an agent started with `launch --cmd`: no profile
/// is known before its program runs, so it is never resumed, only started
/// afresh.
pub const CUSTOM: &str = "custom";

/// How to start one agent again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Restart {
    /// Continue its conversation with this command.
    Resume(String),
    /// Start it afresh with this command (and this new conversation id,
    /// when its program takes one): its program cannot continue the
    /// conversation, or it had none swarm can find.
    Fresh {
        /// The command.
        command: String,
        /// The new conversation id.
        conversation: Option<String>,
        /// Why it is not resumed, for people.
        why: String,
    },
}

/// A new conversation id (a UUID v4, the form the agents take).
fn new_conversation_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `base` followed by `words` with `{id}` replaced by `id`, each
/// shell-quoted.
fn with_arguments(base: &str, words: &[String], id: &str) -> String {
    let mut command = base.to_owned();
    for w in words {
        command.push(' ');
        command.push_str(&shell_quote(&w.replace("{id}", id)));
    }
    command
}

/// The command that starts an agent of profile `kind` afresh from
/// `base`, and the conversation id swarm chose for it when its program
/// takes one.
pub fn fresh(profiles: &Profiles, kind: &str, base: &str) -> (String, Option<String>) {
    if kind == CUSTOM {
        return (base.to_owned(), None);
    }
    match profiles.session_arguments(kind).0 {
        Some(words) => {
            let id = new_conversation_id();
            (with_arguments(base, &words, &id), Some(id))
        }
        None => (base.to_owned(), None),
    }
}

/// How to start `agent` again. `sole_of_kind`: it is the only agent of
/// its profile in the project's sessions, so "the most recent
/// conversation in the directory" is its own.
pub(crate) fn plan(profiles: &Profiles, agent: &SessionAgent, sole_of_kind: bool) -> Restart {
    let afresh = |why: String| {
        let (command, conversation) = fresh(profiles, &agent.kind, &agent.command);
        Restart::Fresh {
            command,
            conversation,
            why,
        }
    };
    if agent.kind == CUSTOM {
        return afresh("it was started with a command of its own (--cmd)".into());
    }
    let Some(words) = profiles.session_arguments(&agent.kind).1 else {
        return afresh(format!("{} cannot continue a conversation", agent.kind));
    };
    if mentions_id(&words) {
        match &agent.conversation {
            Some(id) => Restart::Resume(with_arguments(&agent.command, &words, id)),
            None => afresh("no conversation id was recorded for it".into()),
        }
    } else if sole_of_kind {
        Restart::Resume(with_arguments(&agent.command, &words, ""))
    } else {
        afresh(format!(
            "{} can only continue its most recent conversation, and several {} agents share the project",
            agent.kind, agent.kind
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(kind: &str, conversation: Option<&str>) -> SessionAgent {
        SessionAgent {
            id: "agent-1".into(),
            kind: kind.into(),
            command: kind.into(),
            cwd: "/p".into(),
            conversation: conversation.map(str::to_owned),
        }
    }

    #[test]
    fn launch_chooses_an_id_where_the_program_takes_one() {
        let p = Profiles::default();
        let (cmd, id) = fresh(&p, "claude", "claude");
        let id = id.expect("claude takes --session-id");
        assert_eq!(cmd, format!("claude --session-id {id}"));
        assert_eq!(fresh(&p, "codex", "codex"), ("codex".into(), None));
        assert_eq!(fresh(&p, CUSTOM, "x --y"), ("x --y".into(), None));
    }

    #[test]
    fn resume_uses_the_vendor_form() {
        let p = Profiles::default();
        assert_eq!(
            plan(&p, &agent("claude", Some("abc")), false),
            Restart::Resume("claude --resume abc".into())
        );
        assert_eq!(
            plan(&p, &agent("gemini", Some("abc")), false),
            Restart::Resume("gemini --resume abc".into())
        );
        assert_eq!(
            plan(&p, &agent("codex", None), true),
            Restart::Resume("codex resume --last".into())
        );
    }

    #[test]
    fn what_cannot_be_found_exactly_starts_afresh() {
        let p = Profiles::default();
        for (a, sole) in [
            (agent("codex", None), false),
            (agent("aider", None), true),
            (agent("claude", None), true),
            (agent(CUSTOM, None), true),
        ] {
            assert!(matches!(plan(&p, &a, sole), Restart::Fresh { .. }), "{a:?}");
        }
        let Restart::Fresh {
            command,
            conversation,
            ..
        } = plan(&p, &agent("claude", None), true)
        else {
            panic!("fresh")
        };
        let id = conversation.expect("a new id");
        assert_eq!(command, format!("claude --session-id {id}"));
    }
}
