//! boardscribe's lab: what builds and checks the product, no part of it.
//!
//! ```text
//! synth     the renderer: boards, pieces, hands, light and cameras; clips with exact truth
//! sets      the labelled photo sets, rendered and real, and their measures
//! commands  the `boardscribe-lab` binary's commands: bench, eval, render, dataset, demo
//! ```

#[macro_use]
extern crate boardscribe_cli;

// The other crates' modules under the names the lab uses (`crate::rules`, ...).
use boardscribe_core::{infer, record, rng, rules};
use boardscribe_vision::{capture, classify, geometry, locate, pipeline, track};

pub mod commands;
pub mod cputime;
pub mod sets;
pub mod synth;
