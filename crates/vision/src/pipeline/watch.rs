//! Watching the board: frames in, still views out. Rectifies each frame, waits for
//! the board to be still, re-reads only the sites whose image changed (and those
//! hidden or unread before), and lets skin colour back up a suspected hand. Knows
//! no game: callers say which sites matter.

use opencv::core::{Mat, Rect};
use opencv::prelude::*;

use super::event::{corner_list, ms, Command, Event, EventSink};
use super::PipelineError;
use crate::capture::FrameSource;
use crate::classify::{Classifier, CropView, SiteReading};
use crate::geometry::{BoardPose, Corners};
use crate::track::{
    shrunk_grey, site_changes, skin_fraction, BoardThumb, GridCheck, GridGuard, TrackConfig,
    Tracker,
};

/// Pixels per cell in the motion thumbnail.
const THUMB_CELL: i32 = 4;
/// Share of skin-coloured pixels in a changed cell that marks it hidden by a hand.
const SKIN_HIDES: f32 = 0.35;
/// The model's hand probability above which skin colour may confirm a hand.
const SKIN_BACKS_UP: f32 = 0.2;

/// Whether readings through a grid placed anew (second) beat the current ones.
pub(crate) type Prefer<'a> = dyn FnMut(&[Option<SiteReading>], &[Option<SiteReading>]) -> bool + 'a;

/// One still view of the board.
pub(crate) struct StillView {
    /// Seconds into the input of the frame at which the board had been without
    /// motion for `TrackConfig::quiet_s` (a photo's made-up time for photos).
    pub(crate) time_s: f64,
    /// Per site (row-major): whether it was classified anew in this view.
    pub(crate) read_now: Vec<bool>,
    /// The grid had moved in the image (a knocked camera or board) and was found
    /// again here.
    pub(crate) regrid: Option<Corners>,
    /// Per site (row-major): its image change against the last still view the
    /// follower found explained (see [`Watcher::confirm`]), in grey levels after
    /// matching the light; None where a hand hid the site in either view; empty
    /// until a view has been confirmed.
    pub(crate) change: Vec<Option<f32>>,
    /// Motion episodes (hand visits) since the last still view, where they can be
    /// told (not between photos).
    pub(crate) episodes: Option<usize>,
}

/// The view later changes are measured against.
struct Anchor {
    frame: Mat,
    rectified: Mat,
    visible: Vec<bool>,
}

/// What watching the board brings.
pub(crate) enum Watched {
    /// The board came to rest: its view, the changed sites read.
    Still(StillView),
    /// The caller asked for something (between frames).
    Command(Command),
}

/// Frame counts a recording reports.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WatchCounts {
    /// Frames read from the source, blank ones included.
    pub(crate) frames: usize,
    /// Still views taken: the board at rest with its grid in place (none while
    /// the board is lost).
    pub(crate) still_views: usize,
    /// Site classifications run.
    pub(crate) sites_read: usize,
}

/// The board's latest readings, updated at every still view.
pub(crate) struct Watcher {
    view: CropView,
    tracker: Tracker,
    change_level: f32,
    cell_rects: Vec<Rect>,
    readings: Vec<Option<SiteReading>>,
    reference: Option<Mat>,
    /// The last still view found explained: its frame, the frame rectified with
    /// the current grid, and per site whether it was visible there. What site
    /// changes are measured against.
    anchor: Option<Anchor>,
    /// The latest still frame.
    still_frame: Option<Mat>,
    /// The last still frame, to notice the grid moving.
    guard: Option<GridGuard>,
    /// Still views skipped since the grid was lost.
    lost: usize,
    last_time: Option<f64>,
    /// The last progress step reported.
    progress_step: Option<usize>,
    /// The latest frame of the board at rest since the last still view (the
    /// tracker's rest): the end of the input may make it one.
    rest_frame: Option<(crate::capture::Frame, Mat)>,
    /// Frames, still views and site classifications so far.
    pub(crate) counts: WatchCounts,
}

impl Watcher {
    /// A watcher reading the board through `view`, still by `track`'s thresholds;
    /// nothing read yet.
    pub(crate) fn new(view: CropView, track: TrackConfig) -> Watcher {
        let grid = view.pose.grid();
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
            anchor: None,
            still_frame: None,
            guard: None,
            lost: 0,
            progress_step: None,
            rest_frame: None,
            last_time: None,
            counts: WatchCounts::default(),
            view,
        }
    }

    /// The crop view the board is read through: the grid in use.
    pub(crate) fn view(&self) -> &CropView {
        &self.view
    }

    /// Per site (row-major): the latest reading, None before the first read.
    pub(crate) fn readings(&self) -> &[Option<SiteReading>] {
        &self.readings
    }

    /// Per site (row-major): the latest readings, for callers that read sites
    /// again themselves (a classifier adapted to the board).
    pub(crate) fn readings_mut(&mut self) -> &mut [Option<SiteReading>] {
        &mut self.readings
    }

    /// The time of the latest still view.
    pub(crate) fn last_time(&self) -> Option<f64> {
        self.last_time
    }

    /// The rectified board of the latest still view.
    pub(crate) fn reference(&self) -> Option<&Mat> {
        self.reference.as_ref()
    }

    /// Takes the latest still view as the one later views' changes are measured
    /// against (the follower found it explained).
    pub(crate) fn confirm(&mut self) -> Result<(), PipelineError> {
        if let (Some(now), Some(frame)) = (&self.reference, &self.still_frame) {
            let visible = self
                .readings
                .iter()
                .map(|r| r.as_ref().is_some_and(|r| r.occluded <= 0.5))
                .collect();
            self.anchor = Some(Anchor {
                frame: frame.try_clone()?,
                rectified: now.try_clone()?,
                visible,
            });
        }
        Ok(())
    }

    /// The grid moved: the anchor's frame is rectified anew with it.
    fn reanchor(&mut self) -> Result<(), PipelineError> {
        if let Some(a) = &mut self.anchor {
            a.rectified = self.view.rectify(&a.frame)?;
        }
        Ok(())
    }

    /// Places the grid again on the latest still frame, from scratch, when the
    /// readings of still views fit no position of the game: the grid used may
    /// have been placed on a view that hid part of the board, or given wrong.
    /// The grid found is taken only where it moved by `min_cells` or more and
    /// `better` prefers its readings (every site read anew) to the current
    /// ones; then the still view's readings are its. Returns the corners taken.
    pub(crate) fn place_again(
        &mut self,
        classifier: &mut Classifier,
        wanted: Option<&[bool]>,
        min_cells: f64,
        better: &mut Prefer<'_>,
    ) -> Result<Option<Corners>, PipelineError> {
        let Some(frame) = self.still_frame.as_ref() else {
            return Ok(None);
        };
        let Some(corners) = relocate(frame, &self.view.pose) else {
            return Ok(None);
        };
        if self.view.pose.moved_cells(&corners) < min_cells {
            return Ok(None);
        }
        let pose = BoardPose::new(self.view.pose.grid(), corners);
        let view = CropView::new(&pose);
        let rectified = view.rectify(frame)?;
        let grid = pose.grid();
        let cols = grid.cols as usize;
        let sites: Vec<usize> = (0..grid.len())
            .filter(|&i| wanted.is_none_or(|w| w[i]))
            .collect();
        let rc: Vec<(u32, u32)> = sites
            .iter()
            .map(|&i| ((i / cols) as u32, (i % cols) as u32))
            .collect();
        let fresh = classifier.read_sites(&view, &rectified, &rc)?;
        self.counts.sites_read += rc.len();
        let mut readings = vec![None; grid.len()];
        for (&i, reading) in sites.iter().zip(fresh) {
            readings[i] = Some(reading);
        }
        if !better(&self.readings, &readings) {
            return Ok(None);
        }
        let frame = frame.try_clone()?;
        self.guard = Some(GridGuard::new(&frame, &pose)?);
        self.view = view;
        self.readings = readings;
        self.reference = Some(rectified);
        // Changes are measured from this view on: the anchor was read through
        // the grid let go.
        self.anchor = None;
        Ok(Some(corners))
    }

    /// Reads frames until the board is still, then re-reads what changed. `wanted`
    /// limits classification to the sites a piece can stand on; `progress` reports
    /// how far a source of known length has been read. A command from the caller
    /// is handed back as soon as it comes; None at the end of the source.
    pub(crate) fn next_still(
        &mut self,
        source: &mut dyn FrameSource,
        classifier: &mut Classifier,
        wanted: Option<&[bool]>,
        progress: bool,
        events: &mut dyn EventSink,
    ) -> Result<Option<Watched>, PipelineError> {
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
            let rectified = self.view.rectify(&frame.image)?;
            let thumb = thumbnail(&rectified)?;
            if thumb.is_blank() {
                // A camera warming up: no board to see, no motion to weigh.
                continue;
            }
            let Some(still) = self.tracker.update(frame.time_s, thumb) else {
                if self.tracker.at_rest() {
                    self.rest_frame = Some((frame, rectified));
                }
                continue;
            };
            self.rest_frame = None;
            if let Some(view) =
                self.take_view(frame, rectified, still, classifier, wanted, events)?
            {
                return Ok(Some(view));
            }
        }
        // The input ended before the board was still again: its latest rest
        // since the last still view (a clip that ends just after the last
        // move, or with a hand coming back before the quiet period was over).
        if let Some((frame, rectified)) = self.rest_frame.take() {
            if let Some(still) = self.tracker.end() {
                if let Some(view) =
                    self.take_view(frame, rectified, still, classifier, wanted, events)?
                {
                    return Ok(Some(view));
                }
            }
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

    /// A still view of `frame`: the grid checked (and followed or found again),
    /// then the sites that changed read. None when the board is lost there.
    fn take_view(
        &mut self,
        frame: crate::capture::Frame,
        mut rectified: Mat,
        still: crate::track::StillEvent,
        classifier: &mut Classifier,
        wanted: Option<&[bool]>,
        events: &mut dyn EventSink,
    ) -> Result<Option<Watched>, PipelineError> {
        // Before reading any site: is the grid still where it was?
        let mut regrid = None;
        match &mut self.guard {
            None => self.guard = Some(GridGuard::new(&frame.image, &self.view.pose)?),
            Some(guard) => match guard.check(&frame.image, &self.view.pose)? {
                GridCheck::Same => {}
                GridCheck::Moved(corners) => {
                    self.view = CropView::new(&BoardPose::new(self.view.pose.grid(), corners));
                    rectified = self.view.rectify(&frame.image)?;
                    regrid = Some(corners);
                    self.reanchor()?;
                }
                GridCheck::Lost => match relocate(&frame.image, &self.view.pose) {
                    // Too far to follow: look for the board from scratch.
                    Some(corners) => {
                        events.emit(Event::Relocated {
                            time: ms(still.time_s),
                            corners: corner_list(&corners),
                        });
                        let pose = BoardPose::new(self.view.pose.grid(), corners);
                        self.guard = Some(GridGuard::new(&frame.image, &pose)?);
                        self.view = CropView::new(&pose);
                        rectified = self.view.rectify(&frame.image)?;
                        regrid = Some(corners);
                        self.reanchor()?;
                    }
                    None => {
                        if self.lost == 0 {
                            events.emit(Event::BoardLost {
                                time: ms(still.time_s),
                            });
                        }
                        self.lost += 1;
                        return Ok(None);
                    }
                },
            },
        }
        self.lost = 0;
        self.counts.still_views += 1;
        let (read_now, change) = self.read_changes(&rectified, classifier, wanted)?;
        self.reference = Some(rectified);
        self.still_frame = Some(frame.image);
        self.last_time = Some(still.time_s);
        Ok(Some(Watched::Still(StillView {
            time_s: still.time_s,
            read_now,
            regrid,
            change,
            episodes: still.episodes,
        })))
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
    ) -> Result<(Vec<bool>, Vec<Option<f32>>), PipelineError> {
        let grid = self.view.pose.grid();
        let since_last = match &self.reference {
            Some(reference) => site_changes(reference, rectified, &self.cell_rects),
            None => Vec::new(),
        };
        let hidden = |r: &Option<SiteReading>| r.as_ref().is_none_or(|r| r.occluded > 0.5);
        let mut sites: Vec<usize> = if since_last.is_empty() {
            (0..grid.len()).collect()
        } else {
            (0..grid.len())
                .filter(|&i| since_last[i].is_none_or(|d| d > self.change_level))
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
        // A hand's edge is widened from the sites it newly covers (their image
        // changed): a site that always reads hidden (a piece the model takes for
        // a hand) is no hand.
        let moved: Vec<bool> = (0..grid.len())
            .map(|i| {
                read_now[i]
                    && since_last
                        .get(i)
                        .is_none_or(|d| d.is_none_or(|d| d > self.change_level))
            })
            .collect();
        crate::classify::widen_hands(&mut self.readings, &moved, grid);
        // Change since the last explained view; where a hand hid the site in
        // either view, its change says nothing.
        let change = match &self.anchor {
            Some(a) => site_changes(&a.rectified, rectified, &self.cell_rects)
                .into_iter()
                .enumerate()
                .map(|(i, c)| c.filter(|_| a.visible[i] && !hidden(&self.readings[i])))
                .collect(),
            None => Vec::new(),
        };
        Ok((read_now, change))
    }
}

/// The grid found anew by `locate`, turned to the quarter turn nearest its last
/// corners so that sites keep their names (a knock turns a board by degrees, not
/// by quarter turns).
fn relocate(image: &Mat, last: &BoardPose) -> Option<Corners> {
    let found = crate::locate::locate(image, last.grid()).ok()?;
    Some(crate::locate::turned_like(
        last.grid(),
        &found.corners,
        &last.corners(),
    ))
}

/// A grey thumbnail of the rectified board at a few pixels per cell.
fn thumbnail(rectified: &Mat) -> Result<BoardThumb, PipelineError> {
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
