//! `boardscribe-lab locate --eval-tables`: every board of composited tables of
//! several boards, located in one frame.

use boardscribe_cli::write_image;
use serde_json::json;

use super::locate::{frame_size, LocateArgs};
use crate::geometry::{draw_number, draw_overlay, BoardPose};
use crate::sets::locate_eval::{table_trial, TABLE_WITHIN_CELLS};

pub(super) fn eval_tables(a: &LocateArgs, n: u64) -> anyhow::Result<()> {
    // One core, all of it on this thread: the times are its CPU time.
    opencv::core::set_num_threads(1)?;
    let (w, h) = frame_size(a, (1920, 1080))?;
    let games = if a.mixed { "mixed games" } else { "chess" };
    outln!(
        "composited tables of {} boards ({games}), {w}x{h}, seeds from {}",
        a.boards,
        a.seed
    );
    let (mut boards, mut within, mut extra, mut out_of_order) = (0, 0, 0, 0);
    let mut invented = 0;
    let mut ms = Vec::new();
    for i in 0..n {
        let seed = a.seed + i;
        let (t, img) = table_trial(seed, a.boards, (w, h), a.mixed, a.verbose)?;
        let ok = t
            .errors
            .iter()
            .filter(|e| e.is_some_and(|e| e < TABLE_WITHIN_CELLS))
            .count();
        boards += t.errors.len();
        within += ok;
        extra += t.extra;
        invented += t.invented;
        out_of_order += usize::from(!t.in_order);
        ms.push(t.ms);
        let errs: Vec<String> = t
            .errors
            .iter()
            .map(|e| e.map_or("-".into(), |e| format!("{e:.3}")))
            .collect();
        let confs: Vec<String> = t.confidences.iter().map(|c| format!("{c:.2}")).collect();
        outln!(
            "seed {seed}: {ok}/{} within {TABLE_WITHIN_CELLS} cell, {} extra ({} off every board), errors [{}], confidences found [{}], {:.0} ms",
            t.errors.len(),
            t.extra,
            t.invented,
            errs.join(" "),
            confs.join(" "),
            t.ms
        );
        if a.verbose {
            let alone: Vec<String> = t
                .alone
                .iter()
                .map(|e| e.map_or("-".into(), |e| format!("{e:.3}")))
                .collect();
            outln!(
                "  each board's slot alone, located by `locate`: errors [{}]",
                alone.join(" ")
            );
        }
        let bad = ok < t.errors.len() || t.extra > 0 || !t.in_order;
        if let Some(dir) = a.dump.as_ref().filter(|_| bad) {
            let mut view = img.clone();
            for (k, (grid, c)) in t.found.iter().enumerate() {
                let pose = BoardPose::new(*grid, *c);
                draw_overlay(&mut view, &pose)?;
                draw_number(&mut view, &pose, k + 1)?;
            }
            write_image(
                &dir.join(format!("table{}-seed{seed}.png", a.boards)),
                &view,
            )?;
        }
        if let Some(dir) = &a.frames {
            let name = format!("table{}-seed{seed}", a.boards);
            write_image(&dir.join(format!("{name}.png")), &img)?;
            let boards: Vec<_> = t
                .truth
                .iter()
                .map(|(g, c)| json!({"grid": g.to_string(), "corners": c.points()}))
                .collect();
            std::fs::write(
                dir.join(format!("{name}.json")),
                json!({ "boards": boards }).to_string(),
            )?;
        }
    }
    ms.sort_by(f64::total_cmp);
    let median = ms.get(ms.len() / 2).copied().unwrap_or(f64::NAN);
    outln!(
        "boards {boards}: within {TABLE_WITHIN_CELLS} cell {within} ({:.1}%), extra {extra} (off every board {invented}), frames out of order {out_of_order}, median {median:.0} ms CPU per frame",
        100.0 * within as f64 / boards.max(1) as f64
    );
    Ok(())
}
