//! Recovery never invents: a record taken up again (`record --resume`, `event`
//! restarted after a kill, an arbiter's take-back) goes on only from a view of its
//! last position. Views of the past (a video read again from its start) are
//! skipped; a move that was not played is never written.

use std::path::{Path, PathBuf};
use std::process::Output;

use boardscribe_core::record::{parse_pgn, PgnRecord};
use boardscribe_core::record::{GameRecord, Resume, Resumed, Tags};
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::Rules;
use boardscribe_lab::synth::SceneParams;
use proptest::test_runner::{Config, TestRunner};

use super::clips::{corners_arg, fast_clip, render, small, states_of};
use super::util::{p, run, stderr, tmp};

/// A game of tests/data/games: its start, moves and SAN.
pub struct Game {
    pub name: String,
    pub start: Chess,
    pub moves: Vec<<Chess as Rules>::Move>,
    pub sans: Vec<String>,
}

pub fn fixture_games() -> Vec<Game> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let rec = parse_pgn(&text).unwrap();
            let Resumed { start, moves, .. } = Chess::read_record(&text, &Chess::new()).unwrap();
            Game {
                name: path.file_stem().unwrap().to_string_lossy().into_owned(),
                start,
                moves,
                sans: rec.moves.iter().map(|m| m.san.clone()).collect(),
            }
        })
        .collect()
}

/// The record of `game`'s first `n` half-moves, as a recording killed after them
/// leaves it.
pub fn cut_record(game: &Game, n: usize) -> String {
    let mut g = game.start.clone();
    let mut rec = PgnRecord::start(&g, &Tags::default());
    for m in &game.moves[..n] {
        GameRecord::push(&mut rec, &g, m, None);
        g.play(m).unwrap();
    }
    GameRecord::set_result(&mut rec, &g);
    GameRecord::render(&rec)
}

/// A rendered clip of a fixture game and its `--corners`.
pub struct Clip {
    pub path: PathBuf,
    pub corners: String,
}

pub fn clip_of(dir: &Path, game: &Game, seed: u64) -> Clip {
    let (path, truth) = render(
        dir,
        &game.name,
        &small(SceneParams::chess_overhead(seed, seed.is_multiple_of(2))),
        &states_of(&game.start, &game.moves),
        &fast_clip(),
    );
    Clip {
        corners: corners_arg(&truth),
        path,
    }
}

/// `record --resume` of `game` cut after `n` half-moves, from the clip read again
/// from its start.
fn resume_at(dir: &Path, game: &Game, clip: &Clip, n: usize) -> (Vec<String>, Output, String) {
    let out = dir.join(format!("{}-{n}.pgn", game.name));
    std::fs::write(&out, cut_record(game, n)).unwrap();
    let o = run(&[
        "record",
        "--input",
        p(&clip.path),
        "--corners",
        &clip.corners,
        "--white",
        "bottom",
        "--pgn",
        p(&out),
        "--resume",
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    let rec = parse_pgn(&text).unwrap_or_else(|e| panic!("invalid PGN ({e}):\n{text}"));
    (rec.moves.iter().map(|m| m.san.clone()).collect(), o, text)
}

/// Whether recorded moves are the true ones. The camera cannot tell which piece
/// a pawn became until it moves: a promotion the record marks as assumed matches
/// the true move to the same square whatever the piece (and the check it gave).
pub fn same_moves(got: &[String], want: &[String], text: &str) -> bool {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let assumed = flat.contains("assumed a queen");
    let plain = |s: &str| -> String {
        let s = s.trim_end_matches(['+', '#']);
        match s.find('=') {
            Some(i) if assumed => s[..i].to_string(),
            _ => s.to_string(),
        }
    };
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(a, b)| a == b || plain(a) == plain(b))
}

/// The outcome the issue asks for: the true game, or a prefix of it with exit 3;
/// a game the rules ended is refused and left as it was.
fn check_resumed(game: &Game, n: usize, sans: &[String], o: &Output, text: &str) {
    let err = stderr(o);
    assert!(!err.contains("panicked"), "{err}");
    let ctx = format!(
        "{} cut after {n}: exit {:?}\n{err}\n{text}",
        game.name,
        o.status.code()
    );
    assert!(
        sans.len() <= game.sans.len() && same_moves(sans, &game.sans[..sans.len()], text),
        "moves never played: {sans:?}\n{ctx}"
    );
    assert!(sans.len() >= n, "moves lost: {ctx}");
    let mut end = game.start.clone();
    for m in &game.moves[..n] {
        end.play(m).unwrap();
    }
    if end.outcome().is_some() {
        assert_eq!(
            o.status.code(),
            Some(1),
            "a finished game is not resumed: {ctx}"
        );
    } else if sans.len() < game.sans.len() {
        assert_eq!(
            o.status.code(),
            Some(3),
            "an incomplete record exits 3: {ctx}"
        );
    }
}

/// Cut points chosen at random (seeded): every record ends as the true game, or a
/// prefix of it with exit 3.
#[test]
fn resume_from_a_video_read_again_from_its_start_never_invents_a_move() {
    let dir = tmp();
    // Three short games keep `make test` quick; the test below takes them all.
    let games: Vec<Game> = fixture_games()
        .into_iter()
        .filter(|g| ["opera", "threefold", "setup_black_to_move"].contains(&g.name.as_str()))
        .collect();
    let t = std::time::Instant::now();
    let clips: Vec<Clip> = games
        .iter()
        .enumerate()
        .map(|(i, g)| clip_of(dir.path(), g, 40 + i as u64))
        .collect();
    eprintln!(
        "rendered {} clips in {:.1} s",
        clips.len(),
        t.elapsed().as_secs_f64()
    );
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 12,
            failure_persistence: None,
            ..Config::default()
        },
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    runner
        .run(&(0..games.len(), 0.0f64..=1.0), |(gi, f)| {
            let game = &games[gi];
            let n = ((game.moves.len() as f64 * f).round() as usize).min(game.moves.len());
            let t = std::time::Instant::now();
            let (sans, o, text) = resume_at(dir.path(), game, &clips[gi], n);
            eprintln!(
                "{} cut after {n}: {} plies, exit {:?}, {:.1} s",
                game.name,
                sans.len(),
                o.status.code(),
                t.elapsed().as_secs_f64()
            );
            check_resumed(game, n, &sans, &o, &text);
            Ok(())
        })
        .unwrap();
}

/// A round file of one board per game, from their clips (played as fast as they
/// decode); returns its path.
fn round_file(dir: &Path, games: &[&Game], clips: &[Clip]) -> PathBuf {
    let mut toml =
        String::from("[event]\nname = \"Recovery\"\nround = \"1\"\ndate = \"2026.12.03\"\n");
    for (i, (g, c)) in games.iter().zip(clips).enumerate() {
        toml.push_str(&format!(
            "\n[[board]]\nnumber = {}\ngame = \"chess\"\ninput = \"{}\"\ncorners = \"{}\"\nwhite-side = \"bottom\"\n",
            i + 1,
            p(&c.path),
            c.corners
        ));
        if g.start.fen() != Chess::new().fen() {
            toml.push_str(&format!("fen = \"{}\"\n", g.start.fen()));
        }
    }
    let path = dir.join("round.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

use super::util::event_command as event_cmd;

/// The SAN of each board's record in `out` (the last game of its file).
fn board_sans(out: &Path, boards: usize) -> Vec<Vec<String>> {
    (1..=boards)
        .map(|n| {
            let path = out.join(format!("board-{n}.pgn"));
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.trim().is_empty() {
                return Vec::new();
            }
            let rec = parse_pgn(&text).unwrap_or_else(|e| panic!("board {n} ({e}):\n{text}"));
            rec.moves.iter().map(|m| m.san.clone()).collect()
        })
        .collect()
}

/// Kills `event` at `trials` seeded moments (SIGKILL, SIGTERM, SIGINT in turn),
/// restarts it with the same command each time and checks every board's record
/// ends as its true game; then runs the finished round again and checks that it
/// changes nothing.
fn kill_and_restart(trials: usize) {
    let dir = tmp();
    let all = fixture_games();
    let pick = [
        "castling_en_passant",
        "knight_promotion_proven",
        "setup_black_to_move",
        "threefold",
    ];
    let games: Vec<&Game> = pick
        .iter()
        .map(|n| all.iter().find(|g| g.name == *n).unwrap())
        .collect();
    let clips: Vec<Clip> = games
        .iter()
        .enumerate()
        .map(|(i, g)| clip_of(dir.path(), g, 70 + i as u64))
        .collect();
    let round = round_file(dir.path(), &games, &clips);
    // How long an undisturbed round takes: the kills land within it.
    let t0 = std::time::Instant::now();
    let whole = dir.path().join("whole");
    let o = event_cmd(&round, &whole).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let span = t0.elapsed().as_secs_f64();
    let truth: Vec<Vec<String>> = games.iter().map(|g| g.sans.clone()).collect();
    assert_eq!(board_sans(&whole, 4), truth, "undisturbed round");

    let mut rng = boardscribe_lab::synth::Rng::new(2026);
    let signals = [libc::SIGKILL, libc::SIGTERM, libc::SIGINT];
    for trial in 0..trials {
        let out = dir.path().join(format!("trial-{trial}"));
        let child = event_cmd(&round, &out).spawn().unwrap();
        let at = span * (0.05 + 0.9 * rng.below(1000) as f64 / 1000.0);
        std::thread::sleep(std::time::Duration::from_secs_f64(at));
        let sig = signals[trial % signals.len()];
        unsafe {
            libc::kill(child.id() as i32, sig);
        }
        let killed = child.wait_with_output().unwrap();
        let err = stderr(&killed);
        assert!(!err.contains("panicked"), "{err}");
        // What a kill left is a valid prefix of every true game.
        let left = board_sans(&out, 4);
        eprintln!(
            "trial {trial}: signal {sig} at {at:.2} s of {span:.2} s left {:?} plies",
            left.iter().map(Vec::len).collect::<Vec<_>>()
        );
        for (n, (got, want)) in left.iter().zip(&truth).enumerate() {
            let text = std::fs::read_to_string(out.join(format!("board-{}.pgn", n + 1)))
                .unwrap_or_default();
            assert!(
                got.len() <= want.len() && same_moves(got, &want[..got.len()], &text),
                "trial {trial} (signal {sig} at {at:.2} s), board {}: {got:?}\n{err}",
                n + 1
            );
        }
        let o = event_cmd(&round, &out).output().unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "trial {trial} restart: {err}");
        assert_eq!(
            board_sans(&out, 4),
            truth,
            "trial {trial} (signal {sig} at {at:.2} s) restarted:\n{err}"
        );
    }

    // A finished round run again changes nothing.
    let files = |d: &Path| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let before = files(&whole);
    let o = event_cmd(&round, &whole).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files(&whole),
        before,
        "a finished round run again changed its records"
    );
}

#[test]
fn event_killed_and_restarted_ends_every_record_as_the_true_game() {
    kill_and_restart(3);
}

/// An arbiter takes back every move once, as it is recorded, while the board
/// still shows it: each is recorded again (and says so), and the record ends as
/// the whole true game. Twenty take-backs of one move sent at once remove it once.
#[test]
fn take_back_at_every_ply_while_the_board_shows_it_ends_as_the_true_game() {
    use std::time::{Duration, Instant};
    let dir = tmp();
    let all = fixture_games();
    let game = all
        .iter()
        .find(|g| g.name == "castling_en_passant")
        .unwrap();
    // The final position stays a while (a hand passes over it): its move, too,
    // is recorded while the recording runs, and so can be taken back.
    let mut states = states_of(&game.start, &game.moves);
    states.push(states[states.len() - 1].clone());
    let (path, truth) = render(
        dir.path(),
        "take-backs",
        &small(SceneParams::chess_overhead(91, false)),
        &states,
        &fast_clip(),
    );
    let clip = Clip {
        path,
        corners: corners_arg(&truth),
    };
    let round = dir.path().join("round.toml");
    std::fs::write(
        &round,
        format!(
            "[event]\nname = \"Take-backs\"\nrealtime = true\n\n[[board]]\nnumber = 1\ngame = \"chess\"\ninput = \"{}\"\ncorners = \"{}\"\nwhite-side = \"bottom\"\n",
            p(&clip.path),
            clip.corners
        ),
    )
    .unwrap();
    let out = dir.path().join("records");
    let (_running, addr, token, lines) = super::event::start_event(&round, &out);
    let take_back = |ply: usize| -> (u16, String) {
        let (status, _, body) = super::event::http(
            &addr,
            "POST",
            "/api/board/1/action",
            &[
                ("X-Arbiter-Token", token.as_str()),
                ("Content-Type", "application/json"),
            ],
            &format!("{{\"action\":\"take_back\",\"ply\":{ply}}}"),
        );
        (status, String::from_utf8_lossy(&body).into_owned())
    };
    let started = Instant::now();
    let mut taken = std::collections::BTreeSet::new();
    let mut refused = 0;
    let mut log = Vec::new();
    loop {
        let Ok(line) = lines.recv_timeout(Duration::from_secs(60)) else {
            panic!("the round did not end: {log:#?}");
        };
        log.push(line.clone());
        if line.starts_with("records in") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{log:#?}");
        // "board 1: 3. Nf3" or "board 1: 3... Nc6": the half-move just recorded.
        let Some(rest) = line.strip_prefix("board 1: ") else {
            continue;
        };
        let Some((num, _)) = rest.split_once(' ').filter(|(num, _)| num.ends_with('.')) else {
            continue;
        };
        let Ok(n) = num.trim_end_matches('.').parse::<usize>() else {
            continue;
        };
        let ply = 2 * n - usize::from(!num.ends_with("..."));
        if !taken.insert(ply) {
            continue;
        }
        // As the arbiter's page does: the move is asked back once the record on
        // disk (which the page shows) holds it.
        let on_disk = || board_sans(&out, 1)[0].len();
        let wait = Instant::now();
        while on_disk() < ply && wait.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(20));
        }
        if ply == 6 {
            // Twenty at once, all for move 6: one takes it back, the rest are told
            // the record no longer ends with it.
            let answers: Vec<(u16, String)> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..20).map(|_| s.spawn(|| take_back(6))).collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let ok = answers.iter().filter(|(s, _)| *s == 200).count();
            assert!(ok <= 1, "{answers:#?}");
            assert!(
                answers.iter().all(|(s, _)| *s == 200 || *s == 409),
                "{answers:#?}"
            );
            refused += 20 - ok;
        } else {
            let (status, body) = take_back(ply);
            assert!(status == 200 || status == 409, "{status} {body}");
            if status == 200 {
                assert!(body.contains(&format!("took back move {ply}")), "{body}");
            } else {
                refused += 1;
            }
        }
    }
    let text = std::fs::read_to_string(out.join("board-1.pgn")).unwrap();
    let sans: Vec<String> = parse_pgn(&text)
        .unwrap()
        .moves
        .iter()
        .map(|m| m.san.clone())
        .collect();
    assert_eq!(sans, game.sans, "{text}\n{log:#?}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let again = flat.matches("recorded again after the take-back").count();
    let made = flat.matches("took back move").count();
    eprintln!("{made} take-backs made, {refused} refused, {again} moves recorded again");
    assert!(
        made >= game.sans.len() / 2,
        "{made} take-backs made:\n{text}"
    );
    assert_eq!(
        again, made,
        "every move taken back was recorded again:\n{text}"
    );
}

/// The long sweeps (seeds, cut points, kills, a CPU measurement): ignored by a
/// plain `cargo test`; `make test-sweeps` runs them, and CI does.
mod sweeps {
    use super::*;

    /// Every cut point of every game (about three minutes on two cores).
    #[test]
    #[ignore = "slow: every cut point of every fixture game: make test-sweeps (CI) runs it"]
    fn resume_at_every_cut_point_of_every_game_never_invents_a_move() {
        let dir = tmp();
        for (i, game) in fixture_games().iter().enumerate() {
            let clip = clip_of(dir.path(), game, 40 + i as u64);
            for n in 0..=game.moves.len() {
                let (sans, o, text) = resume_at(dir.path(), game, &clip, n);
                check_resumed(game, n, &sans, &o, &text);
            }
        }
    }

    #[test]
    #[ignore = "slow: twenty kills of a four-board round: make test-sweeps (CI) runs it"]
    fn event_killed_twenty_times_and_restarted_ends_all_eighty_records_as_the_true_games() {
        kill_and_restart(20);
    }
}
