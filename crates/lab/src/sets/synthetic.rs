//! Rendered labelled scenes: every grid kind, board style, piece set, camera pose,
//! light and realism setting the renderer has, with and without hands.

use super::{Labelled, BLACK, EMPTY, HIDDEN, WHITE};
use crate::geometry::{BoardPose, Corners, GridSpec};
use crate::synth::params::{PieceColor, SquareScheme};
use crate::synth::{
    BoardState, Piece, PieceKind, PieceSide, RandomRanges, Rendered, Rng, Scene, SceneParams,
};

#[derive(Clone, Debug)]
pub struct SynthSetOptions {
    /// Share of scenes with a hand over the board.
    pub hands: f64,
    /// Standard deviation of the corner noise, in cells: the model must tolerate an
    /// imperfect grid.
    pub corner_jitter: f64,
    pub ranges: RandomRanges,
    /// Share of scenes drawn from the renderer's presets (the overhead club webcam,
    /// the vinyl tournament board, the magnetic travel set, Tablut, oblique Go)
    /// instead of fully random styles: the scenes users film most, with random
    /// positions. Zero leaves the random stream, and so every seed's scene, as it was.
    pub presets: f64,
    /// Fixed choices for every scene; none set leaves the random stream as it was.
    pub fixed: FixedChoices,
}

/// What `render images` may pin instead of drawing at random.
#[derive(Clone, Debug, Default)]
pub struct FixedChoices {
    /// Every scene from this preset (its own ranges), with random positions.
    pub preset: Option<fn(u64) -> SceneParams>,
    /// Every scene on this grid, with these piece kinds.
    pub grid: Option<(GridSpec, &'static [PieceKind])>,
    pub board: Option<SquareScheme>,
    pub white: Option<PieceColor>,
    pub black: Option<PieceColor>,
    /// Draughts men and kings on a preset's square grid (`grid` names its own).
    pub draughts: bool,
    /// Image sizes for preset scenes too (random scenes take `ranges.sizes`).
    pub sizes: Option<Vec<(u32, u32)>>,
}

/// The piece kinds a grid is played with: chess on squares (draughts on 18x18),
/// Tablut on 9x9, stones on points.
pub fn kinds_for(grid: GridSpec, draughts: bool) -> &'static [PieceKind] {
    match (grid.points, grid.rows, grid.cols) {
        (true, _, _) => STONES,
        (false, 9, 9) if !draughts => TABLUT,
        (false, 18, 18) => DRAUGHTS,
        _ if draughts => DRAUGHTS,
        _ => CHESS,
    }
}

impl Default for SynthSetOptions {
    fn default() -> Self {
        SynthSetOptions {
            hands: 0.3,
            corner_jitter: 0.06,
            presets: 0.0,
            fixed: FixedChoices::default(),
            ranges: RandomRanges {
                sizes: vec![(640, 480), (800, 600), (960, 540)],
                ..RandomRanges::default()
            },
        }
    }
}

/// Piece kinds drawn for each game's random positions (pawns, men and soldiers
/// weighted as on a real board).
pub const CHESS: &[PieceKind] = &[
    PieceKind::Pawn,
    PieceKind::Pawn,
    PieceKind::Pawn,
    PieceKind::Knight,
    PieceKind::Bishop,
    PieceKind::Rook,
    PieceKind::Queen,
    PieceKind::King,
];
pub const DRAUGHTS: &[PieceKind] = &[PieceKind::Man, PieceKind::Man, PieceKind::DraughtsKing];
pub const TABLUT: &[PieceKind] = &[
    PieceKind::Soldier,
    PieceKind::Soldier,
    PieceKind::TablutKing,
];
pub const STONES: &[PieceKind] = &[PieceKind::Stone];

/// The grid and the piece kinds a random scene uses.
fn pick_grid(rng: &mut Rng) -> (GridSpec, &'static [PieceKind]) {
    let u = rng.f64();
    if u < 0.35 {
        (GridSpec::cells(8, 8), CHESS)
    } else if u < 0.5 {
        (GridSpec::cells(8, 8), DRAUGHTS)
    } else if u < 0.65 {
        (GridSpec::cells(9, 9), TABLUT)
    } else if u < 0.72 {
        (GridSpec::cells(18, 18), DRAUGHTS)
    } else if u < 0.9 {
        (GridSpec::points(19, 19), STONES)
    } else {
        let n = 4 + rng.below(12) as u32;
        if rng.chance(0.5) {
            (GridSpec::cells(n, n), CHESS)
        } else {
            (GridSpec::points(n + 1, n + 1), STONES)
        }
    }
}

/// One of the renderer's presets with its own seed; half are the overhead club
/// webcam, the most common way users film a game.
fn pick_preset(rng: &mut Rng) -> (GridSpec, &'static [PieceKind], SceneParams) {
    let seed = rng.next_u64();
    let (params, kinds) = match rng.below(8) {
        0..=3 => (SceneParams::chess_overhead(seed, rng.chance(0.5)), CHESS),
        4 => (SceneParams::vinyl_tournament(seed), CHESS),
        5 => (SceneParams::magnetic_travel(seed), CHESS),
        6 => (SceneParams::tablut(seed), TABLUT),
        _ => (SceneParams::go_oblique(seed), STONES),
    };
    (grid_of(&params), kinds, params)
}

fn grid_of(params: &SceneParams) -> GridSpec {
    if params.points {
        GridSpec::points(params.rows as u32, params.cols as u32)
    } else {
        GridSpec::cells(params.rows as u32, params.cols as u32)
    }
}

/// A random scene as rendered, with its ground truth.
pub struct RandomRender {
    pub grid: GridSpec,
    pub params: SceneParams,
    pub state: BoardState,
    pub rendered: Rendered,
}

/// Renders one random scene (grid, style, pose, light, pieces, maybe a hand).
pub fn render_random(seed: u64, opts: &SynthSetOptions) -> anyhow::Result<(RandomRender, Rng)> {
    let mut rng = Rng::new(seed);
    let fx = &opts.fixed;
    let mut params_from_preset = true;
    let (grid, kinds, mut params) = if let Some(make) = fx.preset {
        let params = make(rng.next_u64());
        let grid = grid_of(&params);
        (grid, kinds_for(grid, fx.draughts), params)
    } else if opts.presets > 0.0 && rng.chance(opts.presets) {
        pick_preset(&mut rng)
    } else {
        params_from_preset = false;
        let (grid, kinds) = match fx.grid {
            Some(g) => g,
            None => pick_grid(&mut rng),
        };
        let (rows, cols) = (grid.rows as usize, grid.cols as usize);
        let params = SceneParams::random(rows, cols, grid.points, &mut rng, &opts.ranges);
        (grid, kinds, params)
    };
    if let Some(b) = fx.board {
        params.board.scheme = b;
    }
    if let Some(c) = fx.white {
        params.pieces.white = c;
    }
    if let Some(c) = fx.black {
        params.pieces.black = c;
    }
    if let Some(sizes) = fx.sizes.as_ref().filter(|_| params_from_preset) {
        let (w, h) = *Rng::derive(seed, 7).pick(sizes);
        params.width = w;
        params.height = h;
    }
    let (rows, cols) = (grid.rows as usize, grid.cols as usize);
    let scene = Scene::new(&params)?;
    let fill = rng.range(0.05, 0.75);
    let state = random_state(grid, fill, kinds, &mut rng);
    let hand = rng.chance(opts.hands).then(|| {
        let target = (rng.below(rows), rng.below(cols));
        let carrying = rng
            .chance(0.5)
            .then(|| Piece::new(PieceSide::White, *rng.pick(kinds)));
        scene.hand_pose(
            target,
            rng.range(-180.0, 180.0),
            rng.range(0.3, 0.7),
            carrying,
        )
    });
    let rendered = scene.render(&state, hand.as_ref())?;
    Ok((
        RandomRender {
            grid,
            params,
            state,
            rendered,
        },
        rng,
    ))
}

/// One random labelled scene. The labels mark a site hidden when the hand covers
/// its centre; the pose's corners carry the configured noise.
pub fn random_scene(seed: u64, opts: &SynthSetOptions) -> anyhow::Result<Labelled> {
    let (
        RandomRender {
            grid,
            state,
            rendered,
            ..
        },
        mut rng,
    ) = render_random(seed, opts)?;
    let (rows, cols) = (grid.rows as usize, grid.cols as usize);
    let labels: Vec<u8> = (0..rows * cols)
        .map(|i| {
            if rendered.occluded.get(i).copied().unwrap_or(false) {
                HIDDEN
            } else {
                match state.cells[i] {
                    None => EMPTY,
                    Some(p) if p.side == PieceSide::White => WHITE,
                    Some(_) => BLACK,
                }
            }
        })
        .collect();
    let true_corners = rendered.corners.map(|[x, y]| (x, y));
    let true_pose = BoardPose::new(grid, Corners::new(true_corners)?);
    let cell = true_pose.mean_cell_px();
    let jittered = true_corners.map(|(x, y)| {
        (
            x + rng.normal() * opts.corner_jitter * cell,
            y + rng.normal() * opts.corner_jitter * cell,
        )
    });
    let pose = Corners::new(jittered)
        .map(|c| BoardPose::new(grid, c))
        .unwrap_or(true_pose);
    Ok(Labelled {
        name: format!("synth/{seed}"),
        image: rgb_to_bgr_mat(&rendered.image)?,
        pose,
        labels,
    })
}

/// An `image` RGB buffer as an OpenCV BGR matrix.
/// A board with a piece of a random side and kind on each site with chance `fill`.
pub fn random_state(grid: GridSpec, fill: f64, kinds: &[PieceKind], rng: &mut Rng) -> BoardState {
    let (rows, cols) = (grid.rows as usize, grid.cols as usize);
    let mut state = BoardState::empty(rows, cols, grid.points);
    for r in 0..rows {
        for c in 0..cols {
            if rng.chance(fill) {
                let side = if rng.chance(0.5) {
                    PieceSide::White
                } else {
                    PieceSide::Black
                };
                state.set(r, c, Some(Piece::new(side, *rng.pick(kinds))));
            }
        }
    }
    state
}

pub use crate::capture::rgb_to_bgr_mat;
