//! Locating across time: the grid of a video placed from many frames of its first
//! seconds rather than from the first frame in which a grid shows.
//!
//! One frame can mislead: a player's arm resting over half the board leaves a
//! lattice of the right line count fitted to the half still seen (squashed, at
//! half the pitch), and nothing read through it afterwards is right. Over a few
//! seconds the arm moves and the whole board shows in most frames, always in the
//! same place. So frames are sampled across a window, the placements that agree
//! (corners within a fraction of a cell) are grouped, and the group best
//! supported wins: by how many frames found it and by how much of the lattice
//! they saw (the confidence, the share of the grid's lines seen).

use crate::geometry::{Corners, GridSpec};

use super::Located;

/// How frames are sampled: while no grid is found, one every `search_step_s`,
/// at most `search_looks` of them (a hand passing by, a camera warming up); from
/// the first frame with a grid, one every `step_s` over `span_s` seconds. A span
/// of 0 takes the first grid found.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sampling {
    pub(crate) search_step_s: f64,
    pub(crate) search_looks: usize,
    pub(crate) step_s: f64,
    pub(crate) span_s: f64,
}

impl Sampling {
    /// Video: an arm resting over the board stays a second or two; three seconds
    /// see it move.
    pub(crate) const VIDEO: Sampling = Sampling {
        search_step_s: 0.5,
        search_looks: 60,
        step_s: 0.25,
        span_s: 3.0,
    };
    /// Photos: every photo until the first with a grid, which is taken. Each photo
    /// is a moment the player chose, and the first is the one recording starts from.
    pub(crate) const PHOTOS: Sampling = Sampling {
        search_step_s: 0.0,
        search_looks: 60,
        step_s: 0.0,
        span_s: 0.0,
    };

    /// Frames looked at from the first with a grid on.
    fn window_looks(&self) -> usize {
        if self.step_s > 0.0 {
            ((self.span_s / self.step_s).round() as usize).max(1)
        } else {
            1
        }
    }
}

/// Two placements whose corners all lie within this many cells of each other
/// are the same: a lattice run a line further along is a whole cell away, and
/// the same lattice found in two frames is a small fraction of one apart.
pub(crate) const AGREE_CELLS: f64 = 0.5;

/// Sampling stops before the end of its span once this many frames in a row,
/// the first ones with a grid, all agree and all saw at least
/// `SETTLED_CONFIDENCE` of the grid's lines: the whole lattice in plain view
/// (a grid squashed onto the half of a board left uncovered leaves most of its
/// lines unseen).
pub(crate) const SETTLED_FRAMES: usize = 4;
pub(crate) const SETTLED_CONFIDENCE: f64 = 0.6;

/// A frame looked at, and the grid found in it (None: none).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Look {
    /// The caller's name for the frame (its index in the input).
    pub frame: usize,
    /// Seconds from the start of the source.
    pub time_s: f64,
    /// The grid found in it, if any.
    pub found: Option<Located>,
}

/// The grid chosen, and why.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Choice {
    /// The frame it came from: the first of those that agree.
    pub frame: usize,
    /// The grid found in that frame.
    pub located: Located,
    /// Frames whose grid agrees with it (itself included).
    pub agreeing: usize,
    /// Frames looked at from the first with a grid on (failed ones included).
    pub looked: usize,
    /// Frames in which a grid was found that does not agree.
    pub elsewhere: usize,
    /// The times of the first and the last frame looked at from the first with a grid.
    pub from_s: f64,
    /// The time of the last frame looked at.
    pub to_s: f64,
}

/// Frames looked at so far and what was found in them.
#[derive(Clone, Debug)]
pub(crate) struct Across {
    grid: GridSpec,
    sampling: Sampling,
    looks: Vec<Look>,
}

impl Across {
    /// A search for `grid` across frames sampled as `sampling` says.
    pub(crate) fn new(grid: GridSpec, sampling: Sampling) -> Across {
        Across {
            grid,
            sampling,
            looks: Vec::new(),
        }
    }

    /// Whether the frame at `time_s` is due to be looked at: the first frame at
    /// or past each step's time (within half a frame period `frame_s`), the steps
    /// counted from the first frame looked at, then from the first with a grid.
    pub(crate) fn wants(&self, time_s: f64, frame_s: f64) -> bool {
        if self.done() {
            return false;
        }
        let (base, n, step) = match (self.first_found(), self.looks.first()) {
            (_, None) => return true,
            (Some(i), _) => (
                self.looks[i].time_s,
                self.looks.len() - i,
                self.sampling.step_s,
            ),
            (None, Some(first)) => (first.time_s, self.looks.len(), self.sampling.search_step_s),
        };
        time_s >= base + n as f64 * step - 0.5 * frame_s - 1e-9
    }

    /// Records what was found in a frame looked at.
    pub(crate) fn add(&mut self, look: Look) {
        self.looks.push(look);
    }

    /// Whether looking further would change nothing: the span is over, the
    /// evidence is settled, or the search found nothing in all its frames.
    pub(crate) fn done(&self) -> bool {
        match self.first_found() {
            None => self.looks.len() >= self.sampling.search_looks,
            Some(i) => self.looks.len() - i >= self.sampling.window_looks() || self.settled(i),
        }
    }

    /// The frames looked at, in order.
    #[cfg(test)]
    pub(crate) fn looks(&self) -> &[Look] {
        &self.looks
    }

    fn first_found(&self) -> Option<usize> {
        self.looks.iter().position(|l| l.found.is_some())
    }

    /// The first `SETTLED_FRAMES` frames from the first with a grid all found one,
    /// all the same, each seeing most of its lines.
    fn settled(&self, first: usize) -> bool {
        let window = &self.looks[first..];
        if window.len() < SETTLED_FRAMES {
            return false;
        }
        let mut found = window.iter().filter_map(|l| l.found);
        let Some(lead) = found.next() else {
            return false;
        };
        window.iter().all(|l| {
            l.found.is_some_and(|f| {
                f.confidence >= SETTLED_CONFIDENCE
                    && apart_cells(self.grid, &lead.corners, &f.corners) <= AGREE_CELLS
            })
        })
    }

    /// The placement best supported among the frames looked at; None when no
    /// frame showed a grid.
    pub(crate) fn choice(&self) -> Option<Choice> {
        let first = self.first_found()?;
        let window = &self.looks[first..];
        let found: Vec<(usize, Located)> = window
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.found.map(|f| (i, f)))
            .collect();
        let groups = group(self.grid, &found);
        let best = best_group(&groups)?;
        // The earliest agreeing frame: recording reads from the input's first frame
        // on, and a camera that drifts (a phone held over the board) has moved
        // least from there by then; its position is also the nearest to the start.
        let first_member = best.members.iter().copied().min().unwrap_or(best.seed);
        let (at, located) = found[first_member];
        let look = window[at];
        Some(Choice {
            frame: look.frame,
            located,
            agreeing: best.members.len(),
            looked: window.len(),
            elsewhere: found.len() - best.members.len(),
            from_s: window[0].time_s,
            to_s: window.last().map_or(look.time_s, |l| l.time_s),
        })
    }
}

/// Placements that agree: the one that saw most of the grid first, and the
/// others within `AGREE_CELLS` of it.
#[derive(Clone, Debug, PartialEq)]
struct Group {
    /// Indices into the placements: the seed, and every member (seed included).
    seed: usize,
    members: Vec<usize>,
    /// Sum of the members' squared confidences: frames count, and frames that
    /// saw the whole lattice count most.
    support: f64,
}

/// Groups placements around seeds taken by confidence, highest first (ties: the
/// earlier frame): each joins the first group whose seed it agrees with. Seeds,
/// not chains: a slow drift cannot join two placements a cell apart.
fn group(grid: GridSpec, found: &[(usize, Located)]) -> Vec<Group> {
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by(|&a, &b| {
        found[b]
            .1
            .confidence
            .total_cmp(&found[a].1.confidence)
            .then(a.cmp(&b))
    });
    let mut groups: Vec<Group> = Vec::new();
    for i in order {
        let here = &found[i].1;
        let joined = groups
            .iter_mut()
            .find(|g| apart_cells(grid, &found[g.seed].1.corners, &here.corners) <= AGREE_CELLS);
        match joined {
            Some(g) => {
                g.members.push(i);
                g.support += here.confidence * here.confidence;
            }
            None => groups.push(Group {
                seed: i,
                members: vec![i],
                support: here.confidence * here.confidence,
            }),
        }
    }
    groups
}

/// The group best supported. A placement seen in one frame only is a chance
/// lattice or a passing view beside one seen again: it is taken only when no
/// placement was seen twice.
fn best_group(groups: &[Group]) -> Option<&Group> {
    let repeated = groups.iter().any(|g| g.members.len() >= 2);
    groups
        .iter()
        .filter(|g| !repeated || g.members.len() >= 2)
        .max_by(|a, b| {
            a.support
                .total_cmp(&b.support)
                // Equal support: the earlier seed.
                .then(b.seed.cmp(&a.seed))
        })
}

/// How far apart two placements of `grid` are: the largest distance between
/// corresponding corners, in cells of `a` at that corner, under the quarter
/// turns the grid allows (a square board found from a view turned slightly may
/// name another corner first).
pub fn apart_cells(grid: GridSpec, a: &Corners, b: &Corners) -> f64 {
    let (lr, lc) = grid.lattice_cells();
    let p = a.points();
    let dist = |u: (f64, f64), v: (f64, f64)| (u.0 - v.0).hypot(u.1 - v.1);
    // The cell at each corner: the shorter of its two edges' cells.
    let cell: [f64; 4] = std::array::from_fn(|i| {
        let (next, prev) = (p[(i + 1) % 4], p[(i + 3) % 4]);
        // Edges from TL and BR run along the columns first, from TR and BL along the rows.
        let (n_next, n_prev) = if i % 2 == 0 { (lc, lr) } else { (lr, lc) };
        (dist(p[i], next) / n_next.max(1) as f64).min(dist(p[i], prev) / n_prev.max(1) as f64)
    });
    super::allowed_turns(grid)
        .iter()
        .map(|&k| {
            let q = b.rotated(k).points();
            (0..4)
                .map(|i| dist(p[i], q[i]) / cell[i].max(1e-9))
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: GridSpec = GridSpec::cells(8, 8);
    /// The whole board, 25 px cells.
    const WHOLE: [(f64, f64); 4] = [(40.0, 20.0), (240.0, 20.0), (240.0, 220.0), (40.0, 220.0)];
    /// The half of it an arm leaves: eight rows squashed into the lower half.
    const HALF: [(f64, f64); 4] = [(40.0, 120.0), (240.0, 120.0), (240.0, 220.0), (40.0, 220.0)];

    fn quad(q: [(f64, f64); 4], dx: f64, dy: f64) -> Corners {
        Corners::new(q.map(|(x, y)| (x + dx, y + dy))).unwrap()
    }

    fn look(frame: usize, fps: f64, found: Option<(Corners, f64)>) -> Look {
        Look {
            frame,
            time_s: frame as f64 / fps,
            found: found.map(|(corners, confidence)| Located {
                corners,
                confidence,
            }),
        }
    }

    /// Feeds `found` (one entry per frame of an 8 fps video) through the
    /// sampling as a recorder would; returns the choice and the frames looked at.
    fn run(sampling: Sampling, found: &[Option<(Corners, f64)>]) -> (Option<Choice>, Vec<usize>) {
        let mut a = Across::new(GRID, sampling);
        for (i, f) in found.iter().enumerate() {
            if a.done() {
                break;
            }
            if a.wants(i as f64 / 8.0, 1.0 / 8.0) {
                a.add(look(i, 8.0, *f));
            }
        }
        let looked = a.looks().iter().map(|l| l.frame).collect();
        (a.choice(), looked)
    }

    fn near(c: &Choice, q: [(f64, f64); 4]) -> bool {
        apart_cells(GRID, &c.located.corners, &quad(q, 0.0, 0.0)) < 0.1
    }

    #[test]
    fn placements_a_fraction_of_a_cell_apart_agree_and_a_cell_apart_do_not() {
        let a = quad(WHOLE, 0.0, 0.0);
        assert!(apart_cells(GRID, &a, &quad(WHOLE, 3.0, -4.0)) < 0.25);
        assert!((apart_cells(GRID, &a, &quad(WHOLE, 25.0, 0.0)) - 1.0).abs() < 1e-9);
        assert!(apart_cells(GRID, &a, &quad(HALF, 0.0, 0.0)) >= 4.0 - 1e-9);
        // The same board with another corner named first is the same placement.
        assert!(apart_cells(GRID, &a, &a.rotated(1)) < 1e-9);
        // An oblong grid may not be turned a quarter: its rows would be columns.
        let oblong = GridSpec::cells(4, 8);
        assert!(apart_cells(oblong, &a, &a.rotated(1)) > 1.0);
        assert!(apart_cells(oblong, &a, &a.rotated(2)) < 1e-9);
    }

    #[test]
    fn a_half_board_under_an_arm_loses_to_the_whole_board_seen_more_often() {
        // A camera warming up for a second; then the first frames with a grid
        // have an arm over the board, which comes back later; the whole board
        // shows in the other frames, found a little differently each time.
        let mut found = vec![None; 8];
        for i in 8..48 {
            let arm = i < 14 || (20..24).contains(&i);
            let jitter = (i % 3) as f64 - 1.0;
            found.push(Some(if arm {
                (quad(HALF, jitter, 0.0), 0.33)
            } else {
                (quad(WHOLE, jitter, -jitter), 0.48 + 0.01 * jitter)
            }));
        }
        let (choice, looked) = run(Sampling::VIDEO, &found);
        let c = choice.unwrap();
        assert!(near(&c, WHOLE), "{c:?}");
        // Every 0.5 s while none is found, then every 0.25 s for 3 s from the
        // first grid.
        let want: Vec<usize> = [0, 4].into_iter().chain((8..32).step_by(2)).collect();
        assert_eq!(looked, want);
        assert_eq!((c.looked, c.agreeing, c.elsewhere), (12, 7, 5), "{c:?}");
        assert!(!(8..14).contains(&c.frame) && !(20..24).contains(&c.frame));
        assert_eq!((c.from_s, c.to_s), (1.0, 3.75));
    }

    #[test]
    fn an_arm_resting_over_most_frames_still_loses_to_a_board_seen_whole() {
        // Two frames in three under the arm: frames count, but frames that saw
        // the whole lattice count most.
        let found: Vec<_> = (0..40)
            .map(|i| {
                Some(if i % 3 != 0 {
                    (quad(HALF, 0.0, 0.0), 0.3)
                } else {
                    (quad(WHOLE, 0.0, 0.0), 0.5)
                })
            })
            .collect();
        let c = run(Sampling::VIDEO, &found).0.unwrap();
        assert!(near(&c, WHOLE), "{c:?}");
        assert_eq!((c.agreeing, c.elsewhere), (4, 8), "{c:?}");
    }

    #[test]
    fn a_lone_confident_placement_does_not_beat_a_consistent_one() {
        let mut found = vec![Some((quad(WHOLE, 25.0, 0.0), 0.7))];
        found.extend((1..40).map(|_| Some((quad(WHOLE, 0.0, 0.0), 0.45))));
        let c = run(Sampling::VIDEO, &found).0.unwrap();
        assert!(near(&c, WHOLE), "{c:?}");
        assert_eq!((c.agreeing, c.elsewhere), (11, 1));
        // But a placement seen once is taken when none was seen twice.
        let found = vec![
            Some((quad(WHOLE, 25.0, 0.0), 0.7)),
            None,
            None,
            None,
            Some((quad(WHOLE, 0.0, 0.0), 0.45)),
        ];
        let c = run(Sampling::VIDEO, &found).0.unwrap();
        assert_eq!((c.frame, c.agreeing, c.elsewhere, c.looked), (0, 1, 1, 3));
    }

    #[test]
    fn the_chosen_frame_is_the_first_that_agrees_with_the_best_placement() {
        // A phone drifting slowly: a pixel every frame. The placement seen best
        // (frame 12) decides the group; its first frame gives the grid, the one
        // recording starts nearest to.
        let found: Vec<_> = (0..40)
            .map(|i| {
                let confidence = if i == 12 { 0.55 } else { 0.5 };
                let q = quad(WHOLE, i as f64, 0.0);
                // One frame names another corner first: the same placement.
                Some((if i == 8 { q.rotated(1) } else { q }, confidence))
            })
            .collect();
        let c = run(Sampling::VIDEO, &found).0.unwrap();
        // Frames 0 to 22 looked at; 12 px = 0.48 cell either side of frame 12.
        assert_eq!((c.frame, c.located.confidence), (0, 0.5));
        assert!(near(&c, WHOLE), "{c:?}");
        assert_eq!((c.agreeing, c.elsewhere), (12, 0));
        // Drifting faster, the first frames are more than half a cell from the
        // placement seen best (as are the last): they are other groups, and lose.
        let found: Vec<_> = (0..40)
            .map(|i| {
                let confidence = if i == 12 { 0.55 } else { 0.5 };
                Some((quad(WHOLE, 1.5 * i as f64, 0.0), confidence))
            })
            .collect();
        let c = run(Sampling::VIDEO, &found).0.unwrap();
        assert_eq!((c.frame, c.agreeing, c.elsewhere), (4, 9, 3), "{c:?}");
    }

    #[test]
    fn a_plain_view_settles_early_and_a_doubtful_one_does_not() {
        let clear: Vec<_> = (0..40)
            .map(|_| Some((quad(WHOLE, 0.0, 0.0), 0.8)))
            .collect();
        let (c, looked) = run(Sampling::VIDEO, &clear);
        assert_eq!(looked, vec![0, 2, 4, 6]);
        assert_eq!(c.unwrap().agreeing, SETTLED_FRAMES);
        // The same placement seen with half its lines: the whole span is looked at.
        let dim: Vec<_> = (0..40)
            .map(|_| Some((quad(HALF, 0.0, 0.0), 0.35)))
            .collect();
        let (c, looked) = run(Sampling::VIDEO, &dim);
        assert_eq!(looked.len(), 12);
        assert_eq!(c.unwrap().agreeing, 12);
        // A short clip: what there is.
        let (c, looked) = run(Sampling::VIDEO, &dim[..5]);
        assert_eq!(looked, vec![0, 2, 4]);
        assert_eq!(c.unwrap().looked, 3);
    }

    #[test]
    fn photos_take_the_first_photo_with_a_grid() {
        let found = [
            None,
            Some((quad(HALF, 0.0, 0.0), 0.3)),
            Some((quad(WHOLE, 0.0, 0.0), 0.8)),
        ];
        let mut a = Across::new(GRID, Sampling::PHOTOS);
        for (i, f) in found.iter().enumerate() {
            if a.done() {
                break;
            }
            // Every photo is looked at, at any rate given.
            assert!(a.wants(i as f64 / 25.0, 1.0 / 25.0));
            a.add(look(i, 25.0, *f));
        }
        let c = a.choice().unwrap();
        assert_eq!((c.frame, c.agreeing, c.looked), (1, 1, 1));
        assert!(a.done());
    }

    #[test]
    fn a_search_that_finds_nothing_gives_up_after_its_frames() {
        let (c, looked) = run(Sampling::VIDEO, &vec![None; 400]);
        assert!(c.is_none());
        assert_eq!(looked.len(), Sampling::VIDEO.search_looks);
        assert_eq!(looked[1], 4);
    }
}
