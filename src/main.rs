//! The `boardscribe` command: parse the arguments, run the command, map its error
//! to an exit status. The commands live in `cli/`; the work is the library's.

use std::process::ExitCode;

use clap::Parser;

mod cli;

#[macro_use]
extern crate boardscribe_cli;

// The library crates' modules under the names the commands use (`crate::capture`, ...).
use boardscribe_core::{game, infer, record, rules};
use boardscribe_round::{round, runner, server};
use boardscribe_vision::{capture, classify, geometry, locate, pipeline};

fn main() -> ExitCode {
    boardscribe_cli::quiet_ffmpeg();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if cli::lab::is_lab_command(&args) {
        return match cli::lab::run_lab(&args) {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                errln!("error: {}", boardscribe_cli::error_line(&e));
                ExitCode::FAILURE
            }
        };
    }
    let cli = cli::Cli::parse_from(args);
    // A closed pipe (`boardscribe detect --json ... | head -1`) ends the program
    // quietly, as it does other command-line tools; a recording instead goes on
    // and says once that its events cannot be written.
    #[cfg(unix)]
    unsafe {
        let action = if cli::keeps_running_on_sigpipe(&cli) {
            libc::SIG_IGN
        } else {
            libc::SIG_DFL
        };
        libc::signal(libc::SIGPIPE, action);
    }
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            errln!("error: {}", boardscribe_cli::error_line(&e));
            ExitCode::from(boardscribe_cli::exit_code(&e))
        }
    }
}
