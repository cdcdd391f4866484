//! Sites the classifier keeps misreading the same way: a grey square taken for a
//! black piece, a pale pawn on dark wood taken for an empty square. Once the
//! position is known to contradict such a reading, the site carries no evidence
//! for as long as it keeps showing that same wrong label under the same occupant;
//! re-reading it (new light, a small camera shift) does not make it evidence again.
//! Without this memory every fresh view of a board with a few steady misreads looks
//! like a change that no legal move explains.

use super::observation::{occ_index, squares};
use super::sites::{SiteMap, SiteProbs};
use crate::rules::{Occupant, Rules};

/// A steady misread: the class the site shows (0 empty, 1 white, 2 black) and the
/// occupant it really holds.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Misread {
    shows: usize,
    holds: Occupant,
}

/// The class a visible site's reading favours.
fn shown(p: &SiteProbs) -> Option<usize> {
    p.map(|p| (0..3).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap_or(0))
}

/// Sites the classifier keeps misreading the same way: no evidence while they show
/// that same wrong label under the same occupant.
pub struct Suspects {
    sites: Vec<Option<Misread>>,
}

impl Suspects {
    /// No suspects among `sites` sites.
    pub fn new(sites: usize) -> Suspects {
        Suspects {
            sites: vec![None; sites],
        }
    }

    /// Per site, whether its reading is to be ignored.
    pub fn mask(&self) -> Vec<bool> {
        self.sites.iter().map(Option::is_some).collect()
    }

    /// Forgets the sites read anew at this view that no longer show their misread
    /// label: something changed there, so the reading is evidence again.
    pub fn review(&mut self, readings: &[SiteProbs], read_now: &[bool]) {
        for (i, s) in self.sites.iter_mut().enumerate() {
            // A site read anew as hidden changed too: a hand was over it.
            let changed = s.as_ref().is_some_and(|m| {
                read_now.get(i).copied().unwrap_or(false)
                    && readings.get(i).and_then(shown) != Some(m.shows)
            });
            if changed {
                *s = None;
            }
        }
    }

    /// Marks the sites whose visible reading contradicts `game`'s position (known,
    /// or just accepted as what the board shows), stale readings included: they
    /// weigh in every explanation until re-read. Forgets the marks of sites whose
    /// occupant is no longer the one they were misread with.
    pub fn mark<R: Rules>(&mut self, game: &R, map: &SiteMap, readings: &[SiteProbs]) {
        for sq in squares(map.files, map.ranks) {
            let i = map.site(sq);
            let holds = game.occupant(sq);
            if self.sites[i].is_some_and(|m| m.holds != holds) {
                self.sites[i] = None;
            }
            let Some(shows) = readings.get(i).and_then(shown) else {
                continue;
            };
            if shows != occ_index(holds) {
                self.sites[i] = Some(Misread { shows, holds });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::WhiteSide;
    use crate::rules::chess::Chess;

    fn reading(label: char) -> SiteProbs {
        let i = ".wb".find(label).unwrap_or(0);
        let mut probs = [0.01; 3];
        probs[i] = 0.98;
        Some(probs)
    }

    /// The start position as read, White at the bottom, with some sites read as given.
    fn start_readings(wrong: &[(usize, char)]) -> Vec<SiteProbs> {
        let mut v: Vec<_> = (0..64)
            .map(|i| match i / 8 {
                0 | 1 => reading('b'),
                6 | 7 => reading('w'),
                _ => reading('.'),
            })
            .collect();
        for &(i, l) in wrong {
            v[i] = reading(l);
        }
        v
    }

    #[test]
    fn a_steady_misread_stays_ignored_until_its_label_or_occupant_changes() {
        let mut game = Chess::new();
        let b2 = 6 * 8 + 1; // row 6, column 1: b2 with White at the bottom
        let e4 = 4 * 8 + 4;
        let map = SiteMap::for_game(&game, WhiteSide::Bottom, 8, 8).unwrap();
        let mut s = Suspects::new(64);
        let readings = start_readings(&[(b2, '.'), (e4, 'b')]);
        s.mark(&game, &map, &readings);
        let marked: Vec<usize> = (0..64).filter(|&i| s.mask()[i]).collect();
        assert_eq!(marked, vec![e4, b2]);
        // Read again with the same wrong labels (new light): still ignored.
        s.review(&readings, &[true; 64]);
        assert_eq!(s.mask().iter().filter(|&&m| m).count(), 2);
        // b2 now shows its pawn: evidence again.
        let fixed = start_readings(&[(e4, 'b')]);
        s.review(&fixed, &[true; 64]);
        assert!(!s.mask()[b2] && s.mask()[e4]);
        // A stale reading is not reviewed: e4 stays ignored while not read anew.
        s.review(&start_readings(&[]), &[false; 64]);
        assert!(s.mask()[e4]);
        // White plays e4: the site's occupant changed, so the old misread is
        // forgotten; read as white under the pawn, it is evidence again.
        game.play_uci("e2e4").unwrap();
        let mut after = start_readings(&[(e4, 'w')]);
        after[6 * 8 + 4] = reading('.');
        s.mark(&game, &map, &after);
        assert!(!s.mask()[e4]);
        // Still read as black under the pawn, it is a new misread.
        after[e4] = reading('b');
        s.mark(&game, &map, &after);
        assert!(s.mask()[e4]);
    }
}
