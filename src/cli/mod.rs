//! The command line: raw flags as typed (clap), resolved into what each run needs.

mod board;
mod broadcast;
mod calibrate;
mod detect;
mod event;
mod events;
pub mod lab;
mod locate;
mod perft;
mod record;
mod rectify;
pub mod signals;

// The kit both binaries share, under the names the commands use.
pub use boardscribe_cli::{paths, values, ModelArgs};

use clap::{Parser, Subcommand};

pub use board::BoardArgs;

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
    /// Serve as one the boards of a round recorded on several machines, through NATS.
    #[command(after_long_help = include_str!("help/broadcast.txt"))]
    Broadcast(Box<broadcast::BroadcastArgs>),
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
        Command::Perft(a) => perft::run(a),
        Command::Record(a) => record::run(*a),
        Command::Event(a) => event::run(*a),
        Command::Broadcast(a) => broadcast::run(*a),
        Command::Detect(a) => detect::run(a),
        Command::Calibrate(a) => calibrate::run(a),
    }
}

/// `--game`'s values, every game's name and its aliases (`draughts`), as the game
/// module lists them: a game added there is a value here.
fn game_names() -> impl Iterator<Item = clap::builder::PossibleValue> {
    crate::game::GameKind::ALL
        .into_iter()
        .map(|k| clap::builder::PossibleValue::new(k.name()).aliases(k.aliases().iter().copied()))
}
