//! SIGINT, SIGTERM and SIGHUP end a recording cleanly: the first one asks the
//! recording to stop (the record is finished with the end-of-game rules and the
//! summary printed); a second one of the same kind ends the program at once (the
//! record on disk is still a valid record of the moves accepted so far).
//!
//! The handlers are signal-hook's, which only store atomics. They are installed
//! with SA_RESTART; nothing here waits on a read that a signal should cut short:
//! the recorder sees the flag between frames, and the waits in between (FFmpeg's
//! and V4L2's poll and select, tokio's epoll) are never restarted by the kernel.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::flag;

/// The flag every caller of `install` shares, and the last signal caught (0: none).
struct Caught {
    stop: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

static CAUGHT: OnceLock<Caught> = OnceLock::new();

/// Catches SIGINT, SIGTERM and SIGHUP (once: later calls share the first flag);
/// the flag turns true at the first, and a second of the same kind does what it
/// would have done with no handler (ends the program).
pub fn install() -> Arc<AtomicBool> {
    CAUGHT
        .get_or_init(|| {
            let caught = Caught {
                stop: Arc::new(AtomicBool::new(false)),
                signal: Arc::new(AtomicUsize::new(0)),
            };
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                // signal-hook runs a signal's actions in the order they were
                // registered: the default action checks `seen` before it is set.
                // A registration that fails leaves the signal's default in place,
                // which still ends the program with a valid record on disk.
                let seen = Arc::new(AtomicBool::new(false));
                let _ = flag::register_conditional_default(sig, seen.clone());
                let _ = flag::register(sig, seen);
                let _ = flag::register_usize(sig, caught.signal.clone(), sig as usize);
                let _ = flag::register(sig, caught.stop.clone());
            }
            caught
        })
        .stop
        .clone()
}

/// The signal caught, if any.
pub fn caught() -> Option<i32> {
    let signal = CAUGHT.get()?.signal.load(Ordering::SeqCst);
    i32::try_from(signal).ok().filter(|&s| s != 0)
}

/// SIGINT, SIGTERM, SIGHUP by name.
pub fn name(sig: i32) -> String {
    match sig {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        s => format!("signal {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_signal_asks_to_stop_and_is_named() {
        let stop = install();
        // A second install shares the flag rather than adding handlers.
        let again = install();
        assert!(Arc::ptr_eq(&stop, &again));
        assert!(!stop.load(Ordering::SeqCst));
        signal_hook::low_level::raise(SIGHUP).unwrap();
        // The handler runs before raise returns on the raising thread.
        assert!(stop.load(Ordering::SeqCst));
        assert_eq!(caught().map(name).as_deref(), Some("SIGHUP"));
    }
}
