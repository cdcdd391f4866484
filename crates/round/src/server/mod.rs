//! The live server of a round (axum on a current-thread tokio runtime, on its own
//! thread, so recorders never wait for it):
//!
//! - `/` every board: diagram, players, last moves, status;
//! - `/board/N` one board large, its moves and latest camera frame;
//! - `/round.pgn`, `/board/N.pgn` (`.pdn`, `.txt`, `.sgf`): the public records
//!   (moves, results, tags; no comment) as they stand, served from memory, whole,
//!   with `Cache-Control: no-cache`;
//! - `/events` Server-Sent Events: every board's state (with its card) on
//!   connecting, then each change (`board`), every move (`record`), and `end`;
//!   `/events?board=N` the same for board N, with its detail;
//! - `/api/round` every board's state as JSON;
//! - `POST /api/board/N/action` arbiter actions, with the token printed at start-up
//!   in the `X-Arbiter-Token` header;
//! - `/arbiter/round.pgn`, `/arbiter/board/N.pgn`: the arbiter's records (every
//!   comment), with the token.
//!
//! The token (the `X-Arbiter-Token` header, or `?token=` where a browser cannot
//! send a header) makes the pages, `/events` and `/api/round` the arbiter's: with
//! the alerts, the controls and every recorder event. See docs/http-api.md.
//!
//! Every board is rendered once per change of its state, whatever the number of
//! viewers. Connections are capped and timed out (see [`Limits`]), so that no
//! number of clients takes from the recorders the descriptors or cores they need;
//! every response carries a Content-Security-Policy (scripts from this server
//! only, none inline) and headers against sniffing, framing and referrers.

mod feed;
mod listen;
mod page;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::round::{Action, ActionError, Audience, Board, Round};
use feed::Cache;

pub use listen::Limits;

const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The most requests for camera pictures or arbiter actions worked on at once,
/// off the server's thread: viewers never take the recorders' cores.
const BLOCKING_THREADS: usize = 2;

/// A running server.
pub struct ServerHandle {
    /// Where it listens (the port chosen when 0 was asked for).
    pub addr: SocketAddr,
    /// What it allows its clients.
    pub limits: Limits,
    #[cfg(test)]
    slots: Arc<listen::Semaphore>,
}

impl ServerHandle {
    /// The connections being served now.
    #[cfg(test)]
    pub(crate) fn connections(&self) -> usize {
        self.limits.max_connections - self.slots.available_permits()
    }
}

/// Binds `listen` (such as `127.0.0.1:8080`) now, so that a taken port is an
/// error at once, and serves `round` on a thread of its own until the process
/// ends, within `Limits::for_this_process` (the process's descriptor limit
/// raised first, see `raise_fd_limit`).
pub fn start(round: Arc<Round>, listen: &str) -> Result<ServerHandle, ServerError> {
    crate::runner::raise_fd_limit();
    start_with(round, listen, Limits::for_this_process())
}

/// [`start`] within the given limits.
pub(crate) fn start_with(
    round: Arc<Round>,
    listen: &str,
    limits: Limits,
) -> Result<ServerHandle, ServerError> {
    let listener = std::net::TcpListener::bind(listen).map_err(|source| ServerError::Listen {
        addr: listen.to_string(),
        source,
    })?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()?;
    let slots = Arc::new(listen::Semaphore::new(limits.max_connections));
    let taken = slots.clone();
    std::thread::Builder::new()
        .name("server".into())
        .spawn(move || {
            runtime.block_on(async move {
                // Errors past binding end the server only; the recorders go on
                // writing their records.
                listen::serve(listener, router(round, limits), limits, taken).await;
            })
        })?;
    Ok(ServerHandle {
        addr,
        limits,
        #[cfg(test)]
        slots,
    })
}

/// The server could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The address could not be bound (taken, not this machine's, malformed).
    #[error("cannot listen on {addr}")]
    Listen {
        /// The address as given.
        addr: String,
        /// Why not.
        source: std::io::Error,
    },
    /// The socket, the runtime or the server's thread could not be set up.
    #[error(transparent)]
    Start(#[from] std::io::Error),
}

/// What the handlers share: the round, its renderings, the limits.
struct Live {
    round: Arc<Round>,
    cache: Arc<Cache>,
    limits: Limits,
}

/// The routes, over the round's shared state; every response secured.
fn router(round: Arc<Round>, limits: Limits) -> Router {
    let live = Arc::new(Live {
        round,
        cache: Arc::default(),
        limits,
    });
    Router::new()
        .route("/", get(index))
        .route("/round.pgn", get(round_pgn))
        .route("/events", get(events))
        .route("/api/round", get(api_round))
        .route("/board/{n}", get(board))
        .route("/board/{n}/frame.jpg", get(frame))
        .route("/api/board/{n}/action", post(action))
        .route("/arbiter/round.pgn", get(arbiter_round_pgn))
        .route("/arbiter/board/{n}", get(arbiter_board))
        .route("/static/app.js", get(app_js))
        .route("/static/style.css", get(style_css))
        .route("/static/pieces.svg", get(pieces_svg))
        .fallback(|| async { not_found("page") })
        .with_state(live)
        .layer(axum::middleware::map_response(secured))
}

type Shared = State<Arc<Live>>;

/// The page's scripts and styles come from this server only, none inline (a
/// player's name or an alert's text can never run as script); no site may frame
/// the pages; no address (with the arbiter's token) goes out as a referrer.
const SECURITY: [(&str, &str); 4] = [
    (
        "content-security-policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
];

async fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in SECURITY {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    response
}

fn text(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
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

/// Who asks: the arbiter when the token comes (in the `X-Arbiter-Token`
/// header or as `?token=`), else a spectator; a wrong token is refused.
fn audience(live: &Live, headers: &HeaderMap, uri: &Uri) -> Result<Audience, Response> {
    let header = headers.get("x-arbiter-token").and_then(|v| v.to_str().ok());
    let query = uri
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="));
    match header.or(query) {
        None => Ok(Audience::Public),
        Some(t) if same(t.as_bytes(), live.round.token.as_bytes()) => Ok(Audience::Arbiter),
        Some(_) => Err(wrong_token()),
    }
}

/// The arbiter's records and views, for the arbiter only.
fn arbiter_only(live: &Live, headers: &HeaderMap, uri: &Uri) -> Result<(), Response> {
    match audience(live, headers, uri)? {
        Audience::Arbiter => Ok(()),
        Audience::Public => Err(wrong_token()),
    }
}

fn wrong_token() -> Response {
    json(
        StatusCode::UNAUTHORIZED,
        serde_json::json!({"ok": false, "message": "the arbiter's token is missing or wrong"}),
    )
}

async fn index(State(live): Shared, headers: HeaderMap, uri: Uri) -> Response {
    // A page asked for with a wrong token is the spectators' page: its script
    // says the token was refused.
    let audience = audience(&live, &headers, &uri).unwrap_or(Audience::Public);
    let cards: String = live
        .round
        .boards()
        .iter()
        .map(|b| live.cache.board(b).to(audience).card.clone())
        .collect();
    text(
        StatusCode::OK,
        "text/html; charset=utf-8",
        page::round_page(&live.round, &cards, audience),
    )
}

const PGN: &str = "application/x-chess-pgn; charset=utf-8";

async fn round_pgn(State(live): Shared) -> Response {
    text(StatusCode::OK, PGN, live.round.pgn().to_string())
}

async fn arbiter_round_pgn(State(live): Shared, headers: HeaderMap, uri: Uri) -> Response {
    if let Err(refused) = arbiter_only(&live, &headers, &uri) {
        return refused;
    }
    text(StatusCode::OK, PGN, live.round.arbiter_pgn().to_string())
}

/// `/board/N` (the page) or `/board/N.pgn` (its public record; `.pdn`, `.txt`,
/// `.sgf` too).
async fn board(
    State(live): Shared,
    Path(name): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let round = &live.round;
    let (num, ext) = match name.split_once('.') {
        Some((n, e)) => (n, Some(e)),
        None => (name.as_str(), None),
    };
    let Some(board) = num.parse().ok().and_then(|n| round.board(n)) else {
        return not_found(&format!("board {num}"));
    };
    match ext {
        None => {
            let audience = audience(&live, &headers, &uri).unwrap_or(Audience::Public);
            let rendered = live.cache.board(&board);
            text(
                StatusCode::OK,
                "text/html; charset=utf-8",
                page::board_page(round, &board, &rendered.to(audience).detail, audience),
            )
        }
        Some(e) if e == board.kind().extension() => record(round, &board, Audience::Public),
        Some(_) => not_found(&format!("board {num}'s record as .{}", ext.unwrap_or(""))),
    }
}

/// `/arbiter/board/N.pgn` (`.pdn`, `.txt`, `.sgf`): the board's record with
/// every comment.
async fn arbiter_board(
    State(live): Shared,
    Path(name): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    if let Err(refused) = arbiter_only(&live, &headers, &uri) {
        return refused;
    }
    let round = &live.round;
    let (num, ext) = name.split_once('.').unwrap_or((name.as_str(), ""));
    match num.parse().ok().and_then(|n| round.board(n)) {
        Some(board) if ext == board.kind().extension() => record(round, &board, Audience::Arbiter),
        _ => not_found(&format!("board {name}'s record")),
    }
}

/// A board's record as `audience` gets it.
fn record(round: &Round, board: &Board, audience: Audience) -> Response {
    let s = board.state();
    let kept = match audience {
        Audience::Public => &s.served,
        Audience::Arbiter => &s.arbiter,
    };
    let body = if kept.is_empty() {
        // Not recording yet: the game as the round PGN holds it.
        board_from_round(round, board, audience)
    } else {
        kept.to_string()
    };
    text(StatusCode::OK, board.kind().content_type(), body)
}

/// A board's game cut out of the round PGN (boards without a record yet).
fn board_from_round(round: &Round, board: &Board, audience: Audience) -> String {
    let pgn = match audience {
        Audience::Public => round.pgn(),
        Audience::Arbiter => round.arbiter_pgn(),
    };
    let games = crate::record::parse_pgn_games(&pgn).unwrap_or_default();
    games
        .into_iter()
        .find(|g| g.tag("Board") == Some(&board.number().to_string()))
        .map(|g| g.to_pgn_string())
        .unwrap_or_default()
}

async fn api_round(State(live): Shared, headers: HeaderMap, uri: Uri) -> Response {
    let audience = match audience(&live, &headers, &uri) {
        Ok(a) => a,
        Err(refused) => return refused,
    };
    let round = &live.round;
    let head = serde_json::json!({
        "event": round.info.name,
        "site": round.info.site,
        "round": round.info.round,
        "date": round.date,
        "ended": round.has_ended(),
    })
    .to_string();
    // The boards' JSON as rendered for the stream, spliced in rather than parsed
    // and written again.
    let mut body = head.trim_end_matches('}').to_string();
    body.push_str(",\"boards\":[");
    for (i, b) in round.boards().iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str(&live.cache.board(b).to(audience).json);
    }
    body.push_str("]}");
    text(StatusCode::OK, "application/json", body)
}

/// `/events` (every board, with its card) or `/events?board=N` (board N, with
/// its detail); the arbiter's with the token.
async fn events(State(live): Shared, headers: HeaderMap, uri: Uri) -> Response {
    let audience = match audience(&live, &headers, &uri) {
        Ok(a) => a,
        Err(refused) => return refused,
    };
    let board = uri
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|kv| kv.strip_prefix("board="));
    let show = match board {
        None => feed::Show::Round,
        Some(n) => match n.parse().ok().filter(|n| live.round.board(*n).is_some()) {
            Some(n) => feed::Show::Board(n),
            None => return not_found(&format!("board {n}")),
        },
    };
    let view = feed::View { show, audience };
    let stream = feed::events(live.round.clone(), live.cache.clone(), view);
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn frame(State(live): Shared, Path(n): Path<u32>) -> Response {
    let Some(board) = live.round.board(n) else {
        return not_found(&format!("board {n}"));
    };
    // Every viewer of the page asks every two seconds: one JPEG per frame kept.
    let serial = board
        .frame
        .lock()
        .ok()
        .and_then(|slot| slot.as_ref().map(|f| f.serial));
    let version = board.version();
    let kept = serial.and_then(|s| live.cache.jpeg(n, s, version));
    let jpeg = match kept {
        Some(j) => Some(j),
        None => {
            let made = tokio::task::spawn_blocking(move || frame_jpeg(&board))
                .await
                .ok()
                .flatten();
            made.map(|(serial, version, jpeg)| {
                let jpeg = Bytes::from(jpeg);
                live.cache.keep_jpeg(n, serial, version, jpeg.clone());
                jpeg
            })
        }
    };
    match jpeg {
        Some(bytes) => text(StatusCode::OK, "image/jpeg", bytes),
        None => not_found(&format!("a camera frame of board {n}")),
    }
}

/// The latest frame kept of a board, with its grid drawn, as JPEG; with the
/// frame's serial and the state's version it was drawn from.
fn frame_jpeg(board: &Board) -> Option<(u64, u64, Vec<u8>)> {
    use opencv::core::Vector;
    use opencv::prelude::*;
    let (serial, mut image) = {
        let slot = board.frame.lock().ok()?;
        let f = slot.as_ref()?;
        (f.serial, f.image.try_clone().ok()?)
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
    Some((serial, s.version, out.to_vec()))
}

/// The largest action body read; actions are a few dozen bytes.
const ACTION_BYTES: usize = 4096;

async fn action(
    State(live): Shared,
    Path(n): Path<u32>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let refuse = |status: StatusCode, message: String| {
        json(status, serde_json::json!({"ok": false, "message": message}))
    };
    let given = headers
        .get("x-arbiter-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !same(given.as_bytes(), live.round.token.as_bytes()) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "the arbiter's token is missing or wrong".into(),
        );
    }
    // A body that trickles in holds a connection: it has a time to arrive.
    let read = axum::body::to_bytes(body, ACTION_BYTES);
    let body = match tokio::time::timeout(live.limits.body_timeout, read).await {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("not an action of at most {ACTION_BYTES} bytes: {e}"),
            )
        }
        Err(_) => {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the action did not arrive within {} s",
                    live.limits.body_timeout.as_secs()
                ),
            )
        }
    };
    let action: Action = match serde_json::from_slice(&body) {
        Ok(a) => a,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("not an action: {e}")),
    };
    let round = live.round.clone();
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

async fn pieces_svg() -> Response {
    text(
        StatusCode::OK,
        "image/svg+xml; charset=utf-8",
        page::PIECES_SVG,
    )
}

#[cfg(test)]
mod tests;
