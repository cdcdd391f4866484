//! Buffers recycled between scenes on one thread. A one-off render builds a
//! scene, draws one frame and drops it all; without recycling each image
//! maps tens of megabytes of fresh pages, and the page faults cost about as
//! much as some of the drawing passes. Contents never carry over: every
//! buffer comes back empty and is filled before it is read.

use std::cell::RefCell;

use super::camera::Tap;
use super::math::V3;
use super::raster::Tri;

/// Spare buffers kept per element type and thread.
const KEEP: usize = 8;

pub(crate) trait Pooled: Sized + 'static {
    fn with_spares<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R>;
}

macro_rules! pooled {
    ($t:ty, $name:ident) => {
        thread_local! {
            static $name: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
        }
        impl Pooled for $t {
            fn with_spares<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R> {
                // Absent while the thread shuts down; then nothing is kept.
                $name.try_with(|c| f(&mut c.borrow_mut())).ok()
            }
        }
    };
}

pooled!(f32, SPARE_F32);
pooled!(u32, SPARE_U32);
pooled!([f32; 2], SPARE_F32X2);
pooled!([f32; 3], SPARE_F32X3);
pooled!(V3, SPARE_V3);
pooled!(Tap, SPARE_TAP);
pooled!(Tri, SPARE_TRI);
pooled!((u32, f32), SPARE_PROBE);
pooled!(u8, SPARE_U8);

/// An empty vector with room for `len` where a spare one has it (else the
/// largest spare, else a new one).
pub(crate) fn take<T: Pooled>(len: usize) -> Vec<T> {
    T::with_spares(|spares| {
        let fits = (0..spares.len())
            .filter(|&i| spares[i].capacity() >= len)
            .min_by_key(|&i| spares[i].capacity());
        let pick = fits.or_else(|| (0..spares.len()).max_by_key(|&i| spares[i].capacity()));
        pick.map(|i| spares.swap_remove(i))
    })
    .flatten()
    .unwrap_or_default()
}

/// Returns a buffer for later `take`s; the smallest spares go first.
pub(crate) fn give<T: Pooled>(mut v: Vec<T>) {
    if v.capacity() == 0 {
        return;
    }
    v.clear();
    T::with_spares(|spares| {
        spares.push(v);
        if spares.len() > KEEP {
            if let Some(i) = (0..spares.len()).min_by_key(|&i| spares[i].capacity()) {
                spares.swap_remove(i);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_empty_with_their_room() {
        let mut v: Vec<f32> = take(100);
        assert!(v.is_empty());
        v.resize(1000, 1.0);
        let cap = v.capacity();
        give(v);
        let w: Vec<f32> = take(500);
        assert!(w.is_empty());
        assert!(w.capacity() >= cap.min(500));
        give(w);
    }
}
