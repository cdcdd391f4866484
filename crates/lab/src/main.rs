//! The `boardscribe-lab` command: parse the arguments, run the command, map its
//! error to an exit status.

use std::process::ExitCode;

use boardscribe_lab::commands;
use clap::Parser;

#[macro_use]
extern crate boardscribe_cli;

fn main() -> ExitCode {
    // FFmpeg's log lines come from inside OpenCV unless told otherwise here (see
    // the `boardscribe` binary); a user's choice wins.
    if std::env::var_os("OPENCV_FFMPEG_LOGLEVEL").is_none()
        && std::env::var_os("OPENCV_FFMPEG_DEBUG").is_none()
    {
        std::env::set_var("OPENCV_FFMPEG_LOGLEVEL", "-8");
    }
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
