use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // A closed pipe (`boardscribe detect --json ... | head -1`) should end the program
    // quietly, as it does other command-line tools, not panic inside println!.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = boardscribe::cli::Cli::parse();
    match boardscribe::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
