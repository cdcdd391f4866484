//! Motion detection on a small grey thumbnail of the rectified board.

/// A grey thumbnail of the rectified board (margin included, since hands come in
/// from outside), with `tile` pixels per tile of the motion check (about a cell).
#[derive(Clone, Debug, PartialEq)]
pub struct BoardThumb {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
    pub tile: usize,
}

impl BoardThumb {
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

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackConfig {
    /// Seconds without motion before a view counts as still (0 for photo folders:
    /// every photo is a candidate state).
    pub quiet_s: f64,
    /// Grey levels of change in any tile between consecutive frames that count as
    /// motion.
    pub motion_level: f32,
    /// Grey levels of change in a site against the last still view that mark it
    /// for re-classification.
    pub change_level: f32,
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
pub struct StillEvent {
    pub time_s: f64,
}

/// Watches thumbnails frame by frame and reports each new still view once.
#[derive(Debug, Default)]
pub struct Tracker {
    cfg: TrackConfig,
    previous: Option<BoardThumb>,
    quiet_since: Option<f64>,
    reported: bool,
    moving: bool,
}

impl Tracker {
    pub fn new(cfg: TrackConfig) -> Tracker {
        Tracker {
            cfg,
            ..Tracker::default()
        }
    }

    /// Whether the last frame showed motion.
    pub fn is_moving(&self) -> bool {
        self.moving
    }

    /// Feeds one frame; returns a still event the first time the board has been
    /// quiet for the quiet period since the last motion.
    pub fn update(&mut self, time_s: f64, thumb: BoardThumb) -> Option<StillEvent> {
        let moved = match &self.previous {
            Some(prev) if prev.pixels.len() == thumb.pixels.len() => {
                prev.max_tile_diff(&thumb) > self.cfg.motion_level
                    || prev.mean_diff(&thumb) > self.cfg.motion_level / 2.0
            }
            _ => true,
        };
        self.moving = moved;
        if moved {
            self.quiet_since = Some(time_s);
            self.reported = false;
        }
        let since = *self.quiet_since.get_or_insert(time_s);
        self.previous = Some(thumb);
        if !self.reported && time_s - since >= self.cfg.quiet_s - 1e-9 {
            self.reported = true;
            return Some(StillEvent { time_s });
        }
        None
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
        assert_eq!(events, [StillEvent { time_s: 0.4 }]);

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
