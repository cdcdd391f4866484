//! The Go board as the engine keeps it: a flat array with a one-point border of
//! off-board cells, so that a point's four neighbours are `i - 1`, `i + 1`,
//! `i - STRIDE`, `i + STRIDE` with no bounds test. The stride is fixed by the
//! largest board, whatever the size played, so that every array here has a size
//! known at compile time: nothing is allocated per stone or per move.
//!
//! Legal moves are found from one labelling of the board's groups (each group's
//! liberties counted once), after which each empty point is judged from its four
//! neighbours alone.

use crate::rules::{Side, Square};

/// The largest board: 25 lines, as many columns as letters A-Z without I.
pub(crate) const MAX_SIZE: u8 = 25;
/// Row length of the padded array.
pub(crate) const STRIDE: usize = MAX_SIZE as usize + 2;
/// Cells of the padded array.
pub(crate) const CELLS: usize = STRIDE * STRIDE;

/// What a cell holds. Black and White are 1 and 2 so that `3 - c` is the other.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
const OFF: u8 = 3;

/// The cell value of a side's stones.
pub(crate) fn stone_of(side: Side) -> u8 {
    match side {
        Side::Black => BLACK,
        Side::White => WHITE,
    }
}

/// Random keys per colour and cell, for the positional hash (superko).
static ZOBRIST: [[u64; CELLS]; 2] = zobrist();

const fn zobrist() -> [[u64; CELLS]; 2] {
    let mut t = [[0u64; CELLS]; 2];
    let mut x: u64 = 0x5EED_0F60_B0A2_D000;
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CELLS {
            // splitmix64, written out: a const fn cannot call the crate's.
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            t[c][i] = z ^ (z >> 31);
            i += 1;
        }
        c += 1;
    }
    t
}

fn key(stone: u8, i: usize) -> u64 {
    ZOBRIST[(stone - 1) as usize][i]
}

fn neighbours(i: usize) -> [usize; 4] {
    [i - 1, i + 1, i - STRIDE, i + STRIDE]
}

/// A board of `size` x `size` points and its positional hash.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Board {
    size: u8,
    cells: [u8; CELLS],
    /// Zobrist hash of the stones (not of the side to move).
    hash: u64,
}

/// What playing a stone did: how many stones it took, and the one it took when
/// that was a single stone (a possible ko).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Played {
    pub(crate) taken: usize,
    pub(crate) single: Option<usize>,
}

impl Board {
    /// An empty board; `size` must be 2..=MAX_SIZE (the caller checks).
    pub(crate) fn empty(size: u8) -> Board {
        let mut cells = [OFF; CELLS];
        for r in 0..size as usize {
            for f in 0..size as usize {
                cells[(r + 1) * STRIDE + f + 1] = EMPTY;
            }
        }
        Board {
            size,
            cells,
            hash: 0,
        }
    }

    pub(crate) fn size(&self) -> u8 {
        self.size
    }

    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    /// The cell of a square on the board.
    pub(crate) fn index(&self, sq: Square) -> Option<usize> {
        (sq.file < self.size && sq.rank < self.size)
            .then(|| (sq.rank as usize + 1) * STRIDE + sq.file as usize + 1)
    }

    /// The square of a cell on the board.
    pub(crate) fn square(i: usize) -> Square {
        Square::new((i % STRIDE - 1) as u8, (i / STRIDE - 1) as u8)
    }

    pub(crate) fn get(&self, i: usize) -> u8 {
        self.cells[i]
    }

    /// Every point's cell, rank by rank from a1.
    pub(crate) fn points(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.size as usize;
        (0..n).flat_map(move |r| (0..n).map(move |f| (r + 1) * STRIDE + f + 1))
    }

    /// Puts a stone (or nothing) on a point, keeping the hash.
    pub(crate) fn set(&mut self, i: usize, stone: u8) {
        let old = self.cells[i];
        if old == BLACK || old == WHITE {
            self.hash ^= key(old, i);
        }
        if stone == BLACK || stone == WHITE {
            self.hash ^= key(stone, i);
        }
        self.cells[i] = stone;
    }

    /// Whether the group of the stone on `i` has a liberty.
    pub(crate) fn has_liberty(&self, i: usize) -> bool {
        let colour = self.cells[i];
        let mut seen = [false; CELLS];
        let mut stack = [0u16; CELLS];
        let mut top = 1;
        stack[0] = i as u16;
        seen[i] = true;
        while top > 0 {
            top -= 1;
            for n in neighbours(stack[top] as usize) {
                match self.cells[n] {
                    EMPTY => return true,
                    c if c == colour && !seen[n] => {
                        seen[n] = true;
                        stack[top] = n as u16;
                        top += 1;
                    }
                    _ => {}
                }
            }
        }
        false
    }

    /// Removes the group of the stone on `i`; returns how many stones it had.
    fn remove_group(&mut self, i: usize) -> usize {
        let colour = self.cells[i];
        let mut stack = [0u16; CELLS];
        let mut top = 1;
        stack[0] = i as u16;
        self.set(i, EMPTY);
        let mut removed = 1;
        while top > 0 {
            top -= 1;
            for n in neighbours(stack[top] as usize) {
                if self.cells[n] == colour {
                    self.set(n, EMPTY);
                    removed += 1;
                    stack[top] = n as u16;
                    top += 1;
                }
            }
        }
        removed
    }

    /// Plays a stone of `stone` on the empty point `i` and takes the enemy
    /// groups left without a liberty. Its own group is left as it is, even
    /// without a liberty: the caller has checked (or refuses) suicide.
    pub(crate) fn place(&mut self, i: usize, stone: u8) -> Played {
        self.set(i, stone);
        let enemy = 3 - stone;
        let mut played = Played::default();
        for n in neighbours(i) {
            if self.cells[n] == enemy && !self.has_liberty(n) {
                let taken = self.remove_group(n);
                played.single = (taken == 1 && played.taken == 0).then_some(n);
                played.taken += taken;
            }
        }
        if played.taken != 1 {
            played.single = None;
        }
        played
    }

    /// The stones `place(i, stone)` would take, in cell order (rank by rank).
    pub(crate) fn captures(&self, i: usize, stone: u8) -> Vec<usize> {
        let mut after = *self;
        after.place(i, stone);
        self.points()
            .filter(|&p| self.cells[p] == 3 - stone && after.cells[p] == EMPTY)
            .collect()
    }

    /// Whether the stone on `i` stands alone, with `taken_at` as its only
    /// liberty: after taking the one stone on `taken_at`, the shape of a ko.
    pub(crate) fn is_ko_shape(&self, i: usize, taken_at: usize) -> bool {
        let own = self.cells[i];
        neighbours(i)
            .iter()
            .all(|&n| self.cells[n] != own && (self.cells[n] != EMPTY || n == taken_at))
    }

    /// Whether some group on the board has no liberty (a set-up that is no position).
    pub(crate) fn dead_group(&self) -> Option<usize> {
        self.points()
            .find(|&i| self.cells[i] != EMPTY && !self.has_liberty(i))
    }
}

/// Every group of a board labelled once, with its liberties counted and the
/// hash of its stones, so that each empty point is judged from its neighbours.
pub(crate) struct Groups {
    /// Group of each cell: 0 for none.
    id: [u16; CELLS],
    /// Liberties of each group, by id.
    libs: [u16; CELLS],
    /// Hash of each group's stones, by id.
    keys: [u64; CELLS],
}

impl Groups {
    pub(crate) fn of(board: &Board) -> Groups {
        let mut g = Groups {
            id: [0; CELLS],
            libs: [0; CELLS],
            keys: [0; CELLS],
        };
        // Which group last counted each empty cell as a liberty.
        let mut counted = [0u16; CELLS];
        let mut stack = [0u16; CELLS];
        let mut next = 0u16;
        for start in board.points() {
            let colour = board.cells[start];
            if colour == EMPTY || g.id[start] != 0 {
                continue;
            }
            next += 1;
            let gid = next as usize;
            g.id[start] = next;
            stack[0] = start as u16;
            let mut top = 1;
            while top > 0 {
                top -= 1;
                let here = stack[top] as usize;
                g.keys[gid] ^= key(colour, here);
                for n in neighbours(here) {
                    let c = board.cells[n];
                    if c == EMPTY && counted[n] != next {
                        counted[n] = next;
                        g.libs[gid] += 1;
                    } else if c == colour && g.id[n] == 0 {
                        g.id[n] = next;
                        stack[top] = n as u16;
                        top += 1;
                    }
                }
            }
        }
        g
    }

    /// Whether `stone` may be played on the empty point `i` as far as the board
    /// goes (not suicide), and the hash of the board after it.
    pub(crate) fn judge(&self, board: &Board, i: usize, stone: u8) -> Option<u64> {
        let mut alive = false;
        let mut hash = board.hash ^ key(stone, i);
        let mut taken = [0u16; 4];
        let mut ntaken = 0;
        for n in neighbours(i) {
            let c = board.cells[n];
            if c == EMPTY {
                alive = true;
            } else if c == stone {
                alive |= self.libs[self.id[n] as usize] > 1;
            } else if c != OFF {
                let gid = self.id[n];
                if self.libs[gid as usize] == 1 && !taken[..ntaken].contains(&gid) {
                    taken[ntaken] = gid;
                    ntaken += 1;
                    hash ^= self.keys[gid as usize];
                    alive = true;
                }
            }
        }
        alive.then_some(hash)
    }
}
