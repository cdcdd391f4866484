//! What the camera saw of a position, in the game's own squares.

use crate::rules::{Occupant, Square};

/// Per-square evidence: probabilities of empty / white / black, or nothing where the
/// square was hidden (a hand over it) or never looked at.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    files: u8,
    ranks: u8,
    probs: Vec<Option<[f32; 3]>>,
    /// Read anew at this view (its image changed, or it was never read): only fresh
    /// readings can contradict an explanation; stale ones were weighed before.
    fresh: Vec<bool>,
    /// How much the square's image changed since the view of the current position,
    /// where a piece's base stands (grey levels); None where unknown or hidden.
    change: Vec<Option<f32>>,
}

impl Observation {
    pub(crate) fn unknown(files: u8, ranks: u8) -> Observation {
        Observation {
            files,
            ranks,
            probs: vec![None; files as usize * ranks as usize],
            fresh: vec![true; files as usize * ranks as usize],
            change: vec![None; files as usize * ranks as usize],
        }
    }

    pub(crate) fn dims(&self) -> (u8, u8) {
        (self.files, self.ranks)
    }

    fn index(&self, sq: Square) -> usize {
        sq.rank as usize * self.files as usize + sq.file as usize
    }

    pub(crate) fn set(&mut self, sq: Square, probs: Option<[f32; 3]>) {
        let i = self.index(sq);
        self.probs[i] = probs;
    }

    /// Marks a reading as carried over from an earlier view (or fresh).
    #[cfg(test)]
    pub(crate) fn set_fresh(&mut self, sq: Square, fresh: bool) {
        let i = self.index(sq);
        self.fresh[i] = fresh;
    }

    pub(crate) fn is_fresh(&self, sq: Square) -> bool {
        self.fresh[self.index(sq)]
    }

    pub(crate) fn get(&self, sq: Square) -> Option<[f32; 3]> {
        self.probs[self.index(sq)]
    }

    /// Sets how much the square's image changed since the view of the current
    /// position (grey levels).
    pub(crate) fn set_change(&mut self, sq: Square, change: Option<f32>) {
        let i = self.index(sq);
        self.change[i] = change;
    }

    pub(crate) fn change(&self, sq: Square) -> Option<f32> {
        self.change[self.index(sq)]
    }

    /// A certain observation of a known occupancy (tests, and photos with known labels).
    pub fn certain(files: u8, ranks: u8, occ: impl Fn(Square) -> Occupant) -> Observation {
        let mut o = Observation::unknown(files, ranks);
        for sq in squares(files, ranks) {
            o.set(sq, Some(one_hot(occ(sq), 0.98)));
        }
        o
    }

    /// The most likely occupant of a square and its probability, when seen.
    pub(crate) fn best(&self, sq: Square) -> Option<(Occupant, f32)> {
        self.get(sq).map(|p| {
            let i = (0..3).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap_or(0);
            (OCCUPANTS[i], p[i])
        })
    }
}

pub(crate) const OCCUPANTS: [Occupant; 3] = [Occupant::Empty, Occupant::White, Occupant::Black];

/// The class index of an occupant in probabilities (empty, white, black).
pub(crate) fn occ_index(o: Occupant) -> usize {
    match o {
        Occupant::Empty => 0,
        Occupant::White => 1,
        Occupant::Black => 2,
    }
}

/// Probabilities that put `p` on one occupant and share the rest.
pub(crate) fn one_hot(o: Occupant, p: f32) -> [f32; 3] {
    let mut v = [(1.0 - p) / 2.0; 3];
    v[occ_index(o)] = p;
    v
}

/// Every square of a board, rank by rank from a1.
pub fn squares(files: u8, ranks: u8) -> impl Iterator<Item = Square> {
    (0..ranks).flat_map(move |r| (0..files).map(move |f| Square::new(f, r)))
}

/// An occupancy packed two bits a square, for hashing: the searches look up
/// tens of thousands of occupancies a view, and hashing a whole vector of them
/// was a third of a recording's time. Exact for boards of up to 96 squares;
/// larger ones (a Go board's 361 points) are packed whole and mixed into the
/// three words, since folding them would make a stone on one point and a stone
/// 96 points on the same key, and the searches would merge different boards.
pub(crate) fn occ_key(occ: &[Occupant]) -> [u64; 3] {
    let value = |o: &Occupant| match o {
        Occupant::Empty => 0u64,
        Occupant::White => 1,
        Occupant::Black => 2,
    };
    let mut k = [0u64; 3];
    if occ.len() <= 96 {
        for (i, o) in occ.iter().enumerate() {
            k[i / 32] |= value(o) << (2 * (i % 32));
        }
        return k;
    }
    let mut seeds = [
        0x243F_6A88_85A3_08D3u64,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
    ];
    for chunk in occ.chunks(32) {
        let mut word = 0u64;
        for (i, o) in chunk.iter().enumerate() {
            word |= value(o) << (2 * i);
        }
        for (h, seed) in k.iter_mut().zip(seeds.iter_mut()) {
            let mut x = *h ^ word ^ *seed;
            *h = crate::rng::splitmix64(&mut x);
            *seed = x;
        }
    }
    k
}
