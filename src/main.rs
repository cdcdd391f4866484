use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = boardscribe::cli::Cli::parse();
    // A closed pipe (`boardscribe detect --json ... | head -1`) ends the program
    // quietly, as it does other command-line tools; a recording instead goes on
    // and says once that its events cannot be written.
    #[cfg(unix)]
    unsafe {
        let action = if boardscribe::cli::keeps_running_on_sigpipe(&cli) {
            libc::SIG_IGN
        } else {
            libc::SIG_DFL
        };
        libc::signal(libc::SIGPIPE, action);
    }
    match boardscribe::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "error: {}",
                boardscribe::cli::error_line(&e)
            );
            ExitCode::from(boardscribe::cli::exit_code(&e))
        }
    }
}
