//! Integration tests, built as one binary.

mod capture;
mod cli;
mod rectify;
mod util;
