//! Memory measured while frames go by: the process's resident memory, and a frame
//! source that samples it, for checks and benchmarks that a long recording holds
//! no frames back.

use boardscribe_vision::capture::FrameSource;

/// A frame source that samples this process's resident memory every `every`
/// frames as it goes: for checks that a long recording holds no frames back.
pub struct MemorySampled<S> {
    inner: S,
    every: usize,
    seen: usize,
    /// (frame, resident bytes)
    pub samples: Vec<(usize, u64)>,
}

impl<S: FrameSource> MemorySampled<S> {
    /// `inner`, with the process's resident memory sampled every `every` frames.
    pub fn new(inner: S, every: usize) -> MemorySampled<S> {
        MemorySampled {
            inner,
            every: every.max(1),
            seen: 0,
            samples: Vec::new(),
        }
    }
}

impl<S: FrameSource> Iterator for MemorySampled<S> {
    type Item = S::Item;
    fn next(&mut self) -> Option<S::Item> {
        if self.seen.is_multiple_of(self.every) {
            if let Some(r) = resident_bytes() {
                self.samples.push((self.seen, r));
            }
        }
        self.seen += 1;
        self.inner.next()
    }
}

boardscribe_vision::frame_source_of_inner!(<S: FrameSource> FrameSource for MemorySampled<S>);

/// The resident memory of this process in bytes (Linux), for memory checks.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn resident_memory_is_read() {
        assert!(super::resident_bytes().is_some_and(|b| b > 0));
    }
}
