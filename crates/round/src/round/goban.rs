//! A Go position drawn as a Go board: lines, star points, stones on the
//! crossings, the last stone marked, coordinates as Go players write them
//! (A-T without I, 1-19 from the bottom).

use super::diagram::Diagram;
use crate::rules::Side;

/// Units between two lines.
const GAP: u32 = 10;

/// The diagram of a Go position, `px` wide.
pub(super) fn svg(d: &Diagram, px: u32) -> String {
    let (f, r) = (u32::from(d.files), u32::from(d.ranks));
    let (w, h) = (f * GAP, r * GAP);
    let mut s = format!(
        r#"<svg class="diagram goban" xmlns="http://www.w3.org/2000/svg" viewBox="-3 0 {} {}" width="{px}" role="img" data-placement="{}" aria-label="go diagram">"#,
        w + 3,
        h + 3,
        d.placement(),
    );
    s.push_str(&format!(r#"<rect class="wood" width="{w}" height="{h}"/>"#));
    // Every line as one path: the page sends this at every change.
    let half = GAP / 2;
    let mut lines = String::new();
    for i in 0..f {
        lines.push_str(&format!("M{} {half}V{}", i * GAP + half, h - half));
    }
    for j in 0..r {
        lines.push_str(&format!("M{half} {}H{}", j * GAP + half, w - half));
    }
    s.push_str(&format!(r#"<path class="lines" d="{lines}"/>"#));
    for (file, rank) in star_points(f, r) {
        let (x, y) = centre(file, rank, r);
        s.push_str(&format!(
            r#"<circle class="star" cx="{x}" cy="{y}" r="0.9"/>"#
        ));
    }
    for rank in 0..r {
        for file in 0..f {
            let i = (rank * f + file) as usize;
            let Some((_, side)) = d.cells[i] else {
                continue;
            };
            let (x, y) = centre(file, rank, r);
            let colour = if side == Side::White { "w" } else { "b" };
            s.push_str(&format!(
                r#"<circle class="stone {colour}" cx="{x}" cy="{y}" r="4.7"/>"#
            ));
            if d.changed[i] {
                s.push_str(&format!(
                    r#"<circle class="last {colour}" cx="{x}" cy="{y}" r="2.2"/>"#
                ));
            }
        }
    }
    for file in 0..f {
        s.push_str(&format!(
            r#"<text class="coord" x="{}" y="{}">{}</text>"#,
            file * GAP + half,
            h + 2,
            column_letter(file)
        ));
    }
    for rank in 0..r {
        s.push_str(&format!(
            r#"<text class="coord" x="-1.5" y="{}">{}</text>"#,
            (r - 1 - rank) * GAP + half + 1,
            rank + 1
        ));
    }
    s.push_str("</svg>");
    s
}

/// A crossing's centre, row 1 at the bottom.
fn centre(file: u32, rank: u32, ranks: u32) -> (u32, u32) {
    (file * GAP + GAP / 2, (ranks - 1 - rank) * GAP + GAP / 2)
}

/// Column letters as Go players write them: I is left out.
fn column_letter(file: u32) -> char {
    let c = b'A' + u8::try_from(file).unwrap_or(0);
    char::from(if c >= b'I' { c + 1 } else { c })
}

/// The marked points of a square board: the corners' 4-4 points (3-3 under
/// 13 lines), the centre of an odd board, and the sides' middles from 19.
fn star_points(files: u32, ranks: u32) -> Vec<(u32, u32)> {
    if files != ranks || files < 7 {
        return Vec::new();
    }
    let n = files;
    let d = if n >= 13 { 3 } else { 2 };
    let mut out = vec![
        (d, d),
        (n - 1 - d, d),
        (d, n - 1 - d),
        (n - 1 - d, n - 1 - d),
    ];
    if n % 2 == 1 {
        let m = n / 2;
        out.push((m, m));
        if n >= 19 {
            out.extend([(m, d), (m, n - 1 - d), (d, m), (n - 1 - d, m)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::rules::go::{Go, GoOptions};
    use crate::rules::Rules;

    #[test]
    fn a_go_position_is_drawn_as_a_go_board() {
        let mut g = Go::new(GoOptions::sized(9)).unwrap();
        let before = g.clone();
        let mv = g.parse_move("E5").unwrap();
        g.play(&mv).unwrap();
        let svg = Diagram::of(GameKind::Go, &g, Some(&before)).svg(300);
        assert!(svg.contains(r#"class="diagram goban""#), "{svg}");
        assert_eq!(svg.matches(r#"class="stone b""#).count(), 1);
        assert_eq!(svg.matches(r#"class="star""#).count(), 5);
        assert!(
            svg.contains(r#"<circle class="stone b" cx="45" cy="45""#),
            "{svg}"
        );
        assert!(svg.contains(r#"class="last b""#));
        assert!(svg.contains(">J</text>") && !svg.contains(">I</text>"));
        assert_eq!(star_points(19, 19).len(), 9);
    }
}
