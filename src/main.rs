use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = boardscribe::cli::Cli::parse();
    match boardscribe::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
