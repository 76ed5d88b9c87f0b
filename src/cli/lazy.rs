//! `Lazy`: a command's arguments whose definition clap builds only when
//! that command is the one given, which keeps parsing fast.

use clap::Args;

/// A command's arguments, whose definition clap builds only when that
/// command is the one given: building every command's arguments is most of
/// the cost of parsing a command line, and every command pays it.
#[derive(Debug)]
pub(super) struct Lazy<T>(T);

impl<T> std::ops::Deref for Lazy<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Lazy<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Lazy)
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Lazy)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

impl<T: Args> Args for Lazy<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args_for_update))
    }
}

/// Adds the arguments with `augment`, keeping the command's description:
/// built later than it would be without deferring, the arguments' own doc
/// comment would otherwise replace it.
fn keeping_about(cmd: clap::Command, augment: fn(clap::Command) -> clap::Command) -> clap::Command {
    let about = cmd.get_about().cloned();
    let long_about = cmd.get_long_about().cloned();
    let cmd = augment(cmd);
    let cmd = match about {
        Some(about) => cmd.about(about),
        None => cmd,
    };
    match long_about {
        Some(long) => cmd.long_about(long),
        None => cmd,
    }
}
