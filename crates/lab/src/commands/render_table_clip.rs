//! `render table --clip`: the games of a table played at once, each at its own
//! pace with its own players' hands, filmed by one camera.

use std::path::Path;

use super::render_table::TableArgs;
use crate::synth::table::TableParams;

pub fn run(_out: &Path, _tp: &TableParams, _a: &TableArgs, _plies: usize) -> anyhow::Result<()> {
    anyhow::bail!("--clip is not ready yet")
}
