//! Writing to standard output and standard error without panicking: `println!`
//! panics when stdout is a full disk (`> /dev/full`) or, with SIGPIPE ignored, a
//! closed pipe. Output a command cannot write is an error of the command (exit
//! status 1, one line on stderr); what cannot be written to stderr is dropped.

use std::io::Write;

/// `println!` for the command line: a write error ends the program cleanly.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::out::stdout_text(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::stdout_line(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    () => {
        $crate::out::stderr_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::out::stderr_line(format_args!($($arg)*))
    };
}

pub fn stdout_line(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.write_all(b"\n")) {
        drop(out);
        stdout_failed(&e);
    }
}

pub fn stdout_text(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.flush()) {
        drop(out);
        stdout_failed(&e);
    }
}

pub fn stderr_line(args: std::fmt::Arguments) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|_| err.write_all(b"\n"));
}

/// Ends the program after stdout failed: quietly for a closed pipe (the reader
/// has what it wanted, as `head` does), with one line for anything else.
fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        stderr_line(format_args!("error: cannot write to standard output: {e}"));
    }
    std::process::exit(1)
}
