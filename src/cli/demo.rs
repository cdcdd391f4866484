use std::path::PathBuf;

use clap::Args;

use crate::geometry::{perspective_test_card, BoardPose, Corners, GridSpec};

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Folder for the demo's output.
    #[arg(long, default_value = "out/demo")]
    pub out: PathBuf,
}

pub fn run(a: DemoArgs) -> anyhow::Result<()> {
    let grid = GridSpec::cells(8, 8);
    let corners: Corners = "152,88 508,112 574,430 84,402".parse()?;
    let pose = BoardPose::new(grid, corners);
    let camera = perspective_test_card(&pose, (640, 480))?;
    let view = a.out.join("camera-view.png");
    super::rectify::write_image(&view, &camera)?;
    println!("camera view (made for the demo): {}", view.display());
    let layout = super::rectify::layout(48, 0.5)?;
    for line in super::rectify::rectify_to_files(
        &camera,
        &pose,
        &layout,
        &a.out.join("rectified.png"),
        Some(&a.out.join("overlay.png")),
        true,
    )? {
        println!("{line}");
    }
    Ok(())
}
