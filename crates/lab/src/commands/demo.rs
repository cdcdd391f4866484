use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::ModelArgs;
use crate::capture::{self, SourceOptions};
use crate::geometry::{BoardPose, Corners, GridSpec};
use crate::infer::{InferConfig, WhiteSide};
use crate::pipeline::{self, RecordJob};
use crate::record::parse_pgn;
use crate::record::Tags;
use crate::rules::chess::Chess;
use crate::sets::game_states;
use crate::synth::clip::{write_clip, ClipOptions};
use crate::synth::SceneParams;
use crate::track::TrackConfig;

/// The Opera Game (Morphy v. the Duke of Brunswick and Count Isouard, Paris 1858):
/// public domain, short, and full of captures, castling and a mate.
const OPERA: &str = include_str!("../../../../tests/data/games/opera.pgn");

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Folder for the demo's clip and record.
    #[arg(long, default_value = "out/demo")]
    pub out: PathBuf,
    /// Where to write the recorded PGN (default OUT/opera.pgn).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Seed of the rendered scene.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    #[command(flatten)]
    pub model: ModelArgs,
}

pub fn run(a: DemoArgs) -> anyhow::Result<()> {
    let truth = parse_pgn(OPERA).map_err(anyhow::Error::msg)?;
    let start = Chess::new();
    let mut g = start.clone();
    let mut moves = Vec::new();
    for u in truth.ucis() {
        let m = g.parse_uci(&u).map_err(anyhow::Error::msg)?;
        crate::rules::Rules::play_legal(&mut g, &m);
        moves.push(m);
    }
    let clip_path = a.out.join("opera.mp4");
    let mut params = SceneParams::chess_overhead(a.seed, false);
    params.camera.elevation_deg = 62.0;
    params.camera.azimuth_deg = 8.0;
    let opts = ClipOptions {
        fps: 10.0,
        still_s: 0.8,
        move_s: 1.0,
        no_pause_after: Vec::new(),
        light_swing: 0.15,
        bump: None,
        trouble: Default::default(),
    };
    errln!("rendering the Opera Game (Paris, 1858) with hands and changing light...");
    let clip = write_clip(
        &clip_path,
        &params,
        &game_states(&start, &moves, WhiteSide::Bottom),
        &opts,
    )?;
    outln!(
        "clip: {} ({} frames)",
        clip_path.display(),
        clip.frames.len()
    );

    // The corners a user would read off the first frame.
    let c = clip.frames[0].corners;
    let corners = Corners::new(c.map(|[x, y]| (x, y)))?;
    outln!("corners: --corners \"{corners}\"");
    let pgn = a.pgn.clone().unwrap_or_else(|| a.out.join("opera.pgn"));
    let mut classifier = a.model.load()?;
    let mut source = capture::open(&clip_path.to_string_lossy(), SourceOptions::default())?;
    let job = RecordJob {
        pose: BoardPose::new(GridSpec::cells(8, 8), corners),
        white: None,
        track: TrackConfig::default(),
        infer: InferConfig::default(),
        tags: Tags {
            event: "boardscribe demo: the Opera Game, rendered".into(),
            site: "Paris FRA".into(),
            date: crate::record::today(),
            round: "-".into(),
            white: "Paul Morphy".into(),
            black: "Duke Karl / Count Isouard".into(),
            extra: Vec::new(),
        },
        out: pgn.clone(),
        debug: false,
        progress: false,
        adapt: true,
        timeline: Default::default(),
    };
    let summary = pipeline::record(
        start.clone(),
        &mut classifier,
        source.as_mut(),
        &job,
        &mut |_| {},
    )
    .context("recording the demo clip")?;
    let recorded = parse_pgn(&std::fs::read_to_string(&pgn)?).map_err(anyhow::Error::msg)?;
    let want: Vec<&str> = truth.moves.iter().map(|m| m.san.as_str()).collect();
    let got: Vec<&str> = recorded.moves.iter().map(|m| m.san.as_str()).collect();
    outln!();
    outln!("{:>5}  {:<10} {:<10}", "ply", "true game", "recorded");
    let mut matching = 0;
    for i in 0..want.len().max(got.len()) {
        let (w, r) = (
            want.get(i).copied().unwrap_or("-"),
            got.get(i).copied().unwrap_or("-"),
        );
        let ok = w == r;
        matching += ok as usize;
        outln!(
            "{:>5}  {:<10} {:<10} {}",
            i + 1,
            w,
            r,
            if ok { "" } else { "  <-- differs" }
        );
    }
    outln!();
    outln!(
        "{matching} of {} half-moves match; result {} (true {}); white found at the {} edge; PGN: {}",
        want.len(),
        recorded.result,
        truth.result,
        summary.white.map_or("?".to_string(), |w| w.to_string()),
        pgn.display()
    );
    Ok(())
}
