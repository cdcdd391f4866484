//! `eval --set bgu-chess --record`: records each real game from its folder of
//! photos, as `boardscribe record` would, and scores the record against the true
//! game, half-move by half-move.

use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::capture::{self, SourceOptions};
use crate::classify::Classifier;
use crate::infer::WhiteSide;
use crate::pipeline::{self, RecordJob};
use crate::record::parse_pgn;
use crate::record::Tags;
use crate::rules::chess::Chess;
use crate::sets;

/// How a recorded game compares with the true one.
#[derive(Debug, Serialize)]
pub struct GameScore {
    pub game: u32,
    /// Half-moves of the true game.
    pub true_plies: usize,
    pub recorded_plies: usize,
    /// Plies where the record has the true game's move (same SAN at the same ply).
    pub matching: usize,
    /// The first ply (1-based) where the record differs or stops, if any.
    pub first_miss: Option<usize>,
    pub unexplained: usize,
    pub in_sync: bool,
    /// Recorded plies (1-based) whose move is not the true game's.
    pub wrong: Vec<usize>,
    /// Recorded plies (1-based) the record marks uncertain (`{uncertain: ...}`).
    pub marked: Vec<usize>,
    /// Wrong plies with the mark, and right ones with it.
    pub wrong_marked: usize,
    pub right_marked: usize,
    pub pgn: String,
}

/// Records bgu-chess game `game` into `out_dir` and scores it.
pub fn record_bgu_game(
    classifier: &mut Classifier,
    data: &Path,
    game: u32,
    out_dir: &Path,
    locate: bool,
) -> anyhow::Result<GameScore> {
    let refs = sets::bgu_game(data, game)?;
    let first = refs
        .first()
        .with_context(|| format!("bgu-chess game {game} has no photos"))?;
    let mut pose = first.pose;
    let folder = data
        .join("bgu-chess")
        .join(format!("game{game}_per_frame"))
        .join("tagged_images");
    let truth_path = data.join("bgu-chess").join(format!("game{game}.pgn"));
    let truth = std::fs::read_to_string(&truth_path)
        .with_context(|| format!("cannot read '{}'", truth_path.display()))?;
    let truth =
        parse_pgn(&truth).map_err(|e| anyhow::anyhow!("'{}': {e}", truth_path.display()))?;
    let mut source = capture::open(&folder.to_string_lossy(), SourceOptions::default())?;
    // As `record` without --corners: the grid found in the first photo, moved by
    // whole cells to where it reads as the start, White's side decided by the game.
    let white = if locate {
        let image = first.load()?.image;
        let found = crate::locate::locate(&image, pose.grid())
            .with_context(|| format!("locating the board in '{}'", first.path.display()))?;
        let located = crate::geometry::BoardPose::new(pose.grid(), found.corners);
        pose = pipeline::snap_to_start(&Chess::new(), classifier, &image, located)?.0;
        None
    } else {
        Some(WhiteSide::Bottom)
    };
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create '{}'", out_dir.display()))?;
    let out = out_dir.join(format!("bgu-game{game}.pgn"));
    // A folder of photos: every photo is a still view, as `record` does.
    let (track, infer) = crate::pipeline::still_policy(true, None);
    let job = RecordJob {
        pose,
        white,
        track,
        infer,
        tags: Tags {
            event: format!("bgu-chess game {game}"),
            ..Tags::default()
        },
        out: out.clone(),
        debug: false,
        progress: false,
        adapt: true,
        timeline: Default::default(),
    };
    classifier.forget_board();
    let summary = pipeline::record(Chess::new(), classifier, source.as_mut(), &job, &mut |_| {})
        .with_context(|| format!("recording '{}'", folder.display()))?;
    classifier.forget_board();
    let recorded = parse_pgn(&std::fs::read_to_string(&out)?).map_err(anyhow::Error::msg)?;
    let want: Vec<&str> = truth.moves.iter().map(|m| m.san.as_str()).collect();
    let got: Vec<&str> = recorded.moves.iter().map(|m| m.san.as_str()).collect();
    let matching = want.iter().zip(&got).filter(|(w, g)| w == g).count();
    let first_miss = (0..want.len().max(got.len()))
        .find(|&i| want.get(i) != got.get(i))
        .map(|i| i + 1);
    let wrong: Vec<usize> = (0..got.len())
        .filter(|&i| want.get(i) != got.get(i))
        .map(|i| i + 1)
        .collect();
    let marked: Vec<usize> = recorded
        .moves
        .iter()
        .enumerate()
        .filter(|(_, m)| m.comments.iter().any(|c| c.starts_with("uncertain:")))
        .map(|(i, _)| i + 1)
        .collect();
    let wrong_marked = marked.iter().filter(|p| wrong.contains(p)).count();
    let right_marked = marked.len() - wrong_marked;
    Ok(GameScore {
        game,
        true_plies: want.len(),
        recorded_plies: got.len(),
        matching,
        first_miss,
        unexplained: summary.unexplained,
        in_sync: summary.in_sync,
        wrong,
        marked,
        wrong_marked,
        right_marked,
        pgn: out.display().to_string(),
    })
}

pub fn print_score(s: &GameScore) {
    let list = |v: &[usize]| {
        v.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    outln!(
        "bgu-chess game {}: {} of {} half-moves match (recorded {}{}), {} unexplained changes{}; \
         marked uncertain: {} of {} wrong plies, {} of {} right ones (wrong: [{}], marked: [{}]); {}",
        s.game,
        s.matching,
        s.true_plies,
        s.recorded_plies,
        s.first_miss
            .map(|p| format!(", first miss at ply {p}"))
            .unwrap_or_default(),
        s.unexplained,
        if s.in_sync { "" } else { ", ended out of sync" },
        s.wrong_marked,
        s.wrong.len(),
        s.right_marked,
        s.recorded_plies - s.wrong.len(),
        list(&s.wrong),
        list(&s.marked),
        s.pgn
    );
}
