//! Clips: a sequence of board states filmed as a video. Still frames between moves,
//! a hand that comes in, moves pieces and leaves, optional camera shake; a JSON
//! sidecar with per-frame ground truth. The states are plain boards: any game's
//! rules (or none) plug in by producing them.

use std::path::Path;

use opencv::core::Size;
use opencv::prelude::*;
use opencv::videoio::VideoWriter;
use serde::Serialize;

use super::{BoardState, Piece, Rng, Scene, SceneParams, SynthError};

/// How a clip is paced and filmed.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipOptions {
    pub fps: f64,
    /// Seconds of still board before the first move and after each move.
    pub still_s: f64,
    /// Seconds a hand takes to come in, move the pieces and leave.
    pub move_s: f64,
    /// Transitions (0-based: from state i to i+1) after which the board is not left
    /// still: the next player's hand comes in as soon as this one has left, so
    /// two plies are never seen apart (but each has its own hand visit).
    pub no_pause_after: Vec<usize>,
    /// Slow changes of light over the clip (a cloud, auto-exposure): the image
    /// brightness swings by up to this fraction, over about 20 seconds.
    pub light_swing: f64,
    /// A one-off knock of the camera: from the start of this transition's hand
    /// motion on, the camera stays at a changed pose.
    pub bump: Option<ClipBump>,
    /// What real cameras and players add (all off by default).
    pub trouble: Trouble,
}

/// What real game videos show that a clean render does not: each is a way a
/// recorder has failed on real footage, rendered so that it can be tested.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trouble {
    /// Seconds of black frames first (a camera warming up).
    pub black_s: f64,
    /// Seconds of still board before the first move, when shorter than
    /// `still_s` (the first moves come at once).
    pub first_still_s: Option<f64>,
    /// Dim warm light: the picture darkened by this fraction (0 to 1) and
    /// tinted towards orange, as under a household bulb.
    pub dim_warm: f64,
    /// An exposure or white-balance jump: from this second on, every channel
    /// is scaled by these gains (red, green, blue).
    pub exposure_jump: Option<(f64, [f64; 3])>,
    /// A player's arm resting over the board after a move: after this
    /// transition (0-based) the hand stays over the board, still, for the
    /// seconds given, before it leaves.
    pub resting_arm: Option<(usize, f64)>,
    /// The player wears gloves and a sleeve of this one colour (sRGB): an arm
    /// no skin colour gives away.
    pub glove: Option<[u8; 3]>,
    /// The clip ends this many seconds after the last piece is put down (the
    /// hand gone at once), with a hand coming back over the board's edge from
    /// then to the end (to stop the recording, or to play on): the board never
    /// rests for the quiet period again.
    pub reach_at_end: Option<f64>,
}

impl Trouble {
    /// Per-channel gains (red, green, blue) at `time`.
    fn gains(&self, time: f64) -> [f64; 3] {
        let k = 1.0 - self.dim_warm.clamp(0.0, 0.95);
        let mut g = [
            k,
            k * (1.0 - 0.25 * self.dim_warm),
            k * (1.0 - 0.5 * self.dim_warm),
        ];
        if let Some((at, jump)) = self.exposure_jump {
            if time >= at {
                for (v, j) in g.iter_mut().zip(jump) {
                    *v *= j;
                }
            }
        }
        g
    }
}

/// How far a bump moves the camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipBump {
    /// The transition (0-based, from state i to i+1) whose hand knocks it.
    pub at_move: usize,
    pub d_azimuth_deg: f64,
    pub d_elevation_deg: f64,
    /// Shift of the aim point, in fractions of the board size.
    pub d_target: [f64; 2],
}

impl Default for ClipOptions {
    fn default() -> Self {
        ClipOptions {
            fps: 10.0,
            still_s: 1.0,
            move_s: 1.2,
            no_pause_after: Vec::new(),
            light_swing: 0.0,
            bump: None,
            trouble: Trouble::default(),
        }
    }
}

/// Scales the brightness of a frame in place.
fn relight(img: &mut image::RgbImage, gain: f64) {
    if (gain - 1.0).abs() < 1e-6 {
        return;
    }
    for v in img.iter_mut() {
        *v = (*v as f64 * gain).round().clamp(0.0, 255.0) as u8;
    }
}

/// Scales each channel of a frame in place (red, green, blue).
fn tint(img: &mut image::RgbImage, gains: [f64; 3]) {
    if gains.iter().all(|g| (g - 1.0).abs() < 1e-6) {
        return;
    }
    for px in img.pixels_mut() {
        for (v, g) in px.0.iter_mut().zip(gains) {
            *v = (*v as f64 * g).round().clamp(0.0, 255.0) as u8;
        }
    }
}

/// Ground truth for one frame of a clip.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameTruth {
    pub frame: usize,
    pub time_s: f64,
    /// Index into the clip's states of what stands on the board.
    pub state: usize,
    pub corners: [[f64; 2]; 4],
    pub hand_occludes: bool,
}

/// The JSON sidecar of a clip.
#[derive(Clone, Debug, Serialize)]
pub struct ClipTruth {
    pub grid: String,
    pub fps: f64,
    pub states: Vec<Vec<Vec<String>>>,
    pub frames: Vec<FrameTruth>,
}

pub fn cells_text(s: &BoardState) -> Vec<Vec<String>> {
    (0..s.rows)
        .map(|r| {
            (0..s.cols)
                .map(|c| match s.get(r, c) {
                    None => ".".to_string(),
                    Some(p) if p.side == super::PieceSide::White => "w".to_string(),
                    Some(_) => "b".to_string(),
                })
                .collect()
        })
        .collect()
}

/// The sites whose contents differ between two states: where the hand goes.
fn changed_sites(a: &BoardState, b: &BoardState) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for r in 0..a.rows {
        for c in 0..a.cols {
            if a.get(r, c) != b.get(r, c) {
                out.push((r, c));
            }
        }
    }
    out
}

/// Renders a clip of `states` frame by frame, handing each frame and its truth to
/// `sink`. Deterministic for equal inputs.
pub fn render_clip(
    params: &SceneParams,
    states: &[BoardState],
    opts: &ClipOptions,
    mut sink: impl FnMut(&image::RgbImage, &FrameTruth) -> Result<(), SynthError>,
) -> Result<ClipTruth, SynthError> {
    if states.is_empty() {
        return Err(SynthError("a clip needs at least one board state".into()));
    }
    if !(opts.fps > 0.0 && opts.still_s >= 0.0 && opts.move_s > 0.0) {
        return Err(SynthError("fps and move time must be positive".into()));
    }
    let scene = Scene::new(params)?;
    let bumped = match &opts.bump {
        Some(b) => {
            let mut p = params.clone();
            p.camera.azimuth_deg += b.d_azimuth_deg;
            p.camera.elevation_deg += b.d_elevation_deg;
            p.camera.target_offset[0] += b.d_target[0];
            p.camera.target_offset[1] += b.d_target[1];
            Some(Scene::new(&p)?)
        }
        None => None,
    };
    let mut knocked = false;
    let mut rng = Rng::new(params.seed ^ 0xc11b);
    let still = (opts.still_s * opts.fps).round().max(1.0) as usize;
    let moving = (opts.move_s * opts.fps).round().max(2.0) as usize;
    let mut frames = Vec::new();
    let mut n = 0usize;
    let mut emit = |state_idx: usize,
                    hand: Option<super::HandPose>,
                    knocked: bool,
                    frames: &mut Vec<FrameTruth>|
     -> Result<(), SynthError> {
        let scene = match (&bumped, knocked) {
            (Some(b), true) => b,
            _ => &scene,
        };
        let mut r = scene.render_frame(&states[state_idx], hand.as_ref(), n as u64)?;
        let time = n as f64 / opts.fps;
        relight(
            &mut r.image,
            1.0 + opts.light_swing * (std::f64::consts::TAU * time / 20.0).sin(),
        );
        tint(&mut r.image, opts.trouble.gains(time));
        if time < opts.trouble.black_s {
            for v in r.image.iter_mut() {
                *v = 0;
            }
        }
        let t = FrameTruth {
            frame: n,
            time_s: time,
            state: state_idx,
            corners: r.corners,
            hand_occludes: r.hand_occludes,
        };
        sink(&r.image, &t)?;
        frames.push(t);
        n += 1;
        Ok(())
    };
    let first_still = opts
        .trouble
        .first_still_s
        .map_or(still, |s| ((s * opts.fps).round() as usize).max(1));
    let black = (opts.trouble.black_s * opts.fps).round() as usize;
    for _ in 0..black + first_still {
        emit(0, None, false, &mut frames)?;
    }
    for i in 0..states.len() - 1 {
        let (a, b) = (&states[i], &states[i + 1]);
        let sites = changed_sites(a, b);
        // The hand goes to the middle of the changed sites (a move's from and to),
        // carrying the piece that arrives.
        let target = if sites.is_empty() {
            (a.rows / 2, a.cols / 2)
        } else {
            let (sr, sc) = sites
                .iter()
                .fold((0, 0), |acc, s| (acc.0 + s.0, acc.1 + s.1));
            (sr / sites.len(), sc / sites.len())
        };
        let carried: Option<Piece> = sites.iter().find_map(|&(r, c)| b.get(r, c));
        let approach = rng.range(-50.0, 50.0) + if rng.chance(0.5) { 0.0 } else { 180.0 };
        knocked |= opts.bump.is_some_and(|b| b.at_move == i);
        let rest = match opts.trouble.resting_arm {
            Some((after, s)) if after == i => (s * opts.fps).round() as usize,
            _ => 0,
        };
        let last = i + 2 == states.len();
        let reach = opts.trouble.reach_at_end.filter(|_| last);
        for k in 0..moving {
            if reach.is_some() && k > moving / 2 {
                // The piece put down, the hand is gone at once.
                break;
            }
            let t = (k as f64 + 0.5) / moving as f64;
            let state_idx = if t < 0.5 { i } else { i + 1 };
            let pose = gloved(
                scene.hand_pose(target, approach, t, if t < 0.5 { carried } else { None }),
                opts.trouble.glove,
            );
            emit(state_idx, Some(pose), knocked, &mut frames)?;
            if k + 1 == moving / 2 + 1 {
                // The piece put down, the arm rests where it is.
                for _ in 0..rest {
                    let pose = gloved(
                        scene.hand_pose(target, approach, 0.5 + 0.5 / moving as f64, None),
                        opts.trouble.glove,
                    );
                    emit(i + 1, Some(pose), knocked, &mut frames)?;
                }
            }
        }
        if let Some(s) = reach {
            let (rest, n) = reach_frames(s, opts.fps, moving);
            for _ in 0..rest {
                emit(i + 1, None, knocked, &mut frames)?;
            }
            // The hand comes back over the board's edge and stays there,
            // moving, to the end.
            let middle = (a.rows / 2, a.cols / 2);
            for k in 0..n {
                let t = 0.3 + 0.15 * k as f64 / (n - 1) as f64;
                let pose = gloved(
                    scene.hand_pose(middle, approach, t, None),
                    opts.trouble.glove,
                );
                emit(i + 1, Some(pose), knocked, &mut frames)?;
            }
        } else if !opts.no_pause_after.contains(&i) || last {
            for _ in 0..still {
                emit(i + 1, None, knocked, &mut frames)?;
            }
        }
    }
    Ok(ClipTruth {
        grid: states[0].grid_spec(),
        fps: opts.fps,
        states: states.iter().map(cells_text).collect(),
        frames,
    })
}

/// The hand in gloves and a sleeve of one colour, where given.
fn gloved(
    mut pose: crate::synth::hand::HandPose,
    glove: Option<[u8; 3]>,
) -> crate::synth::hand::HandPose {
    if let Some(c) = glove {
        pose.skin = c;
        pose.sleeve = Some(c);
    }
    pose
}

/// Renders a clip into a video file (through OpenCV's VideoWriter; `.avi` uses
/// MJPG, `.h264` a bare H.264 stream, anything else mp4v) and writes the sidecar beside it as `<video>.json`.
pub fn write_clip(
    path: &Path,
    params: &SceneParams,
    states: &[BoardState],
    opts: &ClipOptions,
) -> Result<ClipTruth, SynthError> {
    write_clip_with(path, params, states, opts, |_| {})
}

/// The number of frames `render_clip` makes of `states` positions.
pub fn clip_frames(states: usize, opts: &ClipOptions) -> usize {
    if states == 0 || !(opts.fps > 0.0 && opts.still_s >= 0.0 && opts.move_s > 0.0) {
        return 0;
    }
    let still = (opts.still_s * opts.fps).round().max(1.0) as usize;
    let moving = (opts.move_s * opts.fps).round().max(2.0) as usize;
    let pauses = (0..states - 1)
        .filter(|&i| !opts.no_pause_after.contains(&i) || i + 2 == states)
        .count();
    let all = still * (1 + pauses) + moving * (states - 1);
    match opts.trouble.reach_at_end {
        // The last move ends with the piece put down; the last pause is the
        // short rest and the hand's way back in.
        Some(s) if states > 1 => {
            let (rest, hand) = reach_frames(s, opts.fps, moving);
            all - still - (moving - moving / 2 - 1) + rest + hand
        }
        _ => all,
    }
}

/// The frames of `Trouble::reach_at_end` after the last piece is put down: at
/// rest for `s` seconds (one frame at least), then the hand's (two at least).
fn reach_frames(s: f64, fps: f64, moving: usize) -> (usize, usize) {
    (((s * fps).round() as usize).max(1), (moving / 2).max(2))
}

/// [`write_clip`], telling `progress` how many frames are written after each.
pub fn write_clip_with(
    path: &Path,
    params: &SceneParams,
    states: &[BoardState],
    opts: &ClipOptions,
    mut progress: impl FnMut(usize),
) -> Result<ClipTruth, SynthError> {
    let cv = |e: opencv::Error| SynthError(format!("video '{}': {}", path.display(), e.message));
    let mut writer = open_video(path, opts.fps, (params.width, params.height))?;
    let mut done = 0;
    let truth = render_clip(params, states, opts, |img, _| {
        let mat = crate::capture::rgb_to_bgr_mat(img).map_err(cv)?;
        writer.write(&mat).map_err(cv)?;
        done += 1;
        progress(done);
        Ok(())
    })?;
    writer.release().map_err(cv)?;
    let json = serde_json::to_string(&truth).map_err(|e| SynthError(e.to_string()))?;
    std::fs::write(sidecar_path(path), json + "\n").map_err(|e| SynthError(e.to_string()))?;
    Ok(truth)
}

/// `clip.mp4` → `clip.mp4.json`.
pub fn sidecar_path(video: &Path) -> std::path::PathBuf {
    let mut s = video.as_os_str().to_owned();
    s.push(".json");
    s.into()
}

/// A video writer for `path` (through OpenCV's VideoWriter; `.avi` uses MJPG,
/// `.h264` a bare H.264 stream, anything else mp4v), its folder made.
pub fn open_video(path: &Path, fps: f64, (w, h): (u32, u32)) -> Result<VideoWriter, SynthError> {
    let cv = |e: opencv::Error| SynthError(format!("video '{}': {}", path.display(), e.message));
    let avi = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("avi"));
    // A bare H.264 stream (no container, no frame times), as a Raspberry Pi
    // camera writes it.
    let raw = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("h264"));
    let code = if avi {
        VideoWriter::fourcc('M', 'J', 'P', 'G')
    } else if raw {
        VideoWriter::fourcc('H', '2', '6', '4')
    } else {
        VideoWriter::fourcc('m', 'p', '4', 'v')
    }
    .map_err(cv)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| SynthError(e.to_string()))?;
    }
    let size = Size::new(w as i32, h as i32);
    let writer = VideoWriter::new(path, code, fps, size, true).map_err(cv)?;
    if !writer.is_opened().map_err(cv)? {
        return Err(SynthError(format!(
            "cannot open '{}' for writing",
            path.display()
        )));
    }
    Ok(writer)
}
