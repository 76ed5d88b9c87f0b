//! The onboarding message: what every agent needs to know to work in this
//! swarm, written for swarm's real commands and message types.

/// The text sent to every agent by `swarm onboard`.
pub(crate) fn message(agents: &[String], extra: &[String]) -> String {
    let mut s = format!(
        "=== SWARM COORDINATION ACTIVE ===\n\
         You are one of {n} agents on this project: {list}.\n\
         Your own id is on your pane border; `swarm whoami` prints it.\n\
         \n\
         MESSAGES\n\
         \x20 swarm msg <agent-id> <TYPE> \"text\"   send to one agent\n\
         \x20 swarm broadcast <TYPE> \"text\"        send to every agent\n\
         \x20 swarm inbox --new                    read what was sent to you\n\
         \x20 TYPE is one of QUESTION, BLOCKED, INFO, COMPLETED, REVIEW-REQUEST,\n\
         \x20 REVIEW-FEEDBACK, CHALLENGE, CONFLICT, TASK-DELEGATION, TASK-RESULT.\n\
         \x20 A message marked [REQUIRES-ACK id=...] needs an answer: swarm ack <id>\n\
         \n\
         FILE LOCKS (before you edit a file others may touch)\n\
         \x20 swarm lock <path> --reason \"why\"    claim it (exit 3: someone else holds it)\n\
         \x20 swarm unlock <path>                 release it as soon as you are done\n\
         \x20 swarm who <path>                    who holds it\n\
         \x20 swarm locks                         every lock\n\
         \n\
         RULES\n\
         \x20 - Lock a file before editing it; never edit a file another agent holds.\n\
         \x20 - Send BLOCKED when you wait on someone, COMPLETED when you finish.\n\
         \x20 - Keep messages short, and acknowledge REQUIRES-ACK messages promptly.",
        n = agents.len(),
        list = agents.join(", ")
    );
    for line in extra {
        s.push('\n');
        s.push_str(line);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_every_agent_and_only_real_types() {
        let agents: Vec<String> = (0..16).map(|i| format!("agent-{i}")).collect();
        let text = message(
            &agents,
            &["Project rule: run the tests before COMPLETED.".into()],
        );
        assert!(text.contains("16 agents") && text.contains("agent-15"));
        assert!(!text.contains("URGENT") && !text.contains("TASK-UPDATE"));
        for t in ["QUESTION", "BLOCKED", "REVIEW-REQUEST", "TASK-RESULT"] {
            assert!(crate::domain::message::BUILTIN_TYPES.contains(&t));
        }
        assert!(text.ends_with("run the tests before COMPLETED."));
        // Short enough to paste inline by default.
        assert!(text.len() < 4096, "{}", text.len());
        assert_eq!(
            crate::domain::message::clean_content(&text).as_deref(),
            Ok(text.as_str())
        );
    }
}
