//! JSON ground-truth label of a rendered image.

use serde::{Deserialize, Serialize};

use super::{BoardState, PieceSide, Rendered};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Label {
    /// "8x8" or "19x19:points".
    pub grid: String,
    /// TL, TR, BR, BL in pixels (see `Rendered::corners`).
    pub corners: [[f64; 2]; 4],
    /// Per row: ".", "w" or "b".
    pub cells: Vec<Vec<String>>,
    /// Per row: piece kind name, "" for empty.
    pub kinds: Vec<Vec<String>>,
    /// Per row: cell centre hidden by the hand or arm.
    pub occluded: Vec<Vec<bool>>,
    pub hand: bool,
    pub seed: u64,
}

impl Label {
    pub fn new(state: &BoardState, r: &Rendered, seed: u64) -> Label {
        let cols = state.cols.max(1);
        let rows_of = |f: &dyn Fn(usize) -> String| -> Vec<Vec<String>> {
            (0..state.rows)
                .map(|row| (0..state.cols).map(|c| f(row * cols + c)).collect())
                .collect()
        };
        let cells = rows_of(&|i| match state.cells.get(i).copied().flatten() {
            None => ".".into(),
            Some(p) if p.side == PieceSide::White => "w".into(),
            Some(_) => "b".into(),
        });
        let kinds = rows_of(&|i| {
            state
                .cells
                .get(i)
                .copied()
                .flatten()
                .map(|p| p.kind.name().to_string())
                .unwrap_or_default()
        });
        let occluded = (0..state.rows)
            .map(|row| {
                (0..state.cols)
                    .map(|c| r.occluded.get(row * cols + c).copied().unwrap_or(false))
                    .collect()
            })
            .collect();
        Label {
            grid: state.grid_spec(),
            corners: r.corners,
            cells,
            kinds,
            occluded,
            hand: r.hand_occludes,
            seed,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
