//! Renders the render bench's fixed scene (a chess start position under the
//! overhead preset, 640x480) `N` times and prints an FNV-1a hash of the
//! images' bytes: a steady workload for profilers, and a quick check that a
//! change to the renderer kept its output byte for byte.
//!
//! `cargo run --release --example render_fixed -- 10`, or under callgrind:
//! `valgrind --tool=callgrind target/release/examples/render_fixed 1`.

use boardscribe_cli::outln;
use boardscribe_core::infer::WhiteSide;
use boardscribe_core::rules::chess::Chess;
use boardscribe_lab::sets::board_state;
use boardscribe_lab::synth::SceneParams;

fn main() -> anyhow::Result<()> {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => a
            .parse()
            .map_err(|_| anyhow::anyhow!("N must be a count, not {a:?}"))?,
        None => 1,
    };
    let state = board_state(&Chess::new(), WhiteSide::Bottom);
    let mut p = SceneParams::chess_overhead(1, false);
    (p.width, p.height) = (640, 480);
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..n {
        let r = boardscribe_lab::synth::render(&p, &state, None)?;
        for &b in r.image.as_raw() {
            hash = (hash ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    outln!("{n} renders, FNV-1a {hash:016x}");
    Ok(())
}
