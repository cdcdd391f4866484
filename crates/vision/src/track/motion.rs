//! Motion detection on a small grey thumbnail of the rectified board.

use super::drift;

/// A grey thumbnail of the rectified board (margin included, since hands come in
/// from outside), with `tile` pixels per tile of the motion check (about a cell).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BoardThumb {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) pixels: Vec<u8>,
    pub(crate) tile: usize,
}

impl BoardThumb {
    /// Whether the picture is blank: a camera warming up (black frames), a
    /// lens cap, a flash. Such a frame shows no board, and no motion either.
    pub(crate) fn is_blank(&self) -> bool {
        let (lo, hi) = self
            .pixels
            .iter()
            .fold((u8::MAX, u8::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        self.pixels.is_empty() || hi.saturating_sub(lo) < BLANK_RANGE
    }

    fn mean_diff(&self, other: &BoardThumb) -> f32 {
        let sum: u64 = self
            .pixels
            .iter()
            .zip(&other.pixels)
            .map(|(a, b)| a.abs_diff(*b) as u64)
            .sum();
        sum as f32 / self.pixels.len().max(1) as f32
    }

    /// Largest per-tile difference: a hand at the edge of the board moves a small
    /// region a lot, which a global mean would dilute.
    fn max_tile_diff(&self, other: &BoardThumb) -> f32 {
        let t = self.tile.max(1);
        let mut worst = 0.0f32;
        for ty in (0..self.height).step_by(t) {
            for tx in (0..self.width).step_by(t) {
                let (mut sum, mut n) = (0u32, 0u32);
                for y in ty..(ty + t).min(self.height) {
                    for x in tx..(tx + t).min(self.width) {
                        let i = y * self.width + x;
                        sum += self.pixels[i].abs_diff(other.pixels[i]) as u32;
                        n += 1;
                    }
                }
                worst = worst.max(sum as f32 / n.max(1) as f32);
            }
        }
        worst
    }
}

/// When the board counts as still and what counts as motion: tuned here, set from
/// outside only where a source differs (every photo of a folder is a still view).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct TrackConfig {
    /// Seconds without motion before a view counts as still (0 for photo folders:
    /// every photo is a candidate state).
    pub quiet_s: f64,
    /// Grey levels of change in any tile between consecutive frames that count as
    /// motion.
    pub(crate) motion_level: f32,
    /// Grey levels of change in a site against the last still view that mark it
    /// for re-classification.
    pub(crate) change_level: f32,
}

impl TrackConfig {
    /// This configuration with `quiet_s` seconds without motion before a still view.
    pub(crate) fn with_quiet_s(mut self, quiet_s: f64) -> TrackConfig {
        self.quiet_s = quiet_s;
        self
    }
}

impl Default for TrackConfig {
    fn default() -> Self {
        TrackConfig {
            quiet_s: 0.4,
            motion_level: 8.0,
            change_level: 6.0,
        }
    }
}

/// A still view: the board has not moved for the quiet period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StillEvent {
    pub(crate) time_s: f64,
    /// Motion episodes (a hand coming over the board and leaving) since the last
    /// still view; None where it cannot be told (every photo of a folder is a
    /// still view, and the first view has nothing before it).
    pub(crate) episodes: Option<usize>,
}

/// Motion that starts again after this many seconds of quiet is a new episode: a
/// hand that leaves and comes back (a fast recapture), not one hand's jitter.
const EPISODE_GAP_S: f64 = 0.12;

/// A board's thumbnail spans more grey levels than this between its darkest
/// and lightest tile pixels, even in dim light; a black warm-up frame spans a
/// few.
const BLANK_RANGE: u8 = 12;

/// Seconds without motion (two frames of a 25 fps camera: the least that
/// shows the board at rest) that make a frame the board's rest, which the end
/// of an input takes as a still view when the quiet period never came since
/// the last one: a clip that ends just after the last move, or with a hand
/// coming back (to stop the recording, to play on) before it was over.
const END_QUIET_S: f64 = 0.08;

/// Watches thumbnails frame by frame and reports each new still view once.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    cfg: TrackConfig,
    previous: Option<BoardThumb>,
    quiet_since: Option<f64>,
    reported: bool,
    moving: bool,
    /// Motion episodes since the last still view, and whether one was reported.
    episodes: usize,
    any_still: bool,
    /// The first quiet frame since the last motion.
    first_quiet: Option<f64>,
    /// The latest frame at rest (quiet for END_QUIET_S) since the last still
    /// view, as the still view the end of the input makes of it.
    rest: Option<StillEvent>,
    /// Whether the last frame fed is that rest.
    at_rest: bool,
}

impl Tracker {
    pub(crate) fn new(cfg: TrackConfig) -> Tracker {
        Tracker {
            cfg,
            ..Tracker::default()
        }
    }

    /// Whether the last frame showed motion.
    #[cfg(test)]
    pub(crate) fn is_moving(&self) -> bool {
        self.moving
    }

    /// Feeds one frame; returns a still event the first time the board has been
    /// quiet for the quiet period since the last motion.
    pub(crate) fn update(&mut self, time_s: f64, thumb: BoardThumb) -> Option<StillEvent> {
        let moved = match &self.previous {
            Some(prev) if prev.pixels.len() == thumb.pixels.len() => {
                // A hand-held camera's drift is undone before comparing; a
                // slide too fast to be drift is motion.
                let differs = |p: &BoardThumb| {
                    p.max_tile_diff(&thumb) > self.cfg.motion_level
                        || p.mean_diff(&thumb) > self.cfg.motion_level / 2.0
                };
                // Only a frame that differs is aligned: a still camera's frames
                // (most of them) cost one comparison, as before.
                differs(prev)
                    && match drift::slide(prev, &thumb) {
                        Some((dx, dy)) if dx.abs().max(dy.abs()) <= drift::MAX_DRIFT_PX => {
                            differs(&drift::moved_onto(prev, &thumb, (dx, dy)))
                        }
                        _ => true,
                    }
            }
            _ => true,
        };
        if moved && self.previous.is_some() {
            // Motion after a quiet spell starts an episode.
            let quiet_for = self.first_quiet.map_or(f64::INFINITY, |q| time_s - q);
            if !self.moving && quiet_for >= EPISODE_GAP_S - 1e-9 {
                self.episodes += 1;
            }
            self.first_quiet = None;
        } else if !moved && self.first_quiet.is_none() {
            self.first_quiet = Some(time_s);
        }
        self.moving = moved;
        if moved {
            self.quiet_since = Some(time_s);
            self.reported = false;
        }
        let since = *self.quiet_since.get_or_insert(time_s);
        self.previous = Some(thumb);
        self.at_rest = false;
        if self.reported {
            return None;
        }
        // Photo folders (no quiet period) cannot tell episodes.
        let episodes = (self.any_still && self.cfg.quiet_s > 0.0).then_some(self.episodes);
        if time_s - since >= self.cfg.quiet_s - 1e-9 {
            self.reported = true;
            self.rest = None;
            self.any_still = true;
            self.episodes = 0;
            return Some(StillEvent { time_s, episodes });
        }
        if !moved && time_s - since >= END_QUIET_S - 1e-9 {
            self.rest = Some(StillEvent { time_s, episodes });
            self.at_rest = true;
        }
        None
    }

    /// Whether the last frame fed, not a still view, is the latest rest of the
    /// board (quiet for a few frames): the one the end of the input would take.
    pub(crate) fn at_rest(&self) -> bool {
        self.at_rest
    }

    /// At the end of the input: the latest rest as a still view, when the
    /// board stopped moving for a few frames since the last still view but the
    /// quiet period never came (the input ended first, or motion came back
    /// before it was over and lasted to the end).
    pub(crate) fn end(&mut self) -> Option<StillEvent> {
        if self.reported || self.cfg.quiet_s == 0.0 {
            return None;
        }
        let rest = self.rest.take()?;
        self.reported = true;
        self.any_still = true;
        self.episodes = 0;
        Some(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thumb(fill: impl FnMut(usize, usize) -> u8) -> BoardThumb {
        let mut fill = fill;
        let (w, h) = (40, 40);
        let mut pixels = vec![0; w * h];
        for y in 0..h {
            for x in 0..w {
                pixels[y * w + x] = fill(x, y);
            }
        }
        BoardThumb {
            width: w,
            height: h,
            pixels,
            tile: 4,
        }
    }

    #[test]
    fn reports_once_after_the_quiet_period() {
        let mut t = Tracker::new(TrackConfig::default());
        let board = thumb(|x, y| if (x / 4 + y / 4) % 2 == 0 { 200 } else { 60 });
        let mut events = vec![];
        for i in 0..10 {
            events.extend(t.update(i as f64 * 0.1, board.clone()));
        }
        assert_eq!(
            events,
            [StillEvent {
                time_s: 0.4,
                episodes: None
            }]
        );

        // A hand passes (a big change), then the board is still again.
        let hand = thumb(|x, _| if x < 20 { 150 } else { 60 });
        assert!(t.update(1.0, hand).is_none());
        assert!(t.is_moving());
        let mut moved = board.clone();
        moved.pixels[20 * 40 + 20] = 0;
        let mut got = vec![];
        for i in 0..8 {
            got.extend(t.update(1.1 + i as f64 * 0.1, moved.clone()));
        }
        assert_eq!(got.len(), 1);
        assert!((got[0].time_s - 1.5).abs() < 1e-9);
        assert_eq!(got[0].episodes, Some(1));
    }

    /// Frames at 15 a second: `moving` per frame, the still events they bring.
    fn run(moving: &[bool]) -> Vec<StillEvent> {
        fed(moving).1
    }

    fn frames(spec: &[(bool, usize)]) -> Vec<bool> {
        spec.iter()
            .flat_map(|&(m, n)| std::iter::repeat_n(m, n))
            .collect()
    }

    #[test]
    fn each_hand_visit_between_still_views_is_one_episode() {
        // Still, one visit, still, then two visits with a short pause (a fast
        // recapture: shorter than the quiet period), still.
        let got = run(&frames(&[
            (false, 10),
            (true, 8),
            (false, 10),
            (true, 6),
            (false, 3),
            (true, 6),
            (false, 10),
        ]));
        let episodes: Vec<Option<usize>> = got.iter().map(|e| e.episodes).collect();
        assert_eq!(episodes, [None, Some(1), Some(2)]);
    }

    #[test]
    fn a_one_frame_gap_inside_a_visit_is_not_a_new_episode() {
        let got = run(&frames(&[
            (false, 10),
            (true, 5),
            (false, 1),
            (true, 5),
            (false, 10),
        ]));
        let episodes: Vec<Option<usize>> = got.iter().map(|e| e.episodes).collect();
        assert_eq!(episodes, [None, Some(1)]);
    }

    /// A tracker fed `moving` per frame at 15 a second, and the still events
    /// it reported.
    fn fed(moving: &[bool]) -> (Tracker, Vec<StillEvent>) {
        let mut t = Tracker::new(TrackConfig::default());
        let still = thumb(|x, y| if (x / 4 + y / 4) % 2 == 0 { 200 } else { 60 });
        let hand = thumb(|x, _| if x < 20 { 150 } else { 60 });
        let other = thumb(|x, _| if x < 20 { 60 } else { 150 });
        let mut out = vec![];
        for (i, &m) in moving.iter().enumerate() {
            // Consecutive moving frames differ from each other; still ones repeat.
            let frame = match (m, i % 2) {
                (false, _) => still.clone(),
                (true, 0) => hand.clone(),
                (true, _) => other.clone(),
            };
            out.extend(t.update(i as f64 / 15.0, frame));
        }
        (t, out)
    }

    #[test]
    fn the_end_of_the_input_takes_the_last_rest_before_a_hand_came_back() {
        // Still, a move, three frames at rest (0.13 s, under the quiet
        // period), a hand back to the end of the input.
        let (mut t, got) = fed(&frames(&[(false, 10), (true, 6), (false, 3), (true, 4)]));
        assert_eq!(got.len(), 1);
        let rest = t.end().expect("the rest is the last still view");
        // The rest's last frame (frame 18), one motion episode since the last
        // still view.
        assert!((rest.time_s - 18.0 / 15.0).abs() < 1e-9, "{rest:?}");
        assert_eq!(rest.episodes, Some(1));
        assert_eq!(t.end(), None, "taken once");

        // Motion from the move to the end: no rest, no view.
        let (mut t, _) = fed(&frames(&[(false, 10), (true, 12)]));
        assert_eq!(t.end(), None);
        // A rest of one frame is no rest: 0.07 s, two frames of a 25 fps camera
        // is the least.
        let (mut t, _) = fed(&frames(&[(false, 10), (true, 6), (false, 1), (true, 4)]));
        assert_eq!(t.end(), None);
        // A still view after the rest: nothing left for the end.
        let (mut t, got) = fed(&frames(&[(false, 10), (true, 6), (false, 10)]));
        assert_eq!(got.len(), 2);
        assert_eq!(t.end(), None);
    }

    #[test]
    fn photo_folders_tell_no_episodes() {
        let mut t = Tracker::new(TrackConfig {
            quiet_s: 0.0,
            ..TrackConfig::default()
        });
        let a = thumb(|_, _| 10);
        let b = thumb(|_, _| 200);
        for (i, th) in [a.clone(), b, a].into_iter().enumerate() {
            let e = t.update(i as f64, th).expect("every photo is a still view");
            assert_eq!(e.episodes, None);
        }
    }

    #[test]
    fn a_small_change_in_one_tile_is_motion_but_sensor_noise_is_not() {
        let mut t = Tracker::new(TrackConfig::default());
        let mut seed = 7u32;
        let mut events = 0;
        for i in 0..20 {
            let noisy = thumb(|x, y| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let base = if (x / 4 + y / 4) % 2 == 0 { 200 } else { 60 };
                base + (seed >> 16) as u8 % 5
            });
            events += t.update(i as f64 * 0.1, noisy).is_some() as usize;
        }
        assert_eq!(events, 1);
        let board = thumb(|_, _| 100);
        t.update(3.0, board.clone());
        let mut finger = board.clone();
        for y in 8..12 {
            for x in 8..12 {
                finger.pixels[y * 40 + x] = 160;
            }
        }
        t.update(3.1, finger);
        assert!(t.is_moving());
    }
}
