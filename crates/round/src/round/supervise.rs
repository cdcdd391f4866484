//! One recorder thread per board. A board whose input or recorder fails is
//! reported (an alert, its status) and tried again after a pause that doubles up
//! to a minute, its game taken up from the record on disk; the other boards never
//! notice.

use std::sync::Arc;
use std::time::Duration;

use super::error::{said, BoardError};
use super::live::{AlertKind, Board, Round, Status};
use super::sink::BoardEnd;

/// Opens a board's input, finds its grid and records it (with
/// `record_board`): one attempt.
pub(crate) trait BoardRunner: Send + Sync {
    /// One attempt at the board: its end, or why it failed (the runner's own
    /// failures as [`BoardError::Runner`]).
    fn run(&self, round: &Round, board: &Board) -> Result<BoardEnd, BoardError>;
}

/// The first pause after a failure; it doubles at each failure in a row.
pub(crate) const FIRST_PAUSE: Duration = Duration::from_secs(1);
/// The longest pause between attempts.
pub(crate) const LONGEST_PAUSE: Duration = Duration::from_secs(60);

/// How one board's part of the round ended.
#[derive(Debug)]
pub struct BoardReport {
    /// The board's number.
    pub number: u32,
    /// None: ended normally; Some: given up, with the last error.
    pub error: Option<String>,
    /// How many times its recorder was started.
    pub attempts: u32,
}

/// Runs every board on its own thread until each has ended (its input ended, its
/// game finished, or it was given up), then tells the pages the round is over.
pub(crate) fn run_round(round: &Arc<Round>, runner: Arc<dyn BoardRunner>) -> Vec<BoardReport> {
    let boards = round.boards();
    let handles: Vec<_> = boards
        .iter()
        .map(|board| {
            let (round, board, runner) = (round.clone(), board.clone(), runner.clone());
            std::thread::Builder::new()
                .name(format!("board-{}", board.number()))
                .spawn(move || supervise(&round, &board, runner.as_ref()))
        })
        .collect();
    let mut reports = Vec::new();
    for (h, board) in handles.into_iter().zip(boards.iter()) {
        let report = match h {
            Ok(h) => h.join().unwrap_or_else(|_| BoardReport {
                number: board.number(),
                error: Some("the recorder thread panicked".into()),
                attempts: 0,
            }),
            Err(e) => BoardReport {
                number: board.number(),
                error: Some(format!("no thread could be started: {e}")),
                attempts: 0,
            },
        };
        reports.push(report);
    }
    round.end();
    reports
}

fn supervise(round: &Round, board: &Board, runner: &dyn BoardRunner) -> BoardReport {
    let mut pause = FIRST_PAUSE;
    let mut attempts = 0;
    let limit = board.spec.is_offline().then_some(round.info.retries.max(1));
    if board.state().status == Status::Finished {
        return BoardReport {
            number: board.number(),
            error: None,
            attempts,
        };
    }
    loop {
        if round.is_stopping() && attempts > 0 {
            return BoardReport {
                number: board.number(),
                error: None,
                attempts,
            };
        }
        attempts += 1;
        let began = std::time::Instant::now();
        // A panic in one board's recorder is that board's failure, not the round's.
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runner.run(round, board)))
                .unwrap_or_else(|p| {
                    let why = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    Err(BoardError::Panicked(why))
                });
        let e = match outcome {
            // A camera or stream that ends has failed: it is opened again.
            Ok(end) if !end.finished && !board.spec.is_offline() && !round.is_stopping() => {
                "the input ended".to_string()
            }
            Ok(_) => {
                return BoardReport {
                    number: board.number(),
                    error: None,
                    attempts,
                }
            }
            Err(e) => said(&e),
        };
        if limit.is_some_and(|n| attempts >= n) {
            board.alert(
                AlertKind::Error,
                format!("given up after {attempts} attempts: {e}"),
                None,
            );
            board.change(|s| {
                s.status = Status::Failed;
                s.detail = Some(e.clone());
            });
            round.publish(board);
            return BoardReport {
                number: board.number(),
                error: Some(e),
                attempts,
            };
        }
        // A board that recorded a good while before failing starts its pauses anew.
        if began.elapsed() > LONGEST_PAUSE {
            pause = FIRST_PAUSE;
        }
        board.alert(
            AlertKind::Error,
            format!("{e}; trying again in {} s", pause.as_secs()),
            None,
        );
        board.change(|s| {
            s.status = Status::Retrying;
            s.detail = Some(e);
        });
        round.publish(board);
        let until = std::time::Instant::now() + pause;
        while std::time::Instant::now() < until && !round.is_stopping() {
            std::thread::sleep(Duration::from_millis(100));
        }
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::file::{BoardSpec, EventInfo};
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Board 1 fails twice then ends; board 2 always fails; board 3 ends at once.
    struct Flaky {
        calls: [AtomicU32; 3],
    }

    impl BoardRunner for Flaky {
        fn run(&self, _round: &Round, board: &Board) -> Result<BoardEnd, BoardError> {
            let n = board.number();
            let c = self.calls[n as usize - 1].fetch_add(1, Ordering::SeqCst) + 1;
            match n {
                1 if c <= 2 => Err(BoardError::Runner(format!("camera {n} unplugged").into())),
                2 => panic!("board 2 breaks"),
                _ => Ok(BoardEnd::default()),
            }
        }
    }

    #[test]
    fn a_failing_board_is_retried_and_never_stops_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let specs = (1..=3)
            .map(|n| BoardSpec {
                number: n,
                input: format!("b{n}.mp4"),
                ..BoardSpec::default()
            })
            .collect();
        let info = EventInfo {
            name: "x".into(),
            retries: 3,
            ..EventInfo::default()
        };
        let round = Round::new(info, "2026.01.01".into(), specs, dir.path(), "t".into()).unwrap();
        let mut rx = round.subscribe();
        let runner = Arc::new(Flaky {
            calls: Default::default(),
        });
        let t = std::time::Instant::now();
        let reports = run_round(&round, runner.clone());
        // Pauses of 1 and 2 s between the attempts.
        assert!(t.elapsed() >= Duration::from_secs(3), "{:?}", t.elapsed());
        assert_eq!(reports[0].error, None);
        assert_eq!(reports[0].attempts, 3);
        assert!(reports[1]
            .error
            .as_deref()
            .unwrap()
            .contains("board 2 breaks"));
        assert_eq!(reports[1].attempts, 3);
        assert_eq!(reports[2].error, None);
        let b1 = round.board(1).unwrap().state();
        assert_eq!(
            b1.alerts.len(),
            1,
            "one alert for a board that keeps failing"
        );
        assert!(b1.alerts[0]
            .text
            .contains("camera 1 unplugged; trying again in 2 s"));
        assert_eq!(round.board(2).unwrap().state().status, Status::Failed);
        assert!(round.has_ended());
        let mut ended = false;
        while let Ok(u) = rx.try_recv() {
            ended |= matches!(u, super::super::live::Update::End);
        }
        assert!(ended);
    }

    /// Fails until the round is stopped.
    struct Stuck;

    impl BoardRunner for Stuck {
        fn run(&self, round: &Round, board: &Board) -> Result<BoardEnd, BoardError> {
            if board.number() == 1 {
                round.stop();
            }
            Err(BoardError::Runner("camera unplugged".into()))
        }
    }

    #[test]
    fn a_stopped_round_tries_no_board_again() {
        let dir = tempfile::tempdir().unwrap();
        let specs = (1..=2)
            .map(|n| BoardSpec {
                number: n,
                input: format!("camera:{n}"),
                ..BoardSpec::default()
            })
            .collect();
        let info = EventInfo {
            name: "x".into(),
            ..EventInfo::default()
        };
        let round = Round::new(info, "2026.01.01".into(), specs, dir.path(), "t".into()).unwrap();
        let t = std::time::Instant::now();
        let reports = run_round(&round, Arc::new(Stuck));
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        assert!(reports.iter().all(|r| r.attempts == 1), "{reports:?}");
    }
}
