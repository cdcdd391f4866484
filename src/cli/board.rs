//! The flags that place a board in the image: `--grid`, `--corners`, `--profile`, and
//! `--camera`, the lens profile that undistorts every frame before anything else.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;

use crate::capture::read_image;
use crate::geometry::{lens_profile, BoardPose, BoardProfile, Corners, GridSpec, Undistorter};
use crate::pipeline::Placement;

#[derive(Args, Debug, Clone, Default)]
pub struct BoardArgs {
    /// Grid: 8x8, 9x9, 18x18, any RxC from 2 to 25 cells, or RxC:points for pieces on
    /// line crossings (19x19:points is a Go board). `record` takes the game's own
    /// grid when none is given (8x8 for chess and draughts, 9x9 for Tablut).
    #[arg(long)]
    pub grid: Option<GridSpec>,
    /// The grid's corners in image pixels, TL TR BR BL: "x,y x,y x,y x,y".
    #[arg(long, allow_hyphen_values = true)]
    pub corners: Option<Corners>,
    /// A board profile (TOML) holding grid and corners; flags given beside it win.
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// A camera profile (TOML, from `calibrate camera`): every frame is undistorted with
    /// it first, and corners are in the undistorted frame. Default: the board profile's
    /// `camera`, when it names one.
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// The grid when neither --grid nor the profile gives one (the game's own).
    #[arg(skip)]
    pub default_grid: Option<GridSpec>,
}

impl BoardArgs {
    /// The profile, when one was named.
    pub fn load_profile(&self) -> anyhow::Result<Option<BoardProfile>> {
        self.profile
            .as_ref()
            .map(|p| BoardProfile::load(p).map_err(anyhow::Error::from))
            .transpose()
    }

    pub fn grid(&self, profile: Option<&BoardProfile>) -> anyhow::Result<GridSpec> {
        match (&self.grid, profile, self.default_grid) {
            (Some(g), _, _) => Ok(*g),
            (None, Some(p), _) => Ok(p.grid),
            (None, None, Some(g)) => Ok(g),
            (None, None, None) => Err(boardscribe_cli::usage!(
                "no grid given: use --grid (such as 8x8) or --profile"
            )),
        }
    }

    /// Corners from `--corners` or the profile; `None` when neither gives them.
    pub fn corners(&self, profile: Option<&BoardProfile>) -> anyhow::Result<Option<Corners>> {
        match (&self.corners, profile) {
            (Some(c), _) => Ok(Some(*c)),
            (None, Some(p)) => Ok(Some(p.corners)),
            (None, None) => Ok(None),
        }
    }

    /// Grid and corners, both required.
    pub fn pose(&self) -> anyhow::Result<BoardPose> {
        let profile = self.load_profile()?;
        let grid = self.grid(profile.as_ref())?;
        let corners = self.corners(profile.as_ref())?.ok_or_else(|| {
            anyhow::anyhow!(
                "no corners given: use --corners \"x,y x,y x,y x,y\" (TL TR BR BL) or --profile"
            )
        })?;
        Ok(BoardPose::new(grid, corners))
    }

    /// Grid and corners: the corners given, or else the grid found in `image` (named
    /// `what` in messages) by automatic location.
    pub fn pose_in(&self, image: &opencv::core::Mat, what: &str) -> anyhow::Result<BoardPose> {
        let profile = self.load_profile()?;
        let grid = self.grid(profile.as_ref())?;
        if let Some(c) = self.corners(profile.as_ref())? {
            let pose = BoardPose::new(grid, c);
            // Corners that put the whole board outside the image (a typo,
            // corners of another photo's size) are refused.
            crate::pipeline::check_in_image(&pose, image, what)?;
            return Ok(pose);
        }
        let found = crate::locate::locate(image, grid)
            .with_context(|| format!("no --corners given, and locating the board in {what}"))?;
        errln!(
            "found the {grid} grid in {what}: --corners \"{:.1}\" (confidence {:.2})",
            found.corners,
            found.confidence
        );
        Ok(BoardPose::new(grid, found.corners))
    }

    /// Whether the corners must be found (none given by flag or profile).
    pub fn needs_locating(&self) -> anyhow::Result<bool> {
        let profile = self.load_profile()?;
        Ok(self.corners(profile.as_ref())?.is_none())
    }

    /// The corners given, or else the grid to find.
    pub fn placement(&self) -> anyhow::Result<Placement> {
        if self.needs_locating()? {
            let profile = self.load_profile()?;
            return Ok(Placement::Locate(self.grid(profile.as_ref())?));
        }
        Ok(Placement::Given(self.pose()?))
    }

    /// The lens undistortion from `--camera`, or else from the board profile's `camera`
    /// (a path relative to the board profile's folder); `None` when neither names one.
    pub fn undistorter(&self) -> anyhow::Result<Option<Undistorter>> {
        let profile = self.load_profile()?;
        let path = lens_profile(
            self.camera.as_deref(),
            profile.as_ref(),
            self.profile.as_deref(),
        );
        Ok(path.map(|p| Undistorter::load(&p)).transpose()?)
    }
}

/// The first frame of a video file.
fn first_frame(path: &Path) -> anyhow::Result<opencv::core::Mat> {
    // By its path, not its name as text: a name that is not UTF-8 is still the file's.
    let mut source = crate::capture::open_path(path, Default::default())?;
    match source.next() {
        Some(frame) => Ok(frame?.image),
        None => bail!("video '{}' has no frame", path.display()),
    }
}

/// Reads an image (a photo, or a video's first frame), undistorted when a lens
/// profile is given.
pub fn read_frame(
    path: &Path,
    lens: Option<&mut Undistorter>,
) -> anyhow::Result<opencv::core::Mat> {
    let image = if path.is_file() && !crate::capture::is_image_path(path) {
        first_frame(path)?
    } else {
        read_image(path)?
    };
    match lens {
        Some(u) => u
            .undistort(&image)
            .with_context(|| format!("undistorting '{}'", path.display())),
        None => Ok(image),
    }
}
