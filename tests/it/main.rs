//! Integration tests, built as one binary.

mod calibrate;
mod capture;
mod classify;
mod cli;
mod clip;
mod clips;
mod external;
mod locate;
mod memory;
mod real_sets;
mod record_chess;
mod record_free;
mod record_games;
mod rectify;
mod util;
