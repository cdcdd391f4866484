//! Records written by boardscribe load in other software: python-chess and
//! pgn-extract for PGN, pydraughts for PDN. Skipped, with a message, where a tool is
//! not installed, except in CI (`.ci/run` installs them and requires them).

use std::path::Path;
use std::process::Command;

use boardscribe_core::record::PdnRecord;
use boardscribe_core::record::{parse_pgn, PgnRecord};
use boardscribe_core::record::{GameRecord, Resume, Tags};
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::Rng;

use super::util::{have_tool, tmp};

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn tool(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tools")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// pgn-extract, where it runs: on the PATH, or in /usr/games, where Debian installs
/// it and which is not on every PATH.
fn pgn_extract() -> Option<&'static str> {
    ["pgn-extract", "/usr/games/pgn-extract"]
        .into_iter()
        .find(|p| Command::new(p).arg("-h").output().is_ok())
}

fn check(cmd: &mut Command, what: &str) {
    let o = cmd.output().expect("runs");
    assert!(
        o.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn pgn_records_load_in_python_chess_and_pgn_extract() {
    let have_chess = have_tool("python-chess", python_has("chess"));
    let extract = pgn_extract();
    let have_extract = have_tool("pgn-extract", extract.is_some());
    if !have_chess && !have_extract {
        return;
    }
    let dir = tmp();
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games");
    for entry in std::fs::read_dir(&games).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let rec = parse_pgn(&text).unwrap();
        let game = Chess::read_record(&text, &Chess::new()).unwrap().game;
        // Re-write through the recorder's own record type, as a recording would.
        let start = match &rec.start_fen {
            Some(f) => boardscribe_core::rules::chess::Chess::from_fen(f).unwrap(),
            None => boardscribe_core::rules::chess::Chess::new(),
        };
        let mut out = PgnRecord::start(&start, &Tags::default());
        let mut g = start.clone();
        for (i, u) in rec.ucis().iter().enumerate() {
            let m = g.parse_uci(u).unwrap();
            out.push(&g, &m, Some(3.0 + i as f64));
            g.play(&m).unwrap();
        }
        out.note("unexplained change at 0:01:02: e2,e4 {braces} \"quotes\"");
        GameRecord::set_result(&mut out, &g);
        let file = dir.path().join(path.file_name().unwrap());
        std::fs::write(&file, out.render()).unwrap();
        if have_chess {
            check(
                Command::new("python3").args([
                    tool("check_pgn.py").as_str(),
                    file.to_str().unwrap(),
                    &game.fen(),
                ]),
                &format!("python-chess on {}", file.display()),
            );
        }
        if let Some(extract) = extract {
            let o = Command::new(extract)
                .args(["-r", file.to_str().unwrap()])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() && !err.to_lowercase().contains("error"),
                "pgn-extract: {err}"
            );
        }
    }
}

#[test]
fn pdn_records_replay_in_pydraughts() {
    if !have_tool("pydraughts", python_has("draughts")) {
        return;
    }
    let dir = tmp();
    let opts = DraughtsOptions::default();
    for seed in 0..12u64 {
        let mut rng = Rng::new(seed);
        let start = RussianDraughts::new(opts);
        let mut rec = PdnRecord::start(&start, &Tags::default());
        let mut g = start.clone();
        while g.outcome().is_none() && g.moves().len() < 120 {
            let legal = g.legal_moves();
            let m = legal[rng.below(legal.len())].clone();
            GameRecord::push(&mut rec, &g, &m, None);
            g.play(&m).unwrap();
        }
        GameRecord::set_result(&mut rec, &g);
        let file = dir.path().join(format!("g{seed}.pdn"));
        std::fs::write(&file, rec.render()).unwrap();
        check(
            Command::new("python3").args([
                tool("check_pdn.py").as_str(),
                file.to_str().unwrap(),
                &g.fen(),
            ]),
            &format!("pydraughts on seed {seed}"),
        );
    }
}
