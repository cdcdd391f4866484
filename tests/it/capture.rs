use opencv::core::{Mat, Scalar, Size, CV_8UC3};
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};

use boardscribe_vision::capture::{self, CaptureError, SourceOptions};

fn solid(v: f64, w: i32, h: i32) -> Mat {
    Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::all(v)).unwrap()
}

fn mean(m: &Mat) -> f64 {
    opencv::core::mean(m, &opencv::core::no_array()).unwrap()[0]
}

#[test]
fn video_round_trip_keeps_frames_and_timestamps() {
    let dir = super::util::tmp();
    for (ext, fourcc) in [("avi", "MJPG"), ("mp4", "mp4v")] {
        let path = dir.path().join(format!("clip.{ext}"));
        let c: Vec<char> = fourcc.chars().collect();
        let code = VideoWriter::fourcc(c[0], c[1], c[2], c[3]).unwrap();
        let mut w = VideoWriter::new(&path, code, 10.0, Size::new(160, 120), true).unwrap();
        assert!(w.is_opened().unwrap(), "writer for {ext}");
        for i in 0..12 {
            w.write(&solid(20.0 * i as f64, 160, 120)).unwrap();
        }
        w.release().unwrap();

        let src = capture::open(path.to_str().unwrap(), SourceOptions::default()).unwrap();
        assert!(src.is_offline());
        assert_eq!(src.fps(), 10.0);
        let frames: Vec<_> = src.map(|f| f.unwrap()).collect();
        assert_eq!(frames.len(), 12, "{ext}");
        for (i, f) in frames.iter().enumerate() {
            assert_eq!(f.index, i);
            assert!(
                (f.time_s - i as f64 / 10.0).abs() < 1e-9,
                "{ext} frame {i}: {}",
                f.time_s
            );
            assert_eq!((f.image.cols(), f.image.rows()), (160, 120));
            // Lossy codecs: the brightness ramp must survive to within a few levels.
            assert!(
                (mean(&f.image) - 20.0 * i as f64).abs() < 6.0,
                "{ext} frame {i}"
            );
        }
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = super::util::tmp();
    let missing = dir.path().join("nope.mp4");
    let err = capture::open(missing.to_str().unwrap(), SourceOptions::default())
        .err()
        .unwrap();
    assert!(matches!(err, CaptureError::Missing(_)));
    assert!(err.to_string().contains("nope.mp4"), "{err}");

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("readme.txt"), b"no images here").unwrap();
    let err = capture::open(empty.to_str().unwrap(), SourceOptions::default())
        .err()
        .unwrap();
    assert!(matches!(err, CaptureError::NoImages(_)), "{err}");
    assert!(err.to_string().contains("empty"), "{err}");

    let fake = dir.path().join("fake.mp4");
    std::fs::write(&fake, b"this is not a video").unwrap();
    let err = capture::open(fake.to_str().unwrap(), SourceOptions::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("fake.mp4"), "{err}");

    let err = capture::open("camera:x", SourceOptions::default())
        .err()
        .unwrap();
    assert!(matches!(err, CaptureError::BadCamera(_)), "{err}");

    // No camera 57 exists on a test machine.
    let err = capture::open("camera:57", SourceOptions::default())
        .err()
        .unwrap();
    assert!(matches!(err, CaptureError::Camera(57)), "{err}");

    // A stream nobody serves (a closed port on this machine).
    let err = capture::open("rtsp://127.0.0.1:9/none", SourceOptions::default())
        .err()
        .unwrap();
    assert!(matches!(err, CaptureError::Stream(_)), "{err}");
}
