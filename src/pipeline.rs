//! Wires the stages for a recording: capture → geometry → classify → track → infer →
//! record. Holds no algorithm of its own; each stage lives in its module.

use std::path::PathBuf;

use anyhow::Context;
use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::capture::FrameSource;
use crate::classify::{Classifier, CropView, SiteReading};
use crate::geometry::BoardPose;
use crate::infer::{FollowEvent, Follower, InferConfig, Observation, WhiteSide};
use crate::record::log::{GameRecord, RecordTags, Recordable};
use crate::record::write_atomic;
use crate::rules::{Rules, Square};
use crate::track::{changed_rects, skin_fraction, BoardThumb, TrackConfig, Tracker};

/// Pixels per cell in the motion thumbnail.
const THUMB_CELL: i32 = 4;
/// Share of skin-coloured pixels in a changed cell that marks it hidden by a hand.
const SKIN_HIDES: f32 = 0.35;
/// The model's hand probability above which skin colour may confirm a hand.
const SKIN_BACKS_UP: f32 = 0.2;

/// Everything a recording needs besides the game.
pub struct RecordJob {
    pub pose: BoardPose,
    /// Where White sits; None decides from the first still view.
    pub white: Option<WhiteSide>,
    pub track: TrackConfig,
    pub infer: InferConfig,
    pub tags: RecordTags,
    pub out: PathBuf,
    /// Print JSON lines for moves and sync changes on stdout.
    pub events: bool,
    /// Show a progress bar on stderr (offline sources on a terminal).
    pub progress: bool,
    /// Adapt the classifier to the board at the first still view, whose position is
    /// the game's start.
    pub adapt: bool,
}

/// What a finished recording reports.
#[derive(Debug, Default)]
pub struct RecordSummary {
    pub frames: usize,
    pub still_views: usize,
    pub plies: usize,
    pub unexplained: usize,
    /// Site classifications run (only changed, playable sites are read).
    pub sites_read: usize,
    pub white: Option<WhiteSide>,
    pub in_sync: bool,
}

/// Records one game from `source` into `job.out`.
pub fn record<R: Recordable>(
    game: R,
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
) -> anyhow::Result<RecordSummary> {
    let view = CropView::new(&job.pose);
    let grid = job.pose.grid;
    let (files, ranks) = game.dims();
    let mut record = R::Record::start(&game, &job.tags);
    write_atomic(&job.out, &record.render())
        .with_context(|| format!("cannot write the record '{}'", job.out.display()))?;

    let mut tracker = Tracker::new(job.track);
    // BOARDSCRIBE_DEBUG=1 prints every still view's readings (`*` read anew, `s`
    // suspect) on stderr.
    let debug = std::env::var_os("BOARDSCRIBE_DEBUG").is_some();
    let mut readings: Vec<Option<SiteReading>> = vec![None; grid.len()];
    // Sites whose reading contradicted a known position: ignored until they change.
    let mut suspect = vec![false; grid.len()];
    // Sites a piece can stand on, once the orientation is known (it never changes).
    let mut playable: Option<Vec<bool>> = None;
    let mut white = job.white;
    let mut follower: Option<Follower<R>> = None;
    let mut summary = RecordSummary::default();
    let total = source.len_hint();
    let mut last_reference: Option<Mat> = None;
    let cell_rects: Vec<opencv::core::Rect> = (0..grid.rows)
        .flat_map(|r| (0..grid.cols).map(move |c| (r, c)))
        .map(|(r, c)| view.cell_rect(r, c))
        .collect();

    while let Some(frame) = source.next() {
        let frame = frame?;
        summary.frames += 1;
        if job.progress {
            progress(summary.frames, total);
        }
        let rectified = view.rectify(&frame.image)?;
        let Some(still) = tracker.update(frame.time_s, thumbnail(&rectified)?) else {
            continue;
        };
        summary.still_views += 1;

        // Re-read what changed since the last still view, and whatever was hidden or
        // unread before.
        let mut sites: Vec<usize> = match &last_reference {
            Some(reference) => {
                changed_rects(reference, &rectified, &cell_rects, job.track.change_level)
            }
            None => (0..grid.len()).collect(),
        };
        for (i, r) in readings.iter().enumerate() {
            if r.as_ref().is_none_or(|r| r.occluded > 0.5) && !sites.contains(&i) {
                sites.push(i);
            }
        }
        // Only squares a piece can stand on are classified (draughts: the dark ones),
        // once the orientation says which sites those are.
        if let Some(side) = white {
            let playable =
                playable.get_or_insert_with(|| playable_sites(&game, side, grid.rows, grid.cols));
            sites.retain(|&i| playable[i]);
        }
        sites.sort_unstable();
        if debug {
            if let Some(reference) = &last_reference {
                let d = crate::track::rect_diffs(reference, &rectified, &cell_rects);
                for r in 0..grid.rows as usize {
                    let row: Vec<String> = (0..grid.cols as usize)
                        .map(|c| format!("{:5.1}", d[r * grid.cols as usize + c].unwrap_or(-1.0)))
                        .collect();
                    eprintln!("  diff {}", row.join(""));
                }
            }
        }
        let mut read_now = vec![false; grid.len()];
        for &i in &sites {
            suspect[i] = false;
            read_now[i] = true;
        }
        let rc: Vec<(u32, u32)> = sites
            .iter()
            .map(|&i| {
                (
                    (i / grid.cols as usize) as u32,
                    (i % grid.cols as usize) as u32,
                )
            })
            .collect();
        let fresh = classifier.read_sites(&view, &rectified, &rc)?;
        summary.sites_read += rc.len();
        for ((i, (r, c)), mut reading) in sites.iter().zip(&rc).zip(fresh) {
            // Skin colour only backs up a model that already suspects a hand: light
            // wooden pieces are skin-coloured too.
            if let Some(reference) = &last_reference {
                if reading.occluded > SKIN_BACKS_UP
                    && changed_to_skin(&view, reference, &rectified, *r, *c)
                {
                    reading.occluded = reading.occluded.max(0.9);
                }
            }
            readings[*i] = Some(reading);
        }

        let side = match white {
            Some(s) => s,
            None => {
                let s = choose_orientation(&game, &readings, grid.rows, grid.cols);
                eprintln!("white is at the {s} edge (decided from the first still view)");
                white = Some(s);
                s
            }
        };
        if follower.is_none() && job.adapt {
            calibrate(
                &game,
                side,
                classifier,
                &view,
                &rectified,
                &mut readings,
                &mut suspect,
            )?;
        }
        last_reference = Some(rectified);
        let obs = observation(
            &readings, &suspect, side, grid.rows, grid.cols, files, ranks,
        );
        if debug {
            eprintln!("still view at {:.2} s:", still.time_s);

            for r in 0..grid.rows {
                let line: String = (0..grid.cols)
                    .map(|c| {
                        let i = (r * grid.cols + c) as usize;
                        let l = readings[i].as_ref().map_or('?', |x| x.label());
                        let tag = if suspect[i] {
                            's'
                        } else if read_now[i] {
                            '*'
                        } else {
                            ' '
                        };
                        format!("{l}{tag}")
                    })
                    .collect();
                eprintln!("  {line}");
            }
            for (i, r) in readings.iter().enumerate() {
                if let (true, Some(r)) = (read_now[i], r) {
                    eprintln!(
                        "  site {i}: probs {:.3?} occluded {:.3}",
                        r.probs, r.occluded
                    );
                }
            }
        }
        let f =
            follower.get_or_insert_with(|| Follower::new(game.clone(), job.infer, still.time_s));
        for event in f.observe(&obs, still.time_s) {
            apply_event(
                &event,
                f,
                &mut record,
                &mut summary,
                still.time_s,
                job.events,
            );
        }
        record.set_result(f.game(), false);
        write_atomic(&job.out, &record.render())
            .with_context(|| format!("cannot write the record '{}'", job.out.display()))?;
        if f.game().outcome().is_some() {
            break;
        }
    }
    if job.progress {
        eprintln!();
    }
    if let Some(f) = &follower {
        record.set_result(f.game(), true);
        summary.in_sync = f.in_sync();
        summary.plies = f.moves().len();
    } else {
        summary.in_sync = true;
    }
    write_atomic(&job.out, &record.render())
        .with_context(|| format!("cannot write the record '{}'", job.out.display()))?;
    summary.white = white;
    Ok(summary)
}

fn apply_event<R: Recordable>(
    event: &FollowEvent<R::Move>,
    f: &Follower<R>,
    record: &mut R::Record,
    summary: &mut RecordSummary,
    time: f64,
    print: bool,
) {
    match event {
        FollowEvent::Moved {
            ply,
            mv,
            emt,
            margin,
            assumed,
        } => {
            let before = f
                .position_before(*ply)
                .expect("an accepted ply has a position");
            record.push(before, mv, *emt);
            if *assumed {
                record.note("the camera cannot tell the promoted piece; assumed a queen");
            }
            if print {
                println!(
                    "{{\"type\":\"move\",\"time\":{time:.3},\"ply\":{},\"san\":{},\"uci\":{},\"confidence\":{:.4}}}",
                    ply + 1,
                    json_str(&before.notation(mv)),
                    json_str(&before.move_id(mv)),
                    1.0 / (1.0 + (-margin).exp())
                );
            }
        }
        FollowEvent::Unexplained { squares } => {
            summary.unexplained += 1;
            let names: Vec<String> = squares.iter().map(|s| s.name()).collect();
            let text = format!(
                "unexplained change at {}: {} (possible illegal move; recording waits for a legal position)",
                clock(time),
                names.join(",")
            );
            record.note(&text);
            eprintln!("warning: {text}");
            if print {
                println!(
                    "{{\"type\":\"unexplained\",\"time\":{time:.3},\"squares\":[{}]}}",
                    names
                        .iter()
                        .map(|n| json_str(n))
                        .collect::<Vec<_>>()
                        .join(",")
                );
            }
        }
        FollowEvent::Resynced => {
            record.note(&format!("back in sync at {}", clock(time)));
            if print {
                println!("{{\"type\":\"sync\",\"time\":{time:.3},\"in_sync\":true}}");
            }
        }
        FollowEvent::Corrected { ply, mv, upto } => {
            // Rebuild the record from the corrected ply on; moves accepted in the same
            // view follow as their own events.
            record.truncate(*ply);
            for (i, m) in f.moves().iter().enumerate().take(*upto).skip(*ply) {
                let before = f
                    .position_before(i)
                    .expect("an accepted ply has a position");
                record.push(before, m, None);
                if i == *ply {
                    record.note("corrected: later play shows which piece the pawn became");
                }
            }
            if print {
                let before = f
                    .position_before(*ply)
                    .expect("an accepted ply has a position");
                println!(
                    "{{\"type\":\"correction\",\"time\":{time:.3},\"ply\":{},\"san\":{},\"uci\":{}}}",
                    ply + 1,
                    json_str(&before.notation(mv)),
                    json_str(&before.move_id(mv))
                );
            }
        }
    }
}

/// The orientation under which the first still view looks most like the game's
/// start position.
pub fn choose_orientation<R: Rules>(
    game: &R,
    readings: &[Option<SiteReading>],
    rows: u32,
    cols: u32,
) -> WhiteSide {
    let (files, ranks) = game.dims();
    let mut best = (f64::NEG_INFINITY, WhiteSide::Bottom);
    for side in WhiteSide::ALL {
        if side.grid_shape(files, ranks) != (rows, cols) {
            continue;
        }
        let obs = observation(readings, &[], side, rows, cols, files, ranks);
        let mut ll = 0.0;
        for sq in crate::infer::squares(files, ranks) {
            if let Some(p) = obs.get(sq) {
                let i = match game.occupant(sq) {
                    crate::rules::Occupant::Empty => 0,
                    crate::rules::Occupant::White => 1,
                    crate::rules::Occupant::Black => 2,
                };
                ll += f64::from(p[i].max(1e-3)).ln();
            }
        }
        if ll > best.0 {
            best = (ll, side);
        }
    }
    best.1
}

/// Per site (row-major), whether the game lets a piece stand on it.
fn playable_sites<R: Rules>(game: &R, side: WhiteSide, rows: u32, cols: u32) -> Vec<bool> {
    let (files, ranks) = game.dims();
    let mut out = vec![false; (rows * cols) as usize];
    for sq in crate::infer::squares(files, ranks) {
        let (r, c) = side.site(sq, rows, cols);
        out[(r * cols + c) as usize] = game.is_playable(sq);
    }
    out
}

/// The readings as evidence in game squares; hidden and suspect sites carry none.
pub fn observation(
    readings: &[Option<SiteReading>],
    suspect: &[bool],
    side: WhiteSide,
    rows: u32,
    cols: u32,
    files: u8,
    ranks: u8,
) -> Observation {
    let mut obs = Observation::unknown(files, ranks);
    for f in 0..files {
        for r in 0..ranks {
            let sq = Square::new(f, r);
            let (row, col) = side.site(sq, rows, cols);
            let i = (row * cols + col) as usize;
            let reading = readings
                .get(i)
                .and_then(|r| r.as_ref())
                .filter(|_| !suspect.get(i).copied().unwrap_or(false));
            obs.set(sq, reading.filter(|r| r.occluded <= 0.5).map(|r| r.probs));
        }
    }
    obs
}

/// Largest share of sites the first view may misread and still be taken for the
/// game's start position (beyond it the game has moved on before the first view).
const START_MISREAD_SHARE: f64 = 0.1;

/// At the first still view the position is known (the game's start): adapts the
/// classifier to this board, re-reads every site, and marks the sites that still
/// contradict the known position as suspect until they change.
fn calibrate<R: Rules>(
    game: &R,
    side: WhiteSide,
    classifier: &mut Classifier,
    view: &CropView,
    rectified: &Mat,
    readings: &mut [Option<SiteReading>],
    suspect: &mut [bool],
) -> anyhow::Result<()> {
    let (rows, cols) = (view.pose.grid.rows, view.pose.grid.cols);
    let (files, ranks) = game.dims();
    let mut expected = vec![0usize; readings.len()];
    for sq in crate::infer::squares(files, ranks) {
        let (r, c) = side.site(sq, rows, cols);
        expected[(r * cols + c) as usize] = match game.occupant(sq) {
            crate::rules::Occupant::Empty => 0,
            crate::rules::Occupant::White => 1,
            crate::rules::Occupant::Black => 2,
        };
    }
    let misread = |readings: &[Option<SiteReading>], i: usize| {
        readings[i]
            .as_ref()
            .is_some_and(|r| r.occluded <= 0.5 && r.probs[expected[i]] < 0.5)
    };
    let wrong = (0..readings.len())
        .filter(|&i| misread(readings, i))
        .count();
    if wrong as f64 > START_MISREAD_SHARE * readings.len() as f64 {
        return Ok(());
    }
    let playable = playable_sites(game, side, rows, cols);
    if !classifier.adapt_to(view, rectified, &expected, |i| playable[i])? {
        return Ok(());
    }
    let sites: Vec<usize> = (0..readings.len()).filter(|&i| playable[i]).collect();
    let rc: Vec<(u32, u32)> = sites
        .iter()
        .map(|&i| (i as u32 / cols, i as u32 % cols))
        .collect();
    for (&i, fresh) in sites
        .iter()
        .zip(classifier.read_sites(view, rectified, &rc)?)
    {
        if readings[i].as_ref().is_none_or(|old| old.occluded <= 0.5) {
            readings[i] = Some(fresh);
        }
    }
    for (i, s) in suspect.iter_mut().enumerate() {
        *s = misread(readings, i);
    }
    Ok(())
}

/// A grey thumbnail of the rectified board at a few pixels per cell.
fn thumbnail(rectified: &Mat) -> anyhow::Result<BoardThumb> {
    let scale = THUMB_CELL as f64 / crate::classify::crop::CELL_PX as f64;
    let mut grey = Mat::default();
    imgproc::cvt_color_def(rectified, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    let mut small = Mat::default();
    imgproc::resize(
        &grey,
        &mut small,
        Size::default(),
        scale,
        scale,
        imgproc::INTER_AREA,
    )?;
    Ok(BoardThumb {
        width: small.cols() as usize,
        height: small.rows() as usize,
        pixels: small.data_bytes()?.to_vec(),
        tile: THUMB_CELL as usize,
    })
}

/// Whether a site's own cell turned skin-coloured since the reference view.
fn changed_to_skin(view: &CropView, reference: &Mat, now: &Mat, row: u32, col: u32) -> bool {
    let rect = view.cell_rect(row, col);
    let (Ok(a), Ok(b)) = (Mat::roi(reference, rect), Mat::roi(now, rect)) else {
        return false;
    };
    let (Ok(a), Ok(b)) = (a.try_clone(), b.try_clone()) else {
        return false;
    };
    let (Ok(pa), Ok(pb)) = (a.data_bytes(), b.data_bytes()) else {
        return false;
    };
    let changed = pa
        .iter()
        .zip(pb)
        .filter(|(x, y)| x.abs_diff(**y) > 40)
        .count() as f32
        / pa.len().max(1) as f32;
    changed > 0.3 && skin_fraction(pb) > SKIN_HIDES && skin_fraction(pa) < SKIN_HIDES / 2.0
}

fn progress(done: usize, total: Option<usize>) {
    use std::io::Write;
    let Some(total) = total.filter(|t| *t > 0) else {
        return;
    };
    let step = (total / 100).max(1);
    if done % step != 0 && done != total {
        return;
    }
    let pct = (done * 100 / total).min(100);
    let bar = "#".repeat(pct / 4);
    let _ = write!(
        std::io::stderr(),
        "\r[{bar:<25}] {pct:>3}% frame {done}/{total}"
    );
}

/// `h:mm:ss` for comments.
pub fn clock(t: f64) -> String {
    let s = t.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}
