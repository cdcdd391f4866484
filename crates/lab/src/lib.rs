//! boardscribe's lab: what builds and checks the product, no part of it.
//!
//! ```text
//! synth     the renderer: boards, pieces, hands, light and cameras; clips with exact truth
//! sets      the labelled photo sets, rendered and real, and their measures
//! ```
//!
//! The library reports and returns; the `boardscribe-lab` binary (`src/main.rs`,
//! `src/commands/`) prints.

// The other crates' modules under the names the lab uses (`crate::rules`, ...).
use boardscribe_core::{infer, record, rules};
use boardscribe_rng as rng;
use boardscribe_vision::{capture, geometry, locate};

pub mod cputime;
pub mod export;
pub mod memory;
pub mod mjpeg;
pub mod sets;
pub mod synth;
