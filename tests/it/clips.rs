//! Shared helpers for end-to-end recording tests: render a game into a clip, record
//! it with the real binary, read back what was written.

use std::path::{Path, PathBuf};

use boardscribe_core::infer::WhiteSide;
use boardscribe_core::rules::Rules;
use boardscribe_lab::sets::game_states;
use boardscribe_lab::synth::clip::{write_clip, ClipOptions, ClipTruth};
use boardscribe_lab::synth::{BoardState, SceneParams};

/// Test clips are small and short so `make test` stays quick; the recorder sees
/// about 22 pixels per cell.
pub const W: u32 = 480;
pub const H: u32 = 360;

pub fn fast_clip() -> ClipOptions {
    ClipOptions {
        fps: 8.0,
        still_s: 0.75,
        move_s: 1.0,
        no_pause_after: Vec::new(),
        light_swing: 0.1,
        bump: None,
        trouble: Default::default(),
    }
}

pub fn small(mut p: SceneParams) -> SceneParams {
    p.width = W;
    p.height = H;
    p
}

/// Renders `states` into `dir/name.mp4`; returns its path and truth.
pub fn render(
    dir: &Path,
    name: &str,
    params: &SceneParams,
    states: &[BoardState],
    opts: &ClipOptions,
) -> (PathBuf, ClipTruth) {
    let path = dir.join(format!("{name}.mp4"));
    let truth = write_clip(&path, params, states, opts).expect("clip renders");
    (path, truth)
}

/// Board states of a game, White at the bottom of the board's frame.
pub fn states_of<R: Rules>(start: &R, moves: &[R::Move]) -> Vec<BoardState> {
    game_states(start, moves, WhiteSide::Bottom)
}

/// The `--corners` text for a clip, read off its first frame as a user would.
pub fn corners_arg(truth: &ClipTruth) -> String {
    truth.frames[0]
        .corners
        .iter()
        .map(|[x, y]| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}
