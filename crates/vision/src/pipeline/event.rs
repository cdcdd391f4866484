//! What a recording reports as it goes: one serialisable event type, handed to an
//! [`EventSink`]. The library never prints; the command line prints these events
//! (text on stderr, JSON lines with `--events`), the tournament server streams them
//! and tests assert on them.

use serde::Serialize;

use crate::geometry::Corners;

/// One thing a recording has to say. Serialised with a `type` field naming the
/// kind (`{"type":"move",...}`); times are seconds from the start of the input,
/// rounded to the millisecond.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// White's edge of the grid, decided from the first still view.
    Orientation {
        time: f64,
        /// `bottom`, `top`, `left` or `right`.
        white: String,
    },
    /// The view is not the position the recording starts from (the start
    /// position, or `--fen`): the squares that differ and what to check.
    /// Recording waits for it.
    NotStart {
        time: f64,
        squares: Vec<String>,
        advice: String,
    },
    /// Taking a record up again: the view shows the position after half-move
    /// `ply` of the record's `of`, already recorded (the past, skipped), or, with
    /// `undecided`, a position the game had both then and at its record's end
    /// (a repetition): later views tell which. Said when it changes.
    Past {
        time: f64,
        ply: usize,
        of: usize,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        undecided: bool,
    },
    /// Taking a record up again: recording goes on from the view at `time`, which
    /// shows the record's last position (after half-move `ply`), or with `after`,
    /// play after it.
    TakenUp {
        time: f64,
        ply: usize,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        after: bool,
    },
    /// The game was under way at the first view that could be read: the plies
    /// from the start to what it shows (`plies`, in the record's notation) were
    /// reconstructed from its occupancy, not seen; `order_open` when the same
    /// moves in another order reach it too. Each is then reported as a move.
    Joined {
        time: f64,
        plies: Vec<String>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        order_open: bool,
        white: String,
    },
    /// A located grid was moved by whole cells to where the first frame reads as
    /// the game's start position.
    GridSnapped {
        rows: i32,
        cols: i32,
        corners: [[f64; 2]; 4],
    },
    /// A move was accepted.
    Move {
        time: f64,
        /// 1-based half-move number.
        ply: usize,
        san: String,
        uci: String,
        /// How clearly the move beat the next best explanation, 0.5 to 1.
        confidence: f64,
        /// The camera cannot tell which piece a pawn became: a queen is assumed.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        assumed: bool,
        /// Other moves the views also support in this half-move (SAN), closest
        /// first: the arbiter should check it.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        alternatives: Vec<String>,
    },
    /// Plies `first` to `last` (1-based) were accepted from one view: no still
    /// view showed the positions between them.
    SeenTogether {
        time: f64,
        first: usize,
        last: usize,
    },
    /// A draw the players may claim (threefold repetition, the fifty-move rule)
    /// became possible after half-move `ply` (1-based): said once, when it first
    /// can be claimed. It is no result: the game goes on until the arbiter (or
    /// `record --result`) sets one.
    DrawClaimable {
        time: f64,
        ply: usize,
        reason: String,
    },
    /// A confident change that no legal line explains, and that is none of the
    /// kinds below; recording waits.
    Unexplained { time: f64, squares: Vec<String> },
    /// A piece went where no legal move goes (`text`: "White knight f3-f5 is not
    /// a legal move"); `squares` are from and to. Recording waits.
    IllegalMove {
        time: f64,
        squares: Vec<String>,
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// A piece left the board with no legal move taking it.
    PieceRemoved {
        time: f64,
        squares: Vec<String>,
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// Pieces moved or knocked over on or near their squares.
    Displaced {
        time: f64,
        squares: Vec<String>,
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// Squares that disagree with the position but could not be read with
    /// confidence: not taken for a move.
    Unreadable {
        time: f64,
        squares: Vec<String>,
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// Play went on from the position an illegal move left: the record goes on
    /// as game `game` of the same file, from `position` (FEN, or Tablut's text).
    NewGame {
        time: f64,
        game: usize,
        position: String,
        after: String,
    },
    /// The board shows a legal continuation again.
    #[serde(rename = "sync")]
    Resynced { time: f64, in_sync: bool },
    /// An earlier move was recorded wrongly and is now `san`.
    #[serde(rename = "correction")]
    Corrected {
        time: f64,
        ply: usize,
        san: String,
        uci: String,
        /// `promotion` (which piece the pawn became) or `relanded` (the piece
        /// stood on another square than first read).
        reason: String,
    },
    /// The board moved a little in the image and its grid was followed.
    Regrid { time: f64, corners: [[f64; 2]; 4] },
    /// The board moved too far to follow and was located again.
    Relocated { time: f64, corners: [[f64; 2]; 4] },
    /// Still views fit no position of the game through the grid used (placed
    /// on a view that hid part of the board, or given wrong): the grid was
    /// placed again, where its readings fit the game better.
    PlacedAgain { time: f64, corners: [[f64; 2]; 4] },
    /// The board moved and was not found again; recording waits for it.
    BoardLost { time: f64 },
    /// A frame the source could not use (an unreadable photo in a folder).
    SourceWarning { message: String },
    /// `--game free`: the first still position.
    Start {
        time: f64,
        white: Vec<String>,
        black: Vec<String>,
    },
    /// `--game free`: one stable change.
    Change {
        time: f64,
        placed: Vec<SiteColour>,
        removed: Vec<SiteColour>,
    },
    /// A frame looked at for the grid, and the grid found in it (corners TL TR
    /// BR BL, and how sure), if any; only when the search is asked to tell.
    Looked {
        /// The photo's file, or None for a video's frame.
        photo: Option<String>,
        time: f64,
        corners: Option<[[f64; 2]; 4]>,
        confidence: f64,
    },
    /// The grid was placed automatically: `agreeing` of the `looked` frames from
    /// `from_s` to `to_s` found it there (`elsewhere` placed it elsewhere), and it
    /// was taken from the frame at `time` (the photo `photo`).
    BoardFound {
        grid: String,
        corners: [[f64; 2]; 4],
        confidence: f64,
        photo: Option<String>,
        time: f64,
        looked: usize,
        agreeing: usize,
        elsewhere: usize,
        from_s: f64,
        to_s: f64,
    },
    /// Recording goes on with the record at `path`, which holds `plies` half-moves.
    Resuming { path: String, plies: usize },
    /// How far an offline source has been read.
    Progress { frame: usize, total: Option<usize> },
    /// One still view's readings, for diagnosis (only when the job asks for it).
    Readings {
        time: f64,
        /// One string per grid row: per site its label (`.`, `w`, `b`, `h`) and a
        /// tag (`*` read anew, `s` ignored as a steady misread, ` ` carried over).
        rows: Vec<String>,
        /// The sites read anew: index, probabilities (empty, white, black), occluded.
        fresh: Vec<SiteProbs>,
        /// Per-site image change against the view of the current position (or the
        /// last still view before there is one), grey levels.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        change: Vec<Option<f32>>,
        /// The best-scoring lines from the current position, best first: moves,
        /// score against "nothing moved" and the surprise left, in nats.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        lines: Vec<String>,
    },
}

/// A site and the colour placed on it or taken from it (`--game free`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SiteColour {
    pub site: String,
    pub colour: String,
}

/// One site's fresh reading in a [`Event::Readings`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SiteProbs {
    pub site: usize,
    pub probs: [f32; 3],
    pub occluded: f32,
}

impl Event {
    /// The event naming an irregularity.
    pub fn irregularity(time: f64, why: &crate::infer::Irregularity, waits: bool) -> Event {
        use crate::infer::Irregularity as I;
        let squares = why.squares().iter().map(|s| s.name()).collect();
        let text = why.describe();
        match why {
            I::IllegalMove { .. } => Event::IllegalMove {
                time,
                squares,
                text,
                waits,
            },
            I::Removed { .. } => Event::PieceRemoved {
                time,
                squares,
                text,
                waits,
            },
            I::Displaced { .. } => Event::Displaced {
                time,
                squares,
                text,
                waits,
            },
            I::Unreadable { .. } => Event::Unreadable {
                time,
                squares,
                text,
                waits,
            },
        }
    }

    /// The time the event refers to, when it has one.
    pub fn time(&self) -> Option<f64> {
        match self {
            Event::Orientation { time, .. }
            | Event::Move { time, .. }
            | Event::Unexplained { time, .. }
            | Event::IllegalMove { time, .. }
            | Event::PieceRemoved { time, .. }
            | Event::Displaced { time, .. }
            | Event::Unreadable { time, .. }
            | Event::NewGame { time, .. }
            | Event::Resynced { time, .. }
            | Event::SeenTogether { time, .. }
            | Event::DrawClaimable { time, .. }
            | Event::NotStart { time, .. }
            | Event::Past { time, .. }
            | Event::TakenUp { time, .. }
            | Event::Joined { time, .. }
            | Event::Corrected { time, .. }
            | Event::Regrid { time, .. }
            | Event::Relocated { time, .. }
            | Event::PlacedAgain { time, .. }
            | Event::BoardLost { time }
            | Event::Start { time, .. }
            | Event::Change { time, .. }
            | Event::Readings { time, .. } => Some(*time),
            Event::GridSnapped { .. }
            | Event::SourceWarning { .. }
            | Event::Progress { .. }
            | Event::Looked { .. }
            | Event::BoardFound { .. }
            | Event::Resuming { .. } => None,
        }
    }

    /// The event as one JSON line (no newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// Seconds rounded to the millisecond, as events carry them.
pub(crate) fn ms(t: f64) -> f64 {
    (t * 1000.0).round() / 1000.0
}

/// Corners rounded to a tenth of a pixel, as events carry them.
pub(crate) fn corner_list(c: &Corners) -> [[f64; 2]; 4] {
    c.points()
        .map(|(x, y)| [(x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0])
}

/// What a caller may ask of a running recording.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// End the recording now, as if the input had ended (a signal, a closed page):
    /// the record is finished and written.
    Stop,
    /// Stop now without committing the moves still held as likely: the record is
    /// about to be edited (an arbiter's take-back), and recording goes on from it,
    /// reading again whatever the board shows.
    Interrupt,
    /// Write this comment into the record now, after the last move (an arbiter's
    /// action, with its time); games without rules ignore it.
    Note(String),
}

/// Where a recording's events go, and where it asks for commands.
pub trait EventSink {
    fn emit(&mut self, event: Event);
    /// Asked once per frame: a command for the recording, if one is waiting.
    fn poll(&mut self) -> Option<Command> {
        None
    }
}

impl<F: FnMut(Event)> EventSink for F {
    fn emit(&mut self, event: Event) {
        self(event)
    }
}

impl EventSink for std::sync::mpsc::Sender<Event> {
    fn emit(&mut self, event: Event) {
        // A receiver that hung up wants no more events; the recording goes on.
        let _ = self.send(event);
    }
}

/// A sink that keeps every event (tests, and callers that read them afterwards).
impl EventSink for Vec<Event> {
    fn emit(&mut self, event: Event) {
        self.push(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_with_their_kind_and_legacy_names() {
        let m = Event::Move {
            time: 12.4,
            ply: 7,
            san: "dxe5".into(),
            uci: "d4e5".into(),
            confidence: 0.9996,
            assumed: false,
            alternatives: vec![],
        };
        assert_eq!(
            m.to_json(),
            r#"{"type":"move","time":12.4,"ply":7,"san":"dxe5","uci":"d4e5","confidence":0.9996}"#
        );
        let unsure = Event::Move {
            time: 70.0,
            ply: 140,
            san: "Rc1".into(),
            uci: "c8c1".into(),
            confidence: 0.97,
            assumed: false,
            alternatives: vec!["Rd1+".into()],
        };
        assert_eq!(
            unsure.to_json(),
            r#"{"type":"move","time":70.0,"ply":140,"san":"Rc1","uci":"c8c1","confidence":0.97,"alternatives":["Rd1+"]}"#
        );
        let c = Event::DrawClaimable {
            time: 9.5,
            ply: 8,
            reason: "threefold repetition".into(),
        };
        assert_eq!(
            c.to_json(),
            r#"{"type":"draw_claimable","time":9.5,"ply":8,"reason":"threefold repetition"}"#
        );
        let s = Event::Resynced {
            time: 3.0,
            in_sync: true,
        };
        assert_eq!(s.to_json(), r#"{"type":"sync","time":3.0,"in_sync":true}"#);
        let mut sink: Vec<Event> = Vec::new();
        sink.emit(s.clone());
        assert_eq!(sink, vec![s]);
    }
}
