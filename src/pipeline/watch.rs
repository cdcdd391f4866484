//! Watching the board: frames in, still views out. Rectifies each frame, waits for
//! the board to be still, re-reads only the sites whose image changed (and those
//! hidden or unread before), and lets skin colour back up a suspected hand. Knows
//! no game: callers say which sites matter.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

use super::event::{corner_list, ms, Command, Event, EventSink};
use crate::capture::FrameSource;
use crate::classify::{Classifier, CropView, SiteReading};
use crate::geometry::{BoardPose, Corners};
use crate::track::{
    rect_diffs, shrunk_grey, skin_fraction, Anchor, BoardThumb, GridCheck, GridGuard, TrackConfig,
    Tracker,
};

/// Pixels per cell in the motion thumbnail.
const THUMB_CELL: i32 = 4;
/// Share of skin-coloured pixels in a changed cell that marks it hidden by a hand.
const SKIN_HIDES: f32 = 0.35;
/// The model's hand probability above which skin colour may confirm a hand.
const SKIN_BACKS_UP: f32 = 0.2;

/// One still view of the board.
pub struct StillView {
    pub time_s: f64,
    /// Per site (row-major): whether it was classified anew in this view.
    pub read_now: Vec<bool>,
    /// The grid had moved in the image (a knocked camera or board) and was found
    /// again here.
    pub regrid: Option<Corners>,
    /// Per site (row-major): its image change against the previous still view, in
    /// grey levels after matching the light; empty at the first still view.
    pub change: Vec<Option<f32>>,
}

/// What watching the board brings.
pub enum Watched {
    Still(StillView),
    /// The caller asked for something (between frames).
    Command(Command),
}

/// Frame counts a recording reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct WatchCounts {
    pub frames: usize,
    pub still_views: usize,
    /// Site classifications run.
    pub sites_read: usize,
}

/// The board's latest readings, updated at every still view.
pub struct Watcher {
    view: CropView,
    tracker: Tracker,
    change_level: f32,
    cell_rects: Vec<Rect>,
    readings: Vec<Option<SiteReading>>,
    reference: Option<Mat>,
    /// The last still frame, to notice the grid moving.
    guard: Option<GridGuard>,
    /// Still views skipped since the grid was lost.
    lost: usize,
    /// The last progress step reported.
    progress_step: Option<usize>,
    pub counts: WatchCounts,
}

impl Watcher {
    pub fn new(view: CropView, track: TrackConfig) -> Watcher {
        let grid = view.pose.grid;
        let cell_rects = (0..grid.rows)
            .flat_map(|r| (0..grid.cols).map(move |c| (r, c)))
            .map(|(r, c)| view.cell_rect(r, c))
            .collect();
        Watcher {
            tracker: Tracker::new(track),
            change_level: track.change_level,
            cell_rects,
            readings: vec![None; grid.len()],
            reference: None,
            guard: None,
            lost: 0,
            progress_step: None,
            counts: WatchCounts::default(),
            view,
        }
    }

    pub fn view(&self) -> &CropView {
        &self.view
    }

    /// Per site (row-major): the latest reading, None before the first read.
    pub fn readings(&self) -> &[Option<SiteReading>] {
        &self.readings
    }

    pub fn readings_mut(&mut self) -> &mut [Option<SiteReading>] {
        &mut self.readings
    }

    /// The rectified board of the latest still view.
    pub fn reference(&self) -> Option<&Mat> {
        self.reference.as_ref()
    }

    /// Per site, how much the latest still view changed where a piece's base
    /// stands since `anchor` (taken with the same grid).
    pub fn change_since(&self, anchor: &Anchor) -> Vec<Option<f32>> {
        match &self.reference {
            Some(now) => anchor.changes(now, &self.cell_rects),
            None => vec![None; self.cell_rects.len()],
        }
    }

    /// Settles the latest still view into `anchor` (a new one when None): visible
    /// sites take its picture; `moved` marks the sites whose occupant changed,
    /// `unexplained` those that changed otherwise (held once, see `Anchor`).
    pub fn settle(
        &self,
        anchor: &mut Option<Anchor>,
        moved: &[bool],
        unexplained: &[bool],
    ) -> anyhow::Result<()> {
        let Some(now) = &self.reference else {
            return Ok(());
        };
        let visible: Vec<bool> = self
            .readings
            .iter()
            .map(|r| r.as_ref().is_some_and(|r| r.occluded <= 0.5))
            .collect();
        match anchor {
            Some(a) => a.update(now, &self.cell_rects, &visible, moved, unexplained)?,
            None => *anchor = Some(Anchor::new(now, &visible)?),
        }
        Ok(())
    }

    /// Reads frames until the board is still, then re-reads what changed. `wanted`
    /// limits classification to the sites a piece can stand on; `progress` reports
    /// how far a source of known length has been read. A command from the caller
    /// is handed back as soon as it comes; None at the end of the source.
    pub fn next_still(
        &mut self,
        source: &mut dyn FrameSource,
        classifier: &mut Classifier,
        wanted: Option<&[bool]>,
        progress: bool,
        events: &mut dyn EventSink,
    ) -> anyhow::Result<Option<Watched>> {
        let total = source.len_hint();
        loop {
            if let Some(command) = events.poll() {
                return Ok(Some(Watched::Command(command)));
            }
            let Some(frame) = source.next() else {
                break;
            };
            for message in source.take_warnings() {
                events.emit(Event::SourceWarning { message });
            }
            let frame = frame?;
            self.counts.frames += 1;
            if progress {
                // Sources may skip frames: the index says how far along it is.
                self.report_progress(frame.index + 1, total, events);
            }
            let mut rectified = self.view.rectify(&frame.image)?;
            let Some(still) = self.tracker.update(frame.time_s, thumbnail(&rectified)?) else {
                continue;
            };
            // Before reading any site: is the grid still where it was?
            let mut regrid = None;
            match &mut self.guard {
                None => self.guard = Some(GridGuard::new(&frame.image, &self.view.pose)?),
                Some(guard) => match guard.check(&frame.image, &self.view.pose)? {
                    GridCheck::Same => {}
                    GridCheck::Moved(corners) => {
                        self.view = CropView::new(&BoardPose::new(self.view.pose.grid, corners));
                        rectified = self.view.rectify(&frame.image)?;
                        regrid = Some(corners);
                    }
                    GridCheck::Lost => match relocate(&frame.image, &self.view.pose) {
                        // Too far to follow: look for the board from scratch.
                        Some(corners) => {
                            events.emit(Event::Relocated {
                                time: ms(still.time_s),
                                corners: corner_list(&corners),
                            });
                            let pose = BoardPose::new(self.view.pose.grid, corners);
                            self.guard = Some(GridGuard::new(&frame.image, &pose)?);
                            self.view = CropView::new(&pose);
                            rectified = self.view.rectify(&frame.image)?;
                            regrid = Some(corners);
                        }
                        None => {
                            if self.lost == 0 {
                                events.emit(Event::BoardLost {
                                    time: ms(still.time_s),
                                });
                            }
                            self.lost += 1;
                            continue;
                        }
                    },
                },
            }
            self.lost = 0;
            self.counts.still_views += 1;
            let (read_now, change) = self.read_changes(&rectified, classifier, wanted)?;
            self.reference = Some(rectified);
            return Ok(Some(Watched::Still(StillView {
                time_s: still.time_s,
                read_now,
                regrid,
                change,
            })));
        }
        for message in source.take_warnings() {
            events.emit(Event::SourceWarning { message });
        }
        if progress {
            if let Some(total) = total {
                self.report_progress(total, Some(total), events);
            }
        }
        Ok(None)
    }

    /// A progress event at every percent of a source of known length.
    fn report_progress(&mut self, done: usize, total: Option<usize>, events: &mut dyn EventSink) {
        let Some(total) = total.filter(|t| *t > 0) else {
            return;
        };
        let step = (done.min(total) * 100 / total).min(100);
        if self.progress_step.is_some_and(|s| s >= step) {
            return;
        }
        self.progress_step = Some(step);
        events.emit(Event::Progress {
            frame: done.min(total),
            total: Some(total),
        });
    }

    fn read_changes(
        &mut self,
        rectified: &Mat,
        classifier: &mut Classifier,
        wanted: Option<&[bool]>,
    ) -> anyhow::Result<(Vec<bool>, Vec<Option<f32>>)> {
        let grid = self.view.pose.grid;
        let change = match &self.reference {
            Some(reference) => rect_diffs(reference, rectified, &self.cell_rects),
            None => Vec::new(),
        };
        let mut sites: Vec<usize> = if change.is_empty() {
            (0..grid.len()).collect()
        } else {
            (0..grid.len())
                .filter(|&i| change[i].is_none_or(|d| d > self.change_level))
                .collect()
        };
        for (i, r) in self.readings.iter().enumerate() {
            if r.as_ref().is_none_or(|r| r.occluded > 0.5) && !sites.contains(&i) {
                sites.push(i);
            }
        }
        if let Some(wanted) = wanted {
            sites.retain(|&i| wanted[i]);
        }
        sites.sort_unstable();
        let cols = grid.cols as usize;
        let rc: Vec<(u32, u32)> = sites
            .iter()
            .map(|&i| ((i / cols) as u32, (i % cols) as u32))
            .collect();
        let fresh = classifier.read_sites(&self.view, rectified, &rc)?;
        self.counts.sites_read += rc.len();
        let mut read_now = vec![false; grid.len()];
        for ((&i, &(r, c)), mut reading) in sites.iter().zip(&rc).zip(fresh) {
            // Skin colour only backs up a model that already suspects a hand: light
            // wooden pieces are skin-coloured too.
            if let Some(reference) = &self.reference {
                if reading.occluded > SKIN_BACKS_UP
                    && changed_to_skin(&self.view, reference, rectified, r, c)
                {
                    reading.occluded = reading.occluded.max(0.9);
                }
            }
            self.readings[i] = Some(reading);
            read_now[i] = true;
        }
        Ok((read_now, change))
    }
}

/// The grid found anew by `locate`, turned to the quarter turn nearest its last
/// corners so that sites keep their names (a knock turns a board by degrees, not
/// by quarter turns).
fn relocate(image: &Mat, last: &BoardPose) -> Option<Corners> {
    let found = crate::locate::locate(image, last.grid).ok()?;
    Some(crate::locate::turned_like(
        last.grid,
        &found.corners,
        &last.corners,
    ))
}

/// A grey thumbnail of the rectified board at a few pixels per cell.
fn thumbnail(rectified: &Mat) -> anyhow::Result<BoardThumb> {
    let scale = THUMB_CELL as f64 / crate::classify::crop::CELL_PX as f64;
    let small = shrunk_grey(rectified, scale)?;
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
