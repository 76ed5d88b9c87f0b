//! Text that starts with `-`: an argument that starts with `-` and holds
//! whitespace is text (a message, a reason), never an option, as the Python
//! tool's parser takes it, so `swarm send-message agent-1 INFO '-n not an
//! option'` sends it. clap would read it as options; before parsing, such
//! an argument is put where clap takes it as a value.

use std::ffi::OsString;

use clap::Command;

/// True for an argument that may be text although it starts with `-`: no
/// option's name holds whitespace.
fn is_text(arg: &str) -> bool {
    arg.starts_with('-') && arg.chars().any(char::is_whitespace)
}

/// True for an argument that is text for `cmd`: one that starts with `-`
/// and holds whitespace, unless it starts with one of `cmd`'s options and
/// so gives that option its value (`--reason=a b`, `-ra b`).
fn is_text_for(cmd: &Command, arg: &str) -> bool {
    if !is_text(arg) {
        return false;
    }
    let names_option = match arg.strip_prefix("--") {
        Some(long) => {
            let name = long.split('=').next().unwrap_or(long);
            long.contains('=') && long_option(cmd, name).is_some()
        }
        None => arg
            .chars()
            .nth(1)
            .is_some_and(|c| cmd.get_arguments().any(|a| a.get_short() == Some(c))),
    };
    !names_option
}

/// `cmd`'s option named `--name` (or an alias of it).
fn long_option<'a>(cmd: &'a Command, name: &str) -> Option<&'a clap::Arg> {
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|al| al.contains(&name))
    })
}

/// The command line with every such argument made a value for clap: the
/// value of an option (`--reason '-x y'`) attached to it (`--reason=-x
/// y`), a positional one given after `--`, with the command's options
/// moved before it so that they keep working (`msg agent-1 INFO '-n x'
/// --json`). A command line without such an argument is returned as it
/// is, without building `command`.
pub(super) fn as_text(args: Vec<OsString>, command: impl FnOnce() -> Command) -> Vec<OsString> {
    let any = args.iter().skip(1).any(|a| a.to_str().is_some_and(is_text));
    if !any {
        return args;
    }
    let mut root = command();
    // Building propagates the global options into every subcommand and
    // makes the deferred arguments (`Lazy`) known.
    root.build();
    rewrite(args, &root)
}

/// One command's arguments, sorted into its options (with their values)
/// and its positional arguments.
#[derive(Default)]
struct Level {
    /// Its options, each with its value.
    options: Vec<OsString>,
    /// Its positional arguments, in order.
    positionals: Vec<OsString>,
    /// A positional argument that is text, or an `--` already given.
    needs_escape: bool,
    /// Every argument, in the order given.
    given: Vec<OsString>,
}

impl Level {
    /// Adds an option (with its value, when it has one).
    fn option(&mut self, args: Vec<OsString>) {
        self.given.extend(args.iter().cloned());
        self.options.extend(args);
    }

    /// Adds a positional argument.
    fn positional(&mut self, arg: OsString) {
        self.given.push(arg.clone());
        self.positionals.push(arg);
    }

    /// The arguments as clap should see them.
    fn finish(self, out: &mut Vec<OsString>) {
        if self.needs_escape {
            out.extend(self.options);
            out.push("--".into());
            out.extend(self.positionals);
        } else {
            out.extend(self.given);
        }
    }
}

/// `as_text` for a command line that holds a candidate, against the built
/// command model: each command's arguments are sorted as clap would sort
/// them, down to the subcommand named last.
fn rewrite(args: Vec<OsString>, root: &Command) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len() + 1);
    let mut rest = args.into_iter().peekable();
    out.extend(rest.next());
    let mut cmd = root;
    let mut level = Level::default();
    while let Some(arg) = rest.next() {
        let Some(text) = arg.to_str().map(str::to_owned) else {
            level.positional(arg);
            continue;
        };
        if text == "--" {
            level.needs_escape = true;
            for after in rest.by_ref() {
                level.positional(after);
            }
            break;
        }
        if is_text_for(cmd, &text) {
            level.needs_escape = true;
            level.positional(arg);
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let takes_value = !long.contains('=')
                && long_option(cmd, long).is_some_and(|a| a.get_action().takes_values());
            level.option(with_value(cmd, arg, takes_value, &mut rest));
            continue;
        }
        if let Some(shorts) = text.strip_prefix('-').filter(|s| !s.is_empty()) {
            // In a cluster (`-qv`), the first letter that takes a value takes
            // the rest of the cluster, or else the next argument.
            let mut takes_value = false;
            for (i, c) in shorts.char_indices() {
                let takes = cmd
                    .get_arguments()
                    .any(|a| a.get_action().takes_values() && a.get_short() == Some(c));
                if takes {
                    takes_value = i + c.len_utf8() == shorts.len();
                    break;
                }
            }
            level.option(with_value(cmd, arg, takes_value, &mut rest));
            continue;
        }
        let sub = (level.positionals.is_empty() && !level.needs_escape)
            .then(|| cmd.find_subcommand(&text))
            .flatten();
        match sub {
            Some(sub) => {
                std::mem::take(&mut level).finish(&mut out);
                out.push(arg);
                cmd = sub;
            }
            None => level.positional(arg),
        }
    }
    level.finish(&mut out);
    out
}

/// An option of `cmd` and its value, when it takes one and one follows:
/// attached (`--reason=-x y`, `-r=-x y`) when the value is text that clap
/// would read as options, else as the next argument.
fn with_value(
    cmd: &Command,
    option: OsString,
    takes_value: bool,
    rest: &mut std::iter::Peekable<impl Iterator<Item = OsString>>,
) -> Vec<OsString> {
    if !takes_value {
        return vec![option];
    }
    let Some(next) = rest.peek().and_then(|n| n.to_str()) else {
        return vec![option];
    };
    if is_text_for(cmd, next) {
        let mut joined = option;
        joined.push("=");
        joined.extend(rest.next());
        vec![joined]
    } else if next.starts_with('-') && next != "-" {
        // Another option (or `--`): clap says the value is missing.
        vec![option]
    } else {
        let mut both = vec![option];
        both.extend(rest.next());
        both
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction};

    fn command() -> Command {
        Command::new("swarm")
            .arg(Arg::new("root").long("root").global(true))
            .subcommand(
                Command::new("msg")
                    .alias("send-message")
                    .arg(Arg::new("to"))
                    .arg(Arg::new("type"))
                    .arg(Arg::new("content").num_args(0..))
                    .arg(Arg::new("json").long("json").action(ArgAction::SetTrue))
                    .arg(Arg::new("from").long("from").alias("sender-id")),
            )
            .subcommand(
                Command::new("lock")
                    .arg(Arg::new("paths").num_args(1..))
                    .arg(Arg::new("reason").long("reason").short('r'))
                    .arg(Arg::new("quiet").short('q').action(ArgAction::SetTrue)),
            )
    }

    fn rewritten(args: &[&str]) -> Vec<String> {
        let args = args.iter().map(OsString::from).collect();
        as_text(args, command)
            .into_iter()
            .map(|a| a.into_string().expect("utf-8"))
            .collect()
    }

    #[test]
    fn text_that_starts_with_a_dash_becomes_a_value() {
        assert_eq!(
            rewritten(&[
                "swarm",
                "send-message",
                "a",
                "INFO",
                "-n not an option",
                "--json"
            ]),
            [
                "swarm",
                "send-message",
                "--json",
                "--",
                "a",
                "INFO",
                "-n not an option"
            ]
        );
        assert_eq!(
            rewritten(&["swarm", "msg", "--from", "-x y", "a", "INFO", "hi"]),
            ["swarm", "msg", "--from=-x y", "a", "INFO", "hi"]
        );
        assert_eq!(
            rewritten(&["swarm", "lock", "a.py", "-qr", "-x y", "--root", "/p"]),
            ["swarm", "lock", "a.py", "-qr=-x y", "--root", "/p"]
        );
        assert_eq!(
            rewritten(&["swarm", "lock", "-r", "-x y", "-- z", "b.py"]),
            ["swarm", "lock", "-r=-x y", "--", "-- z", "b.py"]
        );
    }

    #[test]
    fn other_command_lines_stay_as_they_are() {
        for args in [
            &["swarm", "msg", "a", "INFO", "hi", "--json"][..],
            &["swarm", "msg", "a", "INFO", "-n"],
            &["swarm", "msg", "a", "INFO", "--", "-n"],
            &["swarm", "lock", "--reason=a b", "x"],
            &["swarm", "lock", "-ra b", "x"],
        ] {
            assert_eq!(rewritten(args), args, "{args:?}");
        }
        // An option's value that is plain stays apart from it, and what
        // follows `--` stays after it.
        assert_eq!(
            rewritten(&["swarm", "msg", "--from", "x", "a", "I", "--", "-n", "-y z"]),
            ["swarm", "msg", "--from", "x", "--", "a", "I", "-n", "-y z"]
        );
    }
}
