//! The pages, rendered on the server from the live state: the whole page when it
//! is asked for, and a board's card (for `/`) or detail (for `/board/N`) again for
//! every change, which the page's script swaps in.

use crate::game::GameKind;
use crate::round::{Alert, AlertKind, Audience, Board, BoardState, Round, Status};

/// The piece set the diagrams draw from (`<use href="#p-wK">`), sent once with
/// each page rather than with every change of every board.
pub(super) const PIECES_SVG: &str = include_str!("assets/pieces.svg");

/// Escapes text for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn or_unknown(s: &str) -> &str {
    if s.trim().is_empty() {
        "?"
    } else {
        s
    }
}

/// A whole page around `body`.
fn page(round: &Round, title: &str, kind: &str, body: &str, audience: Audience) -> String {
    let info = &round.info;
    let mut sub = Vec::new();
    if !info.site.is_empty() {
        sub.push(esc(&info.site));
    }
    if !info.round.is_empty() {
        sub.push(format!("round {}", esc(&info.round)));
    }
    sub.push(esc(&round.date));
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="/static/style.css"></head>
<body data-page="{kind}"{class}>
<header class="top"><h1><a href="/">{name}</a></h1><p class="sub">{sub}</p>
<p class="links"><a href="/round.pgn">round.pgn</a> <a class="arbiter-only" href="" data-arbiter-href="/arbiter/round.pgn">arbiter's round.pgn</a> <span id="live" class="live">connecting…</span> <span class="arbiter-only badge">arbiter</span></p></header>
<p id="message" class="message" hidden></p>
{sprite}{body}
<script src="/static/app.js"></script>
</body></html>
"#,
        title = esc(title),
        name = esc(or_unknown(&info.name)),
        sub = sub.join(" · "),
        sprite = PIECES_SVG,
        class = if audience == Audience::Arbiter {
            r#" class="arbiter""#
        } else {
            ""
        },
    )
}

/// `/`: every board, from their `cards`.
pub(crate) fn round_page(round: &Round, cards: &str, audience: Audience) -> String {
    page(
        round,
        or_unknown(&round.info.name),
        "round",
        &format!(r#"<main class="boards">{cards}</main>"#),
        audience,
    )
}

/// `/board/N`: one board large (its `detail`), its camera, its moves and alerts.
pub(crate) fn board_page(round: &Round, board: &Board, detail: &str, audience: Audience) -> String {
    let n = board.number();
    let body = format!(
        r#"<main class="one">{detail}<figure class="camera"><img id="camera" data-src="/board/{n}/frame.jpg" src="/board/{n}/frame.jpg" alt="the latest camera frame of board {n}, with the grid drawn"><figcaption>camera, grid as the recorder places it</figcaption></figure></main>"#,
    );
    page(
        round,
        &format!("Board {n} · {}", or_unknown(&round.info.name)),
        "board",
        &body,
        audience,
    )
}

fn players(board: &Board) -> String {
    format!(
        r#"<p class="players"><span class="white">{}</span> – <span class="black">{}</span></p>"#,
        esc(or_unknown(&board.spec.white)),
        esc(or_unknown(&board.spec.black))
    )
}

fn status_badge(s: &BoardState) -> String {
    let detail = s
        .detail
        .as_deref()
        .map(|d| format!(r#" title="{}""#, esc(d)))
        .unwrap_or_default();
    format!(
        r#"<span class="status st-{}"{detail}>{}</span>"#,
        s.status.key(),
        s.status.label()
    )
}

/// Moves as numbered pairs, `from` the first shown (0-based half-move); Go's
/// moves each with its own number, as Go records number them.
fn numbered(kind: GameKind, sans: &[String], from: usize) -> String {
    let mut out = Vec::new();
    for (i, san) in sans.iter().enumerate().skip(from) {
        match kind.move_number(i + 1) {
            (n, ".") => out.push(format!("{n}. {}", esc(san))),
            (n, _) if i == from => out.push(format!("{n}… {}", esc(san))),
            _ => out.push(esc(san)),
        }
    }
    out.join(" ")
}

fn alert_item(board: &Board, a: &Alert) -> String {
    let n = board.number();
    let kind = format!("{:?}", a.kind).to_lowercase();
    let mut buttons = String::new();
    if a.open {
        if a.kind == AlertKind::Unsure {
            buttons.push_str(&format!(
                r#" <button class="arbiter-only" data-action="confirm" data-board="{n}" data-alert="{}">Confirm</button>"#,
                a.id
            ));
        }
        buttons.push_str(&format!(
            r#" <button class="arbiter-only" data-action="acknowledge" data-board="{n}" data-alert="{}">Acknowledge</button>"#,
            a.id
        ));
    }
    let resolution = a
        .resolution
        .as_deref()
        .map(|r| format!(r#" <span class="resolution">({})</span>"#, esc(r)))
        .unwrap_or_default();
    format!(
        r#"<li class="alert k-{kind}{}" data-alert="{}"><span class="at">{}</span> {}{resolution}{buttons}</li>"#,
        if a.open { " open" } else { "" },
        a.id,
        esc(a.at.split(' ').nth(1).unwrap_or(&a.at)),
        esc(&a.text),
    )
}

/// A board's card on the round page; the arbiter's with the open alerts.
pub(crate) fn card(board: &Board, s: &BoardState, audience: Audience) -> String {
    let n = board.number();
    let svg = s.diagram.as_ref().map(|d| d.svg(260)).unwrap_or_default();
    let arbiter = audience == Audience::Arbiter;
    let open: String = s
        .alerts
        .iter()
        .filter(|a| a.open && arbiter)
        .map(|a| alert_item(board, a))
        .collect();
    let last = numbered(board.kind(), &s.sans, s.sans.len().saturating_sub(4));
    format!(
        r#"<article class="card{}" id="board-{n}" data-board="{n}" data-version="{version}" data-status="{status}" data-plies="{plies}" data-result="{result}">
<header><a class="name" href="/board/{n}">Board {n}</a> {badge} <span class="result">{result}</span></header>
{players}<a href="/board/{n}" class="diagram-link">{svg}</a>
<p class="last">{last}</p>
<ul class="alerts">{open}</ul>
</article>"#,
        if !open.is_empty() { " has-alert" } else { "" },
        status = s.status.key(),
        version = s.version,
        plies = s.sans.len(),
        result = esc(&s.result),
        badge = status_badge(s),
        players = players(board),
        last = if last.is_empty() {
            "no move yet".into()
        } else {
            last
        },
    )
}

/// A board's detail on its own page; the arbiter's with the alerts and the
/// arbiter's controls.
pub(crate) fn detail(board: &Board, s: &BoardState, audience: Audience) -> String {
    let n = board.number();
    let svg = s.diagram.as_ref().map(|d| d.svg(480)).unwrap_or_default();
    let alerts: String = s
        .alerts
        .iter()
        .rev()
        .map(|a| alert_item(board, a))
        .collect();
    let ext = board.kind().extension();
    let results: String = ["1-0", "1/2-1/2", "0-1"]
        .iter()
        .map(|r| {
            format!(
                r#"<button data-action="set_result" data-board="{n}" data-result="{r}">{}</button> "#,
                r.replace("1/2", "½")
            )
        })
        .collect();
    let over = matches!(s.status, Status::Finished);
    let arbiter = if audience == Audience::Arbiter {
        format!(
            r#"<div class="arbiter-only panel"><h3>Arbiter</h3><p>Result: {results}</p><p><button data-action="take_back" data-board="{n}" data-ply="{plies}"{disabled}>Take back the last move</button></p><p><a href="" data-arbiter-href="/arbiter/board/{n}.{ext}">the arbiter's record</a></p></div>
<h3>Alerts</h3><ul class="alerts">{alerts}</ul>"#,
            plies = s.sans.len(),
            disabled = if s.sans.is_empty() || over {
                " disabled"
            } else {
                ""
            },
            alerts = if alerts.is_empty() {
                "<li class=\"none\">none</li>".into()
            } else {
                alerts
            },
        )
    } else {
        String::new()
    };
    format!(
        r#"<section class="detail" id="board-{n}" data-board="{n}" data-version="{version}" data-status="{status}" data-plies="{plies}" data-result="{result}">
<header><h2>Board {n}</h2> {badge} <span class="result">{result}</span> <a href="/board/{n}.{ext}">board-{n}.{ext}</a></header>
{players}<div class="big">{svg}</div>
<div class="side"><h3>Moves</h3><p class="moves">{moves}</p>
{arbiter}</div>
</section>"#,
        status = s.status.key(),
        version = s.version,
        plies = s.sans.len(),
        result = esc(&s.result),
        badge = status_badge(s),
        players = players(board),
        moves = if s.sans.is_empty() {
            "no move yet".into()
        } else {
            numbered(board.kind(), &s.sans, 0)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_moves_numbered() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let sans: Vec<String> = ["e4", "e5", "Nf3", "Nc6", "Bb5"].map(String::from).to_vec();
        let chess = GameKind::Chess;
        assert_eq!(numbered(chess, &sans, 0), "1. e4 e5 2. Nf3 Nc6 3. Bb5");
        assert_eq!(numbered(chess, &sans, 1), "1… e5 2. Nf3 Nc6 3. Bb5");
        assert_eq!(numbered(GameKind::Go, &sans[..2], 0), "1. e4 2. e5");
    }
}
