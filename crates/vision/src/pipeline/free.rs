//! Recording a game the program has no rules for (`--game free`): the first still
//! view's position, then every stable change of the sites' states as placements
//! and removals. Without rules nothing can overrule a misreading, so only sure
//! readings count, and only sites whose image changed are read again.

use super::event::{corner_list, ms, Command, Event, EventSink, SiteColour};
use super::watch::{Watched, Watcher};
use super::{PipelineError, RecordJob};
use crate::capture::FrameSource;
use crate::classify::{Classifier, CropView, SiteReading};
use crate::infer::WhiteSide;
use crate::record::write_atomic;
use crate::record::{Change, Edit, FreeLog, Stone};

/// A reading must be this sure of one state to change the record.
const SURE: f32 = 0.9;

/// What a finished free recording reports.
#[derive(Debug, Default)]
pub struct FreeSummary {
    /// Frames read from the source, blank ones included.
    pub frames: usize,
    /// Still views taken: the board at rest with its grid in place.
    pub still_views: usize,
    /// Stable changes recorded (one `Change` event each), the start not counted.
    pub changes: usize,
    /// Site classifications run (only sites whose image changed, or hidden or
    /// unread before, are read again).
    pub sites_read: usize,
}

/// Records every stable change on the board into `job.out`; `job.white` names the
/// edge the site names count from (default bottom).
pub fn record_free(
    classifier: &mut Classifier,
    source: &mut dyn FrameSource,
    job: &RecordJob,
    events: &mut dyn EventSink,
) -> Result<FreeSummary, PipelineError> {
    let grid = job.pose.grid();
    let side = job.white.unwrap_or(WhiteSide::Bottom);
    let names = site_names(side, grid.rows, grid.cols);
    let mut log = FreeLog::new(&grid.to_string(), &job.tags.date);
    let t = &job.tags;
    log.tags = [
        ("Event", &t.event),
        ("Site", &t.site),
        ("Round", &t.round),
        ("White", &t.white),
        ("Black", &t.black),
    ]
    .into_iter()
    .filter(|(_, v)| !v.trim().is_empty())
    .map(|(k, v)| (k.to_string(), v.trim().to_string()))
    .collect();
    let write = |log: &FreeLog| {
        write_atomic(&job.out, &log.render()).map_err(|source| PipelineError::Write {
            path: job.out.clone(),
            source,
        })
    };
    write(&log)?;
    let mut watcher = Watcher::new(CropView::new(&job.pose), job.track);
    // Per site: what the record says stands there; None until read surely.
    let mut state: Vec<Option<Option<Stone>>> = vec![None; grid.len()];
    let mut summary = FreeSummary::default();
    while let Some(watched) = watcher.next_still(source, classifier, None, job.progress, events)? {
        let still = match watched {
            Watched::Still(still) => still,
            Watched::Command(Command::Stop | Command::Interrupt) => break,
            Watched::Command(Command::Note(_)) => continue,
        };
        if let Some(corners) = &still.regrid {
            events.emit(Event::Regrid {
                time: ms(still.time_s),
                corners: corner_list(corners),
            });
        }
        let first = log.start.is_none();
        if first && job.adapt {
            self_calibrate(classifier, &mut watcher)?;
        }
        let mut edits = Vec::new();
        for (i, reading) in watcher.readings().iter().enumerate() {
            if !still.read_now[i] {
                continue;
            }
            let Some(now) = reading.as_ref().and_then(sure_state) else {
                continue;
            };
            let before = state[i].replace(now);
            // A site first read surely after the start counts as changed only
            // when a stone stands there.
            let before = match before {
                Some(b) => b,
                None if first => continue,
                None => None,
            };
            if before == now {
                continue;
            }
            if let Some(stone) = before {
                edits.push(Edit {
                    placed: false,
                    stone,
                    site: names[i].clone(),
                });
            }
            if let Some(stone) = now {
                edits.push(Edit {
                    placed: true,
                    stone,
                    site: names[i].clone(),
                });
            }
        }
        if first {
            let stones = (0..grid.len())
                .filter_map(|i| state[i].flatten().map(|s| (s, names[i].clone())))
                .collect();
            log.start = Some((still.time_s, stones));
            events.emit(Event::Start {
                time: ms(still.time_s),
                white: start_sites(&log, Stone::White),
                black: start_sites(&log, Stone::Black),
            });
            write(&log)?;
            continue;
        }
        if edits.is_empty() {
            continue;
        }
        // Removals first, then placements: reads like a hand's work.
        edits.sort_by_key(|e| e.placed);
        let change = Change {
            time_s: still.time_s,
            edits,
        };
        events.emit(change_event(&change));
        log.changes.push(change);
        summary.changes += 1;
        write(&log)?;
    }
    let c = watcher.counts;
    (summary.frames, summary.still_views, summary.sites_read) =
        (c.frames, c.still_views, c.sites_read);
    Ok(summary)
}

/// No position is known in advance, so the first still view's sure readings stand
/// in for one: the classifier adapts to them and reads every site again, which
/// settles the pieces it was unsure of on a board it never saw.
fn self_calibrate(classifier: &mut Classifier, watcher: &mut Watcher) -> Result<(), PipelineError> {
    let classes: Vec<Option<usize>> = watcher
        .readings()
        .iter()
        .map(|r| {
            r.as_ref().and_then(sure_state).map(|s| match s {
                None => 0,
                Some(Stone::White) => 1,
                Some(Stone::Black) => 2,
            })
        })
        .collect();
    let Some(rectified) = watcher.reference() else {
        return Ok(());
    };
    let labels: Vec<usize> = classes.iter().map(|c| c.unwrap_or(0)).collect();
    if !classifier.adapt_to(watcher.view(), rectified, &labels, |i| classes[i].is_some())? {
        return Ok(());
    }
    let fresh = classifier.read_all(watcher.view(), rectified)?;
    for (old, new) in watcher.readings_mut().iter_mut().zip(fresh) {
        if old.as_ref().is_none_or(|o| o.occluded <= 0.5) {
            *old = Some(new);
        }
    }
    Ok(())
}

fn change_event(c: &Change) -> Event {
    let list = |placed: bool| -> Vec<SiteColour> {
        c.edits
            .iter()
            .filter(|e| e.placed == placed)
            .map(|e| SiteColour {
                site: e.site.clone(),
                colour: e.stone.word().to_string(),
            })
            .collect()
    };
    Event::Change {
        time: ms(c.time_s),
        placed: list(true),
        removed: list(false),
    }
}

fn start_sites(log: &FreeLog, side: Stone) -> Vec<String> {
    log.start
        .iter()
        .flat_map(|(_, s)| s.iter())
        .filter(|(st, _)| *st == side)
        .map(|(_, n)| n.clone())
        .collect()
}

/// The state a reading is sure of: Some(None) empty, Some(Some(stone)) a stone.
fn sure_state(r: &SiteReading) -> Option<Option<Stone>> {
    if r.occluded > 0.5 {
        return None;
    }
    let states = [None, Some(Stone::White), Some(Stone::Black)];
    (0..3).find(|&k| r.probs[k] >= SURE).map(|k| states[k])
}

/// Per site (row-major), its name counted from the `side` edge.
fn site_names(side: WhiteSide, rows: u32, cols: u32) -> Vec<String> {
    let (files, ranks) = match side {
        WhiteSide::Bottom | WhiteSide::Top => (cols as u8, rows as u8),
        WhiteSide::Left | WhiteSide::Right => (rows as u8, cols as u8),
    };
    (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| side.square(r, c, files, ranks).name())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_named_from_the_chosen_edge() {
        let n = site_names(WhiteSide::Bottom, 19, 19);
        assert_eq!(n[0], "a19");
        assert_eq!(n[19 * 19 - 1], "s1");
        let n = site_names(WhiteSide::Top, 8, 8);
        assert_eq!(n[0], "h1");
        let n = site_names(WhiteSide::Left, 3, 5);
        // Row 0, col 0 is the far-left corner of the left edge's player: a1.
        assert_eq!(n[0], "a1");
    }
}
