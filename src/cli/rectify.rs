use std::path::PathBuf;

use boardscribe_cli::write_image;
use clap::Args;

use super::board::read_frame;
use super::BoardArgs;
use crate::geometry::{draw_overlay, draw_rectified_grid, rectify, RectifyLayout};

#[derive(Args, Debug)]
pub struct RectifyArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// The camera image (a photo, or a video whose first frame is used).
    pub image: PathBuf,
    /// Where to write the rectified board (PNG or JPEG), with the grid drawn.
    #[arg(short = 'o', long = "out")]
    pub out: PathBuf,
    /// Also write the camera image with the cell grid projected onto it.
    #[arg(long)]
    pub overlay: Option<PathBuf>,
    /// Pixels per cell in the rectified image.
    #[arg(long, default_value_t = 48)]
    pub cell_px: u32,
    /// Margin around the grid, in cells.
    #[arg(long, default_value_t = 0.5)]
    pub margin: f64,
    /// Leave the grid lines off the rectified image.
    #[arg(long)]
    pub no_grid: bool,
}

pub fn run(a: RectifyArgs) -> anyhow::Result<()> {
    let layout = layout(a.cell_px, a.margin)?;
    let mut outputs = vec![("-o", a.out.as_path())];
    if let Some(o) = &a.overlay {
        outputs.push(("--overlay", o.as_path()));
    }
    let mut inputs = vec![a.image.as_path()];
    inputs.extend(a.board.profile.as_deref());
    inputs.extend(a.board.camera.as_deref());
    super::paths::check_outputs(&outputs, &inputs)?;
    let mut lens = a.board.undistorter()?;
    let image = read_frame(&a.image, lens.as_mut())?;
    let pose = a
        .board
        .pose_in(&image, &format!("'{}'", a.image.display()))?;
    let written = rectify_to_files(
        &image,
        &pose,
        &layout,
        &a.out,
        a.overlay.as_deref(),
        !a.no_grid,
    )?;
    for w in written {
        outln!("{w}");
    }
    Ok(())
}

pub(super) fn layout(cell_px: u32, margin: f64) -> anyhow::Result<RectifyLayout> {
    anyhow::ensure!(
        (8..=256).contains(&cell_px),
        "--cell-px {cell_px} is out of range (8 to 256)"
    );
    anyhow::ensure!(
        (0.0..=3.0).contains(&margin),
        "--margin {margin} is out of range (0 to 3 cells)"
    );
    Ok(RectifyLayout::new(cell_px, margin))
}

/// Writes the rectified board and, optionally, the overlay; returns what was written.
pub(super) fn rectify_to_files(
    image: &opencv::core::Mat,
    pose: &crate::geometry::BoardPose,
    layout: &RectifyLayout,
    out: &std::path::Path,
    overlay: Option<&std::path::Path>,
    grid_lines: bool,
) -> anyhow::Result<Vec<String>> {
    let mut top = rectify(image, pose, layout)?;
    if grid_lines {
        draw_rectified_grid(&mut top, pose, layout)?;
    }
    let mut written = vec![];
    write_image(out, &top)?;
    written.push(format!("rectified board: {}", out.display()));
    if let Some(path) = overlay {
        let mut view = image.clone();
        draw_overlay(&mut view, pose)?;
        write_image(path, &view)?;
        written.push(format!("overlay: {}", path.display()));
    }
    Ok(written)
}
