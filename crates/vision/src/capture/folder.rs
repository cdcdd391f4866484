//! A folder of photos read in natural order, one frame per photo.

use std::path::{Path, PathBuf};

use image::metadata::Orientation;
use opencv::core::Mat;

use super::{is_image_path, natural_cmp, orient, CaptureError, Frame, FrameSource};

/// The photos of a folder (or one photo), in natural name order, as frames.
pub(crate) struct FolderSource {
    name: String,
    files: Vec<PathBuf>,
    next: usize,
    fps: f64,
    skipped: Vec<PathBuf>,
    warnings: Vec<String>,
    /// One photo named by itself: a photo that cannot be used is an error, not
    /// a photo skipped.
    single: bool,
    /// Photos handed on so far.
    read: usize,
    /// Why the first photo skipped was, for when none could be used.
    first_skip: Option<String>,
    /// The first photo's EXIF turn and its size once turned: every photo is
    /// turned the same way (see `orient`).
    way_up: Option<(Orientation, (i32, i32))>,
    /// Whether a photo whose tag disagrees with the first one's was said.
    said_way_up: bool,
}

impl FolderSource {
    /// The images of `dir`, timed at `fps` photos a second.
    pub(crate) fn open(dir: &Path, fps: f64) -> Result<FolderSource, CaptureError> {
        let name = dir.display().to_string();
        let files = photo_files(dir)?;
        Ok(FolderSource {
            name,
            files,
            next: 0,
            fps: sane_fps(fps),
            skipped: Vec::new(),
            warnings: Vec::new(),
            single: false,
            read: 0,
            first_skip: None,
            way_up: None,
            said_way_up: false,
        })
    }

    /// One photo as a one-frame source.
    pub(crate) fn single(path: &Path, fps: f64) -> FolderSource {
        FolderSource {
            name: path.display().to_string(),
            files: vec![path.to_path_buf()],
            next: 0,
            fps: sane_fps(fps),
            skipped: Vec::new(),
            warnings: Vec::new(),
            single: true,
            read: 0,
            first_skip: None,
            way_up: None,
            said_way_up: false,
        }
    }

    /// The files in the order they are read.
    #[cfg(test)]
    pub(crate) fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Files skipped so far because they could not be read.
    #[cfg(test)]
    pub(crate) fn skipped(&self) -> &[PathBuf] {
        &self.skipped
    }
}

impl FolderSource {
    /// Photo `index` read and turned the way the folder's first photo is.
    fn read_turned(&mut self, index: usize) -> Result<Mat, CaptureError> {
        let path = &self.files[index];
        let raw = super::read_image_raw(path)?;
        let own = orient::exif_orientation(path);
        let raw_size = orient::size_of(&raw);
        let Some((first, first_size)) = self.way_up else {
            self.way_up = Some((own, orient::turned_size(raw_size, own)));
            return orient::turn(raw, own, path);
        };
        if own == first {
            return orient::turn(raw, own, path);
        }
        let as_own = orient::turned_size(raw_size, own) == first_size;
        let as_first = orient::turned_size(raw_size, first) == first_size;
        if as_own && !as_first {
            return orient::turn(raw, own, path);
        }
        if !self.said_way_up {
            self.said_way_up = true;
            self.warnings.push(format!(
                "photo '{}' is tagged to be turned otherwise than the first photo; read the same way up as the first (a phone held flat reports its way up unreliably)",
                path.display()
            ));
        }
        orient::turn(raw, first, path)
    }
}

fn sane_fps(fps: f64) -> f64 {
    if fps.is_finite() && fps > 0.0 {
        fps
    } else {
        1.0
    }
}

/// The photos of the folder `dir` (its files named as images), in natural name
/// order: `frame_2` before `frame_10`.
pub fn photo_files(dir: &Path) -> Result<Vec<PathBuf>, CaptureError> {
    let name = dir.display().to_string();
    let entries = std::fs::read_dir(dir).map_err(|e| CaptureError::Folder {
        path: name.clone(),
        why: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && is_image_path(p))
        .collect();
    if files.is_empty() {
        return Err(CaptureError::NoImages(name));
    }
    files.sort_by(|a, b| natural_cmp(&file_name(a), &file_name(b)));
    Ok(files)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Iterator for FolderSource {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.next < self.files.len() {
            let index = self.next;
            self.next += 1;
            let path = self.files[index].clone();
            match self.read_turned(index) {
                Ok(image) => {
                    self.read += 1;
                    return Some(Ok(Frame {
                        index,
                        time_s: index as f64 / self.fps,
                        image,
                        path: Some(path),
                    }));
                }
                Err(e) if self.single => return Some(Err(e)),
                Err(e) => {
                    self.first_skip.get_or_insert_with(|| e.to_string());
                    self.warnings.push(format!("skipping {e}"));
                    self.skipped.push(path);
                }
            }
        }
        None
    }
}

impl FrameSource for FolderSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn is_offline(&self) -> bool {
        true
    }

    fn len_hint(&self) -> Option<usize> {
        Some(self.files.len())
    }

    fn fps(&self) -> f64 {
        self.fps
    }

    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn photos(&self) -> Option<&[PathBuf]> {
        Some(&self.files)
    }

    /// Every photo skipped: the folder gave nothing, and says why.
    fn end_reason(&self) -> Option<String> {
        if self.next < self.files.len() || self.read > 0 {
            return None;
        }
        let first = self.first_skip.as_ref()?;
        let others = self.skipped.len() - 1;
        Some(format!(
            "no photo of folder '{}' could be used: {first}{}",
            self.name,
            match others {
                0 => String::new(),
                1 => " (and 1 more photo skipped)".to_string(),
                n => format!(" (and {n} more photos skipped)"),
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use opencv::core::{Mat, Scalar, CV_8UC3};

    use super::FolderSource;
    use crate::capture::{self, SourceOptions};

    fn solid(v: f64, w: i32, h: i32) -> Mat {
        Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::all(v)).unwrap()
    }

    fn mean(m: &Mat) -> f64 {
        opencv::core::mean(m, &opencv::core::no_array()).unwrap()[0]
    }

    #[test]
    fn folder_reads_in_natural_order_and_skips_corrupt_files() {
        let dir = tempfile::tempdir().unwrap();
        for i in [1, 2, 10, 3, 20] {
            let path = dir.path().join(format!("frame_{i}.png"));
            opencv::imgcodecs::imwrite(
                path.to_str().unwrap(),
                &solid(i as f64 * 10.0, 32, 24),
                &opencv::core::Vector::new(),
            )
            .unwrap();
        }
        std::fs::write(dir.path().join("frame_4.jpg"), b"not a jpeg at all").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"ignored").unwrap();

        let mut src = FolderSource::open(dir.path(), 2.0).unwrap();
        let names: Vec<String> = src
            .files()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "frame_1.png",
                "frame_2.png",
                "frame_3.png",
                "frame_4.jpg",
                "frame_10.png",
                "frame_20.png"
            ]
        );
        let frames: Vec<_> = src.by_ref().map(|f| f.unwrap()).collect();
        assert_eq!(
            frames.len(),
            5,
            "the corrupt file is skipped and the run goes on"
        );
        assert_eq!(src.skipped().len(), 1);
        let values: Vec<i64> = frames
            .iter()
            .map(|f| mean(&f.image).round() as i64)
            .collect();
        assert_eq!(values, [10, 20, 30, 100, 200]);
        let times: Vec<f64> = frames.iter().map(|f| f.time_s).collect();
        assert_eq!(times, [0.0, 0.5, 1.0, 2.0, 2.5]);

        // Folders default to one frame a second.
        let src = capture::open(dir.path().to_str().unwrap(), SourceOptions::default()).unwrap();
        assert_eq!(src.fps(), 1.0);
    }
}
