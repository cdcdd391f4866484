//! The `boardscribe-lab` command: parse the arguments, run the command (the
//! commands live in `commands/`), map its error to an exit status.

use std::process::ExitCode;

use clap::Parser;

#[macro_use]
extern crate boardscribe_cli;

// The commands print what the lab's library returns; the crates' modules under
// the names they use (`crate::synth`, ...).
mod commands;
use boardscribe_core::{infer, record, rules};
use boardscribe_lab::{cputime, export, memory, mjpeg, sets, synth};
use boardscribe_vision::{capture, classify, geometry, locate, pipeline, track};

fn main() -> ExitCode {
    boardscribe_cli::quiet_ffmpeg();
    // A closed pipe (`boardscribe-lab eval ... | head -1`) ends the program quietly.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match commands::run(commands::Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            errln!("error: {}", boardscribe_cli::error_line(&e));
            ExitCode::from(boardscribe_cli::exit_code(&e))
        }
    }
}
