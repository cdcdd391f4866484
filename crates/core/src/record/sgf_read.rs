//! Reading an SGF record back (`--resume`): the first game tree of the text,
//! its main line replayed through the rules. Every refusal says where.

use crate::record::error::{SgfError, TextPos};
use crate::record::sgf::{options_like, tag_name, tags_date, SgfMove, SgfRecord};
use crate::record::sgf_syntax::{main_lines, Node, Prop};
use crate::record::Tags;
use crate::rules::go::{Go, Komi, Move};
use crate::rules::{Rules, Side, Square};

/// Root properties the reader gives a meaning; others are kept as tags.
const READ: [&str; 18] = [
    "FF", "GM", "SZ", "CA", "AP", "ST", "EV", "PC", "DT", "RO", "PB", "PW", "KM", "HA", "RE", "AB",
    "AW", "PL",
];

fn at(p: &Prop, why: String) -> SgfError {
    SgfError {
        at: Some(p.at),
        why,
    }
}

fn first(p: &Prop) -> &str {
    p.values.first().map_or("", String::as_str)
}

/// Reads the first game of an SGF text, with `like`'s ko rule (SGF does not
/// say it) and the text's size, handicap and komi. An empty text is a new
/// record of `like`'s start.
pub(crate) fn parse(text: &str, like: &Go) -> Result<SgfRecord, SgfError> {
    if text.trim().is_empty() {
        return Ok(SgfRecord::new(like));
    }
    let games = main_lines(text)?;
    let Some(nodes) = games.into_iter().next() else {
        return Err(SgfError {
            at: Some(TextPos::of(text, 0)),
            why: "no game tree: an SGF record starts with `(;`".into(),
        });
    };
    let empty = Node::default();
    let root = nodes.first().unwrap_or(&empty);
    // Without PL, the side to move at the start is the first move's.
    let first_move = nodes.iter().find_map(|n| {
        n.get("B")
            .map(|_| Side::Black)
            .or(n.get("W").map(|_| Side::White))
    });
    let mut rec = read_root(root, like, first_move)?;
    // A root that holds a move too: the move follows the set-up.
    let moves_from = usize::from(root.get("B").is_none() && root.get("W").is_none());
    let mut game = rec.start.clone();
    for node in nodes.iter().skip(moves_from) {
        read_move(node, &mut game, &mut rec)?;
    }
    Ok(rec)
}

fn read_root(root: &Node, like: &Go, first_move: Option<Side>) -> Result<SgfRecord, SgfError> {
    let mut tags = Tags::unknown();
    let (mut size, mut handicap, mut komi) = (19u8, 0u8, None);
    let mut side = None;
    let mut result = None;
    let mut intro = Vec::new();
    for p in &root.props {
        let v = first(p);
        match p.id.as_str() {
            "GM" if v.trim() != "1" => {
                return Err(at(p, format!("GM[{v}] is not a game of Go (GM[1])")))
            }
            "SZ" => {
                size = v
                    .trim()
                    .parse()
                    .ok()
                    .filter(|s| (2..=25).contains(s))
                    .ok_or_else(|| at(p, format!("SZ[{v}]: a square board of 2 to 25 lines")))?
            }
            "HA" => {
                handicap = v
                    .trim()
                    .parse()
                    .ok()
                    .filter(|h| *h <= 9)
                    .ok_or_else(|| at(p, format!("HA[{v}]: a handicap of 0 to 9 stones")))?
            }
            "KM" => komi = Some(v.parse::<Komi>().map_err(|e| at(p, e.to_string()))?),
            "PL" => side = Some(colour(p, v)?),
            "RE" => result = Some(simple(v)).filter(|r| !r.is_empty()),
            "C" => intro.push(v.to_string()),
            "EV" => tags.event = simple(v),
            "PC" => tags.site = simple(v),
            "DT" => tags.date = tags_date(&simple(v)),
            "RO" => tags.round = simple(v),
            "PB" => tags.black = simple(v),
            "PW" => tags.white = simple(v),
            id if READ.contains(&id) || id == "B" || id == "W" || id == "AE" => {}
            id => tags.extra.push((tag_name(id), simple(v))),
        }
    }
    if handicap == 1 {
        handicap = 0;
    }
    let options = options_like(like, size, handicap, komi);
    let stones = |id: &str| -> Result<Vec<Square>, SgfError> {
        let mut all = Vec::new();
        if let Some(p) = root.get(id) {
            for v in &p.values {
                all.extend(points(p, v, size)?);
            }
        }
        Ok(all)
    };
    let (black, white) = (stones("AB")?, stones("AW")?);
    let natural = if handicap >= 2 {
        Side::White
    } else {
        Side::Black
    };
    let plain = side.is_none() && first_move.is_none_or(|s| s == natural);
    let start = if black.is_empty() && white.is_empty() && plain {
        Go::new(options).map_err(|e| SgfError {
            at: Some(root.at),
            why: e.to_string(),
        })?
    } else {
        let natural = if handicap >= 2 {
            Side::White
        } else {
            Side::Black
        };
        let side = side.or(first_move).unwrap_or(natural);
        Go::from_stones(&black, &white, side, options).ok_or_else(|| SgfError {
            at: Some(root.at),
            why: "AB/AW: the stones set up overlap, or a group has no liberty".into(),
        })?
    };
    Ok(SgfRecord {
        tags,
        start,
        intro,
        moves: Vec::new(),
        result,
    })
}

/// A SimpleText value: line breaks as spaces.
fn simple(v: &str) -> String {
    v.replace("\r\n", " ").replace(['\n', '\r'], " ")
}

fn colour(p: &Prop, v: &str) -> Result<Side, SgfError> {
    match v.trim() {
        "B" | "b" => Ok(Side::Black),
        "W" | "w" => Ok(Side::White),
        _ => Err(at(p, format!("{}[{v}]: the colour is B or W", p.id))),
    }
}

/// One point `pd`, or a rectangle `aa:cc` of them.
fn points(p: &Prop, v: &str, size: u8) -> Result<Vec<Square>, SgfError> {
    let bad = || {
        at(
            p,
            format!("{}[{v}]: not a point of a {size}x{size} board", p.id),
        )
    };
    let (a, b) = match v.split_once(':') {
        Some((a, b)) => (point_of(a, size), point_of(b, size)),
        None => (point_of(v, size), point_of(v, size)),
    };
    let (Some(a), Some(b)) = (a, b) else {
        return Err(bad());
    };
    let (f0, f1) = (a.file.min(b.file), a.file.max(b.file));
    let (r0, r1) = (a.rank.min(b.rank), a.rank.max(b.rank));
    Ok((r0..=r1)
        .rev()
        .flat_map(|r| (f0..=f1).map(move |f| Square::new(f, r)))
        .collect())
}

/// SGF's two letters as a square (row 1 at the bottom).
fn point_of(v: &str, size: u8) -> Option<Square> {
    let b = v.trim().as_bytes();
    let [c, r] = b else {
        return None;
    };
    let (col, row) = (c.checked_sub(b'a')?, r.checked_sub(b'a')?);
    (col < size && row < size).then(|| Square::new(col, size - 1 - row))
}

/// A move node: its move (a pass put in first when the same colour plays
/// twice), played and checked, and its comments.
fn read_move(node: &Node, game: &mut Go, rec: &mut SgfRecord) -> Result<(), SgfError> {
    let b = node.get("B");
    let w = node.get("W");
    let comments: Vec<String> = node
        .props
        .iter()
        .filter(|p| p.id == "C")
        .map(|p| first(p).to_string())
        .collect();
    let (p, colour) = match (b, w) {
        (Some(_), Some(p)) => {
            return Err(at(p, "a node with both B and W: one move a node".into()))
        }
        (Some(p), None) => (p, Side::Black),
        (None, Some(p)) => (p, Side::White),
        (None, None) => {
            if let Some(p) = node
                .props
                .iter()
                .find(|p| ["AB", "AW", "AE"].contains(&p.id.as_str()))
            {
                return Err(at(
                    p,
                    format!("{}: stones set up after the start are not read", p.id),
                ));
            }
            match rec.moves.last_mut() {
                Some(m) => m.comments.extend(comments),
                None => rec.intro.extend(comments),
            }
            return Ok(());
        }
    };
    if game.side_to_move() != colour {
        game.play_legal(&Move::Pass);
        rec.moves.push(SgfMove {
            mv: Move::Pass,
            comments: Vec::new(),
        });
    }
    let v = first(p).trim();
    let size = game.size();
    let mv = if v.is_empty() || (v == "tt" && size <= 19) {
        Move::Pass
    } else {
        Move::Play(point_of(v, size).ok_or_else(|| {
            at(
                p,
                format!("{}[{v}]: not a point of a {size}x{size} board", p.id),
            )
        })?)
    };
    if let Move::Play(sq) = mv {
        if let Some(why) = game.why_illegal(sq) {
            return Err(at(
                p,
                format!(
                    "move {} ({} {}): {why}",
                    rec.moves.len() + 1,
                    colour.name(),
                    game.notation(&mv)
                ),
            ));
        }
    }
    game.play_legal(&mv);
    rec.moves.push(SgfMove { mv, comments });
    Ok(())
}
