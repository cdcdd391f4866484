//! The round file: the event's tags and, per board, what `record` would be told.
//!
//! ```toml
//! [event]
//! name = "Club Championship"
//! site = "Brno"
//! round = "3"
//!
//! [[board]]
//! number = 1
//! game = "chess"            # chess | russian-draughts | tablut
//! input = "board1.mp4"      # camera:N, a URL, a video file or a photo folder
//! white = "Anna Novak"
//! black = "Ben Horvat"
//! white-elo = 2215          # the tags Lichess relays read: white-elo, black-elo,
//! black-title = "FM"        # white-title, black-title, white-fide-id,
//! black-fide-id = 1503014   # black-fide-id, time-control (also in [event])
//! # grid, corners, profile, camera, white-side, fen, position, fps, max-fps,
//! # quiet: optional, as in `record`
//! # region = 2              # one camera over several boards: boards share an
//! #                         # input, each the N-th board found in it (`record --board`)
//! ```
//!
//! Every board's values are checked when the file is read, with `record`'s own
//! rules and ranges, so that a mistake is said (naming the board and the key)
//! before anything is recorded, never found when a board starts.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::game::{GameKind, GameSetup, GameVisitor, Setup, SetupError};
use crate::geometry::{Corners, GridSpec};
use crate::infer::WhiteSide;
use crate::record::Resume;
use crate::record::{Lock, LockError};
use crate::rules::go::{GoOptions, Komi};

/// Seconds the board must be still (`record --quiet`, the round file's `quiet`).
pub const QUIET_S: (f64, f64) = (0.0, 60.0);
/// Frames per second of photos or to override a video's (`--fps`, `fps`).
pub const FPS: (f64, f64) = (0.001, 1000.0);
/// The most frames a second looked at, 0 for all (`--max-fps`, `max-fps`).
pub const MAX_FPS: (f64, f64) = (0.0, 1000.0);

/// `[event]`: the tags every game of the round carries.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct EventInfo {
    /// The Event tag of every game.
    pub name: String,
    /// The Site tag.
    #[serde(default)]
    pub site: String,
    /// The round number; board N's games are tagged `[Round "R.N"]`.
    #[serde(default)]
    pub round: String,
    /// `YYYY.MM.DD`; default today.
    #[serde(default)]
    pub date: Option<String>,
    /// Play video files and photo folders at the pace they were filmed, as cameras
    /// would deliver them (rehearsals, demonstrations); default as fast as read.
    #[serde(default)]
    pub realtime: bool,
    /// Attempts at a board whose input is a file or a folder before it is given up
    /// (cameras and streams are retried for as long as the command runs).
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// A NATS server (`nats://HOST:4222`) the boards' events are published to,
    /// for a broadcast on another machine (`event --nats` overrides it).
    #[serde(default)]
    pub nats: Option<String>,
    /// The TimeControl tag of every game (PGN's form: `5400+30`,
    /// `40/5400+30:1800+30`); a board's own `time-control` overrides it.
    #[serde(default, alias = "time_control")]
    pub time_control: Option<String>,
}

fn default_retries() -> u32 {
    3
}

/// `[[board]]`: one board, told what `record` is told.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BoardSpec {
    /// The board's number in the round, from 1.
    pub number: u32,
    /// As `record --game` (no `free`); default chess.
    #[serde(default, deserialize_with = "game_kind")]
    pub game: Option<GameKind>,
    /// `camera:N`, an `rtsp://` or `http(s)://` URL, a video file or a photo folder;
    /// paths are relative to the round file.
    pub input: String,
    /// The players' names.
    #[serde(default)]
    pub white: String,
    /// The player of the black pieces.
    #[serde(default)]
    pub black: String,
    /// White's Elo rating (the WhiteElo tag), a whole number; `2215` or `"2215"`.
    #[serde(default, alias = "white_elo", deserialize_with = "number_or_text")]
    pub white_elo: Option<String>,
    /// Black's Elo rating (BlackElo).
    #[serde(default, alias = "black_elo", deserialize_with = "number_or_text")]
    pub black_elo: Option<String>,
    /// White's title (WhiteTitle): GM, IM, FM, CM, WGM, WIM, WFM, WCM, NM or WNM.
    #[serde(default, alias = "white_title")]
    pub white_title: Option<String>,
    /// Black's title (BlackTitle).
    #[serde(default, alias = "black_title")]
    pub black_title: Option<String>,
    /// White's FIDE id (WhiteFideId), its digits.
    #[serde(default, alias = "white_fide_id", deserialize_with = "number_or_text")]
    pub white_fide_id: Option<String>,
    /// Black's FIDE id (BlackFideId).
    #[serde(default, alias = "black_fide_id", deserialize_with = "number_or_text")]
    pub black_fide_id: Option<String>,
    /// This game's TimeControl tag, over `[event] time-control`.
    #[serde(default, alias = "time_control")]
    pub time_control: Option<String>,
    /// As `record --grid`; default 8x8 (Tablut 9x9) unless a profile gives one.
    pub grid: Option<String>,
    /// As `record --corners`; neither corners nor a profile: located automatically.
    pub corners: Option<String>,
    /// As `record --board`: the input's view holds several boards (boards may
    /// share an `input`), and this one is the N-th found in it, from 1, in
    /// reading order; only its part of the frame is watched.
    pub region: Option<u16>,
    /// A board profile (relative to the round file).
    pub profile: Option<PathBuf>,
    /// A camera (lens) profile (relative to the round file).
    pub camera: Option<PathBuf>,
    /// White's edge of the grid (`bottom`, `top`, `left`, `right`, `auto`), as
    /// `record --white`.
    #[serde(alias = "white_side")]
    pub white_side: Option<String>,
    /// A set-up start (chess FEN, draughts PDN FEN).
    pub fen: Option<String>,
    /// A set-up Tablut start, in its text format (`fen` is not taken for Tablut).
    pub position: Option<String>,
    /// Tablut: White moves first.
    #[serde(default)]
    pub white_first: bool,
    /// Go: handicap stones on the star points (2 to 9), as `record --handicap`.
    #[serde(default)]
    pub handicap: u8,
    /// Go: the komi (`6.5`), as `record --komi`.
    pub komi: Option<String>,
    /// Go: positional superko, as `record --superko`.
    #[serde(default)]
    pub superko: bool,
    /// As `record --fps`, `--max-fps` and `--quiet`.
    pub fps: Option<f64>,
    /// As `record --max-fps`.
    pub max_fps: Option<f64>,
    /// As `record --quiet`.
    pub quiet: Option<f64>,
    /// Overrides `[event] realtime` for this board.
    pub realtime: Option<bool>,
    /// The game, its options and its start parsed from `game`, `fen`,
    /// `position` and `white-first` when the round file is read.
    #[serde(skip)]
    pub setup: GameSetup,
}

/// A value written as a number or as text (`white-elo = 2215` or `"2215"`),
/// kept as text: checked with the board's other values, so that a mistake is
/// said naming the board and the key.
fn number_or_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match toml::Value::deserialize(d)? {
        toml::Value::String(s) => Some(s),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        other => Some(other.to_string()),
    })
}

/// `game = "..."`: a game's name as the command line takes it.
fn game_kind<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<GameKind>, D::Error> {
    let name = String::deserialize(d)?;
    name.parse().map(Some).map_err(serde::de::Error::custom)
}

impl BoardSpec {
    /// The board of a game set up already (`record --serve`).
    pub(crate) fn of_game(number: u32, setup: GameSetup, input: &str) -> BoardSpec {
        BoardSpec {
            number,
            game: Some(setup.kind()),
            input: input.to_string(),
            setup,
            ..BoardSpec::default()
        }
    }

    /// The board's game.
    pub(crate) fn game(&self) -> GameKind {
        self.setup.kind()
    }

    /// Whether the input is a file or a folder (it can end), not a camera or stream.
    pub fn is_offline(&self) -> bool {
        !(self.input.starts_with("camera:") || self.input.contains("://"))
    }
}

/// A whole round file, boards in number order.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundFile {
    /// `[event]`: the round's tags and options.
    pub event: EventInfo,
    /// `[[board]]`: the boards, in number order.
    #[serde(rename = "board", default)]
    pub boards: Vec<BoardSpec>,
}

impl RoundFile {
    /// Reads and checks a round file; relative paths are taken from its folder.
    /// Once every value reads, every board's profiles are read and checked as
    /// `record` checks them: every mistake said at once, before anything starts.
    pub fn load(path: &Path) -> Result<RoundFile, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let base = path.parent().unwrap_or(Path::new(""));
        let refused = |source| LoadError::Refused {
            path: path.to_path_buf(),
            source,
        };
        let file = RoundFile::parse(&text, base).map_err(refused)?;
        let bad: Vec<BadValue> = file
            .boards
            .iter()
            .flat_map(BoardSpec::check_profiles)
            .collect();
        if !bad.is_empty() {
            return Err(refused(RoundFileError::Values(bad)));
        }
        Ok(file)
    }

    /// Keeps a second `event` off the folder `out`, and any recorder (`record
    /// --resume` on a board's file) off the records this round writes there
    /// (each board's and the round PGN), for as long as the locks are held:
    /// refused with the holder named. `command` is this holder's command line.
    pub fn lock(&self, out: &Path, command: &str) -> Result<Vec<Lock>, LockError> {
        let mut locks = vec![Lock::folder(out, command)?];
        for spec in &self.boards {
            locks.push(Lock::record(&out.join(spec.record_name()), command)?);
        }
        locks.push(Lock::record(&out.join("round.pgn"), command)?);
        Ok(locks)
    }

    /// Parses and checks a round file's text; relative paths are joined to `base`.
    pub(crate) fn parse(text: &str, base: &Path) -> Result<RoundFile, RoundFileError> {
        let mut round = RoundFile::parse_unchecked(text, base)?;
        let mut bad: Vec<BadValue> = Vec::new();
        for b in &mut round.boards {
            let (mistakes, setup) = b.read();
            bad.extend(mistakes);
            if let Some(setup) = setup {
                b.setup = setup;
            }
        }
        if bad.is_empty() {
            Ok(round)
        } else {
            Err(RoundFileError::Values(bad))
        }
    }

    /// The file's structure read and checked; the boards' values not yet.
    fn parse_unchecked(text: &str, base: &Path) -> Result<RoundFile, RoundFileError> {
        let mut round: RoundFile = toml::from_str(text)?;
        if round.boards.is_empty() {
            return Err(RoundFileError::NoBoards);
        }
        round.boards.sort_by_key(|b| b.number);
        for (i, b) in round.boards.iter().enumerate() {
            if b.number == 0 {
                return Err(RoundFileError::BoardZero);
            }
            if i > 0 && round.boards[i - 1].number == b.number {
                return Err(RoundFileError::Twice(b.number));
            }
            if b.input.trim().is_empty() {
                return Err(RoundFileError::NoInput(b.number));
            }
        }
        if let Some(d) = &round.event.date {
            if !valid_date(d) {
                return Err(RoundFileError::Date(d.clone()));
            }
        }
        if let Some(tc) = &round.event.time_control {
            if let Some(why) = time_control_mistake(tc) {
                return Err(RoundFileError::TimeControl(why));
            }
        }
        let join = |p: &Path| {
            if p.is_relative() && !base.as_os_str().is_empty() {
                base.join(p)
            } else {
                p.to_path_buf()
            }
        };
        for b in &mut round.boards {
            if b.is_offline() {
                b.input = join(Path::new(&b.input)).to_string_lossy().into_owned();
            }
            b.profile = b.profile.as_deref().map(join);
            b.camera = b.camera.as_deref().map(join);
        }
        Ok(round)
    }
}

/// A round file's text refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RoundFileError {
    /// Not TOML, or not a round file's keys (an unknown key, a value of the
    /// wrong type, a game that is not one).
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    /// No `[[board]]` in the file.
    #[error("no [[board]] given")]
    NoBoards,
    /// A board numbered 0.
    #[error("board numbers start at 1")]
    BoardZero,
    /// Two boards with this number.
    #[error("board {0} is given twice")]
    Twice(u32),
    /// This board's `input` is empty.
    #[error("board {0}: no input")]
    NoInput(u32),
    /// `[event] date`, not `YYYY.MM.DD`.
    #[error("date '{0}' is not YYYY.MM.DD")]
    Date(String),
    /// `[event] time-control`, not PGN's form; why.
    #[error("[event] time-control: {0}")]
    TimeControl(String),
    /// Values refused, each naming its board and key (every one found).
    #[error("{}", said_all(.0))]
    Values(Vec<BadValue>),
}

/// Every value refused, on one line.
fn said_all(bad: &[BadValue]) -> String {
    let lines: Vec<String> = bad.iter().map(BadValue::to_string).collect();
    lines.join("; ")
}

impl RoundFileError {
    /// Whether `record` would refuse the same mistake in its flags as a usage
    /// error (a value malformed or out of range: exit status 2), rather than as
    /// an input it cannot use (a start position that is not a position: 1).
    pub(crate) fn is_usage(&self) -> bool {
        match self {
            RoundFileError::Values(bad) => bad.iter().any(|b| b.usage),
            _ => false,
        }
    }
}

/// A round file that cannot be used ([`RoundFile::load`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read the round file '{}'", path.display())]
    Read {
        /// The round file.
        path: PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The file was read; what it says is refused.
    #[error("round file '{}'", path.display())]
    Refused {
        /// The round file.
        path: PathBuf,
        /// What is refused in it.
        source: RoundFileError,
    },
}

impl LoadError {
    /// Whether `record` would refuse the same mistake in its flags as a usage
    /// error (see `RoundFileError::is_usage`).
    pub fn is_usage(&self) -> bool {
        match self {
            LoadError::Refused { source, .. } => source.is_usage(),
            LoadError::Read { .. } => false,
        }
    }
}

/// One board's value refused.
#[derive(Debug, Clone, PartialEq)]
pub struct BadValue {
    /// The board's number.
    pub board: u32,
    /// The key as the round file spells it (`max-fps`).
    pub key: &'static str,
    /// Why the value is refused.
    pub why: String,
    /// A usage error to `record` (see `RoundFileError::is_usage`).
    pub usage: bool,
}

impl std::fmt::Display for BadValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "board {}: {}: {}", self.board, self.key, self.why)
    }
}

impl BoardSpec {
    /// The name of the board's record in the round's folder: `board-N.pgn`
    /// (`.pdn` for draughts, `.txt` for Tablut).
    pub(crate) fn record_name(&self) -> String {
        format!("board-{}.{}", self.number, self.game().extension())
    }

    /// Checks every value as `record` checks its flags; every mistake found.
    pub fn check(&self) -> Vec<BadValue> {
        self.read().0
    }

    /// Every mistake in the board's values, and its game set up when that is
    /// right.
    pub(crate) fn read(&self) -> (Vec<BadValue>, Option<GameSetup>) {
        let mut bad = Vec::new();
        let mut refuse = |key: &'static str, why: String, usage: bool| {
            bad.push(BadValue {
                board: self.number,
                key,
                why,
                usage,
            })
        };
        let game = self.game.unwrap_or_default();
        self.check_numbers(&mut refuse);
        for (key, why) in self.tag_mistakes(game) {
            refuse(key, why, true);
        }
        self.check_placement(game, &mut refuse);
        let setup = self.setup(game, &mut refuse);
        (bad, setup)
    }

    /// The rates and the still time, within the ranges `record` takes.
    fn check_numbers(&self, refuse: Refuse) {
        let numbers = [
            ("fps", self.fps, FPS, "frames a second", "--fps"),
            (
                "max-fps",
                self.max_fps,
                MAX_FPS,
                "frames a second (0: all)",
                "--max-fps",
            ),
            ("quiet", self.quiet, QUIET_S, "seconds", "--quiet"),
        ];
        for (key, value, (lo, hi), unit, flag) in numbers {
            if let Some(v) = value {
                if !(v.is_finite() && (lo..=hi).contains(&v)) {
                    refuse(
                        key,
                        format!("{v} is out of range: {lo} to {hi} {unit}, as {flag} takes"),
                        true,
                    );
                }
            }
        }
    }

    /// Where the board is in its input: grid (and that it is `game`'s), corners,
    /// region, White's edge.
    fn check_placement(&self, game: GameKind, refuse: Refuse) {
        if let Some(g) = &self.grid {
            match g.parse::<GridSpec>() {
                Err(e) => refuse("grid", e.to_string(), true),
                Ok(grid) => {
                    let want = game.default_grid();
                    if !game.plays_on(&grid.to_string()) {
                        refuse(
                            "grid",
                            format!(
                                "{} is played on a {want} grid, not {grid}: leave out grid, or give \"{want}\"",
                                game.name()
                            ),
                            true,
                        );
                    }
                }
            }
        }
        if let Some(c) = &self.corners {
            if let Err(e) = c.parse::<Corners>() {
                refuse("corners", e.to_string(), true);
            }
        }
        if let Some(n) = self.region {
            if !(1..=64).contains(&n) {
                refuse(
                    "region",
                    format!("{n} is out of range: the boards of a view are numbered 1 to 64"),
                    true,
                );
            } else if self.corners.is_some() || self.profile.is_some() {
                refuse(
                    "region",
                    "give the board's region or its corners (or profile), not both".to_string(),
                    true,
                );
            }
        }
        if let Some(w) = &self.white_side {
            if w != "auto" {
                if let Err(e) = w.parse::<WhiteSide>() {
                    refuse("white-side", e.to_string(), true);
                }
            }
        }
    }

    /// The game set up from its keys (start, Go's options); None when they are
    /// refused.
    fn setup(&self, game: GameKind, refuse: Refuse) -> Option<GameSetup> {
        // A start under another game's key is refused before any is parsed.
        let (mut start, mut wrong_key) = (None, false);
        for (key, value) in [("fen", &self.fen), ("position", &self.position)] {
            match value {
                Some(_) if key != game.start_key() => {
                    wrong_key = true;
                    refuse(
                        key,
                        format!(
                            "a {} start goes in {}, not {key}",
                            game.display_name(),
                            game.start_key()
                        ),
                        true,
                    )
                }
                Some(v) => start = Some(v.clone()),
                None => {}
            }
        }
        let mut go = GoOptions::default();
        if let Some(size) = self.grid.as_deref().and_then(|g| game.board_size(g)) {
            go.size = size;
        }
        go.handicap = self.handicap;
        go.superko = self.superko;
        if let Some(k) = &self.komi {
            match k.parse::<Komi>() {
                Ok(k) => go.komi = Some(k),
                Err(e) => refuse("komi", e.to_string(), true),
            }
        }
        let setup = Setup {
            kind: game,
            start,
            white_first: self.white_first,
            go,
        };
        match GameSetup::parse(&setup) {
            _ if wrong_key => None,
            Ok(s) => Some(s),
            Err(e) => {
                let key = match &e {
                    SetupError::NotForGame { option, .. } => option,
                    _ => game.start_key(),
                };
                refuse(key, e.to_string(), e.is_usage());
                None
            }
        }
    }
}

/// Where a board's checks say what they refuse: the key, why, and whether
/// `record` would take it as a usage error.
type Refuse<'a> = &'a mut dyn FnMut(&'static str, String, bool);

/// The players' titles a round file takes (WhiteTitle, BlackTitle): FIDE's
/// and the national ones Lichess broadcasts show.
pub(crate) const TITLES: [&str; 10] = [
    "GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM", "NM", "WNM",
];

/// The highest Elo rating taken.
const MAX_ELO: u32 = 3999;

/// The most digits a FIDE id has (ids have 6 to 9 today).
const FIDE_ID_DIGITS: usize = 10;

impl BoardSpec {
    /// The tags beyond the roster the round file gives this board's games, in
    /// the order the record writes them: ratings, titles, FIDE ids, the time
    /// control (the board's, else the event's).
    pub(crate) fn player_tags(&self, event: &EventInfo) -> Vec<(String, String)> {
        let title = |t: &Option<String>| t.as_ref().map(|t| t.trim().to_ascii_uppercase());
        let trimmed = |v: &Option<String>| v.as_ref().map(|v| v.trim().to_string());
        let time = self.time_control.as_ref().or(event.time_control.as_ref());
        [
            ("WhiteElo", trimmed(&self.white_elo)),
            ("BlackElo", trimmed(&self.black_elo)),
            ("WhiteTitle", title(&self.white_title)),
            ("BlackTitle", title(&self.black_title)),
            ("WhiteFideId", trimmed(&self.white_fide_id)),
            ("BlackFideId", trimmed(&self.black_fide_id)),
            ("TimeControl", trimmed(&time.cloned())),
        ]
        .into_iter()
        .filter_map(|(name, v)| v.map(|v| (name.to_string(), v)))
        .collect()
    }

    /// Every player tag refused, as (key, why).
    fn tag_mistakes(&self, game: GameKind) -> Vec<(&'static str, String)> {
        let takes = takes_player_tags(&GameSetup::standard(game));
        let mut bad = Vec::new();
        let values = [
            (
                "white-elo",
                &self.white_elo,
                elo_mistake as fn(&str) -> Option<String>,
            ),
            ("black-elo", &self.black_elo, elo_mistake),
            ("white-title", &self.white_title, title_mistake),
            ("black-title", &self.black_title, title_mistake),
            ("white-fide-id", &self.white_fide_id, fide_id_mistake),
            ("black-fide-id", &self.black_fide_id, fide_id_mistake),
            ("time-control", &self.time_control, time_control_mistake),
        ];
        for (key, value, check) in values {
            let Some(v) = value else { continue };
            if !takes {
                bad.push((
                    key,
                    format!(
                        "a {} record ({}) has no such tag: leave it out",
                        game.display_name(),
                        game.extension().to_ascii_uppercase()
                    ),
                ));
            } else if let Some(why) = check(v.trim()) {
                bad.push((key, why));
            }
        }
        bad
    }
}

/// Whether `setup`'s record has a place for the players' ratings, titles, FIDE
/// ids and the time control (SGF has none).
pub(crate) fn takes_player_tags(setup: &GameSetup) -> bool {
    struct Takes;
    impl GameVisitor for Takes {
        type Output = bool;
        fn visit<G: Resume>(self, _: &G) -> bool {
            G::PLAYER_TAGS
        }
    }
    setup.visit(Takes)
}

/// What is wrong with an Elo rating, if anything: it is a whole number from 1
/// to `MAX_ELO`.
fn elo_mistake(v: &str) -> Option<String> {
    let ok = !v.is_empty()
        && v.len() <= 4
        && v.chars().all(|c| c.is_ascii_digit())
        && v.parse::<u32>().is_ok_and(|e| (1..=MAX_ELO).contains(&e));
    if ok {
        None
    } else {
        Some(format!(
            "'{v}' is not an Elo rating: a whole number from 1 to {MAX_ELO}, such as 2215 (leave the key out for an unrated player)"
        ))
    }
}

/// What is wrong with a title, if anything: it is one of `TITLES`, in either
/// case.
fn title_mistake(v: &str) -> Option<String> {
    if TITLES.contains(&v.to_ascii_uppercase().as_str()) {
        None
    } else {
        Some(format!(
            "'{v}' is not a title: one of {} (leave the key out for none)",
            TITLES.join(" ")
        ))
    }
}

/// What is wrong with a FIDE id, if anything: it is its digits only.
fn fide_id_mistake(v: &str) -> Option<String> {
    if !v.is_empty() && v.len() <= FIDE_ID_DIGITS && v.chars().all(|c| c.is_ascii_digit()) {
        None
    } else {
        Some(format!(
            "'{v}' is not a FIDE id: its digits only (at most {FIDE_ID_DIGITS}), such as 1503014"
        ))
    }
}

/// What is wrong with a TimeControl, if anything. PGN's (its standard, section 9.6.1): `?`, `-`, or periods joined
/// by `:`, each `SECONDS`, `SECONDS+INCREMENT`, `MOVES/SECONDS` (with an
/// increment too, as Lichess broadcasts take it) or `*SECONDS` (a sandclock).
fn time_control_mistake(v: &str) -> Option<String> {
    let digits = |s: &str| !s.is_empty() && s.len() <= 6 && s.chars().all(|c| c.is_ascii_digit());
    let period = |p: &str| {
        if let Some(s) = p.strip_prefix('*') {
            return digits(s);
        }
        let body = match p.split_once('/') {
            Some((moves, rest)) if digits(moves) => rest,
            Some(_) => return false,
            None => p,
        };
        match body.split_once('+') {
            Some((base, inc)) => digits(base) && digits(inc),
            None => digits(body),
        }
    };
    if v == "?" || v == "-" || (!v.is_empty() && v.split(':').all(period)) {
        None
    } else {
        Some(format!(
            "'{v}' is not a PGN TimeControl: seconds, +increment, MOVES/ before a period, periods joined by ':' (such as 5400+30 or 40/5400+30:1800+30)"
        ))
    }
}

/// `YYYY.MM.DD`, with `??` allowed for unknown parts as PGN does.
fn valid_date(d: &str) -> bool {
    let parts: Vec<&str> = d.split('.').collect();
    parts.len() == 3
        && [4, 2, 2].iter().zip(&parts).all(|(n, p)| {
            p.len() == *n && (p.chars().all(|c| c.is_ascii_digit()) || p.chars().all(|c| c == '?'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTRACT: &str = r#"
[event]
name = "Club Championship"
site = "Brno"
round = "3"

[[board]]
number = 2
game = "russian-draughts"
input = "board2"
white-side = "top"

[[board]]
number = 1
game = "chess"            # chess | russian-draughts | tablut
input = "board1.mp4"      # camera:N, a URL, a video file or a photo folder
white = "Anna Novak"
black = "Ben Horvat"

[[board]]
number = 3
game = "tablut"
input = "camera:0"
"#;

    #[test]
    fn the_contract_example_reads() {
        let r = RoundFile::parse(CONTRACT, Path::new("rounds")).unwrap();
        assert_eq!(r.event.name, "Club Championship");
        assert_eq!(r.event.round, "3");
        let numbers: Vec<u32> = r.boards.iter().map(|b| b.number).collect();
        assert_eq!(numbers, [1, 2, 3], "boards in number order");
        assert_eq!(r.boards[0].white, "Anna Novak");
        assert_eq!(r.boards[0].input, "rounds/board1.mp4");
        assert_eq!(r.boards[1].game().name(), "russian-draughts");
        assert_eq!(r.boards[1].white_side.as_deref(), Some("top"));
        assert_eq!(r.boards[2].input, "camera:0", "cameras are not paths");
        assert!(!r.boards[2].is_offline());
        assert_eq!(r.event.retries, 3);
    }

    #[test]
    fn mistakes_are_named() {
        let err = |t: &str| RoundFile::parse(t, Path::new("")).unwrap_err().to_string();
        let head = "[event]\nname = \"x\"\n";
        assert!(err(head).contains("no [[board]]"));
        let twice = format!(
            "{head}[[board]]\nnumber = 1\ninput = \"a\"\n[[board]]\nnumber = 1\ninput = \"b\"\n"
        );
        assert!(err(&twice).contains("board 1 is given twice"));
        let typo = format!("{head}[[board]]\nnumber = 1\ninput = \"a\"\ngird = \"8x8\"\n");
        assert!(err(&typo).contains("gird"), "{}", err(&typo));
        let game = format!("{head}[[board]]\nnumber = 1\ninput = \"a\"\ngame = \"goo\"\n");
        assert!(err(&game).contains("goo"), "{}", err(&game));
        let date =
            "[event]\nname = \"x\"\ndate = \"2026-05-01\"\n[[board]]\nnumber = 1\ninput = \"a\"\n";
        assert!(err(date).contains("YYYY.MM.DD"));
    }

    /// A one-board round file with `extra` lines in its [[board]].
    fn board_with(extra: &str) -> String {
        format!("[event]\nname = \"x\"\n[[board]]\nnumber = 4\ninput = \"a\"\n{extra}\n")
    }

    fn refused(extra: &str) -> RoundFileError {
        match RoundFile::parse(&board_with(extra), Path::new("")) {
            Ok(_) => panic!("accepted: {extra}"),
            Err(e) => e,
        }
    }

    #[test]
    fn every_value_record_refuses_is_refused_naming_board_and_key() {
        // (lines, key, usage error as `record` gives one for the same flag)
        let table = [
            ("quiet = -1.0", "quiet", true),
            ("quiet = nan", "quiet", true),
            ("quiet = inf", "quiet", true),
            ("quiet = 1e9", "quiet", true),
            ("quiet = 60.5", "quiet", true),
            ("fps = nan", "fps", true),
            ("fps = 0.0", "fps", true),
            ("fps = -inf", "fps", true),
            ("fps = 1001.0", "fps", true),
            ("max-fps = -1.0", "max-fps", true),
            ("max-fps = nan", "max-fps", true),
            ("max-fps = 1e300", "max-fps", true),
            ("grid = \"8by8\"", "grid", true),
            ("grid = \"9x9\"", "grid", true),
            ("game = \"tablut\"\ngrid = \"8x8\"", "grid", true),
            ("corners = \"1,2 3,4\"", "corners", true),
            ("corners = \"nan,0 10,0 10,10 0,10\"", "corners", true),
            ("white-side = \"north\"", "white-side", true),
            ("region = 0", "region", true),
            ("region = 65", "region", true),
            (
                "region = 2\ncorners = \"10,10 90,10 90,90 10,90\"",
                "region",
                true,
            ),
            ("fen = \"not a fen\"", "fen", false),
            ("fen = \"8/8/8/8/8/8/8/8 w - - 0 1\"", "fen", false),
            (
                "game = \"russian-draughts\"\nfen = \"W:Wz9:B1\"",
                "fen",
                false,
            ),
            (
                "game = \"tablut\"\nposition = \"nonsense\"",
                "position",
                false,
            ),
            ("game = \"tablut\"\nfen = \"nonsense\"", "fen", true),
            ("position = \"x\"", "position", true),
            (
                "game = \"tablut\"\nposition = \"x\"\nfen = \"y\"",
                "fen",
                true,
            ),
        ];
        for (lines, key, usage) in table {
            let e = refused(lines);
            let RoundFileError::Values(bad) = &e else {
                panic!("{lines}: {e}");
            };
            assert_eq!(bad.len(), 1, "{lines}: {e}");
            assert_eq!((bad[0].board, bad[0].key), (4, key), "{lines}: {e}");
            assert_eq!(e.is_usage(), usage, "{lines}: {e}");
            let text = e.to_string();
            assert!(text.starts_with(&format!("board 4: {key}: ")), "{text}");
        }
    }

    #[test]
    fn every_mistake_of_every_board_is_said_at_once() {
        let text = "[event]\nname = \"x\"\n[[board]]\nnumber = 1\ninput = \"a\"\nquiet = -1.0\nfen = \"x\"\n[[board]]\nnumber = 2\ninput = \"b\"\nfps = nan\n";
        let e = RoundFile::parse(text, Path::new("")).unwrap_err();
        let said = e.to_string();
        for part in ["board 1: quiet", "board 1: fen", "board 2: fps"] {
            assert!(said.contains(part), "{said}");
        }
        assert!(e.is_usage(), "a usage mistake among them: exit status 2");
    }

    #[test]
    fn values_record_takes_are_taken() {
        for lines in [
            "quiet = 0.0\nfps = 0.001\nmax-fps = 0.0",
            "quiet = 60.0\nfps = 1000.0\nmax-fps = 1000.0",
            "grid = \"8x8\"\ncorners = \"10,10 90,10 90,90 10,90\"\nwhite-side = \"top\"",
            "white-side = \"auto\"",
            "fen = \"4k3/8/8/8/8/8/8/R3K3 w - - 0 1\"",
            "game = \"tablut\"\ngrid = \"9x9\"",
        ] {
            let r = RoundFile::parse(&board_with(lines), Path::new(""));
            assert!(r.is_ok(), "{lines}: {}", r.unwrap_err());
        }
    }

    #[test]
    fn the_tags_lichess_reads_are_taken_from_the_round_file() {
        let text = "[event]\nname = \"x\"\ntime-control = \"5400+30\"\n[[board]]\nnumber = 1\ninput = \"a\"\nwhite-elo = 2215\nblack_elo = \"1980\"\nwhite-title = \"gm\"\nblack-title = \"WFM\"\nwhite-fide-id = 1503014\nblack-fide-id = \"24116068\"\n[[board]]\nnumber = 2\ninput = \"b\"\ntime-control = \"40/5400+30:1800+30\"\n";
        let r = RoundFile::parse(text, Path::new("")).unwrap();
        let tags = r.boards[0].player_tags(&r.event);
        let want: Vec<(String, String)> = [
            ("WhiteElo", "2215"),
            ("BlackElo", "1980"),
            ("WhiteTitle", "GM"),
            ("BlackTitle", "WFM"),
            ("WhiteFideId", "1503014"),
            ("BlackFideId", "24116068"),
            ("TimeControl", "5400+30"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .to_vec();
        assert_eq!(tags, want);
        assert_eq!(
            r.boards[1].player_tags(&r.event),
            [("TimeControl".to_string(), "40/5400+30:1800+30".to_string())],
            "a board's own time control over the event's"
        );
    }

    #[test]
    fn a_bad_rating_title_id_or_time_control_is_refused_naming_board_and_key() {
        let table = [
            (
                "white-elo = \"strong\"",
                "white-elo",
                "is not an Elo rating",
            ),
            ("white-elo = 2215.5", "white-elo", "is not an Elo rating"),
            ("black-elo = -5", "black-elo", "is not an Elo rating"),
            ("black-elo = 12000", "black-elo", "is not an Elo rating"),
            (
                "white-title = \"Master\"",
                "white-title",
                "one of GM IM FM CM",
            ),
            (
                "black-fide-id = \"15-03\"",
                "black-fide-id",
                "is not a FIDE id",
            ),
            (
                "time-control = \"90 min\"",
                "time-control",
                "is not a PGN TimeControl",
            ),
            (
                "time-control = \"40/\"",
                "time-control",
                "is not a PGN TimeControl",
            ),
            ("game = \"go\"\nwhite-elo = 2000", "white-elo", "Go record"),
        ];
        for (lines, key, why) in table {
            let e = refused(lines);
            let RoundFileError::Values(bad) = &e else {
                panic!("{lines}: {e}");
            };
            assert_eq!(bad.len(), 1, "{lines}: {e}");
            assert_eq!((bad[0].board, bad[0].key), (4, key), "{lines}: {e}");
            assert!(e.is_usage(), "{lines}");
            let text = e.to_string();
            assert!(text.starts_with(&format!("board 4: {key}: ")), "{text}");
            assert!(text.contains(why), "{text}");
        }
        for tc in [
            "?",
            "-",
            "300",
            "5400+30",
            "*180",
            "40/7200:3600",
            "40/5400+30:1800+30",
        ] {
            assert_eq!(time_control_mistake(tc), None, "{tc}");
        }
        let event =
            "[event]\nname = \"x\"\ntime-control = \"1h\"\n[[board]]\nnumber = 1\ninput = \"a\"\n";
        let e = RoundFile::parse(event, Path::new(""))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("[event] time-control: '1h' is not"), "{e}");
    }
}
