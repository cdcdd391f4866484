//! Skin colour: a cue for a hand over the board that the classifier may miss.

/// Share of pixels in a BGR patch whose colour falls in the usual skin range
/// (YCrCb box of Chai and Ngan, 1999). Only meaningful where the patch changed:
/// light wood has skin-like colours too.
pub(crate) fn skin_fraction(bgr: &[u8]) -> f32 {
    let n = bgr.len() / 3;
    if n == 0 {
        return 0.0;
    }
    let skin = bgr
        .chunks_exact(3)
        .filter(|p| {
            let (b, g, r) = (p[0] as f32, p[1] as f32, p[2] as f32);
            let y = 0.299 * r + 0.587 * g + 0.114 * b;
            let cr = (r - y) * 0.713 + 128.0;
            let cb = (b - y) * 0.564 + 128.0;
            (133.0..=173.0).contains(&cr) && (77.0..=127.0).contains(&cb) && y > 40.0
        })
        .count();
    skin as f32 / n as f32
}

#[cfg(test)]
mod tests {
    #[test]
    fn skin_tones_are_found_and_board_colours_are_not() {
        let patch = |b: u8, g: u8, r: u8| [b, g, r].repeat(16);
        assert!(super::skin_fraction(&patch(120, 150, 210)) > 0.9); // light skin
        assert!(super::skin_fraction(&patch(60, 90, 150)) > 0.9); // darker skin
        assert!(super::skin_fraction(&patch(80, 120, 40)) < 0.1); // green vinyl
        assert!(super::skin_fraction(&patch(230, 230, 230)) < 0.1); // white square
        assert!(super::skin_fraction(&patch(20, 20, 20)) < 0.1); // black piece
    }
}
