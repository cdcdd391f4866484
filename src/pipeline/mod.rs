//! Wires the stages for a recording: capture → geometry → classify → track → infer →
//! record. Holds no algorithm of its own; each stage lives in its module.

mod free;
mod snap;
mod suspects;
mod watch;

use std::path::PathBuf;

use anyhow::Context;

use crate::capture::FrameSource;
use crate::classify::{Classifier, CropView, SiteReading};
use crate::geometry::BoardPose;
use crate::infer::{FollowEvent, Follower, InferConfig, Observation, WhiteSide};
use crate::record::log::{GameRecord, RecordTags, Recordable};
use crate::record::write_atomic;
use crate::rules::{Rules, Square};
use crate::track::TrackConfig;

pub use free::{record_free, FreeSummary};
pub use snap::snap_to_start;
use suspects::Suspects;
pub use watch::{StillView, WatchCounts, Watcher};

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
    let grid = job.pose.grid;
    let (files, ranks) = game.dims();
    let mut record = R::Record::start(&game, &job.tags);
    write_atomic(&job.out, &record.render())
        .with_context(|| format!("cannot write the record '{}'", job.out.display()))?;

    let mut watcher = Watcher::new(CropView::new(&job.pose), job.track, job.progress);
    // BOARDSCRIBE_DEBUG=1 prints every still view's readings (`*` read anew, `s`
    // suspect) on stderr.
    let debug = std::env::var_os("BOARDSCRIBE_DEBUG").is_some();
    // Sites whose reading contradicted a known position: ignored while they keep
    // showing the same wrong label.
    let mut suspects = Suspects::new(grid.len());
    // Sites a piece can stand on, once the orientation is known (it never changes).
    let mut playable: Option<Vec<bool>> = None;
    let mut white = job.white;
    let mut follower: Option<Follower<R>> = None;
    let mut summary = RecordSummary::default();

    loop {
        // Only squares a piece can stand on are classified (draughts: the dark ones),
        // once the orientation says which sites those are.
        if let (Some(side), None) = (white, &playable) {
            playable = Some(playable_sites(&game, side, grid.rows, grid.cols));
        }
        let Some(still) = watcher.next_still(source, classifier, playable.as_deref())? else {
            break;
        };
        suspects.review(watcher.readings(), &still.read_now);
        if let Some(corners) = &still.regrid {
            report_regrid(still.time_s, corners, job.events);
            record.note(&format!(
                "the board moved in the image at {}; grid found again",
                clock(still.time_s)
            ));
        }
        let side = match white {
            Some(s) => s,
            None => {
                let s = choose_orientation(&game, watcher.readings(), grid.rows, grid.cols);
                eprintln!("white is at the {s} edge (decided from the first still view)");
                white = Some(s);
                s
            }
        };
        if follower.is_none() && looks_like_start(&game, side, watcher.readings(), grid, &job.infer)
        {
            if job.adapt {
                calibrate(&game, side, classifier, &mut watcher)?;
            }
            suspects.mark(&game, side, grid.cols, watcher.readings());
        }
        let readings = watcher.readings();
        let mask = suspects.mask();
        let obs = observation(readings, &mask, side, grid.rows, grid.cols, files, ranks);
        if debug {
            eprintln!("still view at {:.2} s:", still.time_s);
            print_readings(readings, &mask, &still.read_now, grid.cols);
        }
        let f =
            follower.get_or_insert_with(|| Follower::new(game.clone(), job.infer, still.time_s));
        let events = f.observe(&obs, still.time_s);
        if events
            .iter()
            .any(|e| matches!(e, FollowEvent::Moved { .. } | FollowEvent::Corrected { .. }))
        {
            // What the accepted explanation left unexplained is a misread.
            suspects.mark(f.game(), side, grid.cols, watcher.readings());
        }
        for event in events {
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
    let counts = watcher.counts;
    (summary.frames, summary.still_views, summary.sites_read) =
        (counts.frames, counts.still_views, counts.sites_read);
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
    start_likelihood(game, readings, rows, cols).1
}

/// How well the readings show `game`'s position in its likeliest orientation: the
/// log-likelihood of its occupants (hidden sites carry none) and that orientation.
fn start_likelihood<R: Rules>(
    game: &R,
    readings: &[Option<SiteReading>],
    rows: u32,
    cols: u32,
) -> (f64, WhiteSide) {
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
                let i = crate::infer::occ_index(game.occupant(sq));
                ll += f64::from(p[i].max(1e-3)).ln();
            }
        }
        if ll > best.0 {
            best = (ll, side);
        }
    }
    best
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
/// game's start position: beyond it the view is hardly this board or this grid.
const START_MISREAD_SHARE: f64 = 0.5;

/// Whether the first still view shows `game`'s position: no line of one or two
/// legal moves explains it better (the game has not moved on before the first
/// view), and at most `START_MISREAD_SHARE` of the sites are misread.
fn looks_like_start<R: Rules>(
    game: &R,
    side: WhiteSide,
    readings: &[Option<SiteReading>],
    grid: crate::geometry::GridSpec,
    cfg: &InferConfig,
) -> bool {
    let expected = expected_labels(game, side, grid);
    let wrong = (0..grid.len())
        .filter(|&i| {
            readings[i]
                .as_ref()
                .is_some_and(|r| r.occluded <= 0.5 && r.probs[expected[i]] < 0.5)
        })
        .count();
    if wrong as f64 > START_MISREAD_SHARE * grid.len() as f64 {
        return false;
    }
    let (files, ranks) = game.dims();
    let obs = observation(readings, &[], side, grid.rows, grid.cols, files, ranks);
    !crate::infer::moved_on(game, &obs, cfg)
}

/// Per site (row-major), the class index (empty, white, black) of its occupant.
fn expected_labels<R: Rules>(
    game: &R,
    side: WhiteSide,
    grid: crate::geometry::GridSpec,
) -> Vec<usize> {
    let (rows, cols) = (grid.rows, grid.cols);
    let (files, ranks) = game.dims();
    let mut expected = vec![0usize; grid.len()];
    for sq in crate::infer::squares(files, ranks) {
        let (r, c) = side.site(sq, rows, cols);
        expected[(r * cols + c) as usize] = crate::infer::occ_index(game.occupant(sq));
    }
    expected
}

/// At the first still view the position is known (the game's start): adapts the
/// classifier to this board and re-reads every site.
fn calibrate<R: Rules>(
    game: &R,
    side: WhiteSide,
    classifier: &mut Classifier,
    watcher: &mut Watcher,
) -> anyhow::Result<()> {
    let grid = watcher.view().pose.grid;
    let (rows, cols) = (grid.rows, grid.cols);
    let expected = expected_labels(game, side, grid);
    let playable = playable_sites(game, side, rows, cols);
    let Some(rectified) = watcher.reference() else {
        return Ok(());
    };
    let view = watcher.view();
    if !classifier.adapt_to(view, rectified, &expected, |i| playable[i])? {
        return Ok(());
    }
    let sites: Vec<usize> = (0..grid.len()).filter(|&i| playable[i]).collect();
    let rc: Vec<(u32, u32)> = sites
        .iter()
        .map(|&i| (i as u32 / cols, i as u32 % cols))
        .collect();
    let fresh = classifier.read_sites(view, rectified, &rc)?;
    let readings = watcher.readings_mut();
    for (&i, fresh) in sites.iter().zip(fresh) {
        if readings[i].as_ref().is_none_or(|old| old.occluded <= 0.5) {
            readings[i] = Some(fresh);
        }
    }
    Ok(())
}

/// One still view's readings as a grid on stderr: `*` read anew, `s` suspect.
fn print_readings(
    readings: &[Option<SiteReading>],
    suspect: &[bool],
    read_now: &[bool],
    cols: u32,
) {
    let cols = cols as usize;
    for row in 0..readings.len() / cols.max(1) {
        let line: String = (0..cols)
            .map(|c| {
                let i = row * cols + c;
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

/// Tells the user (and `--events` readers) that the grid was found again after
/// moving in the image.
fn report_regrid(time: f64, corners: &crate::geometry::Corners, print: bool) {
    let pts = corners.points();
    let text: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    eprintln!(
        "note: the board moved in the image at {}; grid found again at \"{}\"",
        clock(time),
        text.join(" ")
    );
    if print {
        let json: Vec<[f64; 2]> = pts
            .iter()
            .map(|(x, y)| [(x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0])
            .collect();
        println!(
            "{}",
            serde_json::json!({"type": "regrid", "time": (time * 1000.0).round() / 1000.0, "corners": json})
        );
    }
}

/// `h:mm:ss` for comments.
pub fn clock(t: f64) -> String {
    let s = t.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}
