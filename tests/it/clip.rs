//! Issue 3: clips have the right frames, states and ground truth.

use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::clip::{sidecar_path, ClipOptions};
use boardscribe_lab::synth::SceneParams;
use boardscribe_vision::capture::{self, SourceOptions};

use super::clips::{render, small, states_of};
use super::util::tmp;

#[test]
fn a_short_game_clip_has_the_right_frames_states_and_sidecar() {
    let dir = tmp();
    let mut g = Chess::new();
    let mut moves = vec![];
    for u in ["e2e4", "e7e5", "g1f3"] {
        let m = g.parse_uci(u).unwrap();
        g.play(&m).unwrap();
        moves.push(m);
    }
    let states = states_of(&Chess::new(), &moves);
    let opts = ClipOptions {
        fps: 5.0,
        still_s: 1.0,
        move_s: 1.2,
        no_pause_after: vec![1],
        light_swing: 0.0,
        bump: None,
        trouble: Default::default(),
    };
    let (clip, truth) = render(
        dir.path(),
        "short",
        &small(SceneParams::chess_overhead(1, false)),
        &states,
        &opts,
    );
    // 5 still frames, then per ply 6 hand frames and 5 still ones, except after
    // ply 2, where the next hand comes at once.
    let expected = 5 + 3 * 6 + 2 * 5;
    assert_eq!(truth.frames.len(), expected);
    // What `render clip`'s progress bar counts to (issue 22).
    assert_eq!(
        boardscribe_lab::synth::clip::clip_frames(states.len(), &opts),
        expected
    );
    assert_eq!(truth.states.len(), 4);
    assert_eq!(truth.grid, "8x8");
    let shown: Vec<usize> = truth.frames.iter().map(|f| f.state).collect();
    assert_eq!(shown.first(), Some(&0));
    assert_eq!(shown.last(), Some(&3));
    assert!(shown.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
    assert!(
        truth.frames.iter().any(|f| f.hand_occludes),
        "hands come into view"
    );
    assert!(!truth.frames[0].hand_occludes);
    // A still camera: the board's corners are the same in every frame.
    assert!(truth
        .frames
        .iter()
        .all(|f| f.corners == truth.frames[0].corners));
    // e2 and e4 of the first state: the pawn, then none.
    assert_eq!(truth.states[0][6][4], "w");
    assert_eq!(truth.states[1][6][4], ".");
    assert_eq!(truth.states[1][4][4], "w");
    // The video holds every frame, and the sidecar is beside it.
    let src = capture::open(clip.to_str().unwrap(), SourceOptions::default()).unwrap();
    assert_eq!(src.fps(), 5.0);
    assert_eq!(src.count(), expected);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sidecar_path(&clip)).unwrap()).unwrap();
    assert_eq!(json["frames"].as_array().unwrap().len(), expected);
}
