//! Integration tests, built as one binary.

mod arbiter;
mod calibrate;
mod capture;
mod classify;
mod cli;
mod clip;
mod clips;
mod event;
mod external;
mod golden;
mod issue22;
mod locate;
mod memory;
mod one_writer;
mod props;
mod real_sets;
mod real_video;
mod record_chess;
mod record_free;
mod record_games;
mod recovery;
mod rectify;
mod refused_inputs;
mod server_load;
mod uncertain;
mod util;
