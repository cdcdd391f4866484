//! How the command line presents a recording's events: a line of text on stderr for
//! what a user should know, JSON lines on stdout with `--events`, and a progress
//! bar on a terminal that is cleared before any other line is written.

use std::io::Write;

use crate::pipeline::{clock, Event, EventSink};

pub struct Presenter {
    /// JSON lines on stdout.
    json: bool,
    /// A progress bar on stderr.
    bar: bool,
    /// The bar is on screen (the cursor is at the end of its line).
    bar_shown: bool,
    /// Half-moves accepted so far, for the bar.
    plies: usize,
    /// stdout failed once (a closed pipe): say so once and stop writing JSON.
    stdout_broken: bool,
}

impl Presenter {
    pub fn new(json: bool, bar: bool) -> Presenter {
        Presenter {
            json,
            bar,
            bar_shown: false,
            plies: 0,
            stdout_broken: false,
        }
    }

    /// A line on stderr, after clearing the bar.
    pub fn say(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        if self.bar_shown {
            let _ = write!(err, "\r\x1b[2K");
            self.bar_shown = false;
        }
        let _ = writeln!(err, "{text}");
    }

    /// Ends the bar's line so that what follows starts on its own.
    pub fn finish(&mut self) {
        if self.bar_shown {
            let _ = writeln!(std::io::stderr());
            self.bar_shown = false;
        }
    }

    fn json_line(&mut self, e: &Event) {
        if !self.json || self.stdout_broken {
            return;
        }
        let mut out = std::io::stdout().lock();
        if let Err(err) = writeln!(out, "{}", e.to_json()).and_then(|_| out.flush()) {
            self.stdout_broken = true;
            drop(out);
            self.say(&format!(
                "warning: cannot write events to standard output ({err}); recording goes on"
            ));
        }
    }

    fn progress(&mut self, frame: usize, total: Option<usize>) {
        if !self.bar {
            return;
        }
        let Some(total) = total.filter(|t| *t > 0) else {
            return;
        };
        let pct = (frame * 100 / total).min(100);
        let bar = "#".repeat(pct / 4);
        let plies = self.plies;
        let moves = if plies == 1 {
            "half-move"
        } else {
            "half-moves"
        };
        let _ = write!(
            std::io::stderr(),
            "\r[{bar:<25}] {pct:>3}% frame {frame}/{total}, {plies} {moves}"
        );
        self.bar_shown = true;
    }
}

impl EventSink for Presenter {
    fn emit(&mut self, event: Event) {
        match &event {
            Event::Progress { frame, total } => return self.progress(*frame, *total),
            Event::Readings {
                time,
                rows,
                fresh,
                change,
                lines,
            } => {
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
                return;
            }
            Event::Move { .. } => self.plies += 1,
            Event::Orientation { white, .. } => {
                self.say(&format!(
                    "white is at the {white} edge (decided from the first still view)"
                ));
            }
            Event::GridSnapped { rows, cols, corners } => self.say(&format!(
                "moved the grid {rows} rows and {cols} columns to where it reads as the start position: --corners \"{}\"",
                corners_text(corners)
            )),
            Event::NotStart {
                time,
                squares,
                advice,
            } => self.say(&format!(
                "warning: the view at {} is not the position the game starts from ({} squares differ: {}); {advice}. Waiting for it.",
                clock(*time),
                squares.len(),
                squares.join(",")
            )),
            Event::IllegalMove { time, text, .. }
            | Event::PieceRemoved { time, text, .. }
            | Event::Displaced { time, text, .. }
            | Event::Unreadable { time, text, .. } => self.say(&format!(
                "warning: {text} at {}; recording waits for a legal position",
                clock(*time)
            )),
            Event::NewGame {
                time,
                game,
                position,
                after,
            } => self.say(&format!(
                "warning: play went on after an irregularity ({after}) at {}: recording game {game} from {position}",
                clock(*time)
            )),
            Event::Unexplained { time, squares } => self.say(&format!(
                "warning: unexplained change at {}: {} (possible illegal move; recording waits for a legal position)",
                clock(*time),
                squares.join(",")
            )),
            Event::Regrid { time, corners } => self.say(&format!(
                "note: the board moved in the image at {}; grid found again at \"{}\"",
                clock(*time),
                corners_text(corners)
            )),
            Event::Relocated { time, .. } => self.say(&format!(
                "note: at {time:.1} s the board moved too far to follow; located it again"
            )),
            Event::BoardLost { time } => self.say(&format!(
                "warning: at {time:.1} s the board moved and was not found again; waiting"
            )),
            Event::SourceWarning { message } => self.say(&format!("warning: {message}")),
            Event::Resynced { .. }
            | Event::SeenTogether { .. }
            | Event::Corrected { .. }
            | Event::Start { .. }
            | Event::Change { .. } => {}
        }
        self.json_line(&event);
    }
}

fn corners_text(c: &[[f64; 2]; 4]) -> String {
    c.iter()
        .map(|[x, y]| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}
