use boardscribe::synth::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let w: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(640);
    let h: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(480);
    let mut state = BoardState::empty(8, 8, false);
    let back = [
        PieceKind::Rook,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Queen,
        PieceKind::King,
        PieceKind::Bishop,
        PieceKind::Knight,
        PieceKind::Rook,
    ];
    for c in 0..8 {
        state.set(0, c, Some(Piece::new(PieceSide::Black, back[c])));
        state.set(1, c, Some(Piece::new(PieceSide::Black, PieceKind::Pawn)));
        state.set(6, c, Some(Piece::new(PieceSide::White, PieceKind::Pawn)));
        state.set(7, c, Some(Piece::new(PieceSide::White, back[c])));
    }
    let mut p = SceneParams::chess_overhead(1, false);
    p.width = w;
    p.height = h;
    let mut times = vec![];
    let mut sum = 0u64;
    for _ in 0..n {
        let t = std::time::Instant::now();
        let r = render(&p, &state, None).unwrap();
        let j = Label::new(&state, &r, 1).to_json();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        sum += r.image.as_raw().iter().map(|&b| b as u64).sum::<u64>() + j.len() as u64;
    }
    times.sort_by(f64::total_cmp);
    println!(
        "median {:.2} ms, min {:.2} ms, checksum {sum}",
        times[times.len() / 2],
        times[0]
    );
}
#[allow(dead_code)]
fn _x() {}
