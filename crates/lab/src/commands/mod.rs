//! The `boardscribe-lab` binary's commands: they render, measure and export; the
//! product's commands are in the `boardscribe` binary.

pub mod bench;
mod bench_boards;
mod bench_broadcast;
mod bench_photos;
mod bench_record;
mod bench_record_go;
mod bench_table;
pub mod dataset;
pub mod demo;
pub mod eval;
mod eval_record;
pub mod locate;
mod locate_tables;
pub mod render;
mod render_game;
mod render_table;
mod render_table_clip;

// The kit both binaries share, under the names the commands use.
pub use boardscribe_cli::{paths, values, ModelArgs};

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "boardscribe-lab",
    version,
    about = "boardscribe's lab: renders boards and game clips with their truth, measures the product on them and on real photo sets",
    after_long_help = include_str!("help/top.txt")
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
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
    /// Measure `locate`: corner errors on rendered scenes by elevation, and on the
    /// annotated real photos.
    Locate(locate::LocateArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // OpenCV's own log lines would come before our clear messages.
    let _ = opencv::core::set_log_level(opencv::core::LogLevel::LOG_LEVEL_SILENT);
    match cli.command {
        Command::Demo(a) => demo::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Render(a) => render::run(a),
        Command::Dataset(a) => dataset::run(a),
        Command::Locate(a) => locate::run(a),
    }
}
