//! Integration tests, built as one binary.

mod capture;
mod cli;
mod clips;
mod record_chess;
mod rectify;
mod util;
