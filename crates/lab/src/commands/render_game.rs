//! The game a clip or a photo series shows: read from the one game file given
//! (PGN, PDN, Tablut record or SGF) into the board states the camera sees, and
//! `render go-game`, which writes random Go games that capture.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::render::{chess_game, draughts_game, tablut_game, Preset};
use crate::geometry::GridSpec;
use crate::infer::WhiteSide;
use crate::rules::go::{Go, GoOptions};
use crate::sets::game_states;
use crate::sets::go::{random_go_game_with_passes, GoGame};
use crate::synth::{BoardState, SceneParams};

/// The game files `render clip` and `render photos` take, one of which is given.
pub struct GameFiles {
    pub pgn: Option<PathBuf>,
    pub pdn: Option<PathBuf>,
    pub tablut: Option<PathBuf>,
    pub sgf: Option<PathBuf>,
}

/// A game as the camera sees it.
pub struct Shown {
    /// The look of the game's own preset, unless one is asked for.
    pub preset: Preset,
    /// The states one after the other, the start first.
    pub states: Vec<BoardState>,
    /// The game file.
    pub path: PathBuf,
    /// Whether the game is Go (an SGF).
    pub go: bool,
    /// Per ply, the first and the last transition (0-based, from state i to
    /// i+1) it takes: one for most moves, two for a Go stone that takes (put
    /// down, then the taken stones lifted).
    pub plies: Vec<(usize, usize)>,
}

impl Shown {
    /// The transition after which the board is never left still: the stone
    /// put down, at once the taken stones lifted, as players do.
    pub fn hurried(&self) -> Vec<usize> {
        self.plies
            .iter()
            .filter(|(a, b)| a != b)
            .map(|&(a, _)| a)
            .collect()
    }

    /// The scene with the game's grid: a Go game's size on points, whatever
    /// the preset's grid.
    pub fn fit(&self, mut p: SceneParams) -> SceneParams {
        if let Some(s) = self.states.first().filter(|s| s.points) {
            (p.rows, p.cols, p.points) = (s.rows, s.cols, true);
        }
        p
    }
}

/// The game of the one file given; with `removal`, a Go capture is shown in
/// two steps (see [`GoGame::states`]), else each state is a position after a ply.
pub fn shown(files: GameFiles, removal: bool) -> anyhow::Result<Shown> {
    let one = |preset, states: Vec<BoardState>, path| {
        let plies = (0..states.len().saturating_sub(1))
            .map(|i| (i, i))
            .collect();
        Shown {
            preset,
            states,
            path,
            plies,
            go: false,
        }
    };
    Ok(match files {
        GameFiles {
            pgn: Some(p),
            pdn: None,
            tablut: None,
            sgf: None,
        } => {
            let (g, m) = chess_game(&p)?;
            one(Preset::Overhead, game_states(&g, &m, WhiteSide::Bottom), p)
        }
        GameFiles {
            pgn: None,
            pdn: Some(p),
            tablut: None,
            sgf: None,
        } => {
            let (g, m) = draughts_game(&p)?;
            one(Preset::DarkWood, game_states(&g, &m, WhiteSide::Bottom), p)
        }
        GameFiles {
            pgn: None,
            pdn: None,
            tablut: Some(p),
            sgf: None,
        } => {
            let (g, m) = tablut_game(&p)?;
            one(Preset::Tablut, game_states(&g, &m, WhiteSide::Bottom), p)
        }
        GameFiles {
            pgn: None,
            pdn: None,
            tablut: None,
            sgf: Some(p),
        } => go_shown(p, removal)?,
        _ => bail!("give one game: --pgn, --pdn, --tablut or --sgf"),
    })
}

fn go_shown(path: PathBuf, removal: bool) -> anyhow::Result<Shown> {
    let game = go_game(&path)?;
    let (states, placing) = game.states(removal);
    let mut plies = Vec::with_capacity(game.moves.len());
    let mut t = 0;
    for _ in &game.moves {
        let two = placing.contains(&t);
        plies.push((t, t + usize::from(two)));
        t += 1 + usize::from(two);
    }
    Ok(Shown {
        preset: Preset::Go,
        states,
        path,
        plies,
        go: true,
    })
}

/// A Go game from an SGF file.
pub fn go_game(path: &Path) -> anyhow::Result<GoGame> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read '{}'", path.display()))?;
    let like = Go::new(GoOptions::default())?;
    GoGame::from_sgf(&text, &like).map_err(|e| anyhow::anyhow!("SGF '{}': {e}", path.display()))
}

/// `render go-game`: a random game of `moves` stones and `passes` passes on
/// `grid` written as SGF.
pub fn write_random_go(
    grid: GridSpec,
    (moves, passes): (usize, usize),
    seed: u64,
    out: &Path,
) -> anyhow::Result<()> {
    if !grid.points || grid.rows != grid.cols {
        bail!(
            "--grid: Go is played on the points of a square grid, such as 9x9:points, not {grid}"
        );
    }
    let size = u8::try_from(grid.rows).unwrap_or(u8::MAX);
    let game = random_go_game_with_passes(size, moves, passes, seed)
        .map_err(|e| anyhow::anyhow!("--grid: {e}"))?;
    super::paths::check_outputs(&[("--out", out)], &[])?;
    crate::record::write_atomic(out, &game.to_sgf())
        .with_context(|| format!("writing '{}'", out.display()))?;
    let (taking, taken) = game.captures();
    outln!(
        "{}, {} taking {}: {}",
        super::values::plural(game.moves.len(), "move", "moves"),
        taking,
        super::values::plural(taken, "stone", "stones"),
        out.display()
    );
    Ok(())
}
