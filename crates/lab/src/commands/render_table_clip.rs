//! `render table --clip`: the games of a table played at once, each at its own
//! pace with its own players' hands, filmed by one camera; per board its game's
//! record and its per-frame truth.

use std::path::Path;

use anyhow::Context;
use serde_json::json;

use super::render_table::{clip_game, reading_order, Played, TableArgs};
use crate::synth::table::TableParams;
use crate::synth::table_clip::{table_clip_frames, write_table_clip, TableClipOptions};
use crate::synth::BoardState;

/// Renders the clip of `tp`'s games of `plies` plies into `out` with its truth.
pub fn run(out: &Path, tp: &TableParams, a: &TableArgs, plies: usize) -> anyhow::Result<()> {
    let games: Vec<Played> = (0..tp.boards.len())
        .map(|i| clip_game(a, i, plies))
        .collect();
    let states: Vec<Vec<BoardState>> = games.iter().map(|g| g.states.clone()).collect();
    let video = out.join("table.mp4");
    let truth_path = out.join("truth.json");
    let mut outputs = vec![("--out", video.clone()), ("--out", truth_path.clone())];
    for (i, g) in games.iter().enumerate() {
        outputs.push((
            "--out",
            out.join(format!("board_{}.{}", i + 1, g.kind.extension())),
        ));
        outputs.push(("--out", out.join(format!("board_{}.json", i + 1))));
    }
    let named: Vec<(&str, &Path)> = outputs.iter().map(|(f, p)| (*f, p.as_path())).collect();
    super::paths::check_outputs(&named, &[])?;
    let opts = TableClipOptions {
        fps: a.fps(),
        still_s: 1.0,
        seed: a.seed(),
    };
    let total = table_clip_frames(tp, &states, &opts);
    let mut bar = boardscribe_cli::Bar::on_terminal();
    let truths = write_table_clip(&video, tp, &states, &opts, |done| {
        bar.show(done, total, "");
    });
    bar.clear();
    let mut truths = truths?;
    let first: Vec<[[f64; 2]; 4]> = truths
        .iter()
        .map(|t| t.frames.first().map_or([[f64::NAN; 2]; 4], |f| f.corners))
        .collect();
    let order = reading_order(&first);
    let number = |k: usize| order.iter().position(|&o| o == k).unwrap_or(k) + 1;
    let mut boards = Vec::new();
    for (n, &i) in order.iter().enumerate() {
        let (game, truth) = (&games[i], &mut truths[i]);
        for f in &mut truth.frames {
            f.hands = f.hands.iter().map(|&k| number(k)).collect();
        }
        let record = format!("board_{}.{}", n + 1, game.kind.extension());
        let sidecar = format!("board_{}.json", n + 1);
        std::fs::write(out.join(&record), &game.record)
            .with_context(|| format!("writing '{record}'"))?;
        std::fs::write(out.join(&sidecar), serde_json::to_string(&*truth)? + "\n")
            .with_context(|| format!("writing '{sidecar}'"))?;
        boards.push(json!({
            "board": n + 1,
            "grid": truth.grid,
            "game": game.kind.name(),
            "record": record,
            "truth": sidecar,
            "corners": first[i],
            "moves": game.moves,
            "position": game.position,
            "move_s": truth.visits.first().map(|v| v.move_s),
            "leaning": truth.visits.iter().filter(|v| v.leaning).count(),
        }));
    }
    let frames = truths.first().map_or(0, |t| t.frames.len());
    let summary = json!({
        "video": "table.mp4",
        "fps": opts.fps,
        "frames": frames,
        "size": [tp.scene.width, tp.scene.height],
        "seed": a.seed(),
        "layout": a.layout_name(),
        "boards": boards,
    });
    std::fs::write(&truth_path, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing '{}'", truth_path.display()))?;
    outln!(
        "{} of {} played at once: {} (truth in {})",
        super::values::plural(frames, "frame", "frames"),
        super::values::plural(games.len(), "game", "games"),
        video.display(),
        truth_path.display()
    );
    Ok(())
}
