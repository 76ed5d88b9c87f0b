//! `COORDINATION.md`: the agents' shared notes in the project root (spec
//! 15.9). Sections are level-2 headings. Adding a line happens under the
//! file's lock with the read inside the lock (the original read outside it
//! and lost entries), and changes nothing but the inserted line: every
//! other byte of the file stays as it was.

use std::path::PathBuf;

use super::a2a_store::A2aStore;
use super::error::{A2aError, Result};
use crate::store::StoreError;
use crate::support::sanitize;

/// Longest section name accepted.
pub(crate) const MAX_SECTION_CHARS: usize = 100;

/// Longest line accepted.
pub(crate) const MAX_LINE_CHARS: usize = 2000;

/// The sections of a new file, in order.
#[cfg(test)]
const SECTIONS: [&str; 5] = [
    "Sprint Goals",
    "Current Work",
    "Blocked Items",
    "Code Review Queue",
    "Decisions",
];

/// The file `swarm coord init` writes for `project`, dated `date`
/// (`YYYY-MM-DD`). `COORDINATION.md.example` is this for `my-project`.
pub(crate) fn template(project: &str, date: &str) -> String {
    format!(
        "# Coordination File - {project}

Shared notes of the agents working on this project: read them before you
start a task. Add a line with `swarm coord add SECTION TEXT` (it takes a
lock, so agents writing at the same time never lose an entry), or edit the
file by hand. Keep entries short and dated.

## Sprint Goals

- Goal for this sprint, in one line

## Current Work

| Agent | Task | Status | Started |
|-------|------|--------|---------|
| agent-0 | Example: refactor authentication | In Progress | {date} |

## Blocked Items

- **Task name**: what it waits for (Agent: agent-1)

## Code Review Queue

- **PR 12**: short description (Author: agent-2, Reviewer: TBD, Status: Pending)

## Decisions

- **[{date}]** Decision: the reason for it
"
    )
}

/// What `add` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Added {
    /// Where the notes live.
    pub path: String,
    /// The line as written.
    pub line: String,
    /// The section did not exist and was appended.
    pub created_section: bool,
    /// The file did not exist and was created.
    pub created_file: bool,
}

/// Writes the template; an existing file is replaced only with `force`.
pub fn init(store: &dyn A2aStore, project: &str, date: &str, force: bool) -> Result<String> {
    let location = store.coordination_location();
    store.update_coordination(&mut |current| {
        if current.is_some() && !force {
            return Err(StoreError::Exists {
                path: PathBuf::from(&location),
            }
            .into());
        }
        Ok(Some(template(project, date)))
    })?;
    Ok(location)
}

/// Appends `text` as one line to `section` (created at the end when
/// missing; the file too, with just its title). The text is cleaned to
/// one line; a line that is not already a list item or table row becomes
/// a `- ` item, so that it can never turn into a heading.
pub fn add(store: &dyn A2aStore, project: &str, section: &str, text: &str) -> Result<Added> {
    let section = section_name(section)?;
    let line = entry_line(text)?;
    let (mut created_file, mut created_section) = (false, false);
    // The read and the write are one exclusive change: no entry is lost.
    store.update_coordination(&mut |current| {
        created_file = current.is_none();
        let current = current.unwrap_or_else(|| format!("# Coordination File - {project}\n"));
        let (updated, created) = insert_line(&current, &section, &line);
        created_section = created;
        Ok(Some(updated))
    })?;
    Ok(Added {
        path: store.coordination_location(),
        line,
        created_section,
        created_file,
    })
}

/// Reads the notes; `Ok(None)` when there are none.
pub fn read(store: &dyn A2aStore) -> Result<Option<String>> {
    store.read_coordination()
}

/// The text of one section (its lines without the heading), found as
/// `add` finds it; `None` when there is no such section.
pub fn section_text(doc: &str, section: &str) -> Option<String> {
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    let (start, end) = find_section(&lines, section)?;
    Some(lines[start + 1..end].concat().trim().to_owned())
}

/// The names of the sections, in order.
pub fn section_names(doc: &str) -> Vec<String> {
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    headings(&lines)
        .into_iter()
        .filter(|(_, level, _)| *level == 2)
        .map(|(_, _, name)| name.to_owned())
        .collect()
}

fn section_name(raw: &str) -> Result<String> {
    let name = sanitize::one_line(raw).trim().to_owned();
    if name.is_empty() {
        return Err(A2aError::Invalid("the section name is empty".into()));
    }
    if name.chars().count() > MAX_SECTION_CHARS {
        return Err(A2aError::Invalid(format!(
            "the section name is too long (at most {MAX_SECTION_CHARS} characters)"
        )));
    }
    if name.starts_with('#') {
        return Err(A2aError::Invalid(format!(
            "give the section name without `#` (e.g. \"Blocked Items\"), not {name:?}"
        )));
    }
    Ok(name)
}

fn entry_line(raw: &str) -> Result<String> {
    let text = sanitize::one_line(raw).trim().to_owned();
    if text.is_empty() {
        return Err(A2aError::Invalid("the text to add is empty".into()));
    }
    if text.chars().count() > MAX_LINE_CHARS {
        return Err(A2aError::Invalid(format!(
            "the text to add is too long (at most {MAX_LINE_CHARS} characters)"
        )));
    }
    let listed = ["- ", "* ", "+ ", "|"].iter().any(|p| text.starts_with(p));
    Ok(if listed { text } else { format!("- {text}") })
}

/// Headings outside fenced code blocks: `(line index, level, name)`.
fn headings<'a>(lines: &[&'a str]) -> Vec<(usize, usize, &'a str)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in lines.iter().enumerate() {
        let l = line.trim_end();
        if l.starts_with("```") || l.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let level = l.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&level) && l[level..].starts_with(' ') {
            out.push((i, level, l[level..].trim()));
        }
    }
    out
}

fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    norm(a) == norm(b)
}

/// The heading line of `section` and the index where its body ends (the
/// next heading of level 1 or 2, or the end).
fn find_section(lines: &[&str], section: &str) -> Option<(usize, usize)> {
    let hs = headings(lines);
    let pos = hs
        .iter()
        .position(|(_, level, name)| *level == 2 && same_name(name, section))?;
    let start = hs[pos].0;
    let end = hs[pos + 1..]
        .iter()
        .find(|(_, level, _)| *level <= 2)
        .map(|(i, _, _)| *i)
        .unwrap_or(lines.len());
    Some((start, end))
}

/// `doc` with `line` added at the end of `section`'s content, and whether
/// the section had to be created. Only the new line (and, where the file
/// or a heading lacked one, a final newline) is added.
pub(crate) fn insert_line(doc: &str, section: &str, line: &str) -> (String, bool) {
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    let Some((start, end)) = find_section(&lines, section) else {
        let mut out = doc.to_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(&format!("## {section}\n\n{line}\n"));
        return (out, true);
    };
    let last_text = (start + 1..end)
        .rev()
        .find(|&i| !lines[i].trim().is_empty());
    let mut out = String::with_capacity(doc.len() + line.len() + 2);
    let push_line = |out: &mut String, l: &str| {
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push('\n');
        }
    };
    match last_text {
        Some(after) => {
            for l in &lines[..=after] {
                out.push_str(l);
            }
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
            for l in &lines[after + 1..] {
                out.push_str(l);
            }
        }
        None => {
            // An empty section: keep one blank line after the heading and
            // one before whatever follows.
            for l in &lines[..start] {
                out.push_str(l);
            }
            push_line(&mut out, lines[start]);
            let mut rest = start + 1;
            if lines.get(rest).is_some_and(|l| l.trim().is_empty()) {
                out.push_str(lines[rest]);
                rest += 1;
            } else {
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
            if rest < lines.len() {
                out.push('\n');
            }
            for l in &lines[rest..] {
                out.push_str(l);
            }
        }
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_example_file_is_the_template() {
        let example = &crate::support::repo::text("COORDINATION.md.example");
        assert_eq!(*example, template("my-project", "2026-01-01"));
        assert_eq!(section_names(example), SECTIONS);
    }

    #[test]
    fn adds_at_the_end_of_the_section_and_keeps_the_rest() {
        let doc = template("p", "2026-01-01");
        let (out, created) = insert_line(&doc, "blocked items", "- **X**: waits (Agent: agent-3)");
        assert!(!created);
        assert!(out.contains(
            "- **Task name**: what it waits for (Agent: agent-1)\n- **X**: waits (Agent: agent-3)\n\n## Code Review Queue"
        ));
        // Removing the added line gives back the original, byte for byte.
        assert_eq!(out.replace("- **X**: waits (Agent: agent-3)\n", ""), doc);
        let (out, _) = insert_line(
            &doc,
            "Current Work",
            "| agent-1 | docs | In Progress | 2026-01-02 |",
        );
        assert!(
            out.contains(
                "2026-01-01 |\n| agent-1 | docs | In Progress | 2026-01-02 |\n\n## Blocked"
            )
        );
    }

    #[test]
    fn creates_missing_sections_and_fills_empty_ones() {
        let (out, created) = insert_line("# T\n\nintro\n", "Risks", "- one");
        assert!(created);
        assert_eq!(out, "# T\n\nintro\n\n## Risks\n\n- one\n");
        let (out, _) = insert_line(&out, "Risks", "- two");
        assert_eq!(out, "# T\n\nintro\n\n## Risks\n\n- one\n- two\n");
        let (out, _) = insert_line("# T\n## A\n## B\n", "A", "- x");
        assert_eq!(out, "# T\n## A\n\n- x\n\n## B\n");
        let (out, _) = insert_line("# T\n\n## A\n\n## B\n", "a", "- x");
        assert_eq!(out, "# T\n\n## A\n\n- x\n\n## B\n");
        let (out, _) = insert_line("## A\n- a", "A", "- b");
        assert_eq!(out, "## A\n- a\n- b\n");
        let (out, _) = insert_line("", "A", "- b");
        assert_eq!(out, "## A\n\n- b\n");
    }

    #[test]
    fn headings_in_code_blocks_and_subsections() {
        let doc = "## A\n\n```\n## B\n```\n\n### Sub\n- s\n\n## C\n";
        let (out, created) = insert_line(doc, "B", "- x");
        assert!(created, "a heading inside a code block is not a section");
        assert!(out.ends_with("## C\n\n## B\n\n- x\n"));
        let (out, _) = insert_line(doc, "A", "- x");
        assert_eq!(out, "## A\n\n```\n## B\n```\n\n### Sub\n- s\n- x\n\n## C\n");
        assert_eq!(section_text(doc, "c"), Some(String::new()));
        assert_eq!(section_text(doc, "nope"), None);
    }

    #[test]
    fn entries_are_one_safe_line() {
        assert_eq!(entry_line("done").expect("line"), "- done");
        assert_eq!(entry_line("* done").expect("line"), "* done");
        assert_eq!(
            entry_line("## not a heading\nx\x1b[31m").expect("line"),
            "- ## not a heading x"
        );
        assert!(entry_line(" \n ").is_err());
        assert!(section_name("## Decisions").is_err());
        assert!(section_name("").is_err());
    }

    proptest! {
        #[test]
        fn inserting_only_adds(doc in "[#a-z \n`|-]{0,80}", section in "[A-Za-z ]{1,8}") {
            let (out, _) = insert_line(&doc, &section, "- NEW");
            prop_assert!(out.contains("- NEW\n"));
            // Everything that was there is still there, in order.
            let mut rest = out.as_str();
            for ch in doc.chars() {
                let at = rest.find(ch);
                prop_assert!(at.is_some());
                rest = &rest[at.unwrap_or(0) + ch.len_utf8()..];
            }
        }
    }
}
