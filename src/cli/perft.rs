use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::game::{GameKind, GameSetup, GameVisitor, Setup};
use crate::record::Resume;
use crate::rules::Rules;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The game: chess, russian-draughts or tablut.
    #[arg(long, default_value = "chess", value_parser = game_kind())]
    pub game: GameKind,
    /// Start position (chess: FEN; russian-draughts: PDN FEN such as W:Wa1,c3:Bh8).
    #[arg(long)]
    pub fen: Option<String>,
    /// Start position in the game's own text format (same as --fen; Tablut's name for it).
    #[arg(long)]
    pub position: Option<String>,
    /// Number of plies, 0 to 20 (a count deeper than that would not end in a
    /// lifetime, and the search recurses once a ply).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    pub depth: u32,
    /// Also print the count below each legal move of the start position.
    #[arg(long)]
    pub divide: bool,
}

/// The names `--game` takes: every game's.
pub fn game_kind() -> impl clap::builder::TypedValueParser<Value = GameKind> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(super::game_names()).map(|name| name.parse().unwrap_or_default())
}

pub const MAX_DEPTH: u32 = 20;

pub fn run(a: PerftArgs) -> anyhow::Result<()> {
    let position = match (&a.fen, &a.position) {
        (Some(_), Some(_)) => {
            return Err(boardscribe_cli::usage!(
                "give the start position once, with --fen or --position"
            ))
        }
        (f, p) => f.as_deref().or(p.as_deref()),
    };
    let setup = Setup {
        kind: a.game,
        start: position.map(str::to_string),
        white_first: false,
        ..Setup::default()
    };
    let game = GameSetup::parse(&setup).map_err(|e| {
        let flag = if a.fen.is_some() {
            "--fen"
        } else {
            "--position"
        };
        anyhow::anyhow!("{flag}: {e}")
    })?;
    game.visit(Count {
        depth: a.depth,
        divide: a.divide,
    })
    .context("perft")
}

/// The count from the start position, whatever its game.
struct Count {
    depth: u32,
    divide: bool,
}

impl GameVisitor for Count {
    type Output = anyhow::Result<()>;
    fn visit<G: Resume>(self, start: &G) -> anyhow::Result<()> {
        count(start, self.depth, self.divide)
    }
}

fn count<R: Rules>(game: &R, depth: u32, divide: bool) -> anyhow::Result<()> {
    let start = Instant::now();
    if divide && depth > 0 {
        for m in game.legal_moves() {
            let mut next = game.clone();
            let id = game.move_id(&m);
            next.play_legal(&m);
            outln!("{id}: {}", next.perft(depth - 1));
        }
    }
    let n = game.perft(depth);
    errln!("depth {depth}: {:.3} s", start.elapsed().as_secs_f64());
    outln!("{n}");
    Ok(())
}
