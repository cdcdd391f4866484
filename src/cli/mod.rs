//! The command line: raw flags as typed (clap), resolved into what each run needs.

mod bench;
mod bench_photos;
mod bench_record;
mod board;
mod calibrate;
mod dataset;
mod demo;
mod detect;
mod eval;
mod eval_record;
mod events;
mod locate;
mod model;
mod perft;
mod record;
mod rectify;
pub mod render;

use clap::{Parser, Subcommand};

pub use board::BoardArgs;
pub use model::ModelArgs;

#[derive(Parser, Debug)]
#[command(
    name = "boardscribe",
    version,
    about = "Records board games played on a real board, from a camera, a video or photos"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Find the board's grid in photos: its four corners, as JSON or --corners text.
    Locate(Box<locate::LocateArgs>),
    /// Warp a camera view of a board to a top-down grid, and draw the grid on the photo.
    Rectify(rectify::RectifyArgs),
    /// Make a perspective view of a known board and rectify it (what `make demo` runs).
    Demo(demo::DemoArgs),
    /// Classify every cell of board photos: empty, white or black piece, hidden.
    Detect(detect::DetectArgs),
    /// Export training crops (rendered scenes, or licensed real photos).
    Dataset(dataset::DatasetArgs),
    /// Render labelled images, game clips and contact sheets (tests, demo, training).
    Render(render::RenderArgs),
    /// Measure the classifier on a labelled set: per-site accuracy, exact boards, confusion.
    Eval(eval::EvalArgs),
    /// Measure the hot paths (medians): rendering, classification, inference, recording.
    Bench(bench::BenchArgs),
    /// Record a game from a video, a camera or a folder of photos.
    Record(Box<record::RecordArgs>),
    /// Count the leaf move sequences of a given depth (tests a rules engine).
    Perft(perft::PerftArgs),
    /// Measure the camera: `calibrate camera` makes a lens profile for `--camera`.
    Calibrate(calibrate::CalibrateArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Locate(a) => locate::run(*a),
        Command::Rectify(a) => rectify::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Record(a) => record::run(*a),
        Command::Bench(a) => bench::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Render(a) => render::run(a),
        Command::Dataset(a) => dataset::run(a),
        Command::Detect(a) => detect::run(a),
        Command::Calibrate(a) => calibrate::run(a),
    }
}
