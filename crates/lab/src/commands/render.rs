use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use super::render_game::{shown, write_random_go, GameFiles};
use crate::geometry::GridSpec;
use crate::infer::WhiteSide;
use crate::record::Resume;
use crate::rules::chess::Chess;
use crate::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use crate::rules::tablut::{Tablut, TablutOptions};
use crate::sets::synthetic::kinds_for;
use crate::sets::{render_random, SynthSetOptions};
use crate::synth::clip::{write_clip_with, ClipBump, ClipOptions};
use crate::synth::params::{PieceColor, SquareScheme};
use crate::synth::{contact_sheet, Label, Rng, SceneParams};

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(subcommand)]
    pub what: RenderWhat,
}

/// What `render images` draws from; unset, every choice is random.
#[derive(Args, Debug, Default)]
pub struct ImagePicks {
    /// Image sizes (WxH, repeatable; one drawn per scene) [default: 640x480, 800x600, 960x540].
    #[arg(long = "size", value_parser = super::bench::parse_size)]
    sizes: Vec<(u32, u32)>,
    /// Every scene on this grid: 8x8, 9x9, 18x18, 19x19:points, any RxC[:points].
    #[arg(long)]
    grid: Option<GridSpec>,
    /// Draughts men and kings instead of chess pieces on a square grid.
    #[arg(long)]
    draughts: bool,
    /// Every scene from this preset (its own board, pieces, pose and light), random positions.
    #[arg(long, value_enum, conflicts_with = "grid")]
    preset: Option<Preset>,
    /// Share of scenes drawn from the presets instead of random styles.
    #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 1.0))]
    presets: f64,
    /// Board squares.
    #[arg(long, value_enum)]
    board: Option<Board>,
    /// Colour of the light pieces (`--white` is kept as another name; elsewhere
    /// `--white` is White's edge of the board).
    #[arg(long = "white-pieces", alias = "white", value_enum)]
    white: Option<Colour>,
    /// Colour of the dark pieces (`--black` is kept as another name).
    #[arg(long = "black-pieces", alias = "black", value_enum)]
    black: Option<Colour>,
    /// Camera elevation range in degrees, MIN,MAX (90 = straight above) [default: 25,90].
    #[arg(long, value_parser = parse_range)]
    elevation: Option<(f64, f64)>,
    /// Focal length range, 35 mm equivalent, MIN,MAX [default: 24,60].
    #[arg(long, value_parser = parse_range)]
    focal: Option<(f64, f64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Board {
    Wood,
    Vinyl,
    GreyWhite,
    BrownCream,
    BlackWhite,
    PlainWood,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Colour {
    White,
    Cream,
    LightWood,
    Black,
    Brown,
    DarkWood,
}

fn parse_range(s: &str) -> Result<(f64, f64), String> {
    let bad = || format!("'{s}' is not MIN,MAX (e.g. 40,70)");
    let (a, b) = s.split_once(',').ok_or_else(bad)?;
    let (a, b) = (
        a.trim().parse::<f64>().map_err(|_| bad())?,
        b.trim().parse::<f64>().map_err(|_| bad())?,
    );
    if !(a.is_finite() && b.is_finite()) || a > b {
        return Err(format!("'{s}': MIN must not exceed MAX"));
    }
    Ok((a, b))
}

impl ImagePicks {
    fn options(&self, hands: f64) -> anyhow::Result<SynthSetOptions> {
        if !(0.0..=1.0).contains(&hands) || !(0.0..=1.0).contains(&self.presets) {
            bail!("--hands and --presets are shares, from 0 to 1");
        }
        let mut o = SynthSetOptions {
            hands,
            corner_jitter: 0.0,
            presets: self.presets,
            ..SynthSetOptions::default()
        };
        if !self.sizes.is_empty() {
            o.ranges.sizes = self.sizes.clone();
        }
        if let Some((lo, hi)) = self.elevation {
            if lo < 5.0 || hi > 90.0 {
                bail!("--elevation must lie within 5 to 90 degrees");
            }
            o.ranges.elevation_deg = (lo, hi);
        }
        if let Some((lo, hi)) = self.focal {
            if lo < 8.0 || hi > 300.0 {
                bail!("--focal must lie within 8 to 300 mm (35 mm equivalent)");
            }
            o.ranges.focal_35mm = (lo, hi);
        }
        let f = &mut o.fixed;
        f.grid = self.grid.map(|g| (g, kinds_for(g, self.draughts)));
        f.preset = self.preset.map(|p| -> fn(u64) -> SceneParams {
            match p {
                Preset::Overhead => |s| SceneParams::chess_overhead(s, false),
                Preset::DarkWood => |s| SceneParams::chess_overhead(s, true),
                Preset::Vinyl => SceneParams::vinyl_tournament,
                Preset::Travel => SceneParams::magnetic_travel,
                Preset::Tablut => SceneParams::tablut,
                Preset::Go => SceneParams::go_oblique,
            }
        });
        f.board = self.board.map(|b| match b {
            Board::Wood => SquareScheme::Wood,
            Board::Vinyl => SquareScheme::GreenWhiteVinyl,
            Board::GreyWhite => SquareScheme::GreyWhite,
            Board::BrownCream => SquareScheme::BrownCream,
            Board::BlackWhite => SquareScheme::BlackWhite,
            Board::PlainWood => SquareScheme::PlainWood,
        });
        let colour = |c: Colour| match c {
            Colour::White => PieceColor::White,
            Colour::Cream => PieceColor::Cream,
            Colour::LightWood => PieceColor::LightWood,
            Colour::Black => PieceColor::Black,
            Colour::Brown => PieceColor::Brown,
            Colour::DarkWood => PieceColor::DarkWood,
        };
        f.white = self.white.map(colour);
        f.black = self.black.map(colour);
        f.draughts = self.draughts;
        f.sizes = (!self.sizes.is_empty()).then(|| self.sizes.clone());
        Ok(o)
    }
}

/// Scene looks that resemble real set-ups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// A webcam over a club board, grey and white squares.
    Overhead,
    /// The same over a dark wooden board.
    DarkWood,
    /// A green and white vinyl roll-up board on a table, near top-down.
    Vinyl,
    /// A small magnetic travel set with flat pieces.
    Travel,
    /// A Tablut board.
    Tablut,
    /// A Go board seen obliquely.
    Go,
}

#[derive(Subcommand, Debug)]
pub enum RenderWhat {
    /// Random labelled images: IMAGE.png plus IMAGE.json (grid, corners, cells, pieces).
    #[command(after_long_help = include_str!("help/render-images.txt"))]
    Images {
        #[arg(long)]
        count: u64,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Share of scenes with a hand over the board.
        #[arg(long, default_value_t = 0.3, value_parser = super::values::float_in(0.0, 1.0))]
        hands: f64,
        #[command(flatten)]
        pick: ImagePicks,
    },
    /// A video of a game, with a JSON sidecar of per-frame truth (CLIP.mp4.json: per
    /// frame the state on the board, the corners and whether a hand covers it).
    Clip {
        /// A chess game (PGN).
        #[arg(long)]
        pgn: Option<PathBuf>,
        /// A Russian draughts game (PDN).
        #[arg(long)]
        pdn: Option<PathBuf>,
        /// A Tablut game (boardscribe's Tablut record).
        #[arg(long)]
        tablut: Option<PathBuf>,
        /// A Go game (SGF, its main line), on points of its size: a stone that
        /// takes is put down, then the taken stones are lifted by a second hand
        /// visit with no still board between. The SGF is copied beside the
        /// video (CLIP.mp4.sgf).
        #[arg(long)]
        sgf: Option<PathBuf>,
        /// The video to write (.mp4 or .avi).
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_enum)]
        preset: Option<Preset>,
        /// Frame size, WxH, as `render images` and `render photos` take it
        /// [default: 640x480].
        #[arg(long, value_parser = super::values::size_in(64, 4096), conflicts_with_all = ["width", "height"])]
        size: Option<(u32, u32)>,
        /// Frame width (the older spelling of --size).
        #[arg(long, default_value_t = 640, value_parser = clap::value_parser!(u32).range(64..=4096))]
        width: u32,
        /// Frame height (the older spelling of --size).
        #[arg(long, default_value_t = 480, value_parser = clap::value_parser!(u32).range(64..=4096))]
        height: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Frames a second.
        #[arg(long, default_value_t = 10.0, value_parser = super::values::float_in(1.0, 120.0))]
        fps: f64,
        /// Seconds of still board after each move.
        #[arg(long, default_value_t = 1.0, value_parser = super::values::float_in(0.0, 600.0))]
        still: f64,
        /// Seconds a hand takes for one move.
        #[arg(long, default_value_t = 1.2, value_parser = super::values::float_in(0.1, 600.0))]
        move_time: f64,
        /// Camera elevation in degrees (90 = straight above); default the preset's.
        #[arg(long, value_parser = super::values::float_in(5.0, 90.0))]
        elevation: Option<f64>,
        /// Camera rotation around the board in degrees; default the preset's.
        #[arg(long, allow_hyphen_values = true, value_parser = super::values::float_in(-360.0, 360.0))]
        azimuth: Option<f64>,
        /// Camera shake amplitude (0 none, 1 small).
        #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 10.0))]
        shake: f64,
        /// Plies (1-based) after which the board is never left still: the next ply
        /// follows at once.
        #[arg(long, value_delimiter = ',')]
        no_pause_after: Vec<usize>,
        /// Slow light changes: brightness swings by up to this fraction.
        #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 0.9))]
        light_swing: f64,
        /// Knock the camera (4 degrees round, 3 down, aim shifted) as the hand comes
        /// for this ply (1-based); it stays there.
        #[arg(long)]
        bump_at: Option<usize>,
        /// Seconds of black frames first (a camera warming up).
        #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 60.0))]
        black: f64,
        /// Seconds of still board before the first move (default --still): the
        /// first moves come at once.
        #[arg(long, value_parser = super::values::float_in(0.0, 60.0))]
        first_still: Option<f64>,
        /// Dim warm light: the picture darkened by this fraction and tinted orange.
        #[arg(long, default_value_t = 0.0, value_parser = super::values::float_in(0.0, 0.9))]
        dim_warm: f64,
        /// An exposure jump at this second: from then on the picture is brighter
        /// and warmer (red x1.35, green x1.2, blue x1.05).
        #[arg(long, value_parser = super::values::float_in(0.0, 3600.0))]
        exposure_jump: Option<f64>,
        /// An arm resting over the board after this ply (1-based) for --rest
        /// seconds.
        #[arg(long)]
        arm_after: Option<usize>,
        /// Seconds the arm rests (with --arm-after).
        #[arg(long, default_value_t = 3.0, value_parser = super::values::float_in(0.0, 60.0))]
        rest: f64,
    },
    /// A game photographed position by position: a folder of JPEG photos (one per
    /// position, the camera a few pixels off each time, now and then a hand over
    /// the board) and `truth.json` (per photo its corners and contents).
    Photos {
        /// A chess game (PGN).
        #[arg(long)]
        pgn: Option<PathBuf>,
        /// A Russian draughts game (PDN).
        #[arg(long)]
        pdn: Option<PathBuf>,
        /// A Tablut game (boardscribe's Tablut record).
        #[arg(long)]
        tablut: Option<PathBuf>,
        /// A Go game (SGF, its main line), on points of its size; one photo a
        /// move, the taken stones lifted.
        #[arg(long)]
        sgf: Option<PathBuf>,
        /// The folder to write.
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_enum)]
        preset: Option<Preset>,
        /// Image size, WxH.
        #[arg(long, default_value = "640x480")]
        size: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Camera shake between shots (0 none, 1 about 0.3 degrees and 2 mm).
        #[arg(long, default_value_t = 1.5, value_parser = super::values::float_in(0.0, 10.0))]
        shake: f64,
        /// Share of photos with a hand over the board.
        #[arg(long, default_value_t = 0.1, value_parser = super::values::float_in(0.0, 1.0))]
        hands: f64,
    },
    /// A random legal Go game that fights (stones taken, groups pressed, moves
    /// near the stones), written as SGF: games for `render clip --sgf` and
    /// `render photos --sgf`.
    GoGame {
        /// The SGF to write.
        #[arg(long)]
        out: PathBuf,
        /// The board: 19x19:points, 13x13:points, 9x9:points (any square size
        /// from 2 to 25 lines).
        #[arg(long, default_value = "19x19:points")]
        grid: GridSpec,
        /// Stones to play (fewer when the board fills).
        #[arg(long, default_value_t = 40)]
        moves: usize,
        /// Passes among them, each after a stone and before another.
        #[arg(long, default_value_t = 0)]
        passes: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Several boards in one camera view (a tournament table): a photo with
    /// `truth.json` (per board in reading order its grid, corners and position),
    /// or with --clip a video of the games played at once with each game's
    /// record and per-frame truth.
    Table(super::render_table::TableArgs),
    /// A contact sheet of renders of every kind of scene (the README's picture).
    Sheet {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(a: RenderArgs) -> anyhow::Result<()> {
    match a.what {
        RenderWhat::Images {
            count,
            out,
            seed,
            hands,
            pick,
        } => {
            let opts = pick.options(hands)?;
            std::fs::create_dir_all(&out)
                .with_context(|| format!("cannot create '{}'", out.display()))?;
            for i in 0..count {
                let s = Rng::derive(seed, i).next_u64();
                let (r, _) = render_random(s, &opts)?;
                let stem = out.join(format!("render_{i:05}"));
                r.rendered
                    .image
                    .save(stem.with_extension("png"))
                    .with_context(|| format!("writing {}", stem.display()))?;
                let label = Label::new(&r.state, &r.rendered, s);
                std::fs::write(stem.with_extension("json"), label.to_json() + "\n")?;
            }
            outln!(
                "{} with labels in {}",
                super::values::plural(count as usize, "image", "images"),
                out.display()
            );
        }
        RenderWhat::Clip {
            pgn,
            pdn,
            tablut,
            sgf,
            out,
            preset,
            size,
            width,
            height,
            seed,
            fps,
            still,
            move_time,
            elevation,
            azimuth,
            shake,
            no_pause_after,
            light_swing,
            bump_at,
            black,
            first_still,
            dim_warm,
            exposure_jump,
            arm_after,
            rest,
        } => {
            let game = shown(
                GameFiles {
                    pgn,
                    pdn,
                    tablut,
                    sgf,
                },
                true,
            )?;
            // Plies (1-based) as the clip's transitions: the first a ply takes,
            // or its last.
            let first = |p: usize| {
                game.plies
                    .get(p.saturating_sub(1))
                    .map_or(p.saturating_sub(1), |t| t.0)
            };
            let last = |p: usize| {
                game.plies
                    .get(p.saturating_sub(1))
                    .map_or(p.saturating_sub(1), |t| t.1)
            };
            let mut trouble =
                clip_trouble(black, first_still, dim_warm, exposure_jump, arm_after, rest);
            trouble.resting_arm = arm_after.map(|p| (last(p), rest));
            let mut hurried: Vec<usize> = no_pause_after.iter().map(|&p| last(p)).collect();
            hurried.extend(game.hurried());
            let clip = ClipOptions {
                fps,
                still_s: still,
                move_s: move_time,
                no_pause_after: hurried,
                light_swing,
                // A knock a careless hand gives a phone on a stand.
                bump: bump_at.map(|m| ClipBump {
                    at_move: first(m),
                    d_azimuth_deg: 4.0,
                    d_elevation_deg: -3.0,
                    d_target: [0.04, -0.03],
                }),
                trouble,
            };
            let (width, height) = size.unwrap_or((width, height));
            let look = |default: Preset| {
                let mut p = preset_params(preset.unwrap_or(default), seed);
                p.width = width;
                p.height = height;
                p.camera.shake = shake;
                if let Some(e) = elevation {
                    p.camera.elevation_deg = e;
                }
                if let Some(az) = azimuth {
                    p.camera.azimuth_deg = az;
                }
                p
            };
            let params = game.fit(look(game.preset));
            let states = game.states;
            let inputs = [game.path.as_path()];
            let sidecar = crate::synth::clip::sidecar_path(&out);
            // A Go clip's states are more than its moves (a capture takes two):
            // the game itself goes beside the video as its truth.
            let go_truth = game
                .go
                .then(|| out.with_extension(go_truth_extension(&out)));
            let mut outputs = vec![("--out", out.as_path()), ("the sidecar", &sidecar)];
            outputs.extend(go_truth.as_deref().map(|t| ("the game's copy", t)));
            super::paths::check_outputs(&outputs, &inputs)?;
            let total = crate::synth::clip::clip_frames(states.len(), &clip);
            let mut bar = boardscribe_cli::Bar::on_terminal();
            let truth = write_clip_with(&out, &params, &states, &clip, |done| {
                bar.show(done, total, "");
            });
            bar.clear();
            let truth = truth?;
            let mut truth_in = sidecar.display().to_string();
            if let Some(t) = &go_truth {
                std::fs::copy(&game.path, t)
                    .with_context(|| format!("copying '{}'", game.path.display()))?;
                truth_in += &format!(" and {}", t.display());
            }
            outln!(
                "{}, {}: {} (truth in {truth_in})",
                super::values::plural(truth.frames.len(), "frame", "frames"),
                super::values::plural(states.len(), "position", "positions"),
                out.display(),
            );
        }
        RenderWhat::Photos {
            pgn,
            pdn,
            tablut,
            sgf,
            out,
            preset,
            size,
            seed,
            shake,
            hands,
        } => {
            let (w, h) = parse_size(&size)?;
            let look = |default: Preset| {
                let mut p = preset_params(preset.unwrap_or(default), seed);
                (p.width, p.height) = (w, h);
                p
            };
            let game = shown(
                GameFiles {
                    pgn,
                    pdn,
                    tablut,
                    sgf,
                },
                false,
            )?;
            let params = game.fit(look(game.preset));
            let states = game.states;
            write_photos(&out, &params, &states, &game.path, shake, hands)?;
            outln!(
                "{}: {}",
                super::values::plural(states.len(), "photo", "photos"),
                out.display()
            );
        }
        RenderWhat::GoGame {
            out,
            grid,
            moves,
            passes,
            seed,
        } => write_random_go(grid, (moves, passes), seed, &out)?,
        RenderWhat::Table(a) => super::render_table::run(a)?,
        RenderWhat::Sheet { out, seed } => {
            let mut images = Vec::new();
            for (i, p) in [
                Preset::Overhead,
                Preset::DarkWood,
                Preset::Vinyl,
                Preset::Travel,
                Preset::Tablut,
                Preset::Go,
            ]
            .iter()
            .enumerate()
            {
                let params = preset_params(*p, seed + i as u64);
                let state = sample_state(&params, seed + i as u64, *p == Preset::DarkWood);
                images.push(crate::synth::render(&params, &state, None)?.image);
            }
            let opts = SynthSetOptions::default();
            for i in 0..6 {
                let (r, _) = render_random(Rng::derive(seed, 1000 + i).next_u64(), &opts)?;
                images.push(r.rendered.image);
            }
            let sheet = contact_sheet(&images, 4, 320);
            sheet
                .save(&out)
                .with_context(|| format!("writing {}", out.display()))?;
            outln!("contact sheet: {}", out.display());
        }
    }
    Ok(())
}

/// `WxH` as two sizes.
fn parse_size(s: &str) -> anyhow::Result<(u32, u32)> {
    let bad = || anyhow::anyhow!("'{s}' is not a size: use WxH, such as 640x480");
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let (w, h): (u32, u32) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
    if !(64..=4096).contains(&w) || !(64..=4096).contains(&h) {
        bail!("size '{s}' is out of range: 64 to 4096 pixels each way");
    }
    Ok((w, h))
}

/// The photos of `states` into `out`, with `truth.json` and a copy of the game file.
fn write_photos(
    out: &Path,
    params: &SceneParams,
    states: &[crate::synth::BoardState],
    game_file: &Path,
    shake: f64,
    hands: f64,
) -> anyhow::Result<()> {
    use crate::synth::photos::{render_photos, PhotoOptions};
    std::fs::create_dir_all(out).with_context(|| format!("cannot create '{}'", out.display()))?;
    let opts = PhotoOptions {
        shake,
        hands,
        ..PhotoOptions::default()
    };
    let mut photos = Vec::new();
    render_photos(params, states, &opts, |i, r| {
        let name = format!("photo_{:04}.jpg", i + 1);
        let err = |e: String| crate::synth::SynthError(format!("writing '{name}': {e}"));
        let file = std::fs::File::create(out.join(&name)).map_err(|e| err(e.to_string()))?;
        image::codecs::jpeg::JpegEncoder::new_with_quality(std::io::BufWriter::new(file), 90)
            .encode_image(&r.image)
            .map_err(|e| err(e.to_string()))?;
        photos.push(serde_json::json!({
            "image": name,
            "corners": r.corners,
            "cells": crate::synth::clip::cells_text(&states[i]),
            "hand_occludes": r.hand_occludes,
        }));
        Ok(())
    })?;
    let truth = serde_json::json!({"grid": states[0].grid_spec(), "photos": photos});
    std::fs::write(out.join("truth.json"), truth.to_string() + "\n")?;
    let ext = game_file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("txt");
    std::fs::copy(game_file, out.join(format!("truth.{ext}")))
        .with_context(|| format!("copying '{}'", game_file.display()))?;
    Ok(())
}

/// `mp4.sgf` for `clip.mp4`: the video's name with `.sgf` added.
fn go_truth_extension(video: &Path) -> String {
    match video.extension().and_then(|e| e.to_str()) {
        Some(e) => format!("{e}.sgf"),
        None => "sgf".into(),
    }
}

/// Scene parameters for a preset.
pub fn preset_params(p: Preset, seed: u64) -> SceneParams {
    match p {
        Preset::Overhead => SceneParams::chess_overhead(seed, false),
        Preset::DarkWood => SceneParams::chess_overhead(seed, true),
        Preset::Vinyl => SceneParams::vinyl_tournament(seed),
        Preset::Travel => SceneParams::magnetic_travel(seed),
        Preset::Tablut => SceneParams::tablut(seed),
        Preset::Go => SceneParams::go_oblique(seed),
    }
}

/// A plausible position for a preset's grid: a chess or draughts start, a Tablut
/// start, or scattered Go stones.
fn sample_state(params: &SceneParams, seed: u64, draughts: bool) -> crate::synth::BoardState {
    use crate::sets::board_state;
    match (params.rows, params.points) {
        (9, false) => board_state(&Tablut::new(Default::default()), WhiteSide::Bottom),
        (8, false) if draughts => board_state(
            &RussianDraughts::new(DraughtsOptions::default()),
            WhiteSide::Bottom,
        ),
        (8, false) => board_state(&Chess::new(), WhiteSide::Bottom),
        _ => {
            let mut rng = Rng::new(seed);
            let mut s = crate::synth::BoardState::empty(params.rows, params.cols, params.points);
            for r in 0..params.rows {
                for c in 0..params.cols {
                    if rng.chance(0.25) {
                        let side = if rng.chance(0.5) {
                            crate::synth::PieceSide::White
                        } else {
                            crate::synth::PieceSide::Black
                        };
                        s.set(
                            r,
                            c,
                            Some(crate::synth::Piece::new(
                                side,
                                crate::synth::PieceKind::Stone,
                            )),
                        );
                    }
                }
            }
            s
        }
    }
}

fn read(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read '{}'", path.display()))
}

/// A game from its record file (`format` names the format in messages): start
/// position and moves, read as `event` reads a record back.
fn game_of<R: Resume>(path: &Path, like: &R, format: &str) -> anyhow::Result<(R, Vec<R::Move>)> {
    let r = R::read_record(&read(path)?, like)
        .map_err(|e| anyhow::anyhow!("{format} '{}': {e}", path.display()))?;
    Ok((r.start, r.moves))
}

/// A chess game from a PGN file: start position and moves.
pub fn chess_game(path: &Path) -> anyhow::Result<(Chess, Vec<shakmaty::Move>)> {
    game_of(path, &Chess::new(), "PGN")
}

/// A Russian draughts game from a PDN file.
pub fn draughts_game(
    path: &Path,
) -> anyhow::Result<(RussianDraughts, Vec<crate::rules::russian_draughts::Move>)> {
    game_of(
        path,
        &RussianDraughts::new(DraughtsOptions::default()),
        "PDN",
    )
}

/// A Tablut game from boardscribe's Tablut record.
pub fn tablut_game(path: &Path) -> anyhow::Result<(Tablut, Vec<crate::rules::tablut::Move>)> {
    game_of(
        path,
        &Tablut::new(TablutOptions::default()),
        "Tablut record",
    )
}

/// The clip's troubles from the `render clip` flags.
fn clip_trouble(
    black: f64,
    first_still: Option<f64>,
    dim_warm: f64,
    exposure_jump: Option<f64>,
    arm_after: Option<usize>,
    rest: f64,
) -> crate::synth::clip::Trouble {
    crate::synth::clip::Trouble {
        black_s: black,
        first_still_s: first_still,
        dim_warm,
        exposure_jump: exposure_jump.map(|t| (t, [1.35, 1.2, 1.05])),
        resting_arm: arm_after.map(|p| (p.saturating_sub(1), rest)),
        glove: None,
        reach_at_end: None,
    }
}
