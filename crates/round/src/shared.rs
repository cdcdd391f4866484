//! One input read once for several readers: a camera over a tournament table,
//! whose every board is recorded from the same frames. The input is opened and
//! read on a thread of its own, and each frame is handed to every reader
//! (decoded and converted once, however many boards the view holds).
//!
//! A reader that falls behind holds the others back once it is `MAX_AHEAD`
//! frames behind (the input is never read further ahead than memory allows);
//! a reader that has not come for its frames within `PENDING_S` of the start,
//! or that is dropped, holds nobody back.
//!
//! Only a round's boards share an input so (round files' `region = N`), hence
//! here, beside the runner that starts one per shared input.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use opencv::core::Rect;
use opencv::prelude::*;

use crate::capture::{crop, CaptureError, Frame, FrameSource, SharedMemo};

/// Frames a reader may lag behind the one furthest ahead.
const MAX_AHEAD: usize = 32;

/// Seconds a reader that has not yet come is waited for, its frames kept.
const PENDING_S: f64 = 20.0;

/// How often a waiting reader or the input's thread looks again (a reader
/// that never came is let go of only by time).
const WAKE: Duration = Duration::from_millis(100);

/// What every reader is told of the input once it is open.
#[derive(Clone, Debug)]
struct Info {
    name: String,
    offline: bool,
    len_hint: Option<usize>,
    fps: f64,
    photos: Option<Vec<PathBuf>>,
}

/// One frame, or why the input stopped.
#[derive(Clone)]
enum Item {
    Frame(Arc<Frame>),
    Failed(String),
    Warning(String),
}

/// A reader's place.
enum Slot {
    /// Not come yet (since when the input was opened): its frames are kept.
    Pending(VecDeque<Item>),
    /// Reading.
    Open(VecDeque<Item>),
    /// Gone: holds nobody back.
    Closed,
}

impl Slot {
    fn queue(&mut self) -> Option<&mut VecDeque<Item>> {
        match self {
            Slot::Pending(q) | Slot::Open(q) => Some(q),
            Slot::Closed => None,
        }
    }
}

/// How opening the input went.
enum Opening {
    Opened(Info),
    /// Why it did not open, as every reader is told.
    Failed(String),
}

struct State {
    /// The input's description once opened, or why it did not open.
    info: Option<Opening>,
    slots: Vec<Slot>,
    started: Instant,
    /// The input has no more frames.
    ended: bool,
    end_reason: Option<String>,
}

struct Hub {
    state: Mutex<State>,
    changed: Condvar,
    memo: Arc<SharedMemo>,
}

impl Hub {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A reader that panicked holding the lock leaves the queues whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits, the lock let go meanwhile, until the state changes or `WAKE` passes.
    fn wait<'a>(&self, s: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed
            .wait_timeout(s, WAKE)
            .map_or_else(|e| e.into_inner().0, |r| r.0)
    }
}

/// An input read once for `readers` readers; see [`SharedInput::reader`].
pub(crate) struct SharedInput {
    hub: Arc<Hub>,
}

impl SharedInput {
    /// Opens the input with `open` on a thread of its own and reads it for
    /// `readers` readers, numbered from 0.
    pub(crate) fn start<F>(readers: usize, open: F) -> SharedInput
    where
        F: FnOnce() -> Result<Box<dyn FrameSource>, CaptureError> + Send + 'static,
    {
        let hub = Arc::new(Hub {
            state: Mutex::new(State {
                info: None,
                slots: (0..readers)
                    .map(|_| Slot::Pending(VecDeque::new()))
                    .collect(),
                started: Instant::now(),
                ended: false,
                end_reason: None,
            }),
            changed: Condvar::new(),
            memo: Arc::default(),
        });
        let feeding = hub.clone();
        std::thread::spawn(move || feed(&feeding, open));
        SharedInput { hub }
    }

    /// Reader `n`'s frames, from where it left off (or, come back after it
    /// was dropped, from the input's next frame); the input's error when it
    /// did not open.
    pub(crate) fn reader(&self, n: usize) -> Result<Box<dyn FrameSource>, CaptureError> {
        let mut s = self.hub.lock();
        let info = loop {
            match &s.info {
                Some(Opening::Opened(info)) => break info.clone(),
                Some(Opening::Failed(why)) => return Err(CaptureError::Shared(why.clone())),
                None => s = self.hub.wait(s),
            }
        };
        if n >= s.slots.len() {
            s.slots.resize_with(n + 1, || Slot::Closed);
        }
        let slot = std::mem::replace(&mut s.slots[n], Slot::Closed);
        s.slots[n] = Slot::Open(match slot {
            Slot::Pending(q) | Slot::Open(q) => q,
            Slot::Closed => VecDeque::new(),
        });
        Ok(Box::new(Reader {
            hub: self.hub.clone(),
            slot: n,
            info,
            warnings: Vec::new(),
            end_reason: None,
            cut: None,
        }))
    }
}

/// The input's thread: opens it, then reads frame after frame, handing each
/// to every reader, until it ends or no reader is left.
fn feed<F>(hub: &Hub, open: F)
where
    F: FnOnce() -> Result<Box<dyn FrameSource>, CaptureError>,
{
    let mut source = match open() {
        Ok(s) => s,
        Err(e) => {
            hub.lock().info = Some(Opening::Failed(e.to_string()));
            hub.changed.notify_all();
            return;
        }
    };
    hub.lock().info = Some(Opening::Opened(Info {
        name: source.name().to_string(),
        offline: source.is_offline(),
        len_hint: source.len_hint(),
        fps: source.fps(),
        photos: source.photos().map(<[PathBuf]>::to_vec),
    }));
    hub.changed.notify_all();
    loop {
        if !wait_for_room(hub) {
            return;
        }
        let next = source.next();
        let mut items: Vec<Item> = source
            .take_warnings()
            .into_iter()
            .map(Item::Warning)
            .collect();
        let done = match next {
            None => true,
            Some(Ok(frame)) => {
                items.push(Item::Frame(Arc::new(frame)));
                false
            }
            Some(Err(e)) => {
                items.push(Item::Failed(e.to_string()));
                true
            }
        };
        let mut s = hub.lock();
        for slot in &mut s.slots {
            if let Some(q) = slot.queue() {
                q.extend(items.iter().cloned());
            }
        }
        if done {
            s.ended = true;
            s.end_reason = source.end_reason();
        }
        drop(s);
        hub.changed.notify_all();
        if done {
            return;
        }
    }
}

/// Waits until no reader still to be served is `MAX_AHEAD` frames behind;
/// false when no reader is left.
fn wait_for_room(hub: &Hub) -> bool {
    let mut s = hub.lock();
    loop {
        let waited = s.started.elapsed().as_secs_f64();
        for slot in &mut s.slots {
            if matches!(slot, Slot::Pending(_)) && waited > PENDING_S {
                *slot = Slot::Closed;
            }
        }
        if s.slots.iter().all(|x| matches!(x, Slot::Closed)) {
            return false;
        }
        let full = s
            .slots
            .iter_mut()
            .any(|x| x.queue().is_some_and(|q| q.len() >= MAX_AHEAD));
        if !full {
            return true;
        }
        s = hub.wait(s);
    }
}

/// One reader of a shared input.
struct Reader {
    hub: Arc<Hub>,
    slot: usize,
    info: Info,
    warnings: Vec<String>,
    end_reason: Option<String>,
    /// The region this reader's frames are cut to, once asked for.
    cut: Option<Rect>,
}

impl Iterator for Reader {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut s = self.hub.lock();
        loop {
            let item = s
                .slots
                .get_mut(self.slot)
                .and_then(Slot::queue)
                .and_then(VecDeque::pop_front);
            match item {
                Some(Item::Warning(w)) => self.warnings.push(w),
                Some(Item::Failed(why)) => {
                    self.hub.changed.notify_all();
                    return Some(Err(CaptureError::Shared(why)));
                }
                Some(Item::Frame(frame)) => {
                    drop(s);
                    self.hub.changed.notify_all();
                    return Some(own(frame, self.cut));
                }
                None if s.ended => {
                    self.end_reason = s.end_reason.clone();
                    return None;
                }
                None => s = self.hub.wait(s),
            }
        }
    }
}

/// The frame as this reader's own: the last reader takes it, the others a copy
/// (later steps may write into a frame); only `cut` of it, when given, which
/// copies the region alone.
fn own(frame: Arc<Frame>, cut: Option<Rect>) -> Result<Frame, CaptureError> {
    // Only a region within the frame is cut, so a frame cut is of its size.
    let within = |image: &opencv::core::Mat, r: Rect| {
        r.x >= 0 && r.y >= 0 && r.x + r.width <= image.cols() && r.y + r.height <= image.rows()
    };
    let cut_of = |image: &opencv::core::Mat| cut.filter(|&r| within(image, r));
    let copy = |image: &opencv::core::Mat| {
        match cut_of(image) {
            Some(r) => crop(image, r),
            None => image.try_clone(),
        }
        .map_err(|e| CaptureError::Shared(e.to_string()))
    };
    match Arc::try_unwrap(frame) {
        Ok(mut f) => {
            if cut_of(&f.image).is_some() {
                f.image = copy(&f.image)?;
            }
            Ok(f)
        }
        Err(shared) => Ok(Frame {
            index: shared.index,
            time_s: shared.time_s,
            image: copy(&shared.image)?,
            path: shared.path.clone(),
        }),
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        let mut s = self.hub.lock();
        if let Some(slot) = s.slots.get_mut(self.slot) {
            *slot = Slot::Closed;
        }
        drop(s);
        self.hub.changed.notify_all();
    }
}

impl FrameSource for Reader {
    fn name(&self) -> &str {
        &self.info.name
    }
    fn is_offline(&self) -> bool {
        self.info.offline
    }
    fn len_hint(&self) -> Option<usize> {
        self.info.len_hint
    }
    fn fps(&self) -> f64 {
        self.info.fps
    }
    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
    fn end_reason(&self) -> Option<String> {
        self.end_reason.clone()
    }
    fn photos(&self) -> Option<&[PathBuf]> {
        self.info.photos.as_deref()
    }
    fn memo(&self) -> Option<Arc<SharedMemo>> {
        Some(self.hub.memo.clone())
    }
    fn cut_to(&mut self, rect: Rect) -> bool {
        self.cut = Some(rect);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::MemorySource;
    use opencv::core::Mat;

    fn frames(n: usize) -> Box<dyn FrameSource> {
        Box::new(MemorySource::new(vec![Mat::default(); n], 10.0))
    }

    #[test]
    fn readers_share_one_memo_made_once_and_cut_frames_to_their_region() {
        use opencv::core::{Rect, Scalar, CV_8UC3};
        let frame = Mat::new_rows_cols_with_default(60, 80, CV_8UC3, Scalar::all(5.0)).unwrap();
        let shared = SharedInput::start(2, move || {
            Ok(Box::new(MemorySource::new(vec![frame; 3], 10.0)) as Box<dyn FrameSource>)
        });
        let (mut a, mut b) = (shared.reader(0).unwrap(), shared.reader(1).unwrap());
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = || made.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 7;
        let (ma, mb) = (a.memo().unwrap(), b.memo().unwrap());
        assert_eq!(*ma.get_or_make("boards", make).unwrap(), 7);
        assert_eq!(*mb.get_or_make("boards", make).unwrap(), 7);
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 1);
        // A value of another type under the key is none of this one.
        assert!(mb.get_or_make::<String, _>("boards", String::new).is_none());
        // Cut to a region within the frame, whole otherwise.
        assert!(a.cut_to(Rect::new(10, 20, 30, 25)));
        let f = a.next().unwrap().unwrap();
        assert_eq!((f.image.cols(), f.image.rows()), (30, 25));
        assert!(b.cut_to(Rect::new(70, 0, 30, 25)));
        let f = b.next().unwrap().unwrap();
        assert_eq!((f.image.cols(), f.image.rows()), (80, 60));
    }

    #[test]
    fn every_reader_gets_every_frame_once_read() {
        let shared = Arc::new(SharedInput::start(2, || Ok(frames(100))));
        let other = shared.clone();
        let t = std::thread::spawn(move || {
            let b = other.reader(1).unwrap();
            b.map(|f| f.unwrap().index).collect::<Vec<_>>()
        });
        let a = shared.reader(0).unwrap();
        let got_a: Vec<usize> = a.map(|f| f.unwrap().index).collect();
        let got_b = t.join().unwrap();
        assert_eq!(got_a, (0..100).collect::<Vec<_>>());
        assert_eq!(got_b, got_a);
    }

    #[test]
    fn a_reader_gone_holds_nobody_back() {
        let shared = SharedInput::start(2, || Ok(frames(100)));
        let mut a = shared.reader(0).unwrap();
        let b = shared.reader(1).unwrap();
        assert_eq!(a.next().unwrap().unwrap().index, 0);
        drop(a);
        assert_eq!(b.count(), 100);
    }

    #[test]
    fn an_input_that_does_not_open_is_each_readers_error() {
        let shared = SharedInput::start(2, || Err(CaptureError::Missing("x.mp4".into())));
        for n in 0..2 {
            let e = shared.reader(n).err().unwrap().to_string();
            assert_eq!(e, "input 'x.mp4' does not exist");
        }
    }
}
