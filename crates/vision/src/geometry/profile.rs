//! Board profiles: a grid and its corners saved as TOML under `calibration/`, so a
//! fixed camera over a fixed board is set up once.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Corners, GeometryError, GridSpec};

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    grid: String,
    corners: [[f64; 2]; 4],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    camera: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// A board profile as read from TOML. See `calibration/README.md` for the format.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardProfile {
    /// The grid of the board.
    pub grid: GridSpec,
    /// Where the grid's corners are in the camera's picture.
    pub corners: Corners,
    /// The edge on White's side (`bottom`, `top`, `left`, `right`), when known.
    pub white: Option<String>,
    /// A camera profile to undistort with, relative to the board profile's folder.
    pub camera: Option<String>,
    /// The user's note.
    pub note: Option<String>,
}

/// The lens profile a board is seen through: `camera` where one is named, or
/// else the board profile's `camera` (a path relative to the folder of the board
/// profile, read from `profile_file`); None when neither names one.
pub fn lens_profile(
    camera: Option<&Path>,
    profile: Option<&BoardProfile>,
    profile_file: Option<&Path>,
) -> Option<std::path::PathBuf> {
    match (camera, profile) {
        (Some(c), _) => Some(c.to_path_buf()),
        (
            None,
            Some(BoardProfile {
                camera: Some(c), ..
            }),
        ) => {
            let dir = profile_file.and_then(Path::parent).unwrap_or(Path::new(""));
            Some(dir.join(c))
        }
        (None, _) => None,
    }
}

impl BoardProfile {
    /// Reads and checks a board profile file.
    pub fn load(path: &Path) -> Result<BoardProfile, GeometryError> {
        let bad = |why: String| GeometryError::BadProfile {
            path: path.display().to_string(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        BoardProfile::parse(&text).map_err(|e| bad(e.to_string()))
    }

    /// Reads and checks a board profile's TOML text.
    pub fn parse(text: &str) -> Result<BoardProfile, GeometryError> {
        let raw: RawProfile = toml::from_str(text).map_err(|e| GeometryError::BadProfile {
            path: "<text>".into(),
            why: e.message().to_string(),
        })?;
        let grid: GridSpec = raw.grid.parse()?;
        let corners = Corners::new(raw.corners.map(|[x, y]| (x, y)))?;
        if let Some(w) = &raw.white {
            if !["bottom", "top", "left", "right", "auto"].contains(&w.as_str()) {
                return Err(GeometryError::BadProfile {
                    path: "<text>".into(),
                    why: format!("white = '{w}' must be bottom, top, left, right or auto"),
                });
            }
        }
        Ok(BoardProfile {
            grid,
            corners,
            white: raw.white,
            camera: raw.camera,
            note: raw.note,
        })
    }

    /// The profile as TOML, as `load` reads it.
    pub fn to_toml(&self) -> String {
        let raw = RawProfile {
            grid: self.grid.to_string(),
            corners: self.corners.points().map(|(x, y)| [x, y]),
            white: self.white.clone(),
            camera: self.camera.clone(),
            note: self.note.clone(),
        };
        toml::to_string(&raw).expect("a profile always serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_validates() {
        let text = "grid = \"19x19:points\"\ncorners = [[10, 10], [300, 12], [310, 290], [5, 300]]\nwhite = \"bottom\"\n";
        let p = BoardProfile::parse(text).unwrap();
        assert_eq!(p.grid, GridSpec::points(19, 19));
        assert_eq!(BoardProfile::parse(&p.to_toml()).unwrap(), p);
        let bad = "grid = \"8x8\"\ncorners = [[0, 0], [0, 100], [100, 100], [100, 0]]\n";
        assert!(BoardProfile::parse(bad)
            .unwrap_err()
            .to_string()
            .contains("anticlockwise"));
        let typo = "grid = \"8x8\"\ncorner = [[0, 0], [100, 0], [100, 100], [0, 100]]\n";
        assert!(BoardProfile::parse(typo).is_err());
    }

    #[test]
    fn example_profiles_in_the_repository_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../calibration/boards");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                BoardProfile::load(&path).unwrap();
                n += 1;
            }
        }
        assert!(
            n >= 4,
            "expected an example profile per grid kind in {dir:?}"
        );
    }
}
