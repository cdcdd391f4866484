//! `calibrate camera`: a camera profile from photos of a printed checkerboard.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use crate::capture::{read_image, CaptureError};
use crate::geometry::{calibrate, CheckerPattern};

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    #[command(subcommand)]
    pub what: CalibrateWhat,
}

#[derive(Subcommand, Debug)]
pub enum CalibrateWhat {
    /// Measure the lens (focal length, distortion) from photos of a printed checkerboard
    /// and write a camera profile for `--camera`.
    #[command(after_long_help = include_str!("help/calibrate-camera.txt"))]
    Camera(CameraArgs),
    /// Find the board in a photo from the camera as it will film the game, and write
    /// a board profile (grid and corners) for `--profile`, with an overlay to check.
    #[command(after_long_help = include_str!("help/calibrate-board.txt"))]
    Board(BoardProfileArgs),
}

#[derive(Args, Debug)]
pub struct BoardProfileArgs {
    /// A photo of the board, taken with the camera where it will stand.
    pub image: PathBuf,
    /// Grid: 8x8, 9x9, 18x18, 19x19:points, ...
    #[arg(long)]
    pub grid: crate::geometry::GridSpec,
    /// A camera profile to undistort with first (stored in the board profile).
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// The edge on White's side, when known: bottom, top, left or right.
    #[arg(long)]
    pub white: Option<String>,
    /// Name of the profile (default "board"): written to calibration/boards/NAME.toml.
    #[arg(long, default_value = "board")]
    pub name: String,
    /// Where to write the profile instead of calibration/boards/NAME.toml; the
    /// overlay goes beside it as NAME.overlay.png.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CameraArgs {
    /// A folder of photos of the checkerboard, all from this camera at one resolution,
    /// at varied angles and places in the frame (10 to 20 photos).
    #[arg(long)]
    pub images: PathBuf,
    /// Inner corners of the checkerboard, COLSxROWS: 9x6 for a board of 10x7 squares.
    #[arg(long)]
    pub pattern: String,
    /// Side of one printed square in millimetres (only scales the poses; the lens
    /// parameters do not depend on it).
    #[arg(long, default_value_t = 25.0, value_parser = super::values::float_above(0.0, 10_000.0))]
    pub square_mm: f64,
    /// Name of the profile (default "camera"): written to calibration/cameras/NAME.toml.
    #[arg(long, default_value = "camera")]
    pub name: String,
    /// Where to write the profile instead of calibration/cameras/NAME.toml.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also fit k3, the sixth-order radial term (only for very wide or fish-eye-like
    /// lenses; otherwise it trades off against k2 and is held at 0).
    #[arg(long)]
    pub k3: bool,
    /// Write each photo with the corners found drawn on it into this folder.
    #[arg(long)]
    pub draw: Option<PathBuf>,
    /// A note stored in the profile.
    #[arg(long)]
    pub note: Option<String>,
}

pub fn run(a: CalibrateArgs) -> anyhow::Result<()> {
    match a.what {
        CalibrateWhat::Camera(c) => camera(c),
        CalibrateWhat::Board(b) => board(b),
    }
}

fn board(a: BoardProfileArgs) -> anyhow::Result<()> {
    use crate::geometry::{draw_overlay, BoardPose, BoardProfile, Undistorter};
    let grid = a.grid;
    if let Some(w) = &a.white {
        anyhow::ensure!(
            ["bottom", "top", "left", "right"].contains(&w.as_str()),
            "--white '{w}' must be bottom, top, left or right"
        );
    }
    let mut image = read_image(&a.image)?;
    if let Some(c) = &a.camera {
        image = Undistorter::load(c)?
            .undistort(&image)
            .with_context(|| format!("undistorting '{}'", a.image.display()))?;
    }
    let found = crate::locate::locate(&image, grid)
        .with_context(|| format!("locating the board in '{}'", a.image.display()))?;
    let out = match &a.out {
        Some(p) => p.clone(),
        None => {
            anyhow::ensure!(
                safe_name(&a.name),
                "--name '{}' must be letters, digits, '-', '_' or '.'",
                a.name
            );
            PathBuf::from("calibration/boards").join(format!("{}.toml", a.name))
        }
    };
    let overlay = out.with_extension("overlay.png");
    let mut inputs = vec![a.image.as_path()];
    inputs.extend(a.camera.as_deref());
    super::paths::check_outputs(&[("--out", &out), ("the overlay", &overlay)], &inputs)?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create '{}'", dir.display()))?;
    }
    // The camera path is stored relative to the profile's folder, as it is read.
    let camera = a.camera.as_ref().map(|c| {
        let abs = std::fs::canonicalize(c).unwrap_or_else(|_| c.clone());
        let dir = out.parent().and_then(|d| {
            std::fs::canonicalize(if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            })
            .ok()
        });
        dir.and_then(|d| abs.strip_prefix(&d).ok().map(Path::to_path_buf))
            .unwrap_or(abs)
            .display()
            .to_string()
    });
    let profile = BoardProfile {
        grid,
        corners: found.corners,
        white: a.white.clone(),
        camera,
        note: Some(format!(
            "located in {} (confidence {:.2})",
            a.image.display(),
            found.confidence
        )),
    };
    crate::record::write_atomic(&out, &profile.to_toml())
        .with_context(|| format!("cannot write '{}'", out.display()))?;
    let mut drawn = image.clone();
    draw_overlay(&mut drawn, &BoardPose::new(grid, found.corners))?;
    let ok = opencv::imgcodecs::imwrite(overlay.as_path(), &drawn, &opencv::core::Vector::new())
        .unwrap_or(false);
    anyhow::ensure!(ok, "cannot write the overlay '{}'", overlay.display());
    outln!(
        "found the {grid} grid (confidence {:.2}): wrote {}; check the grid drawn in {}, then record with --profile {}",
        found.confidence,
        out.display(),
        overlay.display(),
        out.display()
    );
    Ok(())
}

fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

fn camera(a: CameraArgs) -> anyhow::Result<()> {
    let pattern: CheckerPattern = a.pattern.parse().context("--pattern")?;
    anyhow::ensure!(
        a.square_mm.is_finite() && a.square_mm > 0.0,
        "--square-mm {} must be a positive number of millimetres",
        a.square_mm
    );
    let out = match &a.out {
        Some(p) => p.clone(),
        None => {
            anyhow::ensure!(
                safe_name(&a.name),
                "--name '{}' must be letters, digits, '-', '_' or '.' (it names a file)",
                a.name
            );
            Path::new("calibration/cameras").join(format!("{}.toml", a.name))
        }
    };
    let files = photo_files(&a.images)?;
    // Each photo said as it is looked at; a drawing that fails is the command's error.
    let mut drawn = Ok(());
    let mut seen = |path: &Path, img: &opencv::core::Mat, found: Option<&_>| match found {
        Some(corners) => {
            errln!("{}: found", path.display());
            if let (Some(dir), Ok(())) = (&a.draw, &drawn) {
                drawn = draw(dir, path, img, pattern, corners);
            }
        }
        None => errln!("{}: not found", path.display()),
    };
    let cal = calibrate(&files, pattern, a.square_mm, a.k3, &mut seen)
        .with_context(|| format!("--images '{}'", a.images.display()))?;
    drawn?;
    let mut profile = cal.profile;
    profile.date = Some(crate::record::today());
    profile.note = a.note.clone();
    for (path, rms) in cal.views.iter().zip(&cal.view_rms_px) {
        outln!("{}: reprojection error {rms:.3} px", path.display());
    }
    let p = &profile;
    outln!(
        "{} of {} photos used, {}x{}; RMS reprojection error {:.3} px",
        cal.views.len(),
        files.len(),
        p.size[0],
        p.size[1],
        p.rms_px.unwrap_or(f64::NAN)
    );
    outln!(
        "fx {:.2} fy {:.2} cx {:.2} cy {:.2}; k1 {:.5} k2 {:.5} p1 {:.5} p2 {:.5} k3 {:.5}",
        p.fx,
        p.fy,
        p.cx,
        p.cy,
        p.k1,
        p.k2,
        p.p1,
        p.p2,
        p.k3
    );
    if p.rms_px.is_some_and(|r| r > 1.0) {
        errln!(
            "warning: an RMS error over 1 px suggests bad photos (blur, a board that is not flat): \
             drop the photos with the largest errors above and calibrate again"
        );
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create '{}'", dir.display()))?;
    }
    std::fs::write(&out, profile.to_toml())
        .with_context(|| format!("cannot write '{}'", out.display()))?;
    outln!("camera profile: {}", out.display());
    Ok(())
}

/// The photos in `dir`, in natural order; a clear error when there are none.
fn photo_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !dir.exists() {
        bail!("--images '{}' does not exist", dir.display());
    }
    if !dir.is_dir() {
        bail!(
            "--images '{}' is not a folder (give the folder of checkerboard photos)",
            dir.display()
        );
    }
    crate::capture::photo_files(dir).map_err(|e| match e {
        CaptureError::NoImages(_) => anyhow::anyhow!(
            "--images '{}' holds no photos (looked for .jpg, .jpeg, .png, .bmp, .tif, .tiff, .webp)",
            dir.display()
        ),
        e => e.into(),
    })
}

fn draw(
    dir: &Path,
    photo: &Path,
    img: &opencv::core::Mat,
    pattern: CheckerPattern,
    corners: &opencv::core::Vector<opencv::core::Point2f>,
) -> anyhow::Result<()> {
    let mut view = img.clone();
    opencv::calib3d::draw_chessboard_corners(
        &mut view,
        opencv::core::Size::new(pattern.cols as i32, pattern.rows as i32),
        corners,
        true,
    )?;
    let name = photo
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "photo".into());
    boardscribe_cli::write_image(&dir.join(format!("{name}-corners.png")), &view)
}
