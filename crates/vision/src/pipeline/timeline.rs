//! How a recording names its moments: a clock for videos and cameras, the photo's
//! own name for a folder of photos, whose times are only made up from `--fps`.

/// Names the moments of a recording, in record comments and messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Timeline {
    /// `h:mm:ss` from the start of the input; move times are real.
    #[default]
    Clock,
    /// Photo `i` was taken at `i / fps` seconds (as the folder source times them);
    /// moments are named by the photo, and there are no move times.
    Photos {
        /// Photos per second, as the folder source times them (`--fps`).
        fps: f64,
        /// The photos' file names, without their folder, in the order read.
        names: Vec<String>,
    },
}

impl Timeline {
    /// The timeline of `source`: its photos' file names for a folder of photos,
    /// else a clock.
    pub fn of(source: &dyn crate::capture::FrameSource) -> Timeline {
        match source.photos() {
            Some(files) => Timeline::Photos {
                fps: source.fps(),
                names: files
                    .iter()
                    .map(|p| {
                        p.file_name().map_or_else(
                            || p.display().to_string(),
                            |n| n.to_string_lossy().into_owned(),
                        )
                    })
                    .collect(),
            },
            None => Timeline::Clock,
        }
    }

    /// The moment `t` seconds into the input: `0:01:05`, or `photo 'IMG_0042.jpg'`.
    pub fn moment(&self, t: f64) -> String {
        match self {
            Timeline::Clock => super::clock(t),
            Timeline::Photos { fps, names } => {
                let i = (t * fps).round().max(0.0) as usize;
                match names.get(i) {
                    Some(n) => format!("photo '{n}'"),
                    None => super::clock(t),
                }
            }
        }
    }

    /// Whether times between moves mean anything (not for photos).
    pub(crate) fn timed(&self) -> bool {
        matches!(self, Timeline::Clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn photo_folders_name_the_photo_not_a_made_up_clock() {
        let t = Timeline::Photos {
            fps: 1.0,
            names: vec!["a.jpg".into(), "photo7.jpeg".into()],
        };
        assert_eq!(t.moment(1.0), "photo 'photo7.jpeg'");
        assert_eq!(t.moment(7.0), "0:00:07");
        assert!(!t.timed());
        assert_eq!(Timeline::Clock.moment(65.0), "0:01:05");
        assert!(Timeline::Clock.timed());
    }
}
