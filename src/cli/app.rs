//! `run`: parse, dispatch, and turn the outcome into an exit code.

use std::ffi::OsString;

use clap::Parser;

use crate::error::Result;
use crate::exit_code::ExitCode;

use super::args::{Cli, Command};
use super::context::Context;
use super::output::{Output, is_broken_pipe};
use super::{
    agents, demo_agent, discover, down, guard, launch, lock, locks, unlock, version, who, whoami,
};

/// Runs swarm with these arguments (the first is the program name) and
/// returns the process exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap: 0 for --help/--version, 2 for usage errors.
            return u8::try_from(e.exit_code()).unwrap_or(ExitCode::Usage.code());
        }
    };
    let out = Output::new(cli.global.color);
    match dispatch(cli, &out) {
        Ok(code) => code.code(),
        Err(e) if is_broken_pipe(&e) => ExitCode::Success.code(),
        Err(e) => {
            out.error(&e);
            e.exit_code().code()
        }
    }
}

fn dispatch(cli: Cli, out: &Output) -> Result<ExitCode> {
    // Commands that need no project.
    match &cli.command {
        Command::Version => return version::run(out),
        Command::DemoAgent(args) => return demo_agent::run(args),
        // Must allow the edit even when the project cannot be set up.
        Command::Guard(args) if matches!(args.command, guard::GuardCommand::CheckEdit) => {
            return Ok(guard::check_edit(&cli.global, out));
        }
        _ => {}
    }
    let ctx = Context::new(&cli.global, out.clone())?;
    match cli.command {
        Command::Discover(args) => discover::run(&ctx, &args),
        Command::Agents(args) => agents::run(&ctx, &args),
        Command::Whoami(args) => whoami::run(&ctx, &args),
        Command::Launch(args) => launch::run(&ctx, &args),
        Command::Down(args) => down::run(&ctx, &args),
        Command::Lock(args) => lock::run(&ctx, &args),
        Command::AcquireFileLock(args) => lock::run(&ctx, &args.into()),
        Command::Unlock(args) => unlock::run(&ctx, &args),
        Command::Who(args) => who::run(&ctx, &args),
        Command::Locks(args) => locks::run(&ctx, &args),
        Command::CleanupStaleLocks => locks::run(&ctx, &locks::LocksArgs::clean()),
        Command::Guard(args) => guard::run(&ctx, &args),
        Command::Version | Command::DemoAgent(_) => Ok(ExitCode::Success),
    }
}
