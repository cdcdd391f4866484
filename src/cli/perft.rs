use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::rules::{self, Rules};

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The game: chess, russian-draughts or tablut.
    #[arg(long, default_value = "chess")]
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

/// The games `perft` counts, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GameKind {
    Chess,
    #[value(name = "russian-draughts", alias = "draughts")]
    RussianDraughts,
    Tablut,
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GameKind::Chess => "chess",
            GameKind::RussianDraughts => "russian-draughts",
            GameKind::Tablut => "tablut",
        })
    }
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
    match a.game {
        GameKind::Chess => {
            let game = match position {
                Some(fen) => rules::chess::Chess::from_fen(fen).map_err(anyhow::Error::msg)?,
                None => rules::chess::Chess::new(),
            };
            count(&game, a.depth, a.divide)
        }
        GameKind::Tablut => {
            let opts = rules::tablut::TablutOptions::default();
            let game = match position {
                Some(text) => {
                    rules::tablut::Tablut::from_position(text, opts).map_err(anyhow::Error::msg)?
                }
                None => rules::tablut::Tablut::new(opts),
            };
            count(&game, a.depth, a.divide)
        }
        GameKind::RussianDraughts => {
            let opts = rules::russian_draughts::DraughtsOptions::default();
            let game = match position {
                Some(fen) => rules::russian_draughts::RussianDraughts::from_fen(fen, opts)
                    .map_err(anyhow::Error::msg)?,
                None => rules::russian_draughts::RussianDraughts::new(opts),
            };
            count(&game, a.depth, a.divide)
        }
    }
    .context("perft")
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
