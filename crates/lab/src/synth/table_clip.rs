//! Clips of a table: the games of its boards played at once, each at its own
//! pace, each move made by its own player's hand (a player now and then leans
//! over the neighbouring board), filmed by one still camera; per board a truth
//! in the format of a `render clip` sidecar, with whose hands lie over it.

use std::path::Path;

use serde::Serialize;

use super::clip::{cells_text, open_video};
use super::table::TableParams;
use super::table_scene::TableScene;
use super::{BoardState, HandPose, Piece, Rng, SynthError};

/// How a table clip is paced and filmed.
#[derive(Clone, Debug, PartialEq)]
pub struct TableClipOptions {
    pub fps: f64,
    /// Seconds of still table before the first move and after the last.
    pub still_s: f64,
    /// Seeds the paces, the hands' ways in and the leaning.
    pub seed: u64,
}

/// One hand visit: the move from state `transition` to the next of a board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Visit {
    pub transition: usize,
    pub start_s: f64,
    pub move_s: f64,
    /// Where the hand comes from (see `TableScene::hand_pose`).
    pub approach_deg: f64,
    /// The player leans towards the neighbouring board.
    pub leaning: bool,
}

/// One frame of one board's truth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardFrameTruth {
    pub frame: usize,
    pub time_s: f64,
    /// Index into the board's states of what stands on it.
    pub state: usize,
    pub corners: [[f64; 2]; 4],
    /// Some hand or arm lies over the board.
    pub hand_occludes: bool,
    /// Whose: the boards (0-based, in the table's order) whose players' hands they are.
    pub hands: Vec<usize>,
}

/// One board's truth over a clip: a `render clip` sidecar's fields.
#[derive(Clone, Debug, Serialize)]
pub struct BoardClipTruth {
    pub grid: String,
    pub fps: f64,
    pub states: Vec<Vec<Vec<String>>>,
    pub frames: Vec<BoardFrameTruth>,
    /// The board's hand visits, in time order.
    pub visits: Vec<Visit>,
}

/// Each board's hand visits: its own first move time, thinking time and hand
/// speed; players lean towards a neighbouring board now and then.
pub fn schedule(
    tp: &TableParams,
    games: &[Vec<BoardState>],
    opts: &TableClipOptions,
) -> Vec<Vec<Visit>> {
    games
        .iter()
        .enumerate()
        .map(|(b, states)| {
            let mut r = Rng::derive(opts.seed, 700 + b as u64);
            let move_s = r.range(0.9, 1.4);
            // Thinking long enough for the board to be seen still between moves.
            let pace = r.range(1.2, 3.0);
            // The side a neighbour stands on, in the board's frame.
            let me = &tp.boards[b];
            let neighbour = tp
                .boards
                .iter()
                .filter(|o| (o.centre[1] - me.centre[1]).abs() < 0.2 && o.centre != me.centre)
                .min_by(|p, q| {
                    let d = |o: &super::table::TableBoard| (o.centre[0] - me.centre[0]).abs();
                    d(p).total_cmp(&d(q))
                })
                .map(|o| (o.centre[0] - me.centre[0]).signum());
            let mut t = opts.still_s + r.range(0.0, 1.5);
            (0..states.len().saturating_sub(1))
                .map(|i| {
                    let white = i % 2 == 0;
                    let lean = neighbour.filter(|_| r.chance(0.3));
                    let approach = match lean {
                        Some(s) => s * r.range(50.0, 68.0),
                        None => r.range(-30.0, 30.0),
                    };
                    let approach = if white { approach } else { 180.0 - approach };
                    let v = Visit {
                        transition: i,
                        start_s: t,
                        move_s,
                        approach_deg: approach,
                        leaning: lean.is_some(),
                    };
                    t += move_s + pace * r.range(0.8, 1.3);
                    v
                })
                .collect()
        })
        .collect()
}

/// The number of frames a clip of these visits takes: to the end of the last
/// visit and a still time after it.
fn frames_of(visits: &[Vec<Visit>], opts: &TableClipOptions) -> usize {
    let end = visits
        .iter()
        .filter_map(|v| v.last())
        .map(|v| v.start_s + v.move_s)
        .fold(0.0, f64::max);
    ((end + opts.still_s.max(1.0 / opts.fps)) * opts.fps).ceil() as usize
}

/// The number of frames [`render_table_clip`] makes of these games.
pub fn table_clip_frames(
    tp: &TableParams,
    games: &[Vec<BoardState>],
    opts: &TableClipOptions,
) -> usize {
    frames_of(&schedule(tp, games, opts), opts)
}

/// The sites whose contents differ between two states.
fn changed(a: &BoardState, b: &BoardState) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for r in 0..a.rows {
        for c in 0..a.cols {
            if a.get(r, c) != b.get(r, c) {
                out.push((r, c));
            }
        }
    }
    out
}

/// A board's state and its player's hand (if one is out) at `time`.
fn at_time(
    scene: &TableScene,
    board: usize,
    states: &[BoardState],
    visits: &[Visit],
    time: f64,
) -> (usize, Option<HandPose>) {
    let done = visits
        .iter()
        .filter(|v| v.start_s + v.move_s <= time)
        .count();
    let Some(v) = visits
        .iter()
        .find(|v| v.start_s <= time && time < v.start_s + v.move_s)
    else {
        return (done, None);
    };
    let f = (time - v.start_s) / v.move_s;
    let (a, b) = (&states[v.transition], &states[v.transition + 1]);
    let sites = changed(a, b);
    // The hand goes to the middle of the changed sites, carrying what arrives.
    let target = if sites.is_empty() {
        (a.rows / 2, a.cols / 2)
    } else {
        let (sr, sc) = sites.iter().fold((0, 0), |s, q| (s.0 + q.0, s.1 + q.1));
        (sr / sites.len(), sc / sites.len())
    };
    let carried: Option<Piece> = sites.iter().find_map(|&(r, c)| b.get(r, c));
    let state = if f < 0.5 {
        v.transition
    } else {
        v.transition + 1
    };
    let carrying = if f < 0.5 { carried } else { None };
    let pose = scene.hand_pose(board, target, v.approach_deg, f, carrying);
    (state, pose)
}

/// Renders the table's games (each board's states, the start first) frame by
/// frame, handing each frame to `sink`; returns each board's truth.
pub fn render_table_clip(
    tp: &TableParams,
    games: &[Vec<BoardState>],
    opts: &TableClipOptions,
    mut sink: impl FnMut(&image::RgbImage) -> Result<(), SynthError>,
) -> Result<Vec<BoardClipTruth>, SynthError> {
    if !(opts.fps > 0.0 && opts.still_s >= 0.0) {
        return Err(SynthError("fps must be positive".into()));
    }
    if games.len() != tp.boards.len() || games.iter().any(|g| g.is_empty()) {
        return Err(SynthError(
            "a table clip needs a game of at least one state per board".into(),
        ));
    }
    let scene = TableScene::new(tp)?;
    let visits = schedule(tp, games, opts);
    let frames = frames_of(&visits, opts);
    let mut truths: Vec<BoardClipTruth> = games
        .iter()
        .zip(&visits)
        .map(|(g, v)| BoardClipTruth {
            grid: g[0].grid_spec(),
            fps: opts.fps,
            states: g.iter().map(cells_text).collect(),
            frames: Vec::with_capacity(frames),
            visits: v.clone(),
        })
        .collect();
    for n in 0..frames {
        let time = n as f64 / opts.fps;
        let mut shown = Vec::with_capacity(games.len());
        let mut hands = Vec::new();
        for (b, (g, v)) in games.iter().zip(&visits).enumerate() {
            let (state, hand) = at_time(&scene, b, g, v, time);
            shown.push(state);
            hands.extend(hand.map(|h| (b, h)));
        }
        let states: Vec<BoardState> = shown
            .iter()
            .zip(games)
            .map(|(&s, g)| g[s].clone())
            .collect();
        let frame = scene.render(&states, &hands, n as u64)?;
        sink(&frame.image)?;
        for ((t, view), &state) in truths.iter_mut().zip(frame.boards).zip(&shown) {
            t.frames.push(BoardFrameTruth {
                frame: n,
                time_s: time,
                state,
                corners: view.corners,
                hand_occludes: !view.hands.is_empty(),
                hands: view.hands,
            });
        }
    }
    Ok(truths)
}

/// [`render_table_clip`] into a video file (as `render clip` writes one),
/// telling `progress` how many frames are written after each.
pub fn write_table_clip(
    path: &Path,
    tp: &TableParams,
    games: &[Vec<BoardState>],
    opts: &TableClipOptions,
    mut progress: impl FnMut(usize),
) -> Result<Vec<BoardClipTruth>, SynthError> {
    use opencv::prelude::*;
    let cv = |e: opencv::Error| SynthError(format!("video '{}': {}", path.display(), e.message));
    let mut writer = open_video(path, opts.fps, (tp.scene.width, tp.scene.height))?;
    let mut done = 0;
    let truths = render_table_clip(tp, games, opts, |img| {
        let mat = crate::capture::rgb_to_bgr_mat(img).map_err(cv)?;
        writer.write(&mat).map_err(cv)?;
        done += 1;
        progress(done);
        Ok(())
    })?;
    writer.release().map_err(cv)?;
    Ok(truths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::table::Layout;
    use crate::synth::{PieceKind, PieceSide};

    #[test]
    fn a_hand_is_counted_over_its_own_board_only_and_corners_stay_in_the_frame() {
        let tp = TableParams::random(2, Layout::Row, (480, 270), 1).unwrap();
        let scene = TableScene::new(&tp).unwrap();
        let mut s = BoardState::empty(8, 8, false);
        s.set(6, 4, Some(Piece::new(PieceSide::White, PieceKind::Pawn)));
        let states = vec![s.clone(), s];
        let still = scene.render(&states, &[], 0).unwrap();
        assert!(still.boards.iter().all(|b| b.hands.is_empty()));
        for b in &still.boards {
            for [x, y] in b.corners {
                assert!((0.0..480.0).contains(&x) && (0.0..270.0).contains(&y));
            }
        }
        // The right board's White player reaches its centre straight from the
        // camera's side: over that board, not the left one.
        let pose = scene.hand_pose(1, (4, 4), 0.0, 0.5, None).unwrap();
        let f = scene.render(&states, &[(1, pose)], 1).unwrap();
        assert_eq!(f.boards[1].hands, [1]);
        assert!(f.boards[0].hands.is_empty());
        assert_eq!(f.boards[0].corners, still.boards[0].corners);
    }

    #[test]
    fn each_board_keeps_its_own_pace() {
        let tp = TableParams::random(4, Layout::Row, (480, 270), 3).unwrap();
        let game = vec![BoardState::empty(8, 8, false); 7];
        let games = vec![game; 4];
        let opts = TableClipOptions {
            fps: 5.0,
            still_s: 1.0,
            seed: 3,
        };
        let visits = schedule(&tp, &games, &opts);
        assert_eq!(visits.len(), 4);
        for v in &visits {
            assert_eq!(v.len(), 6);
            assert!(v[0].start_s >= opts.still_s);
            // One hand at a time on a board, and time to think between moves.
            assert!(v
                .windows(2)
                .all(|w| w[1].start_s > w[0].start_s + w[0].move_s + 0.9));
        }
        let firsts: Vec<f64> = visits.iter().map(|v| v[0].start_s).collect();
        assert!(firsts.windows(2).all(|w| w[0] != w[1]));
        // Players lean towards a neighbour now and then.
        assert!(visits.iter().flatten().any(|v| v.leaning));
    }
}
