//! The command line: raw flags as typed (clap), resolved into what each run needs.

#[macro_use]
pub mod out;
mod bench;
mod bench_boards;
mod bench_photos;
mod bench_record;
mod board;
mod calibrate;
mod dataset;
mod demo;
mod detect;
mod eval;
mod eval_record;
mod event;
mod events;
mod find_board;
mod locate;
mod model;
mod paths;
mod perft;
mod record;
mod rectify;
pub mod render;
pub mod signals;
mod values;

use clap::{Parser, Subcommand};

pub use board::BoardArgs;
pub use model::ModelArgs;

#[derive(Parser, Debug)]
#[command(
    name = "boardscribe",
    version,
    about = "Records board games played on a real board, from a camera, a video or photos",
    after_long_help = include_str!("help/top.txt")
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Record a game from a video, a camera, a stream or a folder of photos.
    #[command(after_long_help = include_str!("help/record.txt"))]
    Record(Box<record::RecordArgs>),
    /// Record every board of a round (a round file), with a live page and the round PGN.
    #[command(after_long_help = include_str!("help/event.txt"))]
    Event(Box<event::EventArgs>),
    /// Find the board's grid in photos (or a video's first frame): its four corners.
    #[command(after_long_help = include_str!("help/locate.txt"))]
    Locate(Box<locate::LocateArgs>),
    /// Warp a camera view of a board to a top-down grid, and draw the grid on the photo.
    #[command(after_long_help = include_str!("help/rectify.txt"))]
    Rectify(rectify::RectifyArgs),
    /// Classify every cell of board photos: empty, white or black piece, hidden.
    #[command(after_long_help = include_str!("help/detect.txt"))]
    Detect(detect::DetectArgs),
    /// Measure the camera: `calibrate camera` makes a lens profile for `--camera`,
    /// `calibrate board` a board profile for `--profile`.
    Calibrate(calibrate::CalibrateArgs),
    /// Count the leaf move sequences of a given depth (tests a rules engine).
    #[command(after_long_help = include_str!("help/perft.txt"))]
    Perft(perft::PerftArgs),
    /// Render the Opera Game as a clip, record it and compare the record with the
    /// true game (what `make demo` runs).
    #[command(after_long_help = include_str!("help/demo.txt"))]
    Demo(demo::DemoArgs),
    /// Render labelled images, game clips, photo series and contact sheets.
    #[command(after_long_help = include_str!("help/render.txt"))]
    Render(render::RenderArgs),
    /// Measure the classifier on a labelled set: per-site accuracy, exact boards, confusion.
    #[command(after_long_help = include_str!("help/eval.txt"))]
    Eval(eval::EvalArgs),
    /// Export training crops (rendered scenes, or licensed real photos).
    #[command(after_long_help = include_str!("help/dataset.txt"))]
    Dataset(dataset::DatasetArgs),
    /// Measure the hot paths (medians): rendering, classification, inference, recording.
    #[command(after_long_help = include_str!("help/bench.txt"))]
    Bench(bench::BenchArgs),
}

/// The command line is wrong: a flag's value malformed or out of range, flags that
/// conflict or are missing. Exit status 2, as clap gives its own usage errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A recording ended with its record written but not to be trusted as complete:
/// nothing recorded, out of sync, or the input ended early. Exit status 3.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Incomplete(pub String);

/// A usage error with a formatted message.
macro_rules! usage {
    ($($arg:tt)*) => {
        anyhow::Error::new($crate::cli::UsageError(format!($($arg)*)))
    };
}
pub(crate) use usage;

/// The exit status for an error (see the README's table): 2 for usage errors, 3
/// for an incomplete recording, 1 for everything else.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<UsageError>().is_some() {
        2
    } else if e.downcast_ref::<Incomplete>().is_some() {
        3
    } else {
        1
    }
}

/// This run's command line as a lock's holder writes it: the program's file name
/// and the arguments as given, those with spaces quoted.
pub(crate) fn command_line() -> String {
    std::env::args_os()
        .enumerate()
        .map(|(i, a)| {
            let a = if i == 0 {
                std::path::Path::new(&a)
                    .file_name()
                    .map_or_else(|| a.to_string_lossy(), |n| n.to_string_lossy())
                    .into_owned()
            } else {
                a.to_string_lossy().into_owned()
            };
            if a.is_empty() || a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An error as one line: causes joined by `: `, line breaks folded, and OpenCV's
/// raw assertion texts (source paths, condition codes) cut to what they say.
pub fn error_line(e: &anyhow::Error) -> String {
    let text = format!("{e:#}");
    let text = tidy_opencv(&text);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `OpenCV(4.6.0) /build/.../resize.cpp:4052: error: (-215:Assertion failed)
/// !ssize.empty() in function 'resize'` becomes `OpenCV could not process the
/// image (resize: !ssize.empty())`.
fn tidy_opencv(text: &str) -> String {
    let Some(start) = text.find("OpenCV(") else {
        return text.to_string();
    };
    let rest = &text[start..];
    let Some(err) = rest.find("error: (") else {
        return text.to_string();
    };
    let after = &rest[err + "error: (".len()..];
    let Some(close) = after.find(')') else {
        return text.to_string();
    };
    let detail = after[close + 1..].trim();
    let (cond, func) = match detail.rfind(" in function '") {
        Some(i) => (
            detail[..i].trim(),
            detail[i + " in function '".len()..]
                .trim_end()
                .trim_end_matches('\'')
                .split('\'')
                .next()
                .unwrap_or(""),
        ),
        None => (detail, ""),
    };
    let what = if func.is_empty() {
        cond.to_string()
    } else {
        format!("{func}: {cond}")
    };
    format!(
        "{}OpenCV could not process the image ({what})",
        &text[..start]
    )
}

/// Whether the command wants SIGPIPE ignored: a recording goes on when the reader
/// of its `--events` goes away; other commands end quietly, as `head` expects.
pub fn keeps_running_on_sigpipe(cli: &Cli) -> bool {
    matches!(cli.command, Command::Record(_) | Command::Event(_))
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    // OpenCV's own log lines (GStreamer warnings before "camera 0 could not be
    // opened") would come before our clear message; our errors say what matters.
    let _ = opencv::core::set_log_level(opencv::core::LogLevel::LOG_LEVEL_SILENT);
    match cli.command {
        Command::Locate(a) => locate::run(*a),
        Command::Rectify(a) => rectify::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Record(a) => record::run(*a),
        Command::Event(a) => event::run(*a),
        Command::Bench(a) => bench::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Render(a) => render::run(a),
        Command::Dataset(a) => dataset::run(a),
        Command::Detect(a) => detect::run(a),
        Command::Calibrate(a) => calibrate::run(a),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn opencv_assertions_are_cut_to_what_they_say() {
        let raw = "recording 'a': OpenCV(4.6.0) /build/opencv-x/modules/imgproc/src/resize.cpp:4052: error: (-215:Assertion failed) !ssize.empty() in function 'resize'\n";
        let e = anyhow::anyhow!(raw.to_string());
        assert_eq!(
            super::error_line(&e),
            "recording 'a': OpenCV could not process the image (resize: !ssize.empty())"
        );
        let e = anyhow::Error::new(super::UsageError("x".into()));
        assert_eq!(super::exit_code(&e), 2);
        assert_eq!(super::exit_code(&e.context("more")), 2);
        let e = anyhow::Error::new(super::Incomplete("y".into())).context("z");
        assert_eq!(super::exit_code(&e), 3);
        assert_eq!(super::exit_code(&anyhow::anyhow!("other")), 1);
    }
}
