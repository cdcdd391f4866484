//! boardscribe's tournament side: a round file's boards recorded together, their
//! records and the round PGN kept, and the live page that serves them.
//!
//! ```text
//! round   the round file, each board's recorder supervised, records and round PGN
//! server  the live page, the boards' diagrams and events, the arbiter's actions
//! nats    several recorder machines and one broadcast, through NATS JetStream
//! ```

// The other crates' modules under the names this one uses (`crate::record`, ...).
#![warn(unreachable_pub)]
#![deny(missing_docs)]
use boardscribe_core::{game, infer, record, rules};
use boardscribe_vision::{capture, classify, geometry, pipeline};

/// A mutex's guard even where a thread panicked holding it: a recorder or
/// sender that failed leaves the state as it was, still usable.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub mod nats;
pub mod round;
pub mod runner;
pub mod server;
mod shared;
