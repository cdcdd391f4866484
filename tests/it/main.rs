//! Integration tests, built as one binary.

mod capture;
mod cli;
mod clip;
mod clips;
mod external;
mod locate;
mod record_chess;
mod record_games;
mod rectify;
mod util;
