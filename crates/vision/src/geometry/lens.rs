//! Lens calibration: a camera profile (intrinsics and distortion, measured from photos of
//! a printed checkerboard with OpenCV's calibration) saved as TOML under `calibration/`,
//! and the undistortion applied to every frame before anything else looks at it.
//!
//! The model is OpenCV's: an undistorted normalised point (x, y) moves to
//! (x, y) * (1 + k1 r^2 + k2 r^4 + k3 r^6) plus the tangential terms p1, p2, with
//! r^2 = x^2 + y^2, then to pixels through fx, fy, cx, cy. Pixel (0, 0) is the centre of
//! the top-left pixel, as in OpenCV.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use opencv::core::{self, Mat, Point2f, Point3f, Size, TermCriteria, Vector};
use opencv::prelude::*;
use serde::{Deserialize, Serialize};

use super::GeometryError;

/// A camera profile as read from TOML. See `calibration/README.md` for the format.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CameraProfile {
    /// The image size calibrated, [width, height] in pixels.
    pub size: [u32; 2],
    /// Focal length along x, in pixels.
    pub fx: f64,
    /// Focal length along y, in pixels.
    pub fy: f64,
    /// Principal point x, in pixels.
    pub cx: f64,
    /// Principal point y, in pixels.
    pub cy: f64,
    /// Radial distortion, second order.
    pub k1: f64,
    /// Radial distortion, fourth order.
    pub k2: f64,
    /// Tangential distortion.
    #[serde(default)]
    pub p1: f64,
    /// Tangential distortion.
    #[serde(default)]
    pub p2: f64,
    /// Radial distortion, sixth order.
    #[serde(default)]
    pub k3: f64,
    /// RMS reprojection error of the calibration, in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rms_px: Option<f64>,
    /// Inner corners of the checkerboard, such as "9x6".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) square_mm: Option<f64>,
    /// Photos in which the pattern was found and that the calibration used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<u32>,
    /// YYYY.MM.DD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The user's note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl CameraProfile {
    /// Reads and checks a camera profile file.
    pub fn load(path: &Path) -> Result<CameraProfile, GeometryError> {
        let bad = |why: String| GeometryError::BadCameraProfile {
            path: path.display().to_string(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        CameraProfile::parse(&text).map_err(|e| match e {
            GeometryError::BadCameraProfile { why, .. } => bad(why),
            e => bad(e.to_string()),
        })
    }

    /// Reads and checks a camera profile's TOML text.
    pub fn parse(text: &str) -> Result<CameraProfile, GeometryError> {
        let bad = |why: String| GeometryError::BadCameraProfile {
            path: "<text>".into(),
            why,
        };
        let p: CameraProfile = toml::from_str(text).map_err(|e| bad(e.message().to_string()))?;
        p.validate()?;
        Ok(p)
    }

    /// Refuses values no lens has, as a profile read from `<text>`.
    fn validate(&self) -> Result<(), GeometryError> {
        let bad = |why: String| GeometryError::BadCameraProfile {
            path: "<text>".into(),
            why,
        };
        let [w, h] = self.size;
        if !(2..=16384).contains(&w) || !(2..=16384).contains(&h) {
            return Err(bad(format!(
                "size = [{w}, {h}] must be 2 to 16384 pixels a side"
            )));
        }
        for (name, v) in [
            ("fx", self.fx),
            ("fy", self.fy),
            ("cx", self.cx),
            ("cy", self.cy),
            ("k1", self.k1),
            ("k2", self.k2),
            ("p1", self.p1),
            ("p2", self.p2),
            ("k3", self.k3),
        ] {
            if !v.is_finite() {
                return Err(bad(format!("{name} = {v} must be a finite number")));
            }
        }
        if self.fx <= 0.0 || self.fy <= 0.0 {
            return Err(bad(format!(
                "fx = {} and fy = {} must be positive (focal lengths in pixels)",
                self.fx, self.fy
            )));
        }
        if !(0.0..w as f64).contains(&self.cx) || !(0.0..h as f64).contains(&self.cy) {
            return Err(bad(format!(
                "the principal point ({}, {}) lies outside the {w}x{h} image",
                self.cx, self.cy
            )));
        }
        Ok(())
    }

    /// The profile as TOML, with a header comment; values rounded to what matters.
    pub fn to_toml(&self) -> String {
        let px = |v: f64| (v * 1e4).round() / 1e4;
        let k = |v: f64| (v * 1e8).round() / 1e8;
        let p = CameraProfile {
            fx: px(self.fx),
            fy: px(self.fy),
            cx: px(self.cx),
            cy: px(self.cy),
            k1: k(self.k1),
            k2: k(self.k2),
            p1: k(self.p1),
            p2: k(self.p2),
            k3: k(self.k3),
            rms_px: self.rms_px.map(|v| (v * 1e4).round() / 1e4),
            ..self.clone()
        };
        format!(
            "# Camera profile (lens calibration) for boardscribe; format in calibration/README.md.\n{}",
            toml::to_string(&p).expect("a camera profile always serialises")
        )
    }

    /// Intrinsics (fx, fy, cx, cy) for frames of `w` x `h` pixels: the profile's own for
    /// its size, scaled for the same picture at another resolution (same aspect ratio).
    pub(crate) fn intrinsics_for(&self, w: u32, h: u32) -> Result<[f64; 4], GeometryError> {
        let [pw, ph] = self.size;
        if (w, h) == (pw, ph) {
            return Ok([self.fx, self.fy, self.cx, self.cy]);
        }
        let (sx, sy) = (w as f64 / pw as f64, h as f64 / ph as f64);
        // A different aspect ratio means a cropped sensor mode: no scaling recovers that.
        if (sx / sy - 1.0).abs() > 0.01 {
            return Err(GeometryError::OtherAspect {
                frame: (w, h),
                profile: (pw, ph),
            });
        }
        // Pixel centres: pixel i covers [i - 0.5, i + 0.5], so scale about the image edge.
        Ok([
            self.fx * sx,
            self.fy * sy,
            (self.cx + 0.5) * sx - 0.5,
            (self.cy + 0.5) * sy - 0.5,
        ])
    }

    /// OpenCV's distortion vector k1, k2, p1, p2, k3.
    pub(crate) fn dist_coeffs(&self) -> [f64; 5] {
        [self.k1, self.k2, self.p1, self.p2, self.k3]
    }
}

fn camera_matrix([fx, fy, cx, cy]: [f64; 4]) -> Result<Mat, GeometryError> {
    Mat::from_slice_2d(&[[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]]).map_err(GeometryError::cv)
}

fn dist_mat(d: [f64; 5]) -> Result<Mat, GeometryError> {
    Ok(Mat::from_slice(&d)
        .map_err(GeometryError::cv)?
        .clone_pointee())
}

/// Removes the lens distortion from frames. The remap tables are built once per frame
/// size and reused.
///
/// The undistorted frame keeps the profile's camera matrix (same size, focal length and
/// principal point) rather than one from OpenCV's `getOptimalNewCameraMatrix`: the centre
/// of the picture stays where it was and at its scale, whatever the distortion, so the
/// board moves only by the distortion itself and corners typed for a raw frame are off by
/// no more than that. The price: with barrel distortion (k1 < 0, most webcams) a thin rim
/// of the raw field of view falls outside the frame, widest at the corners; with
/// pincushion the corners come out black. Keep the board off the very edge of the frame.
pub struct Undistorter {
    profile: CameraProfile,
    /// Where the profile came from, for messages.
    name: String,
    maps: Option<(Size, Mat, Mat)>,
}

impl Undistorter {
    pub(crate) fn new(profile: CameraProfile, name: &str) -> Undistorter {
        Undistorter {
            profile,
            name: name.to_string(),
            maps: None,
        }
    }

    /// The undistorter of the camera profile at `path`.
    pub fn load(path: &Path) -> Result<Undistorter, GeometryError> {
        Ok(Undistorter::new(
            CameraProfile::load(path)?,
            &path.display().to_string(),
        ))
    }

    /// The undistorted copy of `frame`, the same size.
    pub fn undistort(&mut self, frame: &Mat) -> Result<Mat, GeometryError> {
        let size = frame.size().map_err(GeometryError::cv)?;
        if size.width <= 0 || size.height <= 0 {
            return Err(GeometryError::EmptyImage);
        }
        if self.maps.as_ref().is_none_or(|(s, _, _)| *s != size) {
            let k = self
                .profile
                .intrinsics_for(size.width as u32, size.height as u32)
                .map_err(|e| GeometryError::BadCameraProfile {
                    path: self.name.clone(),
                    why: e.to_string(),
                })?;
            let k = camera_matrix(k)?;
            let d = dist_mat(self.profile.dist_coeffs())?;
            let (mut m1, mut m2) = (Mat::default(), Mat::default());
            opencv::calib3d::init_undistort_rectify_map(
                &k,
                &d,
                &core::no_array(),
                &k,
                size,
                core::CV_16SC2,
                &mut m1,
                &mut m2,
            )
            .map_err(GeometryError::cv)?;
            self.maps = Some((size, m1, m2));
        }
        let (_, m1, m2) = self.maps.as_ref().expect("maps were just built");
        let mut out = Mat::default();
        opencv::imgproc::remap(
            frame,
            &mut out,
            m1,
            m2,
            opencv::imgproc::INTER_LINEAR,
            core::BORDER_CONSTANT,
            core::Scalar::default(),
        )
        .map_err(GeometryError::cv)?;
        Ok(out)
    }
}

/// A checkerboard's inner corners: `cols` along a row, `rows` down a column ("9x6" for
/// a board of 10 x 7 squares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckerPattern {
    /// Inner corners a row.
    pub cols: u32,
    /// Inner corners a column.
    pub rows: u32,
}

impl FromStr for CheckerPattern {
    type Err = GeometryError;

    fn from_str(s: &str) -> Result<CheckerPattern, GeometryError> {
        let bad = |why: &str| GeometryError::BadPattern {
            pattern: s.to_string(),
            why: why.to_string(),
        };
        let (c, r) = s
            .trim()
            .split_once(['x', 'X'])
            .ok_or_else(|| bad("give the inner corners as COLSxROWS, such as 9x6"))?;
        let n = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| bad("give the inner corners as COLSxROWS, such as 9x6"))
        };
        let (cols, rows) = (n(c)?, n(r)?);
        if !(3..=60).contains(&cols) || !(3..=60).contains(&rows) {
            return Err(bad(
                "3 to 60 inner corners a side (inner corners: a board of 10x7 squares is 9x6)",
            ));
        }
        Ok(CheckerPattern { cols, rows })
    }
}

impl std::fmt::Display for CheckerPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.cols, self.rows)
    }
}

impl CheckerPattern {
    fn size(&self) -> Size {
        Size::new(self.cols as i32, self.rows as i32)
    }

    /// The inner corners on the printed board, row by row, in millimetres (z = 0).
    fn object_points(&self, square_mm: f64) -> Vector<Point3f> {
        let mut v = Vector::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                v.push(Point3f::new(
                    (c as f64 * square_mm) as f32,
                    (r as f64 * square_mm) as f32,
                    0.0,
                ));
            }
        }
        v
    }
}

/// Finds the pattern's inner corners in a photo (BGR or grey), to a fraction of a pixel,
/// row by row; `None` when the whole pattern is not seen.
pub fn find_checkerboard(
    image: &Mat,
    pattern: CheckerPattern,
) -> Result<Option<Vector<Point2f>>, GeometryError> {
    let grey = if image.channels() == 1 {
        image.clone()
    } else {
        let mut g = Mat::default();
        opencv::imgproc::cvt_color_def(image, &mut g, opencv::imgproc::COLOR_BGR2GRAY)
            .map_err(GeometryError::cv)?;
        g
    };
    use opencv::calib3d as c3;
    let mut corners = Vector::<Point2f>::new();
    // The sector-based detector finds more boards; the classic one some it misses (strong
    // blur, uneven light). Either way a sub-pixel refinement on the grey image follows: on
    // renders with known corners it halves the worst error of the sector detector's own.
    let flags = c3::CALIB_CB_NORMALIZE_IMAGE | c3::CALIB_CB_EXHAUSTIVE | c3::CALIB_CB_ACCURACY;
    let found = c3::find_chessboard_corners_sb(&grey, pattern.size(), &mut corners, flags)
        .map_err(GeometryError::cv)?
        || c3::find_chessboard_corners(
            &grey,
            pattern.size(),
            &mut corners,
            c3::CALIB_CB_ADAPTIVE_THRESH | c3::CALIB_CB_NORMALIZE_IMAGE,
        )
        .map_err(GeometryError::cv)?;
    if !found {
        return Ok(None);
    }
    // The search window must stay inside the squares around a corner.
    let cols = pattern.cols as usize;
    let pts: Vec<Point2f> = corners.to_vec();
    let mut side = f32::INFINITY;
    for (i, a) in pts.iter().enumerate() {
        for j in [i + 1, i + cols] {
            if let Some(b) = pts.get(j).filter(|_| j != i + 1 || (i + 1) % cols != 0) {
                side = side.min(((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt());
            }
        }
    }
    let half = ((side * 0.35) as i32).clamp(2, 5);
    let criteria = TermCriteria::new(
        core::TermCriteria_COUNT + core::TermCriteria_EPS,
        100,
        0.001,
    )
    .map_err(GeometryError::cv)?;
    opencv::imgproc::corner_sub_pix(
        &grey,
        &mut corners,
        Size::new(half, half),
        Size::new(-1, -1),
        criteria,
    )
    .map_err(GeometryError::cv)?;
    Ok(Some(corners))
}

/// What `calibrate` measured.
pub struct Calibration {
    /// The camera profile measured.
    pub profile: CameraProfile,
    /// The photos the pattern was found in, in the order given.
    pub views: Vec<PathBuf>,
    /// RMS reprojection error of each of those views, in pixels.
    pub view_rms_px: Vec<f64>,
}

/// Fewest photos with the pattern found that a calibration is made from.
const MIN_VIEWS: usize = 5;

/// A camera measured from `photos` of a printed checkerboard of `pattern`'s inner
/// corners and `square_mm` squares: each photo read (all of one size: one camera
/// mode) and the pattern looked for in it, `seen` told of each with the corners
/// found (for the caller to say and draw), then OpenCV's `calibrateCamera` on the
/// photos it was found in, at least five. k3 is held at 0 unless `fit_k3` (it
/// only helps very wide lenses, and otherwise trades off against k2).
pub fn calibrate(
    photos: &[PathBuf],
    pattern: CheckerPattern,
    square_mm: f64,
    fit_k3: bool,
    seen: &mut dyn FnMut(&Path, &Mat, Option<&Vector<Point2f>>),
) -> Result<Calibration, GeometryError> {
    let mut views = Vec::new();
    let mut size: Option<(u32, u32, &Path)> = None;
    for path in photos {
        let img = crate::capture::read_image(path)?;
        let this = (img.cols() as u32, img.rows() as u32);
        match size {
            None => size = Some((this.0, this.1, path)),
            Some((w, h, first)) if (w, h) != this => {
                return Err(GeometryError::PhotoSizes {
                    photo: path.clone(),
                    size: this,
                    first: first.to_path_buf(),
                    first_size: (w, h),
                })
            }
            Some(_) => {}
        }
        let found = find_checkerboard(&img, pattern)?;
        seen(path, &img, found.as_ref());
        views.extend(found.map(|c| (path.clone(), c)));
    }
    if views.len() < MIN_VIEWS {
        return Err(GeometryError::TooFewViews {
            pattern: pattern.to_string(),
            found: views.len(),
            photos: photos.len(),
            need: MIN_VIEWS,
        });
    }
    let (w, h, _) = size.unwrap_or((0, 0, Path::new("")));
    let (paths, corners): (Vec<PathBuf>, Vec<_>) = views.into_iter().unzip();
    let (profile, view_rms_px) = calibrate_views(&corners, (w, h), pattern, square_mm, fit_k3)?;
    Ok(Calibration {
        profile,
        views: paths,
        view_rms_px,
    })
}

/// OpenCV's `calibrateCamera` on the inner corners found in each view of one
/// camera: the profile, and each view's RMS reprojection error in pixels.
fn calibrate_views(
    views: &[Vector<Point2f>],
    image_size: (u32, u32),
    pattern: CheckerPattern,
    square_mm: f64,
    fit_k3: bool,
) -> Result<(CameraProfile, Vec<f64>), GeometryError> {
    let object = pattern.object_points(square_mm);
    let objects: Vector<Vector<Point3f>> = views.iter().map(|_| object.clone()).collect();
    let images: Vector<Vector<Point2f>> = views.iter().cloned().collect();
    let size = Size::new(image_size.0 as i32, image_size.1 as i32);
    let mut k = Mat::default();
    let mut d = Mat::default();
    let (mut rvecs, mut tvecs) = (Vector::<Mat>::new(), Vector::<Mat>::new());
    let flags = if fit_k3 {
        0
    } else {
        opencv::calib3d::CALIB_FIX_K3
    };
    let criteria = TermCriteria::new(
        core::TermCriteria_COUNT + core::TermCriteria_EPS,
        100,
        f64::EPSILON,
    )
    .map_err(GeometryError::cv)?;
    let rms = opencv::calib3d::calibrate_camera(
        &objects, &images, size, &mut k, &mut d, &mut rvecs, &mut tvecs, flags, criteria,
    )
    .map_err(GeometryError::cv)?;
    let at = |m: &Mat, i: i32| -> Result<f64, GeometryError> {
        Ok(*m.at::<f64>(i).map_err(GeometryError::cv)?)
    };
    let kk = |r: i32, c: i32| -> Result<f64, GeometryError> {
        Ok(*k.at_2d::<f64>(r, c).map_err(GeometryError::cv)?)
    };
    let mut view_rms_px = Vec::with_capacity(views.len());
    for (i, view) in views.iter().enumerate() {
        let mut projected = Vector::<Point2f>::new();
        opencv::calib3d::project_points(
            &object,
            &rvecs.get(i).map_err(GeometryError::cv)?,
            &tvecs.get(i).map_err(GeometryError::cv)?,
            &k,
            &d,
            &mut projected,
            &mut core::no_array(),
            0.0,
        )
        .map_err(GeometryError::cv)?;
        let sum: f64 = projected
            .iter()
            .zip(view.iter())
            .map(|(a, b)| ((a.x - b.x) as f64).powi(2) + ((a.y - b.y) as f64).powi(2))
            .sum();
        view_rms_px.push((sum / view.len().max(1) as f64).sqrt());
    }
    let profile = CameraProfile {
        size: [image_size.0, image_size.1],
        fx: kk(0, 0)?,
        fy: kk(1, 1)?,
        cx: kk(0, 2)?,
        cy: kk(1, 2)?,
        k1: at(&d, 0)?,
        k2: at(&d, 1)?,
        p1: at(&d, 2)?,
        p2: at(&d, 3)?,
        k3: at(&d, 4)?,
        rms_px: Some(rms),
        pattern: Some(pattern.to_string()),
        square_mm: Some(square_mm),
        images: Some(views.len() as u32),
        date: None,
        note: None,
    };
    Ok((profile, view_rms_px))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "size = [640, 480]\nfx = 500.0\nfy = 501.0\ncx = 319.5\ncy = 239.5\nk1 = -0.15\nk2 = 0.02\n";

    #[test]
    fn profile_round_trips_and_defaults_the_rest() {
        let p = CameraProfile::parse(EXAMPLE).unwrap();
        assert_eq!((p.p1, p.p2, p.k3), (0.0, 0.0, 0.0));
        assert_eq!(p.rms_px, None);
        let mut q = p.clone();
        q.rms_px = Some(0.123456789);
        q.pattern = Some("9x6".into());
        q.date = Some("2026.01.02".into());
        let back = CameraProfile::parse(&q.to_toml()).unwrap();
        assert_eq!(back.rms_px, Some(0.1235));
        assert_eq!(
            (back.fx, back.k1, back.pattern.as_deref()),
            (500.0, -0.15, Some("9x6"))
        );
        assert!(q.to_toml().starts_with("# Camera profile"));
    }

    #[test]
    fn bad_profiles_say_what_is_wrong() {
        let err = |text: &str| CameraProfile::parse(text).unwrap_err().to_string();
        assert!(err("size = [640, 480]\nfx = 500.0\n").contains("missing field"));
        assert!(err(&format!("{EXAMPLE}focal = 3\n")).contains("unknown field"));
        assert!(err(&EXAMPLE.replace("fx = 500.0", "fx = -5.0")).contains("fx = -5"));
        assert!(err(&EXAMPLE.replace("cx = 319.5", "cx = 900.0")).contains("outside"));
        assert!(err(&EXAMPLE.replace("[640, 480]", "[0, 480]")).contains("size"));
        assert!(err(&EXAMPLE.replace("k1 = -0.15", "k1 = nan")).contains("k1"));
        let missing = Path::new("/nonexistent/cam.toml");
        assert!(CameraProfile::load(missing)
            .unwrap_err()
            .to_string()
            .contains("/nonexistent/cam.toml"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("typo.toml");
        std::fs::write(&path, EXAMPLE.replace("k2", "kk2")).unwrap();
        let e = CameraProfile::load(&path).unwrap_err().to_string();
        assert!(e.contains("typo.toml") && e.contains("kk2"), "{e}");
    }

    #[test]
    fn example_profiles_in_the_repository_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../calibration/cameras");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                CameraProfile::load(&path).unwrap();
                n += 1;
            }
        }
        assert!(n >= 1, "expected an example camera profile in {dir:?}");
    }

    #[test]
    fn intrinsics_scale_with_the_frame_and_refuse_another_aspect() {
        let p = CameraProfile::parse(EXAMPLE).unwrap();
        assert_eq!(
            p.intrinsics_for(640, 480).unwrap(),
            [500.0, 501.0, 319.5, 239.5]
        );
        // Half size: the image centre stays the image centre.
        assert_eq!(
            p.intrinsics_for(320, 240).unwrap(),
            [250.0, 250.5, 159.5, 119.5]
        );
        let e = p.intrinsics_for(640, 360).unwrap_err().to_string();
        assert!(e.contains("640x360") && e.contains("640x480"), "{e}");
    }

    #[test]
    fn patterns_parse_and_refuse_nonsense() {
        assert_eq!(
            "9x6".parse::<CheckerPattern>().unwrap(),
            CheckerPattern { cols: 9, rows: 6 }
        );
        for bad in ["9", "9by6", "x6", "2x6", "9x0", "9x6x2", ""] {
            let e = bad.parse::<CheckerPattern>().unwrap_err().to_string();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
    }

    #[test]
    fn undistortion_straightens_what_the_model_bent() {
        // Draw a straight black line, bend it with the model (forward distortion),
        // then undistort: the line must come back to the same rows.
        let p = CameraProfile::parse(EXAMPLE).unwrap();
        let (w, h) = (640, 480);
        let mut straight =
            Mat::new_rows_cols_with_default(h, w, core::CV_8UC1, core::Scalar::all(255.0)).unwrap();
        let row = 40;
        for x in 0..w {
            for y in row - 2..=row + 2 {
                *straight.at_2d_mut::<u8>(y, x).unwrap() = 0;
            }
        }
        // Distorted image: each distorted pixel samples the undistorted position.
        let k = p.intrinsics_for(640, 480).unwrap();
        let mut bent = straight.clone();
        for y in 0..h {
            for x in 0..w {
                let (xd, yd) = ((x as f64 - k[2]) / k[0], (y as f64 - k[3]) / k[1]);
                let (mut xu, mut yu) = (xd, yd);
                for _ in 0..20 {
                    let r2 = xu * xu + yu * yu;
                    let f = 1.0 + p.k1 * r2 + p.k2 * r2 * r2;
                    (xu, yu) = (xd / f, yd / f);
                }
                let sx = (k[0] * xu + k[2]).round() as i32;
                let sy = (k[1] * yu + k[3]).round() as i32;
                let v = if (0..w).contains(&sx) && (0..h).contains(&sy) {
                    *straight.at_2d::<u8>(sy, sx).unwrap()
                } else {
                    255
                };
                *bent.at_2d_mut::<u8>(y, x).unwrap() = v;
            }
        }
        let dark_row = |m: &Mat, x: i32| -> f64 {
            let (mut s, mut n) = (0.0, 0.0);
            for y in 0..m.rows() / 4 {
                let v = 255.0 - *m.at_2d::<u8>(y, x).unwrap() as f64;
                s += v * y as f64;
                n += v;
            }
            s / n
        };
        // Barrel distortion pulls the line's ends towards the centre: it bows.
        let bow = |m: &Mat| dark_row(m, 40) - dark_row(m, 320);
        assert!(bow(&bent) > 6.0, "bent bow {}", bow(&bent));
        let mut u = Undistorter::new(p, "test");
        let fixed = u.undistort(&bent).unwrap();
        assert!(bow(&fixed).abs() < 0.5, "undistorted bow {}", bow(&fixed));
        assert!((dark_row(&fixed, 320) - row as f64).abs() < 0.5);
        // Another size of the same picture reuses the profile, scaled.
        let mut half = Mat::default();
        opencv::imgproc::resize(
            &bent,
            &mut half,
            Size::new(320, 240),
            0.0,
            0.0,
            opencv::imgproc::INTER_AREA,
        )
        .unwrap();
        let fixed = u.undistort(&half).unwrap();
        assert_eq!(fixed.size().unwrap(), Size::new(320, 240));
        let bow_half = dark_row(&fixed, 20) - dark_row(&fixed, 160);
        assert!(bow_half.abs() < 0.4, "half-size bow {bow_half}");
        // And a frame of another shape is refused, naming the profile.
        let other =
            Mat::new_rows_cols_with_default(360, 640, core::CV_8UC1, core::Scalar::all(0.0))
                .unwrap();
        let e = u.undistort(&other).unwrap_err().to_string();
        assert!(e.contains("test") && e.contains("640x360"), "{e}");
    }
}
