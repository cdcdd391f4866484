//! Where a board's entry puts the board in its camera's picture, and the lens it
//! is seen through: its `grid`, `corners`, `profile` and `camera`, read as
//! `record` reads the same flags (a key given wins over the profile; the game's
//! own grid when neither gives one).

use super::error::said;
use super::file::{BadValue, BoardSpec};
use crate::geometry::{
    lens_profile, BoardPose, BoardProfile, Corners, GeometryError, GridSpec, Undistorter,
};
use crate::pipeline::Placement;

/// Where a board is and the lens it is seen through, as its entry's profiles
/// and keys say.
pub(crate) struct BoardSetup {
    /// The corners given, or the grid to find.
    pub(crate) placement: Placement,
    /// The camera profile's undistortion, when one is named.
    pub(crate) lens: Option<Undistorter>,
}

/// Why a board's entry places no board: a value that does not read (checked when
/// the round file was read, so only a file changed since), or a profile that
/// cannot be read now.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlaceError {
    /// `grid` or `corners` do not read.
    #[error("board {0}: {1}")]
    Value(u32, String),
    /// The board or camera profile cannot be read.
    #[error(transparent)]
    Profile(#[from] GeometryError),
}

impl BoardSpec {
    /// The entry's `grid` and `corners`, parsed.
    fn grid_and_corners(&self) -> Result<(Option<GridSpec>, Option<Corners>), PlaceError> {
        let bad = |e: &dyn std::fmt::Display| PlaceError::Value(self.number, e.to_string());
        let grid = self
            .grid
            .as_deref()
            .map(str::parse::<GridSpec>)
            .transpose()
            .map_err(|e| bad(&e))?;
        let corners = self
            .corners
            .as_deref()
            .map(str::parse::<Corners>)
            .transpose()
            .map_err(|e| bad(&e))?;
        Ok((grid, corners))
    }

    /// The board profile, when the entry names one.
    fn load_profile(&self) -> Result<Option<BoardProfile>, GeometryError> {
        self.profile.as_deref().map(BoardProfile::load).transpose()
    }

    /// The game's own grid, for an entry and a profile that give none.
    fn default_grid(&self) -> Result<GridSpec, PlaceError> {
        self.game()
            .default_grid()
            .parse::<GridSpec>()
            .map_err(|e| PlaceError::Value(self.number, e.to_string()))
    }

    /// Whether the board's sites are the crossings of its lines (Go), by its
    /// grid: the entry's, its profile's or its game's.
    pub(crate) fn on_points(&self) -> Result<bool, PlaceError> {
        let (grid, _) = self.grid_and_corners()?;
        Ok(self.grid_of(grid, &self.load_profile()?)?.points)
    }

    /// The grid the entry gives, else its profile's, else its game's.
    fn grid_of(
        &self,
        grid: Option<GridSpec>,
        profile: &Option<BoardProfile>,
    ) -> Result<GridSpec, PlaceError> {
        Ok(match (grid, profile) {
            (Some(g), _) => g,
            (None, Some(p)) => p.grid,
            (None, None) => self.default_grid()?,
        })
    }

    /// The corners given (by the entry or its profile), or else the grid to find.
    fn placement(&self) -> Result<Placement, PlaceError> {
        let (grid, corners) = self.grid_and_corners()?;
        let profile = self.load_profile()?;
        let grid = self.grid_of(grid, &profile)?;
        // One of several boards in a view: found among them, by its number.
        if let Some(n) = self.region {
            return Ok(Placement::OneOf {
                grid,
                board: n as usize,
            });
        }
        Ok(match corners.or(profile.map(|p| p.corners)) {
            Some(c) => Placement::Given(BoardPose::new(grid, c)),
            None => Placement::Locate(grid),
        })
    }

    /// The lens undistortion from `camera`, or else from the board profile's
    /// `camera` (a path relative to the board profile's folder); None when
    /// neither names one.
    fn lens(&self) -> Result<Option<Undistorter>, GeometryError> {
        let profile = self.load_profile()?;
        let path = lens_profile(
            self.camera.as_deref(),
            profile.as_ref(),
            self.profile.as_deref(),
        );
        path.map(|p| Undistorter::load(&p)).transpose()
    }

    /// Where the board is and its lens, its profiles read now.
    pub(crate) fn board_setup(&self) -> Result<BoardSetup, PlaceError> {
        let placement = self.placement()?;
        Ok(BoardSetup {
            placement,
            lens: self.lens()?,
        })
    }

    /// What the entry's profiles say, checked as `record` checks them before it
    /// records: the board and camera profiles read, the profile's grid the game's.
    pub(crate) fn check_profiles(&self) -> Vec<BadValue> {
        let mut bad = Vec::new();
        let mut refuse = |key: &'static str, why: String, usage: bool| {
            bad.push(BadValue {
                board: self.number,
                key,
                why,
                usage,
            })
        };
        if self.grid_and_corners().is_err() {
            // Grid and corners were checked with the file.
            return bad;
        }
        match self.load_profile() {
            Err(e) => refuse("profile", said(&e), false),
            Ok(profile) => {
                if let (Some(p), None) = (&profile, &self.grid) {
                    let game = self.game();
                    if !game.plays_on(&p.grid.to_string()) {
                        let why = format!(
                            "its grid is {}, but {} is played on a {} grid",
                            p.grid,
                            game.name(),
                            game.default_grid()
                        );
                        refuse("profile", why, true);
                    }
                }
                if let Err(e) = self.lens() {
                    refuse("camera", said(&e), false);
                }
            }
        }
        bad
    }
}
