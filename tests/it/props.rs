//! Issue 22: property tests of every parser and validator a user's text reaches —
//! grid specs, corners, FEN, PDN FEN, Tablut positions, the PGN, PDN, Tablut and
//! free-log readers, board and camera profiles. None may panic on any text, and a
//! record written then read back gives the same game.

use proptest::prelude::*;

use boardscribe_core::record::parse_pgn_games;
use boardscribe_core::record::FreeLog;
use boardscribe_core::record::TablutRecord;
use boardscribe_core::record::{GameRecord, Recordable, Tags};
use boardscribe_core::rules::chess::Chess;
use boardscribe_core::rules::russian_draughts::{DraughtsOptions, RussianDraughts};
use boardscribe_core::rules::tablut::{Position as TablutPosition, Tablut, TablutOptions};
use boardscribe_core::rules::Rules;
use boardscribe_vision::geometry::{BoardProfile, CameraProfile, Corners, GridSpec};

/// Text made of the characters that matter to a parser of `alphabet`, plus any
/// character now and then.
fn text_of(alphabet: &'static str, max: usize) -> impl Strategy<Value = String> {
    let chars: Vec<char> = alphabet.chars().collect();
    prop::collection::vec(
        prop_oneof![
            8 => prop::sample::select(chars),
            1 => any::<char>(),
        ],
        0..max,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn grid_specs_never_panic_and_round_trip(s in text_of("0123456789xX:pointscel -", 16)) {
        if let Ok(g) = s.parse::<GridSpec>() {
            prop_assert_eq!(g.to_string().parse::<GridSpec>().unwrap(), g);
            prop_assert!(g.rows >= 2 && g.cols >= 2 && g.rows <= 26 && g.cols <= 26);
        }
    }

    #[test]
    fn corner_texts_never_panic(s in text_of("0123456789.,;- einfa", 60)) {
        let _ = s.parse::<Corners>();
    }

    #[test]
    fn chess_fens_never_panic(s in text_of("rnbqkpRNBQKP12345678/ wb-KQkqabcdefgh0123456789", 90)) {
        if let Ok(g) = Chess::from_fen(&s) {
            prop_assert_eq!(Chess::from_fen(&g.fen()).unwrap().fen(), g.fen());
        }
    }

    #[test]
    fn pdn_fens_never_panic(s in text_of("WB:,KabcdefghW12345678-.\" ", 60)) {
        if let Ok(g) = RussianDraughts::from_fen(&s, DraughtsOptions::default()) {
            let again = RussianDraughts::from_fen(&g.fen(), DraughtsOptions::default()).unwrap();
            prop_assert_eq!(again.fen(), g.fen());
        }
    }

    #[test]
    fn tablut_positions_never_panic(s in text_of(".BWKk/ \nbw123456789#", 120)) {
        if let Ok(p) = TablutPosition::parse(&s) {
            prop_assert_eq!(TablutPosition::parse(&p.to_string()).unwrap(), p);
        }
    }

    #[test]
    fn pgn_reader_never_panics(s in text_of("[]\"{}();$%.0123456789 \nEvent abcdefghNBRQKO-x+#=!?*/12", 300)) {
        let _ = parse_pgn_games(&s);
    }

    // PDN's reader, every game of a text, is tried by the core's own property
    // test (record::pdn): reading all the games is not the core's API.

    #[test]
    fn tablut_reader_never_panics(s in text_of("[]\"{}.0123456789 \n-x*/abcdefghiPositionFirstMoveblackwhiteBWK", 300)) {
        let _ = TablutRecord::parse(&s);
    }

    #[test]
    fn free_log_reader_never_panics(s in text_of("[]\" \n+-wbstartwhiteblack:.0123456789acGridDate", 200)) {
        if let Ok(log) = FreeLog::parse(&s) {
            let _ = log.render();
        }
    }

    #[test]
    fn board_profiles_never_panic(s in text_of("gridcornerswhitecameranote=\"[],.0123456789x:points \n-e", 200)) {
        if let Ok(p) = BoardProfile::parse(&s) {
            prop_assert_eq!(BoardProfile::parse(&p.to_toml()).unwrap(), p);
        }
    }

    #[test]
    fn camera_profiles_never_panic(s in text_of("widthheightfxfycxcyk1k2p1p2k3rmsnote=\"[],.0123456789 \n-e", 200)) {
        let _ = CameraProfile::parse(&s);
    }
}

/// A random legal game: the first `plies` moves, each the `choices[i]`-th legal
/// move (modulo their number), stopping where the game ends.
fn random_game<R: Rules>(start: R, choices: &[usize]) -> (R, Vec<R::Move>) {
    let mut g = start.clone();
    let mut moves = Vec::new();
    for &c in choices {
        if g.outcome().is_some() {
            break;
        }
        let legal = g.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[c % legal.len()].clone();
        g.play(&mv).unwrap();
        moves.push(mv);
    }
    (start, moves)
}

/// Writes a record of the moves the recorder's way (one push per move, a
/// comment now and then), reads it back with `R::resume` and checks the moves,
/// the position and the tags come back.
fn round_trip<R: Recordable>(start: R, moves: &[R::Move], notes: &[bool], tags: &Tags)
where
    R::Move: PartialEq + std::fmt::Debug,
{
    let mut rec = R::Record::start(&start, tags);
    let mut g = start.clone();
    for (i, mv) in moves.iter().enumerate() {
        rec.push(&g, mv, Some(i as f64 * 7.0));
        if notes.get(i).copied().unwrap_or(false) {
            rec.note(&format!("note {{after}} ply {}", i + 1));
        }
        g.play(mv).unwrap();
    }
    rec.set_result(&g);
    let text = rec.render();
    let (back, rec2) = R::resume(&text, &start).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(rec2.plies(), moves.len(), "{text}");
    assert_eq!(back.occupancy_key(), g.occupancy_key(), "{text}");
    assert_eq!(
        rec2.render(),
        text,
        "written, read and written again differ"
    );
}

/// What a position shows, to compare games of any kind.
trait OccupancyKey {
    fn occupancy_key(&self) -> Vec<String>;
}

impl<R: Rules> OccupancyKey for R {
    fn occupancy_key(&self) -> Vec<String> {
        let (files, ranks) = self.dims();
        let mut v: Vec<String> = (0..files)
            .flat_map(|f| (0..ranks).map(move |r| boardscribe_core::rules::Square::new(f, r)))
            .map(|sq| format!("{:?}", self.occupant(sq)))
            .collect();
        v.push(format!("{:?}", self.side_to_move()));
        v
    }
}

fn tags() -> impl Strategy<Value = Tags> {
    let field = || text_of("abcdefghij ABC.,-'0123456789", 16);
    (field(), field(), field(), field(), field()).prop_map(|(event, site, round, white, black)| {
        Tags {
            event,
            site,
            date: "2026.03.07".into(),
            round,
            white,
            black,
            extra: Vec::new(),
        }
    })
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn pgn_written_then_read_is_the_same_game(
        choices in prop::collection::vec(any::<usize>(), 0..80),
        notes in prop::collection::vec(prop::bool::weighted(0.1), 80),
        tags in tags(),
    ) {
        let (start, moves) = random_game(Chess::new(), &choices);
        round_trip(start, &moves, &notes, &tags);
    }

    #[test]
    fn pdn_written_then_read_is_the_same_game(
        choices in prop::collection::vec(any::<usize>(), 0..80),
        notes in prop::collection::vec(prop::bool::weighted(0.1), 80),
        tags in tags(),
    ) {
        let (start, moves) = random_game(RussianDraughts::new(DraughtsOptions::default()), &choices);
        round_trip(start, &moves, &notes, &tags);
    }

    #[test]
    fn tablut_record_written_then_read_is_the_same_game(
        choices in prop::collection::vec(any::<usize>(), 0..80),
        notes in prop::collection::vec(prop::bool::weighted(0.1), 80),
        tags in tags(),
    ) {
        let (start, moves) = random_game(Tablut::new(TablutOptions::default()), &choices);
        round_trip(start, &moves, &notes, &tags);
    }

    #[test]
    fn free_log_written_then_read_is_the_same(
        changes in prop::collection::vec(
            (0.0..10_000.0f64, prop::collection::vec((any::<bool>(), any::<bool>(), 0u8..19, 0u8..19), 1..4)),
            0..20,
        ),
        tags in tags(),
    ) {
        use boardscribe_core::record::{Change, Edit, Stone};
        let mut log = FreeLog::new("19x19:points", "2026.03.07");
        log.tags = vec![("Event".into(), tags.event.trim().to_string()), ("White".into(), tags.white.trim().to_string())]
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .collect();
        log.start = Some((1.0, vec![(Stone::White, "d4".into())]));
        let mut t = 1.0;
        for (dt, edits) in changes {
            t += (dt * 10.0).round() / 10.0;
            log.changes.push(Change {
                time_s: t,
                edits: edits
                    .into_iter()
                    .map(|(placed, white, f, r)| Edit {
                        placed,
                        stone: if white { Stone::White } else { Stone::Black },
                        site: boardscribe_core::rules::Square::new(f, r).name(),
                    })
                    .collect(),
            });
        }
        let text = log.render();
        let back = FreeLog::parse(&text).unwrap();
        prop_assert_eq!(back.render(), text);
        prop_assert_eq!(back.changes.len(), log.changes.len());
        let names = |t: &[(String, String)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        prop_assert_eq!(names(&back.tags), names(&log.tags));
    }
}
