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
        /// Seconds into the input of the still view that decided it: the first still
        /// view, or where the pieces' colours could not tell, the first move's.
        time: f64,
        /// `bottom`, `top`, `left` or `right`.
        white: String,
    },
    /// The view is not the position the recording starts from (the start
    /// position, or `--fen`): the squares that differ and what to check.
    /// Recording waits for it.
    NotStart {
        /// Seconds into the input of the still view that is not that position.
        time: f64,
        /// Square names (`e4`) that read otherwise than the position; empty when no
        /// square could be read (the whole grid hidden or out of view).
        squares: Vec<String>,
        /// What to check or give, one clause with no full stop: the command line
        /// follows it with "Waiting for it."
        advice: String,
    },
    /// Taking a record up again: the view shows the position after half-move
    /// `ply` of the record's `of`, already recorded (the past, skipped), or, with
    /// `undecided`, a position the game had both then and at its record's end
    /// (a repetition): later views tell which. Said when it changes.
    Past {
        /// Seconds into the input of the still view.
        time: f64,
        /// Half-moves of the record before the position shown (0: its start), less
        /// than `of`; with `undecided`, the one said last (0 if none was).
        ply: usize,
        /// Half-moves the record's current game holds.
        of: usize,
        /// The view also fits the record's last position (or play after it): a
        /// repetition that later views decide.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        undecided: bool,
    },
    /// Taking a record up again: recording goes on from the view at `time`, which
    /// shows the record's last position (after half-move `ply`), or with `after`,
    /// play after it.
    TakenUp {
        /// Seconds into the input of the still view recording goes on from.
        time: f64,
        /// Half-moves the record's current game holds: the next one recorded is
        /// `ply + 1`.
        ply: usize,
        /// The view shows play after the record's last position, not that position:
        /// it is the first view read after it.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        after: bool,
    },
    /// The game was under way at the first view that could be read: the plies
    /// from the start to what it shows (`plies`, in the record's notation) were
    /// reconstructed from its occupancy, not seen; `order_open` when the same
    /// moves in another order reach it too. Each is then reported as a move.
    Joined {
        /// Seconds into the input of the still view the plies were reconstructed from.
        time: f64,
        /// The reconstructed half-moves from the start, in order, in the record's
        /// notation (SAN for chess).
        plies: Vec<String>,
        /// The same moves in another order reach the position too: the order given
        /// is one of them.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        order_open: bool,
        /// White's edge of the grid: `bottom`, `top`, `left` or `right`.
        white: String,
    },
    /// A located grid was moved by whole cells to where the first frame reads as
    /// the game's start position.
    GridSnapped {
        /// Rows the grid moved by, -2 to 2; positive towards its BL-BR edge.
        rows: i32,
        /// Columns the grid moved by, -2 to 2; positive towards its TR-BR edge.
        cols: i32,
        /// The moved grid's corners TL TR BR BL, `[x, y]` in pixels of the input's
        /// frames, unrounded.
        corners: [[f64; 2]; 4],
    },
    /// A move was accepted.
    Move {
        /// Seconds into the input of the still view at which the move was accepted,
        /// which may come views after the one that showed it (for the plies of a
        /// `Joined`, the view they were reconstructed from).
        time: f64,
        /// 1-based half-move number.
        ply: usize,
        /// The move in the record's notation (SAN for chess), as it reads in the
        /// position before it.
        san: String,
        /// The move in short machine form: UCI for chess (`e2e4`), `c3-d4` style for
        /// the other games.
        uci: String,
        /// How clearly the move beat the next best explanation, 0.5 to 1; 0 for
        /// the plies of a line seen at once (after [`Event::Joined`]).
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
        /// Seconds into the input of the still view at which the plies were accepted.
        time: f64,
        /// The first of the plies: its half-move number, numbered as `Move`'s `ply`.
        first: usize,
        /// The last of the plies: its half-move number, numbered as `Move`'s `ply`.
        last: usize,
    },
    /// A draw the players may claim (threefold repetition, the fifty-move rule)
    /// became possible after half-move `ply` (1-based): said once, when it first
    /// can be claimed. It is no result: the game goes on until the arbiter (or
    /// `record --result`) sets one.
    DrawClaimable {
        /// Seconds into the input of the still view at which half-move `ply` was
        /// accepted.
        time: f64,
        /// The half-move after which the draw may be claimed, 1-based.
        ply: usize,
        /// Why, in words: `threefold repetition` or `fifty-move rule` in chess, the
        /// draughts rules' own reason in draughts.
        reason: String,
    },
    /// A confident change that no legal line explains, and that is none of the
    /// kinds below; recording waits.
    Unexplained {
        /// Seconds into the input of the still view that showed the change.
        time: f64,
        /// The squares that changed with confidence (`e4`).
        squares: Vec<String>,
    },
    /// A piece went where no legal move goes (`text`: "White knight f3-f5 is not
    /// a legal move"); `squares` are from and to. Recording waits.
    IllegalMove {
        /// Seconds into the input of the still view that showed it.
        time: f64,
        /// The piece's square before and after, in that order (`f3`, `f5`).
        squares: Vec<String>,
        /// What happened in an arbiter's words, with no time or advice.
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// A piece left the board with no legal move taking it.
    PieceRemoved {
        /// Seconds into the input of the still view that showed it.
        time: f64,
        /// The one square the piece stood on.
        squares: Vec<String>,
        /// What happened in an arbiter's words, with no time or advice ("the white
        /// knight on f3 left the board with no legal move taking it").
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// Pieces moved or knocked over on or near their squares.
    Displaced {
        /// Seconds into the input of the still view that showed it.
        time: f64,
        /// The squares that changed.
        squares: Vec<String>,
        /// What happened in an arbiter's words, with no time or advice ("pieces
        /// displaced or knocked over on e4, e5 (no legal move explains the change)").
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// A move was played and what it took still stands on the board: the
    /// record waits for it to be taken off.
    NotTakenOff {
        /// Seconds into the input of the still view that showed it.
        time: f64,
        /// Where the taken pieces still stand.
        squares: Vec<String>,
        /// What happened in an arbiter's words ("A6 was played, and what it
        /// took still stands on A7").
        text: String,
        /// Whether recording waits for a legal position (it does).
        waits: bool,
    },
    /// Squares that disagree with the position but could not be read with
    /// confidence: not taken for a move.
    Unreadable {
        /// Seconds into the input of the still view that showed them.
        time: f64,
        /// The squares read unsurely.
        squares: Vec<String>,
        /// What happened in an arbiter's words, with no time or advice ("e4, e5
        /// could not be read with confidence (not taken for a move)").
        text: String,
        /// Whether recording waits for a legal position (false: noticed while
        /// the recording goes on).
        waits: bool,
    },
    /// Play went on from the position an illegal move left: the record goes on
    /// as game `game` of the same file, from `position` (FEN, or Tablut's text).
    NewGame {
        /// Seconds into the input of the still view that showed play going on.
        time: f64,
        /// The new game's number in the record file, 1-based: 2 for the first one.
        game: usize,
        /// The position the new game starts from: FEN for chess and draughts, the
        /// game's own text for Tablut and Go.
        position: String,
        /// The irregularity play went on after, in an arbiter's words (as an
        /// `IllegalMove`'s `text`).
        after: String,
    },
    /// The board shows a legal continuation again.
    #[serde(rename = "sync")]
    Resynced {
        /// Seconds into the input of the still view that showed it.
        time: f64,
        /// Always true: the board shows the recorded position, or play from it.
        in_sync: bool,
    },
    /// An earlier move was recorded wrongly and is now `san`.
    #[serde(rename = "correction")]
    Corrected {
        /// Seconds into the input of the still view whose play showed the correction.
        time: f64,
        /// The corrected half-move's number, 1-based, as its `Move` event gave it.
        ply: usize,
        /// The move now recorded, in the record's notation (SAN for chess).
        san: String,
        /// The move now recorded, in short machine form (UCI for chess).
        uci: String,
        /// `promotion` (which piece the pawn became), `relanded` (the piece
        /// stood on another square than first read), `alternative` (another
        /// move the views supported when it was recorded as uncertain) or
        /// `began` (the other side began the game, Go: every move so far read
        /// again).
        reason: String,
    },
    /// The board moved a little in the image and its grid was followed.
    Regrid {
        /// Seconds into the input of the still view in which the grid was found again.
        time: f64,
        /// The grid's new corners TL TR BR BL, `[x, y]` in pixels of the input's
        /// frames, rounded to a tenth.
        corners: [[f64; 2]; 4],
    },
    /// The board moved too far to follow and was located again.
    Relocated {
        /// Seconds into the input of the still view in which the board was found.
        time: f64,
        /// The grid's new corners TL TR BR BL, `[x, y]` in pixels of the input's
        /// frames, rounded to a tenth.
        corners: [[f64; 2]; 4],
    },
    /// Still views fit no position of the game through the grid used (placed
    /// on a view that hid part of the board, or given wrong): the grid was
    /// placed again, where its readings fit the game better.
    PlacedAgain {
        /// Seconds into the input of the still view on which the grid was placed.
        time: f64,
        /// The grid's new corners TL TR BR BL, `[x, y]` in pixels of the input's
        /// frames, rounded to a tenth.
        corners: [[f64; 2]; 4],
    },
    /// The board moved and was not found again; recording waits for it.
    BoardLost {
        /// Seconds into the input of the first still view without the board (said
        /// once until it is found again).
        time: f64,
    },
    /// A frame the source could not use (an unreadable photo in a folder).
    SourceWarning {
        /// The source's warning, lower case with no `warning: ` before it
        /// ("skipping photo 'x.jpg': ...").
        message: String,
    },
    /// `--game free`: the first still position.
    Start {
        /// Seconds into the input of the first still view.
        time: f64,
        /// Sites where a white piece or stone was read surely, named from White's
        /// edge (`--white`, default bottom): `a19`, `q16`.
        white: Vec<String>,
        /// Sites where a black piece or stone was read surely, named as `white`'s.
        black: Vec<String>,
    },
    /// `--game free`: one stable change.
    Change {
        /// Seconds into the input of the still view that showed the change.
        time: f64,
        /// Sites a piece or stone now stands on, with its colour.
        placed: Vec<SiteColour>,
        /// Sites a piece or stone left, with the colour it had.
        removed: Vec<SiteColour>,
    },
    /// A frame looked at for the grid, and the grid found in it (corners TL TR
    /// BR BL, and how sure), if any; only when the search is asked to tell.
    Looked {
        /// The photo's file, or None for a video's frame.
        photo: Option<String>,
        /// Seconds into the input of the frame, unrounded.
        time: f64,
        /// The grid found: corners TL TR BR BL, `[x, y]` in pixels of the frame,
        /// unrounded; None when none was.
        corners: Option<[[f64; 2]; 4]>,
        /// How sure the finder is, 0 to 1 (the share of the grid's lines seen); 0
        /// when no grid was found.
        confidence: f64,
    },
    /// The grid was placed automatically: `agreeing` of the `looked` frames from
    /// `from_s` to `to_s` found it there (`elsewhere` placed it elsewhere), and it
    /// was taken from the frame at `time` (the photo `photo`).
    BoardFound {
        /// The grid sought, as `--grid` takes it: `8x8`, `19x19:points`.
        grid: String,
        /// The grid placed: corners TL TR BR BL, `[x, y]` in pixels of the input's
        /// frames, unrounded.
        corners: [[f64; 2]; 4],
        /// How sure the finder was in the chosen frame, 0 to 1 (the share of the
        /// grid's lines seen).
        confidence: f64,
        /// The chosen frame's photo file, or None for a video's frame.
        photo: Option<String>,
        /// Seconds into the input of the chosen frame (the first that agrees),
        /// unrounded.
        time: f64,
        /// Frames looked at from the first in which a grid was found, those with no
        /// grid included.
        looked: usize,
        /// Frames, of `looked`, whose grid lies within half a cell of the one placed
        /// (the chosen one included).
        agreeing: usize,
        /// Frames, of `looked`, in which a grid was found farther away.
        elsewhere: usize,
        /// Seconds into the input of the first frame in which a grid was found.
        from_s: f64,
        /// Seconds into the input of the last frame looked at.
        to_s: f64,
    },
    /// Recording goes on with the record at `path`, which holds `plies` half-moves.
    Resuming {
        /// The record file, as the job names it.
        path: String,
        /// Half-moves its current game holds: new ones are numbered on from them.
        plies: usize,
    },
    /// How far an offline source has been read.
    Progress {
        /// How far the source has been read, in frames (the last frame's index +
        /// 1), at most `total`; said at each whole percent.
        frame: usize,
        /// Frames in the source; only sources that know it report progress.
        total: Option<usize>,
    },
    /// One still view's readings, for diagnosis (only when the job asks for it).
    Readings {
        /// Seconds into the input of the still view.
        time: f64,
        /// One string per grid row: per site its label (`.`, `w`, `b`, `h`) and a
        /// tag (`*` read anew, `s` ignored as a steady misread, ` ` carried over).
        rows: Vec<String>,
        /// The sites read anew: index, probabilities (empty, white, black), occluded.
        fresh: Vec<SiteProbs>,
        /// Per-site image change against the last still view found explained,
        /// grey levels; empty until there is one.
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
    /// The site's name, counted from White's edge (`--white`, default bottom):
    /// `a19`.
    pub site: String,
    /// The colour of what was placed or taken: `white` or `black`.
    pub colour: String,
}

/// One site's fresh reading in a [`Event::Readings`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SiteProbs {
    /// Index of the site in the grid, row-major from its TL corner.
    pub site: usize,
    /// Probabilities of empty, white and black given the site is visible (they
    /// sum to 1).
    pub probs: [f32; 3],
    /// Probability, 0 to 1, that a hand or arm hides the site.
    pub occluded: f32,
}

impl Event {
    /// The event naming an irregularity, squares named by `name`.
    pub(crate) fn irregularity(
        time: f64,
        why: &crate::infer::Irregularity,
        waits: bool,
        name: &dyn Fn(crate::rules::Square) -> String,
    ) -> Event {
        use crate::infer::Irregularity as I;
        let squares = why.squares().iter().map(|s| name(*s)).collect();
        let text = why.describe_with(name);
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
            I::NotTakenOff { .. } => Event::NotTakenOff {
                time,
                squares,
                text,
                waits,
            },
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
    /// Takes one event, in the order the recording says them; the recording
    /// waits until it returns.
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
