//! The broadcast's files, written on a thread of their own, so that reading the
//! stream never waits for the disk.
//!
//! The round PGN holds every board's game in one file (1.6 MB for 1,000 boards
//! of 80 plies) while messages may come a thousand a second: it is written again
//! after `WRITE_SHARE` times the CPU time its last writing took, and no more
//! often than every `WRITE_MIN`, so that writing it takes at most a fifth of a
//! core; but at least every `WRITE_MAX`, whatever it costs, as the round PGN is
//! what a broadcast is for. Each board's record, a copy for the operator (the
//! pages and the round PGN are served from memory), is paced the same way on its
//! own, and at most every `COPIES_MIN`: a file made anew a thousand times a
//! second costs the file system more than all the rest (measured: 60% of a
//! node's time on ext4, a third still when written five times a second), so with
//! many boards each copy is written once for several of its messages. Measured
//! with the files written between messages on the reading thread, the copies
//! held messages up for a quarter of a second every few seconds.

use crate::lock;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::NatsError;
use crate::record::write_atomic_unsynced;
use crate::round::Round;

const WRITE_SHARE: u32 = 4;
const WRITE_MIN: Duration = Duration::from_millis(100);
const WRITE_MAX: Duration = Duration::from_millis(500);
const COPIES_MIN: Duration = Duration::from_secs(5);
/// How often the thread looks for something to write.
const TICK: Duration = Duration::from_millis(10);

/// What the broadcast has still to write to its folder.
#[derive(Default)]
pub(super) struct Writes {
    /// The round PGN lags the boards.
    pgn: AtomicBool,
    /// Records not yet written: each board's file and its latest text.
    copies: Mutex<HashMap<u32, (PathBuf, String)>>,
    /// Everything to be written at once (the node stops), and then done.
    asked: AtomicBool,
    done: AtomicBool,
}

impl Writes {
    /// Writes for `round` on a thread of their own, for as long as the process
    /// runs.
    pub(super) fn start(round: &Arc<Round>) -> Result<Arc<Writes>, NatsError> {
        let writes = Arc::new(Writes::default());
        let (w, r) = (writes.clone(), round.clone());
        std::thread::Builder::new()
            .name("broadcast files".into())
            .spawn(move || w.run(&r))
            .map_err(NatsError::Start)?;
        Ok(writes)
    }

    /// Board `n` has changed: its record is now `text`.
    pub(super) fn changed(&self, n: u32, path: PathBuf, text: String) {
        self.pgn.store(true, Ordering::SeqCst);
        lock(&self.copies).insert(n, (path, text));
    }

    /// Asks for everything to be written now and waits at most `limit`; whether
    /// it was.
    pub(super) fn finish(&self, limit: Duration) -> bool {
        self.done.store(false, Ordering::SeqCst);
        self.asked.store(true, Ordering::SeqCst);
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if self.done.load(Ordering::SeqCst) {
                return true;
            }
            std::thread::sleep(TICK);
        }
        false
    }

    /// Writes everything that waits, now.
    pub(super) fn now(&self, round: &Round) {
        self.write_pgn(round);
        self.write_copies();
    }

    fn run(&self, round: &Round) {
        let (mut pgn_next, mut copies_next) = (Instant::now(), Instant::now());
        loop {
            std::thread::sleep(TICK);
            if self.asked.swap(false, Ordering::SeqCst) {
                self.now(round);
                self.done.store(true, Ordering::SeqCst);
                continue;
            }
            let now = Instant::now();
            if now >= pgn_next && self.pgn.load(Ordering::SeqCst) {
                let t = thread_cpu();
                self.write_pgn(round);
                pgn_next = next_after(t);
            }
            if now >= copies_next && !lock(&self.copies).is_empty() {
                let t = thread_cpu();
                self.write_copies();
                copies_next = next_after(t).max(Instant::now() + COPIES_MIN);
            }
        }
    }

    fn write_pgn(&self, round: &Round) {
        if self.pgn.swap(false, Ordering::SeqCst) && round.write_round_pgn().is_err() {
            // Tried again with the next round.
            self.pgn.store(true, Ordering::SeqCst);
        }
    }

    fn write_copies(&self) {
        let copies = std::mem::take(&mut *lock(&self.copies));
        for (n, (path, text)) in copies {
            // Only where it differs (a node started again finds most as they were).
            if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
                continue;
            }
            // The stream keeps what a crash would lose: no waiting for the disk.
            if write_atomic_unsynced(&path, &text).is_err() {
                // Tried again next time, unless a newer text came meanwhile.
                lock(&self.copies).entry(n).or_insert((path, text));
            }
        }
    }
}

/// When a write that began at this thread's CPU time `t` may be done again:
/// `WRITE_SHARE` times its CPU time later (not its wall time, which a busy
/// machine stretches), within `WRITE_MIN` and `WRITE_MAX`.
fn next_after(t: Duration) -> Instant {
    let cost = thread_cpu().saturating_sub(t);
    Instant::now() + (cost * WRITE_SHARE).clamp(WRITE_MIN, WRITE_MAX)
}

/// This thread's CPU time (zero where the clock is unavailable).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}
