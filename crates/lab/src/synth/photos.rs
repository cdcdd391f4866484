//! A game photographed position by position, as a folder of photos: the camera
//! held or set up anew for every shot (a few pixels off each time), the light and
//! exposure a little different, and now and then a hand still over the board.
//! What the real photo sets look like, with exact truth.

use super::{BoardState, Rendered, Rng, Scene, SceneParams, SynthError};

/// How the photos differ from one another.
#[derive(Clone, Debug, PartialEq)]
pub struct PhotoOptions {
    /// Camera shake between shots (1 = about 0.3 degrees and 2 mm).
    pub shake: f64,
    /// Largest change of exposure between shots, as a fraction of brightness.
    pub light_jitter: f64,
    /// Share of photos taken while a hand is still over the board.
    pub hands: f64,
}

impl Default for PhotoOptions {
    fn default() -> Self {
        PhotoOptions {
            shake: 1.5,
            light_jitter: 0.08,
            hands: 0.1,
        }
    }
}

/// Renders one photo per state, handing each to `sink` with its index.
/// Deterministic for equal inputs.
pub fn render_photos(
    params: &SceneParams,
    states: &[BoardState],
    opts: &PhotoOptions,
    mut sink: impl FnMut(usize, &Rendered) -> Result<(), SynthError>,
) -> Result<(), SynthError> {
    if !(opts.shake >= 0.0
        && (0.0..1.0).contains(&opts.light_jitter)
        && (0.0..=1.0).contains(&opts.hands))
    {
        return Err(SynthError(
            "photo options: shake >= 0, light jitter in 0..1, hands in 0..1".into(),
        ));
    }
    let mut p = params.clone();
    p.camera.shake = opts.shake;
    let scene = Scene::new(&p)?;
    let mut rng = Rng::new(params.seed ^ 0x9407);
    for (i, state) in states.iter().enumerate() {
        // The first photo (the start position) is taken with the board clear.
        let hand = (i > 0 && rng.chance(opts.hands)).then(|| {
            let target = (rng.below(state.rows), rng.below(state.cols));
            let approach = rng.range(-60.0, 60.0) + if rng.chance(0.5) { 0.0 } else { 180.0 };
            // Arriving or leaving, never holding a piece over its square.
            let t = if rng.chance(0.5) {
                rng.range(0.15, 0.35)
            } else {
                rng.range(0.65, 0.85)
            };
            scene.hand_pose(target, approach, t, None)
        });
        // Shake is smooth over frame numbers: shots far apart are unrelated.
        let mut r = scene.render_frame(state, hand.as_ref(), 1000 + 37 * i as u64)?;
        let gain = 1.0 + rng.range(-opts.light_jitter, opts.light_jitter);
        for v in r.image.iter_mut() {
            *v = (*v as f64 * gain).round().clamp(0.0, 255.0) as u8;
        }
        sink(i, &r)?;
    }
    Ok(())
}
