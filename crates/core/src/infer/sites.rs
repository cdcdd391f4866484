//! The map between a game's squares and the grid's sites: where White sits, the
//! grid's shape and the game's board size. Readings arrive per site (row-major, as
//! the camera sees the grid); inference works in squares.

use super::observation::{occ_index, squares, Observation};
use super::orientation::WhiteSide;
use crate::rules::{Rules, Square};

/// What one site shows, as inference needs it: the probabilities of empty, white
/// and black when it is visible, None when hidden by a hand or never read.
pub type SiteProbs = Option<[f32; 3]>;

/// Game squares to grid sites for one orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteMap {
    /// The edge of the picture White's side is at.
    pub side: WhiteSide,
    pub(crate) rows: u32,
    /// Columns of the grid.
    pub cols: u32,
    pub(crate) files: u8,
    pub(crate) ranks: u8,
}

impl SiteMap {
    /// The map for a game of `files` x `ranks` on a grid of `rows` x `cols` sites
    /// with White at `side`; None when the grid does not have the game's shape in
    /// that orientation.
    pub fn new(side: WhiteSide, rows: u32, cols: u32, files: u8, ranks: u8) -> Option<SiteMap> {
        (side.grid_shape(files, ranks) == (rows, cols)).then_some(SiteMap {
            side,
            rows,
            cols,
            files,
            ranks,
        })
    }

    /// The map for `game` on a grid, if it fits.
    #[cfg(test)]
    pub(crate) fn for_game<R: Rules>(
        game: &R,
        side: WhiteSide,
        rows: u32,
        cols: u32,
    ) -> Option<SiteMap> {
        let (files, ranks) = game.dims();
        SiteMap::new(side, rows, cols, files, ranks)
    }

    /// The orientations in which a game of `files` x `ranks` fits the grid.
    pub fn all(rows: u32, cols: u32, files: u8, ranks: u8) -> impl Iterator<Item = SiteMap> {
        WhiteSide::ALL
            .into_iter()
            .filter_map(move |s| SiteMap::new(s, rows, cols, files, ranks))
    }

    pub(crate) fn len(&self) -> usize {
        (self.rows * self.cols) as usize
    }

    /// The site index (row-major) of a square.
    pub(crate) fn site(&self, sq: Square) -> usize {
        let (r, c) = self.side.site(sq, self.rows, self.cols);
        (r * self.cols + c) as usize
    }

    /// The square at a site index.
    #[cfg(test)]
    pub(crate) fn square(&self, site: usize) -> Square {
        let (r, c) = (site as u32 / self.cols, site as u32 % self.cols);
        self.side.square(r, c, self.files, self.ranks)
    }

    /// Per-site readings as evidence in game squares; sites flagged in `ignore`
    /// (steady misreads) carry none, nor do hidden ones.
    pub fn observation(&self, probs: &[SiteProbs], ignore: &[bool]) -> Observation {
        let mut obs = Observation::unknown(self.files, self.ranks);
        for sq in squares(self.files, self.ranks) {
            let i = self.site(sq);
            let p = probs
                .get(i)
                .copied()
                .flatten()
                .filter(|_| !ignore.get(i).copied().unwrap_or(false));
            obs.set(sq, p);
        }
        obs
    }

    /// Adds per-site image changes (None where unknown or hidden) to an
    /// observation.
    pub fn add_changes(&self, obs: &mut Observation, change: &[Option<f32>]) {
        for sq in squares(self.files, self.ranks) {
            obs.set_change(sq, change.get(self.site(sq)).copied().flatten());
        }
    }

    /// Per site, the class index (0 empty, 1 white, 2 black) of `game`'s occupant.
    pub fn labels<R: Rules>(&self, game: &R) -> Vec<usize> {
        let mut out = vec![0usize; self.len()];
        for sq in squares(self.files, self.ranks) {
            out[self.site(sq)] = occ_index(game.occupant(sq));
        }
        out
    }

    /// Per site, whether `game` lets a piece stand on it (draughts: dark squares).
    pub fn playable<R: Rules>(&self, game: &R) -> Vec<bool> {
        let mut out = vec![false; self.len()];
        for sq in squares(self.files, self.ranks) {
            out[self.site(sq)] = game.is_playable(sq);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::chess::Chess;
    use crate::rules::tablut::{Tablut, TablutOptions};

    #[test]
    fn a_grid_of_the_wrong_shape_has_no_map() {
        let t = Tablut::new(TablutOptions::default());
        assert!(SiteMap::for_game(&t, WhiteSide::Bottom, 8, 8).is_none());
        assert!(SiteMap::for_game(&t, WhiteSide::Left, 8, 9).is_none());
        assert!(SiteMap::for_game(&Chess::new(), WhiteSide::Top, 7, 7).is_none());
        assert_eq!(SiteMap::all(8, 9, 8, 9).count(), 2);
    }

    #[test]
    fn labels_put_white_at_its_edge() {
        let m = SiteMap::for_game(&Chess::new(), WhiteSide::Bottom, 8, 8).unwrap();
        let l = m.labels(&Chess::new());
        assert_eq!(&l[..8], &[2; 8]);
        assert_eq!(&l[56..], &[1; 8]);
        assert_eq!(m.square(56), Square::new(0, 0));
        let right = SiteMap::for_game(&Chess::new(), WhiteSide::Right, 8, 8).unwrap();
        // White on the right: the a1 rook at the bottom-right site.
        assert_eq!(right.site(Square::new(0, 0)), 63);
        assert_eq!(right.labels(&Chess::new())[63], 1);
    }
}
