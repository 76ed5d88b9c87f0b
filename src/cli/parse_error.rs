//! Argument errors found by the parser, told in swarm's one error format:
//! `swarm: error: ...` and a `hint:` saying what to do (a similar command
//! for a misspelt one, the usage line, where the help is).

use std::ffi::OsString;

use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::cli::args::Cli;

/// The message and hint of a parse error (not for `--help`/`--version`);
/// `args` is the command line that failed (the program name first).
pub(super) fn describe(e: &clap::Error, args: &[OsString]) -> (String, String) {
    let text = e.render().to_string();
    let mut lines = text.lines();
    let mut message = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_owned();
    let mut hints: Vec<String> = Vec::new();
    // clap gives a usage line, which names the command, with most errors;
    // for the others, the command is read from the words typed.
    let mut help = help_of_typed(args);
    for line in lines {
        let line = line.trim();
        if let Some(tip) = line.strip_prefix("tip: ") {
            // clap quotes names with '', swarm's hints with backticks.
            hints.push(tip.replace('\'', "`"));
        } else if let Some(usage) = line.strip_prefix("Usage: ") {
            help = help_command(usage);
            hints.push(format!("usage: {usage}"));
        } else if let Some(values) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            // `[possible values: a, b, c]`
            hints.push(values.to_owned());
        } else if line.starts_with('<') || line.starts_with("--") {
            // The arguments listed under "not provided".
            message.push_str(if message.ends_with(':') { " " } else { ", " });
            message.push_str(line);
        }
    }
    if e.kind() == ErrorKind::InvalidSubcommand
        && !hints.iter().any(|h| h.contains("similar"))
        && let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand)
        && let Some(near) = nearest_command(typed)
    {
        hints.insert(0, format!("a similar subcommand exists: `{near}`"));
    }
    hints.push(format!("{help} explains every option"));
    (message, hints.join("; "))
}

/// The help command for the command of a usage line: `swarm help msg`
/// for `swarm msg --ack-timeout <SECONDS> <TO> ...` (the words up to the
/// first option or argument), `swarm --help` for swarm's own.
fn help_command(usage: &str) -> String {
    let path: Vec<&str> = usage
        .split_whitespace()
        .skip(1)
        .take_while(|w| !w.starts_with(['-', '[', '<']))
        .collect();
    if path.is_empty() {
        "`swarm --help`".to_owned()
    } else {
        format!("`swarm help {}`", path.join(" "))
    }
}

/// The help command for the command named by the words of `args`
/// (`swarm launch 20` -> `swarm help launch`), `swarm --help` when they
/// name none.
fn help_of_typed(args: &[OsString]) -> String {
    let mut current = Cli::command();
    // Building defines the subcommands' own subcommands (`config init`),
    // which `Lazy` defers.
    current.build();
    let mut path: Vec<String> = Vec::new();
    for word in args.iter().skip(1).filter_map(|a| a.to_str()) {
        let Some(sub) = current.find_subcommand(word).cloned() else {
            continue;
        };
        path.push(sub.get_name().to_owned());
        current = sub;
    }
    if path.is_empty() {
        "`swarm --help`".to_owned()
    } else {
        format!("`swarm help {}`", path.join(" "))
    }
}

/// The command name (or alias) closest to `typed`: one letter wrong,
/// missing, extra or two letters swapped (two for longer names).
fn nearest_command(typed: &str) -> Option<String> {
    let cli = Cli::command();
    let names = cli
        .get_subcommands()
        .flat_map(|c| std::iter::once(c.get_name()).chain(c.get_all_aliases()));
    let limit = if typed.chars().count() > 5 { 2 } else { 1 };
    names
        .map(|n| (distance(typed, n), n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n.to_owned())
}

/// Edit distance counting a swap of two neighbouring letters as one edit
/// (`mgs` is one edit from `msg`).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_command_names_the_command_not_its_options() {
        assert_eq!(
            help_command("swarm msg --ack-timeout <SECONDS> <TO> <TYPE>"),
            "`swarm help msg`"
        );
        assert_eq!(
            help_command("swarm config init [OPTIONS]"),
            "`swarm help config init`"
        );
        assert_eq!(help_command("swarm [OPTIONS] <COMMAND>"), "`swarm --help`");
    }

    #[test]
    fn the_typed_words_name_the_command() {
        let args = |words: &[&str]| -> Vec<OsString> { words.iter().map(OsString::from).collect() };
        assert_eq!(
            help_of_typed(&args(&["swarm", "launch", "20"])),
            "`swarm help launch`"
        );
        assert_eq!(
            help_of_typed(&args(&["swarm", "config", "init", "-o"])),
            "`swarm help config init`"
        );
        assert_eq!(help_of_typed(&args(&["swarm", "nosuch"])), "`swarm --help`");
    }

    #[test]
    fn swaps_and_slips_find_their_command() {
        assert_eq!(nearest_command("mgs").as_deref(), Some("msg"));
        assert_eq!(nearest_command("lokc").as_deref(), Some("lock"));
        assert_eq!(nearest_command("inbx").as_deref(), Some("inbox"));
        assert_eq!(nearest_command("brodcast").as_deref(), Some("broadcast"));
        assert_eq!(nearest_command("xyzzy"), None);
    }
}
