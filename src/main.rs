//! The `swarm` binary. Everything it does lives in the library; this file
//! only hands over the arguments and turns the result into an exit status.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(swarm::run(std::env::args_os()) as u8)
}
