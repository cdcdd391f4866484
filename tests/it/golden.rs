//! Golden hashes of a few small renders (issue 21): the renderer is seeded and
//! single-threaded, so its bytes must not change by accident. A deliberate change
//! is accepted with `BLESS=1 cargo test golden`, which rewrites
//! `tests/data/render_hashes.txt`; commit that file with the change and say why.

use std::collections::BTreeMap;
use std::path::PathBuf;

use boardscribe_lab::synth::{
    render, BoardState, Piece, PieceKind, PieceSide, RandomRanges, Rng, Scene, SceneParams,
};

/// FNV-1a over the bytes (what `examples/render_fixed` prints).
fn fnv1a(bytes: &[u8]) -> String {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

fn small(mut p: SceneParams) -> SceneParams {
    (p.width, p.height) = (160, 120);
    p
}

fn put(state: &mut BoardState, cells: &[(usize, usize)], side: PieceSide, kind: PieceKind) {
    for &(r, c) in cells {
        state.set(r, c, Some(Piece::new(side, kind)));
    }
}

/// The renders guarded, by name: one per preset, a hand over the board, a clip's
/// later frame (shake and noise vary by frame) and a random training scene.
fn renders() -> BTreeMap<&'static str, String> {
    let mut out = BTreeMap::new();
    let mut chess = BoardState::empty(8, 8, false);
    put(
        &mut chess,
        &[(6, 3), (6, 4), (7, 1)],
        PieceSide::White,
        PieceKind::Pawn,
    );
    put(&mut chess, &[(0, 4)], PieceSide::Black, PieceKind::King);
    put(&mut chess, &[(0, 3)], PieceSide::Black, PieceKind::Queen);
    put(&mut chess, &[(7, 6)], PieceSide::White, PieceKind::Knight);
    let p = small(SceneParams::chess_overhead(1, false));
    out.insert("chess_overhead", render(&p, &chess, None).unwrap().image);
    let p = small(SceneParams::chess_overhead(2, true));
    let scene = Scene::new(&p).unwrap();
    let hand = scene.hand_pose((6, 4), 30.0, 0.5, None);
    let frame = scene.render_frame(&chess, Some(&hand), 0).unwrap();
    out.insert("chess_hand", frame.image);
    let later = scene.render_frame(&chess, None, 7).unwrap();
    out.insert("chess_frame_7", later.image);

    let mut draughts = BoardState::empty(8, 8, false);
    put(
        &mut draughts,
        &[(5, 0), (5, 2), (7, 6)],
        PieceSide::White,
        PieceKind::Man,
    );
    put(
        &mut draughts,
        &[(0, 1), (2, 3)],
        PieceSide::Black,
        PieceKind::Man,
    );
    put(
        &mut draughts,
        &[(3, 4)],
        PieceSide::Black,
        PieceKind::DraughtsKing,
    );
    let p = small(SceneParams::vinyl_tournament(3));
    out.insert("vinyl_draughts", render(&p, &draughts, None).unwrap().image);

    let mut go = BoardState::empty(19, 19, true);
    put(
        &mut go,
        &[(3, 3), (15, 15), (9, 9)],
        PieceSide::Black,
        PieceKind::Stone,
    );
    put(
        &mut go,
        &[(3, 15), (15, 3)],
        PieceSide::White,
        PieceKind::Stone,
    );
    let p = small(SceneParams::go_oblique(4));
    out.insert("go_oblique", render(&p, &go, None).unwrap().image);

    let mut tablut = BoardState::empty(9, 9, false);
    put(
        &mut tablut,
        &[(4, 4)],
        PieceSide::White,
        PieceKind::TablutKing,
    );
    put(
        &mut tablut,
        &[(0, 3), (0, 4), (0, 5)],
        PieceSide::Black,
        PieceKind::Soldier,
    );
    let p = small(SceneParams::tablut(5));
    out.insert("tablut", render(&p, &tablut, None).unwrap().image);

    let mut rng = Rng::new(6);
    let p = small(SceneParams::random(
        8,
        8,
        false,
        &mut rng,
        &RandomRanges::default(),
    ));
    out.insert("random_8x8", render(&p, &chess, None).unwrap().image);

    out.into_iter()
        .map(|(name, image)| (name, fnv1a(image.as_raw())))
        .collect()
}

fn hash_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/render_hashes.txt")
}

#[test]
fn renders_keep_their_bytes_unless_blessed() {
    let got = renders();
    let text: String = got.iter().map(|(n, h)| format!("{n} {h}\n")).collect();
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        std::fs::write(hash_file(), text).expect("write tests/data/render_hashes.txt");
        eprintln!("blessed {} render hashes", got.len());
        return;
    }
    let want = std::fs::read_to_string(hash_file()).expect("tests/data/render_hashes.txt");
    let want: BTreeMap<&str, &str> = want.lines().filter_map(|l| l.split_once(' ')).collect();
    let changed: Vec<String> = got
        .iter()
        .filter(|(n, h)| want.get(*n) != Some(&h.as_str()))
        .map(|(n, h)| format!("{n}: {} -> {h}", want.get(n).unwrap_or(&"(none)")))
        .collect();
    assert!(
        changed.is_empty() && want.len() == got.len(),
        "renders changed (if on purpose: BLESS=1 cargo test golden, and commit \
         tests/data/render_hashes.txt):\n{}",
        changed.join("\n")
    );
}
