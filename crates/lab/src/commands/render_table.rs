//! `render table`: several boards in one camera view, as a camera on a tall
//! stand over a tournament table sees them: a photo with each board's corners
//! and position, or a clip of the games played at once with each game's record.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use serde_json::json;

use crate::infer::WhiteSide;
use crate::record::{GameRecord, Recordable, Tags};
use crate::rules::chess::Chess;
use crate::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use crate::rules::Rules;
use crate::sets::game_states;
use crate::sets::go::random_go_game;
use crate::synth::table::{Layout, TableParams};
use crate::synth::table_scene::{TableFrame, TableScene};
use crate::synth::{BoardState, Rng};

#[derive(Args, Debug)]
pub struct TableArgs {
    /// Boards on the table, 1 to 4.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4))]
    boards: u8,
    /// How the boards stand: `row` (tables end to end, left to right) or
    /// `grid` (two rows, one behind the other).
    #[arg(long, value_enum, default_value = "row")]
    layout: LayoutArg,
    /// The game of each board, in reading order (the last one repeats): chess,
    /// draughts, go9, go13, go19 (Go on the points of a 9x9, 13x13 or 19x19 board).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "chess")]
    games: Vec<GameArg>,
    /// The folder to write.
    #[arg(long)]
    out: PathBuf,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Frame size, WxH.
    #[arg(long, default_value = "1920x1080", value_parser = super::values::size_in(64, 4096))]
    size: (u32, u32),
    /// A clip of the games played at once instead of one photo.
    #[arg(long)]
    clip: bool,
    /// In a photo, each game has gone up to this many plies (its own number
    /// drawn); in a clip, each game plays this many [default: photo 40, clip 4].
    #[arg(long)]
    plies: Option<usize>,
    /// In a photo, the share of boards with a player's hand over them.
    #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 1.0))]
    hands: f64,
    /// Frames a second of a clip.
    #[arg(long, default_value_t = 5.0, value_parser = super::values::float_in(1.0, 60.0))]
    fps: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutArg {
    Row,
    Grid,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GameArg {
    Chess,
    Draughts,
    /// Go on the points of a 9x9 board.
    Go9,
    /// Go on 13x13 points.
    Go13,
    /// Go on 19x19 points.
    Go19,
}

impl GameArg {
    pub(super) fn name(self) -> &'static str {
        match self {
            GameArg::Chess => "chess",
            GameArg::Draughts => "draughts",
            GameArg::Go9 | GameArg::Go13 | GameArg::Go19 => "go",
        }
    }

    pub(super) fn extension(self) -> &'static str {
        match self {
            GameArg::Chess => "pgn",
            GameArg::Draughts => "pdn",
            GameArg::Go9 | GameArg::Go13 | GameArg::Go19 => "sgf",
        }
    }

    /// The grid: rows, columns and whether on points.
    pub(super) fn grid(self) -> (usize, usize, bool) {
        match self {
            GameArg::Chess | GameArg::Draughts => (8, 8, false),
            GameArg::Go9 => (9, 9, true),
            GameArg::Go13 => (13, 13, true),
            GameArg::Go19 => (19, 19, true),
        }
    }
}

/// A random game on one board: its positions, moves and record.
pub(super) struct Played {
    pub kind: GameArg,
    /// The positions, the start first, White at the bottom.
    pub states: Vec<BoardState>,
    /// The moves as the record writes them.
    pub moves: Vec<String>,
    /// The record file (PGN or PDN).
    pub record: String,
    /// The last position (FEN; empty for Go, whose position is its cells).
    pub position: String,
}

/// `plies` random legal moves from `start` (fewer where the game ends).
fn random_game<R: Recordable>(
    start: R,
    plies: usize,
    rng: &mut Rng,
    tags: &Tags,
    fen: impl Fn(&R) -> String,
) -> (Vec<BoardState>, Vec<String>, String, String) {
    let mut g = start.clone();
    let mut rec = <R::Record as GameRecord<R>>::start(&g, tags);
    let (mut moves, mut names) = (Vec::new(), Vec::new());
    for _ in 0..plies {
        let legal = g.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.below(legal.len())].clone();
        names.push(g.notation(&mv));
        rec.push(&g, &mv, None);
        g.play_legal(&mv);
        moves.push(mv);
    }
    rec.set_result(&g);
    let states = game_states(&start, &moves, WhiteSide::Bottom);
    (states, names, rec.render(), fen(&g))
}

/// Board `board`'s (1-based) random game of `plies` plies.
pub(super) fn play(kind: GameArg, plies: usize, seed: u64, board: usize) -> Played {
    let mut rng = Rng::derive(seed, 500 + board as u64);
    let tags = Tags {
        event: "boardscribe render table".into(),
        round: "1".into(),
        white: "White".into(),
        black: "Black".into(),
        ..Tags::default()
    };
    let (states, moves, record, position) = match kind {
        GameArg::Chess => random_game(Chess::new(), plies, &mut rng, &tags, Chess::fen),
        GameArg::Draughts => random_game(
            RussianDraughts::new(DraughtsOptions::default()),
            plies,
            &mut rng,
            &tags,
            RussianDraughts::fen,
        ),
        GameArg::Go9 | GameArg::Go13 | GameArg::Go19 => go_game(kind, plies, &mut rng),
    };
    Played {
        kind,
        states,
        moves,
        record,
        position,
    }
}

/// A random Go game of `plies` stones (fewer when the board fills), each
/// capture shown with the stone that takes.
fn go_game(
    kind: GameArg,
    plies: usize,
    rng: &mut Rng,
) -> (Vec<BoardState>, Vec<String>, String, String) {
    let size = u8::try_from(kind.grid().0).unwrap_or(19);
    let Ok(game) = random_go_game(size, plies, rng.next_u64()) else {
        // Sizes 9, 13 and 19 are always fine; an empty board otherwise.
        return (
            vec![BoardState::empty(size as usize, size as usize, true)],
            Vec::new(),
            String::new(),
            String::new(),
        );
    };
    let mut g = game.start.clone();
    let names = game
        .moves
        .iter()
        .map(|m| {
            let n = g.notation(m);
            g.play_legal(m);
            n
        })
        .collect();
    (game.states(false).0, names, game.to_sgf(), String::new())
}

/// The boards' order for reading, left to right and top to bottom: by the
/// centres of their corners, rows first (a board whose centre lies lower than
/// half the smallest board's height starts a new row).
pub(super) fn reading_order(corners: &[[[f64; 2]; 4]]) -> Vec<usize> {
    let centre = |c: &[[f64; 2]; 4]| {
        let (x, y) = c
            .iter()
            .fold((0.0, 0.0), |a, p| (a.0 + p[0] / 4.0, a.1 + p[1] / 4.0));
        (x, y)
    };
    let height = |c: &[[f64; 2]; 4]| {
        let ys = c.iter().map(|p| p[1]);
        ys.clone().fold(f64::MIN, f64::max) - ys.fold(f64::MAX, f64::min)
    };
    let tall = corners.iter().map(height).fold(f64::MAX, f64::min);
    let mut by_y: Vec<usize> = (0..corners.len()).collect();
    by_y.sort_by(|&a, &b| centre(&corners[a]).1.total_cmp(&centre(&corners[b]).1));
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut last_y = f64::MIN;
    for i in by_y {
        let y = centre(&corners[i]).1;
        match rows.last_mut() {
            Some(row) if y - last_y < tall / 2.0 => row.push(i),
            _ => rows.push(vec![i]),
        }
        last_y = y;
    }
    rows.into_iter()
        .flat_map(|mut row| {
            row.sort_by(|&a, &b| centre(&corners[a]).0.total_cmp(&centre(&corners[b]).0));
            row
        })
        .collect()
}

/// The game of board `i` (0-based, in the table's order).
fn game_of(games: &[GameArg], i: usize) -> GameArg {
    games
        .get(i)
        .or(games.last())
        .copied()
        .unwrap_or(GameArg::Chess)
}

/// `render table`: a photo of the table, or with `--clip` a clip.
pub fn run(a: TableArgs) -> anyhow::Result<()> {
    let layout = match a.layout {
        LayoutArg::Row => Layout::Row,
        LayoutArg::Grid => Layout::Grid,
    };
    let grids: Vec<_> = (0..a.boards as usize)
        .map(|i| game_of(&a.games, i).grid())
        .collect();
    let tp = TableParams::random_with(&grids, layout, a.size, a.seed)?;
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create '{}'", a.out.display()))?;
    if a.clip {
        return super::render_table_clip::run(&a.out, &tp, &a, a.plies.unwrap_or(4));
    }
    write_photo(&a, &tp)
}

impl TableArgs {
    pub(super) fn seed(&self) -> u64 {
        self.seed
    }

    pub(super) fn fps(&self) -> f64 {
        self.fps
    }

    pub(super) fn layout_name(&self) -> &'static str {
        match self.layout {
            LayoutArg::Row => "row",
            LayoutArg::Grid => "grid",
        }
    }
}

/// One photo of the table, mid-game on every board, and its truth.
fn write_photo(a: &TableArgs, tp: &TableParams) -> anyhow::Result<()> {
    let image = a.out.join("table.jpg");
    let truth_path = a.out.join("truth.json");
    super::paths::check_outputs(&[("--out", &image), ("--out", &truth_path)], &[])?;
    let scene = TableScene::new(tp)?;
    let mut rng = Rng::derive(a.seed, 600);
    let most = a.plies.unwrap_or(40);
    let games: Vec<Played> = (0..scene.boards())
        .map(|i| play(game_of(&a.games, i), rng.below(most + 1), a.seed, i + 1))
        .collect();
    let states: Vec<BoardState> = games
        .iter()
        .map(|g| {
            g.states
                .last()
                .cloned()
                .unwrap_or_else(|| g.states[0].clone())
        })
        .collect();
    let mut hands = Vec::new();
    for (i, s) in states.iter().enumerate() {
        if !rng.chance(a.hands) {
            continue;
        }
        let target = (rng.below(s.rows), rng.below(s.cols));
        let white = rng.chance(0.5);
        let approach = rng.range(-35.0, 35.0) + if white { 0.0 } else { 180.0 };
        let t = rng.range(0.42, 0.5);
        if let Some(pose) = scene.hand_pose(i, target, approach, t, None) {
            hands.push((i, pose));
        }
    }
    let frame = scene.render(&states, &hands, 0)?;
    save_jpeg(&frame.image, &image)?;
    let truth = photo_truth(a, &frame, &games, &states);
    std::fs::write(&truth_path, serde_json::to_string_pretty(&truth)? + "\n")
        .with_context(|| format!("writing '{}'", truth_path.display()))?;
    outln!(
        "{} on the table: {} (truth in {})",
        super::values::plural(scene.boards(), "board", "boards"),
        image.display(),
        truth_path.display()
    );
    Ok(())
}

/// The photo's truth: per board in reading order, its grid, corners, game and
/// position, and whose hands lie over it.
fn photo_truth(
    a: &TableArgs,
    frame: &TableFrame,
    games: &[Played],
    states: &[BoardState],
) -> serde_json::Value {
    let corners: Vec<_> = frame.boards.iter().map(|b| b.corners).collect();
    let order = reading_order(&corners);
    let boards: Vec<_> = order
        .iter()
        .enumerate()
        .map(|(n, &i)| {
            let (view, game, state) = (&frame.boards[i], &games[i], &states[i]);
            let hands: Vec<usize> = view
                .hands
                .iter()
                .map(|&k| order.iter().position(|&o| o == k).unwrap_or(k) + 1)
                .collect();
            json!({
                "board": n + 1,
                "grid": state.grid_spec(),
                "game": game.kind.name(),
                "corners": view.corners,
                "position": game.position,
                "moves": game.moves,
                "cells": crate::synth::clip::cells_text(state),
                "kinds": kinds_text(state),
                "hands": hands,
            })
        })
        .collect();
    json!({
        "image": "table.jpg",
        "size": [a.size.0, a.size.1],
        "seed": a.seed,
        "layout": a.layout_name(),
        "boards": boards,
    })
}

/// Per row, each cell's piece kind ("" for none).
fn kinds_text(s: &BoardState) -> Vec<Vec<String>> {
    (0..s.rows)
        .map(|r| {
            (0..s.cols)
                .map(|c| {
                    s.get(r, c)
                        .map(|p| p.kind.name().to_string())
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect()
}

/// Writes a JPEG of quality 90, as `render photos` does.
fn save_jpeg(img: &image::RgbImage, path: &Path) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("writing '{}'", path.display()))?;
    image::codecs::jpeg::JpegEncoder::new_with_quality(std::io::BufWriter::new(file), 90)
        .encode_image(img)
        .with_context(|| format!("writing '{}'", path.display()))?;
    Ok(())
}

/// The clip's game of board `i`.
pub(super) fn clip_game(a: &TableArgs, i: usize, plies: usize) -> Played {
    play(game_of(&a.games, i), plies, a.seed, i + 1)
}
