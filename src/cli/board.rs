//! The flags that place a board in the image: `--grid`, `--corners`, `--profile`.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use crate::geometry::{BoardPose, BoardProfile, Corners, GridSpec};

#[derive(Args, Debug, Clone, Default)]
pub struct BoardArgs {
    /// Grid: 8x8, 9x9, 18x18, any RxC from 2 to 25 cells, or RxC:points for pieces on
    /// line crossings (19x19:points is a Go board).
    #[arg(long)]
    pub grid: Option<String>,
    /// The grid's corners in image pixels, TL TR BR BL: "x,y x,y x,y x,y".
    #[arg(long, allow_hyphen_values = true)]
    pub corners: Option<String>,
    /// A board profile (TOML) holding grid and corners; flags given beside it win.
    #[arg(long)]
    pub profile: Option<PathBuf>,
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
        match (&self.grid, profile) {
            (Some(g), _) => Ok(g.parse::<GridSpec>()?),
            (None, Some(p)) => Ok(p.grid),
            (None, None) => bail!("no grid given: use --grid (such as 8x8) or --profile"),
        }
    }

    /// Corners from `--corners` or the profile; `None` when neither gives them.
    pub fn corners(&self, profile: Option<&BoardProfile>) -> anyhow::Result<Option<Corners>> {
        match (&self.corners, profile) {
            (Some(c), _) => Ok(Some(c.parse::<Corners>().context("--corners")?)),
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
}
