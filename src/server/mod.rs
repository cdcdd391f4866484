//! The live server of a round (axum on a current-thread tokio runtime, on its own
//! thread, so recorders never wait for it):
//!
//! - `/` every board: diagram, players, last moves, status, open alerts;
//! - `/board/N` one board large, its moves, alerts and latest camera frame;
//! - `/round.pgn`, `/board/N.pgn` (`.pdn`, `.txt`): the records as they stand,
//!   served from memory, whole, with `Cache-Control: no-cache`;
//! - `/events` Server-Sent Events: every board's state on connecting, then each
//!   change (`board`), every recorder event (`record`), and `end`;
//! - `POST /api/board/N/action` arbiter actions, with the token printed at start-up
//!   in the `X-Arbiter-Token` header.

mod page;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::broadcast::error::RecvError;

use crate::round::{Action, ActionError, Board, Round, Update};

pub use page::esc;

const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// A running server.
pub struct ServerHandle {
    /// Where it listens (the port chosen when 0 was asked for).
    pub addr: SocketAddr,
}

/// Binds `listen` (such as `127.0.0.1:8080`) now, so that a taken port is an
/// error at once, and serves `round` on a thread of its own until the process ends.
pub fn start(round: Arc<Round>, listen: &str) -> anyhow::Result<ServerHandle> {
    let listener = std::net::TcpListener::bind(listen)
        .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("server".into())
        .spawn(move || {
            runtime.block_on(async move {
                // Errors past binding (a listener closed under it) end the server
                // only; the recorders go on writing their records.
                if let Ok(listener) = tokio::net::TcpListener::from_std(listener) {
                    let _ = axum::serve(listener, router(round)).await;
                }
            })
        })?;
    Ok(ServerHandle { addr })
}

/// The routes, over the round's shared state.
pub fn router(round: Arc<Round>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/round.pgn", get(round_pgn))
        .route("/events", get(events))
        .route("/api/round", get(api_round))
        .route("/board/{n}", get(board))
        .route("/board/{n}/frame.jpg", get(frame))
        .route("/api/board/{n}/action", post(action))
        .route("/static/app.js", get(app_js))
        .route("/static/style.css", get(style_css))
        .with_state(round)
}

type Shared = State<Arc<Round>>;

fn text(status: StatusCode, content_type: &'static str, body: impl Into<String>) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body.into(),
    )
        .into_response()
}

fn json(status: StatusCode, value: serde_json::Value) -> Response {
    text(status, "application/json", value.to_string())
}

fn not_found(what: &str) -> Response {
    text(
        StatusCode::NOT_FOUND,
        "text/plain; charset=utf-8",
        format!("{what} not found\n"),
    )
}

async fn index(State(round): Shared) -> Response {
    text(
        StatusCode::OK,
        "text/html; charset=utf-8",
        page::round_page(&round),
    )
}

async fn round_pgn(State(round): Shared) -> Response {
    text(
        StatusCode::OK,
        "application/x-chess-pgn; charset=utf-8",
        round.pgn().to_string(),
    )
}

/// `/board/N` (the page) or `/board/N.pgn` (its record; `.pdn`, `.txt` too).
async fn board(State(round): Shared, Path(name): Path<String>) -> Response {
    let (num, ext) = match name.split_once('.') {
        Some((n, e)) => (n, Some(e)),
        None => (name.as_str(), None),
    };
    let Some(board) = num.parse().ok().and_then(|n| round.board(n)) else {
        return not_found(&format!("board {num}"));
    };
    match ext {
        None => text(
            StatusCode::OK,
            "text/html; charset=utf-8",
            page::board_page(&round, board),
        ),
        Some(e) if e == board.kind().extension() => {
            let s = board.state();
            let body = if s.served.is_empty() {
                // Not recording yet: the game as the round PGN holds it.
                board_from_round(&round, board)
            } else {
                s.served.to_string()
            };
            text(StatusCode::OK, board.kind().content_type(), body)
        }
        Some(_) => not_found(&format!("board {num}'s record as .{}", ext.unwrap_or(""))),
    }
}

/// A board's game cut out of the round PGN (boards without a record yet).
fn board_from_round(round: &Round, board: &Board) -> String {
    let pgn = round.pgn();
    let games = crate::record::pgn::parse_pgn_games(&pgn).unwrap_or_default();
    games
        .into_iter()
        .find(|g| g.tag("Board") == Some(&board.number().to_string()))
        .map(|g| g.to_pgn_string())
        .unwrap_or_default()
}

/// What the pages need of a board: its state and its card and detail.
fn board_json(board: &Board) -> serde_json::Value {
    let s = board.state();
    serde_json::json!({
        "number": board.number(),
        "game": board.kind().name(),
        "white": board.spec.white,
        "black": board.spec.black,
        "version": s.version,
        "status": s.status,
        "detail_text": s.detail,
        "result": s.result,
        "moves": s.sans,
        "placement": s.diagram.as_ref().map(|d| d.placement()),
        "alerts": s.alerts,
        "card": page::card(board, &s),
        "detail": page::detail(board, &s),
    })
}

async fn api_round(State(round): Shared) -> Response {
    let boards: Vec<_> = round.boards.iter().map(|b| board_json(b)).collect();
    json(
        StatusCode::OK,
        serde_json::json!({
            "event": round.info.name,
            "site": round.info.site,
            "round": round.info.round,
            "date": round.date,
            "ended": round.has_ended(),
            "boards": boards,
        }),
    )
}

fn board_event(board: &Board) -> SseEvent {
    SseEvent::default()
        .event("board")
        .data(board_json(board).to_string())
}

fn end_event() -> SseEvent {
    SseEvent::default().event("end").data("{}")
}

/// Every board as it stands (on connecting, and after falling behind).
fn everything(round: &Round) -> VecDeque<SseEvent> {
    let mut all: VecDeque<SseEvent> = round.boards.iter().map(|b| board_event(b)).collect();
    if round.has_ended() {
        all.push_back(end_event());
    }
    all
}

async fn events(State(round): Shared) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let rx = round.subscribe();
    let first = everything(&round);
    let stream = stream::unfold(
        (rx, round, first),
        |(mut rx, round, mut queue)| async move {
            loop {
                if let Some(e) = queue.pop_front() {
                    return Some((Ok(e), (rx, round, queue)));
                }
                match rx.recv().await {
                    Ok(Update::Board(n)) => {
                        if let Some(b) = round.board(n) {
                            queue.push_back(board_event(b));
                        }
                    }
                    Ok(Update::Record(_, json)) => {
                        queue.push_back(SseEvent::default().event("record").data(&*json))
                    }
                    Ok(Update::End) => queue.push_back(end_event()),
                    // Fell behind: the whole state again is as good as what was missed.
                    Err(RecvError::Lagged(_)) => queue = everything(&round),
                    Err(RecvError::Closed) => return None,
                }
            }
        },
    );
    Sse::new(stream.boxed()).keep_alive(KeepAlive::default())
}

async fn frame(State(round): Shared, Path(n): Path<u32>) -> Response {
    let Some(board) = round.board(n).cloned() else {
        return not_found(&format!("board {n}"));
    };
    let jpeg = tokio::task::spawn_blocking(move || frame_jpeg(&board))
        .await
        .ok()
        .flatten();
    match jpeg {
        Some(bytes) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("image/jpeg")),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
            bytes,
        )
            .into_response(),
        None => not_found(&format!("a camera frame of board {n}")),
    }
}

/// The latest frame kept of a board, with its grid drawn, as JPEG.
fn frame_jpeg(board: &Board) -> Option<Vec<u8>> {
    use opencv::core::Vector;
    use opencv::prelude::*;
    let mut image = {
        let slot = board.frame.lock().ok()?;
        slot.as_ref()?.image.try_clone().ok()?
    };
    if image.empty() {
        return None;
    }
    let s = board.state();
    if let (Some(grid), Some(c)) = (s.grid, s.corners) {
        let corners = crate::geometry::Corners::new(c.map(|[x, y]| (x, y))).ok();
        if let Some(corners) = corners {
            let pose = crate::geometry::BoardPose::new(grid, corners);
            let _ = crate::geometry::draw_overlay(&mut image, &pose);
        }
    }
    let mut out = Vector::<u8>::new();
    let params = Vector::<i32>::from_slice(&[opencv::imgcodecs::IMWRITE_JPEG_QUALITY, 80]);
    opencv::imgcodecs::imencode(".jpg", &image, &mut out, &params).ok()?;
    Some(out.to_vec())
}

async fn action(
    State(round): Shared,
    Path(n): Path<u32>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let given = headers
        .get("x-arbiter-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !same(given.as_bytes(), round.token.as_bytes()) {
        return json(
            StatusCode::UNAUTHORIZED,
            serde_json::json!({"ok": false, "message": "the arbiter's token is missing or wrong"}),
        );
    }
    let action: Action = match serde_json::from_slice(&body) {
        Ok(a) => a,
        Err(e) => {
            return json(
                StatusCode::BAD_REQUEST,
                serde_json::json!({"ok": false, "message": format!("not an action: {e}")}),
            )
        }
    };
    let done = tokio::task::spawn_blocking(move || round.act(n, action)).await;
    let (status, message) = match done {
        Ok(Ok(m)) => (StatusCode::OK, m),
        Ok(Err(e @ ActionError::NoBoard(_))) => (StatusCode::NOT_FOUND, e.to_string()),
        Ok(Err(e @ ActionError::Refused(_))) => (StatusCode::CONFLICT, e.to_string()),
        Ok(Err(e @ ActionError::Failed(_))) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    json(
        status,
        serde_json::json!({"ok": status == StatusCode::OK, "message": message}),
    )
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn app_js() -> Response {
    text(StatusCode::OK, "text/javascript; charset=utf-8", APP_JS)
}

async fn style_css() -> Response {
    text(StatusCode::OK, "text/css; charset=utf-8", STYLE_CSS)
}
