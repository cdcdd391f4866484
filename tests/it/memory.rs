//! Issue 5: memory stays flat over a long recording (no frame accumulation). A
//! short rendered clip is played back and forth for ten minutes of video through
//! the recorder's frame-handling stages, sampling the resident memory.
//!
//! Resident memory is a property of a whole process, and the other tests of this
//! binary run beside this one and make it swing by a hundred megabytes. So the test
//! runs itself again in a child process of this binary, filtered to this test
//! alone, and the child measures.

use boardscribe_core::rules::chess::Chess;
use boardscribe_lab::memory::MemorySampled;
use boardscribe_lab::sets::rgb_to_bgr_mat;
use boardscribe_lab::synth::clip::render_clip;
use boardscribe_lab::synth::SceneParams;
use boardscribe_vision::capture::MemorySource;
use boardscribe_vision::classify::{Classifier, OccupancyModel};
use boardscribe_vision::geometry::{BoardPose, Corners};
use boardscribe_vision::pipeline::{record_free, RecordJob};

use crate::clips::{fast_clip, small, states_of};
use crate::util::tmp;

/// Set in the child process that measures.
const ALONE: &str = "BOARDSCRIBE_TEST_MEMORY_ALONE";

#[test]
fn memory_stays_flat_over_ten_minutes_of_video() {
    if std::env::var_os(ALONE).is_some() {
        measure();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "memory::memory_stays_flat_over_ten_minutes_of_video",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ALONE, "1")
        .output()
        .expect("runs the test binary again");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(
        out.status.success(),
        "the measuring process failed:\n{text}"
    );
    // A filter that matched nothing would pass without measuring.
    assert!(
        text.contains("1 passed"),
        "the measuring process ran no test:\n{text}"
    );
}

fn measure() {
    let start = Chess::new();
    let mut g = start.clone();
    let moves: Vec<_> = ["e2e4", "e7e5", "g1f3"]
        .iter()
        .map(|u| g.play_uci(u).unwrap())
        .collect();
    let states = states_of(&start, &moves);
    let opts = fast_clip();
    let params = small(SceneParams::chess_overhead(5, false));
    let mut frames = Vec::new();
    let truth = render_clip(&params, &states, &opts, |img, _| {
        frames.push(rgb_to_bgr_mat(img).expect("converts"));
        Ok(())
    })
    .expect("renders");
    let corners = Corners::new(truth.frames[0].corners.map(|[x, y]| (x, y))).unwrap();
    let dir = tmp();
    let job = RecordJob {
        pose: BoardPose::new("8x8".parse().unwrap(), corners),
        white: None,
        track: Default::default(),
        infer: Default::default(),
        tags: Default::default(),
        out: dir.path().join("log.txt"),
        debug: false,
        progress: false,
        adapt: true,
        timeline: Default::default(),
    };
    let total = (10.0 * 60.0 * opts.fps) as usize;
    let mut src = MemorySampled::new(MemorySource::cycling(frames, opts.fps, total), total / 20);
    let model_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/occupancy.onnx");
    let model = OccupancyModel::load(&model_path).unwrap();
    let mut classifier = Classifier::new(model);
    let sum = record_free(&mut classifier, &mut src, &job, &mut |_| {}).unwrap();
    assert!(sum.changes > 50, "{sum:?}");
    // A recording that kept frames would raise its memory floor steadily. Compare
    // floors, the lowest level of the last half against that of the first half
    // (after warming up), which the allocator's own swings move by much less than
    // a few dozen frames.
    let samples: Vec<u64> = src.samples.iter().map(|s| s.1).collect();
    let half = samples.len() / 2;
    let early = *samples[2..half].iter().min().unwrap();
    let late = *samples[half..].iter().min().unwrap();
    let mb = |b: u64| b as f64 / 1_048_576.0;
    println!(
        "resident memory, MB: {:?}",
        samples.iter().map(|b| mb(*b) as u32).collect::<Vec<_>>()
    );
    assert!(
        late < early + 8 * 1_048_576,
        "resident memory floor rose from {:.1} to {:.1} MB: {:?}",
        mb(early),
        mb(late),
        samples.iter().map(|b| mb(*b) as u32).collect::<Vec<_>>()
    );
}
