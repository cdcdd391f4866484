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
//! # grid, corners, profile, white-side, fen: optional, as in `record`
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The games a round can hold (games with rules and a record format).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameKind {
    Chess,
    RussianDraughts,
    Tablut,
}

impl GameKind {
    /// The record's file extension.
    pub fn extension(self) -> &'static str {
        match self {
            GameKind::Chess => "pgn",
            GameKind::RussianDraughts => "pdn",
            GameKind::Tablut => "txt",
        }
    }

    /// The name as the round file and `record --game` spell it.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Chess => "chess",
            GameKind::RussianDraughts => "russian-draughts",
            GameKind::Tablut => "tablut",
        }
    }

    /// The grid the game is played on when none is given.
    pub fn default_grid(self) -> &'static str {
        match self {
            GameKind::Tablut => "9x9",
            _ => "8x8",
        }
    }

    /// The media type a record of this game is served with.
    pub fn content_type(self) -> &'static str {
        match self {
            GameKind::Chess => "application/x-chess-pgn; charset=utf-8",
            _ => "text/plain; charset=utf-8",
        }
    }
}

/// `[event]`: the tags every game of the round carries.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct EventInfo {
    pub name: String,
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
}

fn default_retries() -> u32 {
    3
}

/// `[[board]]`: one board, told what `record` is told.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BoardSpec {
    pub number: u32,
    pub game: Option<GameKind>,
    /// `camera:N`, an `rtsp://` or `http(s)://` URL, a video file or a photo folder;
    /// paths are relative to the round file.
    pub input: String,
    /// The players' names.
    #[serde(default)]
    pub white: String,
    #[serde(default)]
    pub black: String,
    /// As `record --grid`; default 8x8 (Tablut 9x9) unless a profile gives one.
    pub grid: Option<String>,
    /// As `record --corners`; neither corners nor a profile: located automatically.
    pub corners: Option<String>,
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
    /// A set-up Tablut start, in its text format.
    pub position: Option<String>,
    /// Tablut: White moves first.
    #[serde(default)]
    pub white_first: bool,
    /// As `record --fps`, `--max-fps` and `--quiet`.
    pub fps: Option<f64>,
    pub max_fps: Option<f64>,
    pub quiet: Option<f64>,
    /// Overrides `[event] realtime` for this board.
    pub realtime: Option<bool>,
}

impl BoardSpec {
    pub fn game(&self) -> GameKind {
        self.game.unwrap_or(GameKind::Chess)
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
    pub event: EventInfo,
    #[serde(rename = "board", default)]
    pub boards: Vec<BoardSpec>,
}

impl RoundFile {
    /// Reads and checks a round file; relative paths are taken from its folder.
    pub fn load(path: &Path) -> anyhow::Result<RoundFile> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read the round file '{}': {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new(""));
        RoundFile::parse(&text, base)
            .map_err(|e| anyhow::anyhow!("round file '{}': {e}", path.display()))
    }

    /// Parses and checks a round file's text; relative paths are joined to `base`.
    pub fn parse(text: &str, base: &Path) -> Result<RoundFile, String> {
        let mut round: RoundFile = toml::from_str(text).map_err(|e| e.to_string())?;
        if round.boards.is_empty() {
            return Err("no [[board]] given".into());
        }
        round.boards.sort_by_key(|b| b.number);
        for (i, b) in round.boards.iter().enumerate() {
            if b.number == 0 {
                return Err("board numbers start at 1".into());
            }
            if i > 0 && round.boards[i - 1].number == b.number {
                return Err(format!("board {} is given twice", b.number));
            }
            if b.input.trim().is_empty() {
                return Err(format!("board {}: no input", b.number));
            }
        }
        if let Some(d) = &round.event.date {
            if !valid_date(d) {
                return Err(format!("date '{d}' is not YYYY.MM.DD"));
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
        assert_eq!(r.boards[1].game(), GameKind::RussianDraughts);
        assert_eq!(r.boards[1].white_side.as_deref(), Some("top"));
        assert_eq!(r.boards[2].input, "camera:0", "cameras are not paths");
        assert!(!r.boards[2].is_offline());
        assert_eq!(r.event.retries, 3);
    }

    #[test]
    fn mistakes_are_named() {
        let err = |t: &str| RoundFile::parse(t, Path::new("")).unwrap_err();
        let head = "[event]\nname = \"x\"\n";
        assert!(err(head).contains("no [[board]]"));
        let twice = format!(
            "{head}[[board]]\nnumber = 1\ninput = \"a\"\n[[board]]\nnumber = 1\ninput = \"b\"\n"
        );
        assert!(err(&twice).contains("board 1 is given twice"));
        let typo = format!("{head}[[board]]\nnumber = 1\ninput = \"a\"\ngird = \"8x8\"\n");
        assert!(err(&typo).contains("gird"), "{}", err(&typo));
        let game = format!("{head}[[board]]\nnumber = 1\ninput = \"a\"\ngame = \"go\"\n");
        assert!(err(&game).contains("go"), "{}", err(&game));
        let date =
            "[event]\nname = \"x\"\ndate = \"2026-05-01\"\n[[board]]\nnumber = 1\ninput = \"a\"\n";
        assert!(err(date).contains("YYYY.MM.DD"));
    }
}
