//! How the command line presents a recording's events: a line of text on stderr for
//! what a user should know, JSON lines on stdout with `--events`, and a progress
//! bar on a terminal that is cleared before any other line is written.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::pipeline::{frame_text, Command, Event, EventSink, Timeline};
use boardscribe_cli::values::plural;
pub use boardscribe_cli::Bar;

/// Called once White's edge is known (the first still view, or `--white`): what
/// `record --overlay` draws.
pub type OnOrientation = Box<dyn FnMut(crate::infer::WhiteSide) -> anyhow::Result<String>>;

pub struct Presenter {
    /// JSON lines on stdout.
    json: bool,
    out: Box<dyn Write>,
    bar: Bar,
    /// The bar's last frame and total.
    at: Option<(usize, usize)>,
    /// Half-moves accepted so far, for the bar.
    plies: usize,
    /// stdout failed once (a closed pipe, a full disk): said once, JSON stops.
    stdout_broken: bool,
    /// Set by a signal: the recording is asked to stop.
    stop: Option<Arc<AtomicBool>>,
    stop_sent: bool,
    timeline: Timeline,
    on_orientation: Option<OnOrientation>,
    /// Whether White's edge was said already: a second time, the first move
    /// decided it.
    orientation_said: bool,
}

impl Presenter {
    pub fn new(json: bool, bar: bool) -> Presenter {
        Presenter::with_writers(
            json,
            Box::new(std::io::stdout()),
            Bar::to(Box::new(std::io::stderr()), bar),
        )
    }

    /// A presenter writing JSON to `out` and text to `bar` (tests capture both).
    pub fn with_writers(json: bool, out: Box<dyn Write>, bar: Bar) -> Presenter {
        Presenter {
            json,
            out,
            bar,
            at: None,
            plies: 0,
            stdout_broken: false,
            stop: None,
            stop_sent: false,
            timeline: Timeline::Clock,
            on_orientation: None,
            orientation_said: false,
        }
    }

    /// Asks the recording to stop once `flag` turns true.
    pub fn stop_on(mut self, flag: Arc<AtomicBool>) -> Presenter {
        self.stop = Some(flag);
        self
    }

    /// Names moments as the record does (photo names for photo folders).
    pub fn timeline(mut self, timeline: Timeline) -> Presenter {
        self.timeline = timeline;
        self
    }

    /// Half-moves already in the record before this run.
    pub fn set_base(&mut self, plies: usize) {
        self.plies = plies;
    }

    /// Runs `f` when the orientation is decided from the first still view.
    pub fn on_orientation(mut self, f: OnOrientation) -> Presenter {
        self.on_orientation = Some(f);
        self
    }

    /// A line on stderr, after clearing the bar.
    pub fn say(&mut self, text: &str) {
        self.bar.line(text);
    }

    /// Ends the bar: at 100% when the recording read its input to the end (or
    /// ended with the game), then cleared so what follows starts on its own line.
    pub fn finish(&mut self, complete: bool) {
        if let (true, Some((_, total))) = (complete, self.at) {
            self.draw(total, total);
        }
        self.bar.clear();
    }

    fn json_line(&mut self, e: &Event) {
        if !self.json || self.stdout_broken {
            return;
        }
        let line = e.to_json();
        if let Err(err) = writeln!(self.out, "{line}").and_then(|_| self.out.flush()) {
            self.stdout_broken = true;
            self.say(&format!(
                "warning: cannot write events to standard output ({err}); recording goes on"
            ));
        }
    }

    fn draw(&mut self, frame: usize, total: usize) {
        let plies = self.plies;
        let moves = if plies == 1 {
            "half-move"
        } else {
            "half-moves"
        };
        self.bar.show(frame, total, &format!(", {plies} {moves}"));
    }

    fn progress(&mut self, frame: usize, total: Option<usize>) {
        let Some(total) = total.filter(|t| *t > 0) else {
            return;
        };
        self.at = Some((frame, total));
        self.draw(frame, total);
    }

    fn moment(&self, time: f64) -> String {
        self.timeline.moment(time)
    }
}

impl Presenter {
    /// One still view's readings, row by row (`--debug`).
    fn readings(&mut self, e: &Event) {
        let Event::Readings {
            time,
            rows,
            fresh,
            change,
            lines,
        } = e
        else {
            return;
        };
        self.say(&format!("still view at {time:.2} s:"));
        for (r, row) in rows.iter().enumerate() {
            let cols = row.chars().count() / 2;
            let diffs: String = (0..cols)
                .filter_map(|c| change.get(r * cols + c))
                .map(|d| format!("{:5.1}", d.unwrap_or(-1.0)))
                .collect();
            self.say(&format!("  {row}   {diffs}"));
        }
        for l in lines {
            self.say(&format!("  line {l}"));
        }
        for f in fresh {
            self.say(&format!(
                "  site {}: probs {:.3?} occluded {:.3}",
                f.site, f.probs, f.occluded
            ));
        }
    }

    /// White's edge, and the overlay drawn with it.
    fn orientation(&mut self, white: &str) {
        let how = if self.orientation_said {
            "after all: the first move fits only that edge, the pieces' colours could not tell"
        } else {
            "(decided from the first still view)"
        };
        self.orientation_said = true;
        self.say(&format!("white is at the {white} edge {how}"));
        if let (Some(f), Ok(side)) = (
            self.on_orientation.as_mut(),
            white.parse::<crate::infer::WhiteSide>(),
        ) {
            let said = f(side);
            match said {
                Ok(text) => self.say(&text),
                Err(e) => self.say(&format!("warning: {e:#}")),
            }
        }
    }

    /// Where the recording waits, or picks the game up.
    fn start_line(&self, e: &Event) -> Option<String> {
        Some(match e {
            Event::NotStart {
                time,
                squares,
                advice,
            } => {
                let at = self.moment(*time);
                if squares.is_empty() {
                    // Nothing read to differ: every square hidden or out of view.
                    format!(
                        "warning: no square of the grid could be read in the view at {at} (a hand or an object over the whole board, or corners that are not the board's); {advice}. Waiting for it."
                    )
                } else {
                    format!(
                        "warning: the view at {at} is not the position the game starts from ({} squares differ: {}); {advice}. Waiting for it.",
                        squares.len(),
                        squares.join(",")
                    )
                }
            }
            Event::Past {
                time,
                ply,
                of,
                undecided,
            } => {
                let at = self.moment(*time);
                if *undecided {
                    format!(
                        "the view at {at} shows a position the game had before and at the record's last half-move (a repetition): waiting for views that tell them apart"
                    )
                } else {
                    format!(
                        "the view at {at} shows the position after half-move {ply} of the record's {of}: already recorded, skipped"
                    )
                }
            }
            Event::Joined {
                time,
                plies,
                order_open,
                white,
            } => format!(
                "the game was under way: {} reconstructed from the view at {} (not seen{}): {}; White at the {white} edge",
                plural(plies.len(), "half-move", "half-moves"),
                self.moment(*time),
                if *order_open { ", nor their order" } else { "" },
                plies.join(" ")
            ),
            Event::TakenUp { time, ply, after } => {
                let at = self.moment(*time);
                if *after {
                    format!("the view at {at} shows play after the record's last half-move ({ply}): recording goes on from there")
                } else {
                    format!("the view at {at} shows the record's last position (after half-move {ply}): recording goes on")
                }
            }
            _ => return None,
        })
    }

    /// What went wrong on the board, and what the recording does about it.
    fn irregular_line(&self, e: &Event) -> Option<String> {
        Some(match e {
            Event::IllegalMove {
                time, text, waits, ..
            }
            | Event::PieceRemoved {
                time, text, waits, ..
            }
            | Event::Displaced {
                time, text, waits, ..
            }
            | Event::NotTakenOff {
                time, text, waits, ..
            }
            | Event::Unreadable {
                time, text, waits, ..
            } => {
                let then = if *waits {
                    "recording waits for a legal position"
                } else {
                    "not a move; recording goes on"
                };
                format!("warning: {text} at {}; {then}", self.moment(*time))
            }
            Event::NewGame {
                time,
                game,
                position,
                after,
            } => format!(
                "warning: play went on after an irregularity ({after}) at {}: recording game {game} from {position}",
                self.moment(*time)
            ),
            Event::Unexplained { time, squares } => format!(
                "warning: unexplained change at {}: {} (possible illegal move; recording waits for a legal position)",
                self.moment(*time),
                squares.join(",")
            ),
            Event::BoardLost { time } => format!(
                "warning: at {} the board moved and was not found again; waiting",
                self.moment(*time)
            ),
            Event::SourceWarning { message } => format!("warning: {message}"),
            Event::DrawClaimable { time, ply, reason } => format!(
                "note: a draw may be claimed after half-move {ply} at {} ({reason}); the result stays open unless given (--result)",
                self.moment(*time)
            ),
            _ => return None,
        })
    }

    /// Where the grid went.
    fn grid_line(&self, e: &Event) -> Option<String> {
        Some(match e {
            Event::GridSnapped { rows, cols, corners } => format!(
                "moved the grid {rows} rows and {cols} columns to where it reads as the start position: --corners \"{}\"",
                corners_text(corners)
            ),
            Event::Regrid { time, corners } => format!(
                "note: the board moved in the image at {}; grid found again at \"{}\"",
                self.moment(*time),
                corners_text(corners)
            ),
            Event::Relocated { time, .. } => format!(
                "note: at {} the board moved too far to follow; located it again",
                self.moment(*time)
            ),
            Event::PlacedAgain { time, corners } => format!(
                "note: at {} the readings fit no position of the game through the grid used; the grid was placed again ({})",
                self.moment(*time),
                corners_text(corners)
            ),
            _ => return None,
        })
    }
}

impl EventSink for Presenter {
    fn emit(&mut self, event: Event) {
        if let Some(line) = locating_line(&event) {
            return self.say(&line);
        }
        match &event {
            Event::Progress { frame, total } => return self.progress(*frame, *total),
            Event::Readings { .. } => return self.readings(&event),
            Event::Resuming { path, plies } => {
                self.say(&format!(
                    "resuming '{path}' after {}",
                    plural(*plies, "half-move", "half-moves")
                ));
                return self.set_base(*plies);
            }
            Event::Move { .. } => {
                self.plies += 1;
                if let Some((frame, total)) = self.at {
                    self.draw(frame, total);
                }
            }
            Event::Orientation { white, .. } => self.orientation(white),
            _ => {
                let line = self
                    .start_line(&event)
                    .or_else(|| self.irregular_line(&event))
                    .or_else(|| self.grid_line(&event));
                if let Some(line) = line {
                    self.say(&line);
                }
            }
        }
        self.json_line(&event);
    }

    fn poll(&mut self) -> Option<Command> {
        if self.stop_sent {
            return None;
        }
        if self.stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst)) {
            self.stop_sent = true;
            return Some(Command::Stop);
        }
        None
    }
}

/// What finding the board says: each frame looked at (`--debug`) and where the
/// grid was found; None for other events.
pub fn locating_line(e: &Event) -> Option<String> {
    match e {
        Event::Looked {
            photo,
            time,
            corners,
            confidence,
        } => Some(format!(
            "locate: {}: {}",
            frame_text(photo.as_deref(), *time),
            corners.as_ref().map_or_else(
                || "no grid".to_string(),
                |c| format!("\"{}\" (confidence {confidence:.2})", corners_text(c))
            )
        )),
        Event::BoardFound {
            grid,
            corners,
            confidence,
            photo,
            time,
            looked,
            agreeing,
            elsewhere,
            from_s,
            to_s,
        } => {
            let corners = corners_text(corners);
            let chosen = frame_text(photo.as_deref(), *time);
            if *looked <= 1 {
                return Some(format!(
                    "found the {grid} grid in {chosen}: --corners \"{corners}\" (confidence {confidence:.2})"
                ));
            }
            let elsewhere = if *elsewhere > 0 {
                format!(
                    "; {} placed it elsewhere, with less support",
                    plural(*elsewhere, "other frame", "other frames")
                )
            } else {
                String::new()
            };
            Some(format!(
                "found the {grid} grid in {agreeing} of {looked} frames from {from_s:.1} s to {to_s:.1} s{elsewhere}: --corners \"{corners}\" (confidence {confidence:.2}, {chosen})"
            ))
        }
        _ => None,
    }
}

fn corners_text(c: &[[f64; 2]; 4]) -> String {
    c.iter()
        .map(|[x, y]| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A writer tests read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    /// A writer that always fails, as stdout does into /dev/full.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
        }
    }

    fn a_move(ply: usize) -> Event {
        Event::Move {
            time: 1.0,
            ply,
            san: "e4".into(),
            uci: "e2e4".into(),
            confidence: 0.9,
            assumed: false,
            alternatives: vec![],
        }
    }

    #[test]
    fn the_bar_is_cleared_before_other_lines_counts_moves_and_ends_at_100() {
        let err = Shared::default();
        let mut p = Presenter::with_writers(
            false,
            Box::new(std::io::sink()),
            Bar::to(Box::new(err.clone()), true),
        );
        p.emit(Event::Progress {
            frame: 990,
            total: Some(1000),
        });
        p.emit(a_move(1));
        p.emit(Event::SourceWarning {
            message: "x".into(),
        });
        p.finish(true);
        let text = err.text();
        // The warning starts its own line: the bar's line was cleared first.
        assert!(text.contains("\r\x1b[2Kwarning: x\n"), "{text:?}");
        assert!(text.contains("99% frame 990/1000, 1 half-move"), "{text:?}");
        assert!(
            text.contains("100% frame 1000/1000, 1 half-move"),
            "{text:?}"
        );
        assert!(text.ends_with("\r\x1b[2K"), "{text:?}");
    }

    #[test]
    fn a_broken_events_consumer_is_reported_once_and_the_recording_goes_on() {
        let err = Shared::default();
        let mut p =
            Presenter::with_writers(true, Box::new(Full), Bar::to(Box::new(err.clone()), false));
        for ply in 1..=5 {
            p.emit(a_move(ply));
        }
        let text = err.text();
        assert_eq!(text.matches("cannot write events").count(), 1, "{text}");
        assert_eq!(p.plies, 5);
    }

    #[test]
    fn a_signal_asks_the_recording_to_stop_once() {
        let flag = Arc::new(AtomicBool::new(false));
        let mut p = Presenter::new(false, false).stop_on(flag.clone());
        assert_eq!(p.poll(), None);
        flag.store(true, Ordering::SeqCst);
        assert_eq!(p.poll(), Some(Command::Stop));
        assert_eq!(p.poll(), None);
    }

    #[test]
    fn photo_folders_are_named_by_photo_in_messages() {
        let err = Shared::default();
        let mut p = Presenter::with_writers(
            false,
            Box::new(std::io::sink()),
            Bar::to(Box::new(err.clone()), false),
        )
        .timeline(Timeline::Photos {
            fps: 1.0,
            names: vec!["a.jpg".into(), "b.jpg".into()],
        });
        p.emit(Event::Unexplained {
            time: 1.0,
            squares: vec!["e4".into()],
        });
        assert!(err.text().contains("at photo 'b.jpg'"), "{}", err.text());
    }

    #[test]
    fn finding_the_board_is_said_as_before() {
        let corners = [[1.0, 2.0], [3.04, 4.0], [5.0, 6.0], [7.0, 8.0]];
        let found = |looked, photo: Option<&str>| Event::BoardFound {
            grid: "8x8".into(),
            corners,
            confidence: 0.9,
            photo: photo.map(String::from),
            time: 1.3,
            looked,
            agreeing: 5,
            elsewhere: 2,
            from_s: 0.5,
            to_s: 3.5,
        };
        assert_eq!(
            locating_line(&found(1, Some("a.jpg"))).unwrap(),
            "found the 8x8 grid in 'a.jpg': --corners \"1.0,2.0 3.0,4.0 5.0,6.0 7.0,8.0\" (confidence 0.90)"
        );
        assert_eq!(
            locating_line(&found(12, None)).unwrap(),
            "found the 8x8 grid in 5 of 12 frames from 0.5 s to 3.5 s; 2 other frames placed it elsewhere, with less support: --corners \"1.0,2.0 3.0,4.0 5.0,6.0 7.0,8.0\" (confidence 0.90, the frame at 1.3 s)"
        );
        let looked = Event::Looked {
            photo: None,
            time: 0.5,
            corners: None,
            confidence: 0.0,
        };
        assert_eq!(
            locating_line(&looked).unwrap(),
            "locate: the frame at 0.5 s: no grid"
        );
        assert_eq!(locating_line(&a_move(1)), None);
    }
}
