//! Print-to-send through real tmux and the demo agent, with two watchers
//! reading the same screens: each `@swarm:` line the agent printed itself
//! reaches its recipient exactly once (plain, a broadcast, the same line
//! in a later turn), never a line in a code fence, the echo of a prompt a
//! person typed or text swarm typed in, not again after a redraw or a
//! resize; the printing agent is told what became of its lines.

use crate::harness::agents;
use crate::harness::watcher::{wait_for_event, watch};
use crate::harness::{Project, TmuxServer, records, swarm, wait_for};

/// The texts agent `i` was given, in order.
fn received(project: &Project, i: usize) -> Vec<String> {
    records(&project.file(&format!("rec{i}.jsonl")))
        .into_iter()
        .filter_map(|r| r.get("text").and_then(|t| t.as_str()).map(str::to_owned))
        .collect()
}

/// How many of agent `i`'s submissions hold `text`.
fn count(project: &Project, i: usize, text: &str) -> usize {
    received(project, i)
        .iter()
        .filter(|t| t.contains(text))
        .count()
}

/// Waits until agent `i` got `n` submissions holding `text`.
fn wait_for_text(project: &Project, i: usize, text: &str, n: usize) {
    wait_for(&format!("{n} x {text:?} at agent-{i}"), || {
        (count(project, i, text) >= n).then_some(())
    });
}

#[test]
fn each_printed_line_arrives_once_with_two_watchers() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = agents(&server, &project, 3);
    let _a = watch(&project, &server, &[]);
    let _b = watch(&project, &server, &[]);

    // A plain line, a line in a code fence, a broadcast, and a line to
    // nobody known.
    server.type_line(
        &panes[0],
        "DEMOPRINT @swarm:agent-1 plain hello || ``` || @swarm:agent-1 in a fence || ``` || \
         @swarm:* to everyone || @swarm:nobody lost",
    );
    wait_for_text(&project, 1, "plain hello", 1);
    wait_for_text(&project, 1, "to everyone", 1);
    wait_for_text(&project, 2, "to everyone", 1);

    // The sender learns what became of its lines (one notice per round
    // and watcher that sent some).
    // Every notice is in before the test types the next prompt there
    // (keys sent while swarm pastes a notice would join it, as a person's
    // would).
    wait_for_text(&project, 0, "no agent named nobody", 1);
    wait_for_text(&project, 0, "sent to everyone", 1);
    wait_for_text(&project, 0, "sent to agent-1 as ", 1);
    let notices: Vec<String> = received(&project, 0)
        .into_iter()
        .filter(|t| t.contains("print-to-send:"))
        .collect();
    assert!(
        notices.iter().all(|n| n.starts_with("[swarm]")),
        "{notices:?}"
    );
    assert!(
        notices.iter().any(|n| n.contains("sent to agent-1 as ")),
        "{notices:?}"
    );

    // A person types an `@swarm:` line as a prompt: its echo is not the
    // agent's output. Swarm types one in as a message: not either.
    server.type_line(&panes[2], "@swarm:agent-1 typed by a person");
    swarm(&project, &server)
        .args(["send-message", "agent-2", "INFO", "--from", "agent-1", "--"])
        .arg("@swarm:agent-0 typed by swarm")
        .assert()
        .success();
    wait_for_text(&project, 2, "typed by swarm", 1);

    // The screen is redrawn (its old rows go to the history) and resized.
    server.type_line(&panes[0], "DEMOREDRAW");
    server.wait_for_screen(&panes[0], "DEMOREDRAW");
    server.tmux(&["resize-window", "-t", &panes[0], "-x", "60", "-y", "20"]);
    server.tmux(&["resize-window", "-t", &panes[0], "-x", "100", "-y", "30"]);

    // The same line in a later turn is a new message.
    server.type_line(&panes[0], "DEMOPRINT @swarm:agent-1 plain hello");
    wait_for_text(&project, 1, "plain hello", 2);
    wait_for_text(&project, 0, "sent to agent-1 as ", 2);

    // A long reply: its prompt scrolls off the screen while the line is
    // still on it, and is found in the history.
    let filler: Vec<String> = (1..=30).map(|n| format!("row {n}")).collect();
    server.type_line(
        &panes[0],
        &format!(
            "DEMOPRINT {} || @swarm:agent-1 after a long reply || tail",
            filler.join(" || ")
        ),
    );
    wait_for_text(&project, 1, "after a long reply", 1);
    wait_for_text(&project, 0, "sent to agent-1 as ", 3);

    // One more line after all of that: by the time it arrives, both
    // watchers have read every earlier screen for many rounds.
    server.type_line(&panes[0], "DEMOPRINT @swarm:agent-2 last line");
    wait_for_text(&project, 2, "last line", 1);
    wait_for_text(&project, 0, "sent to agent-2 as ", 1);
    // Messages, by their text after the header.
    for (i, text, n) in [
        (1, "plain hello", 2),
        (1, "to everyone", 1),
        (2, "to everyone", 1),
        (0, "to everyone", 0),
        (1, "in a fence", 0),
        (1, "typed by a person", 0),
        (0, "typed by swarm", 0),
        (2, "last line", 1),
        (1, "after a long reply", 1),
    ] {
        assert_eq!(
            count(&project, i, &format!("]: {text}")),
            n,
            "{text:?} at agent-{i}: {:?}",
            received(&project, i)
        );
    }
    // Notices: one per line sent, one for the line to nobody.
    for (text, n) in [
        ("sent to agent-1 as ", 3),
        ("sent to everyone as ", 1),
        ("sent to agent-2 as ", 1),
        ("no agent named nobody", 1),
    ] {
        assert_eq!(
            count(&project, 0, text),
            n,
            "{text:?}: {:?}",
            received(&project, 0)
        );
    }
}

#[test]
fn a_profile_can_turn_print_to_send_off() {
    let server = TmuxServer::start();
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[profiles.swarm-demo]\nprint_to_send = false\n",
    );
    let panes = agents(&server, &project, 2);
    let _a = watch(&project, &server, &[]);
    // The line is printed, then a short turn ends twice: by the second
    // `finished`, the watcher has read the screen with the line on it
    // and finished the round that would have sent it.
    server.type_line(&panes[0], "DEMOPRINT @swarm:agent-1 not read DEMOSLEEP1");
    wait_for_event(&project, "finished", 1);
    server.type_line(&panes[0], "again DEMOSLEEP1");
    wait_for_event(&project, "finished", 2);
    server.wait_for_screen(&panes[0], "@swarm:agent-1 not read DEMOSLEEP1");
    assert_eq!(
        count(&project, 1, "not read"),
        0,
        "{:?}",
        received(&project, 1)
    );
}
