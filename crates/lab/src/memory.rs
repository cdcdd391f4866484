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

impl<S: FrameSource> FrameSource for MemorySampled<S> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn is_offline(&self) -> bool {
        self.inner.is_offline()
    }
    fn len_hint(&self) -> Option<usize> {
        self.inner.len_hint()
    }
    fn fps(&self) -> f64 {
        self.inner.fps()
    }
    fn take_warnings(&mut self) -> Vec<String> {
        self.inner.take_warnings()
    }
    fn end_reason(&self) -> Option<String> {
        self.inner.end_reason()
    }
    fn photos(&self) -> Option<&[std::path::PathBuf]> {
        self.inner.photos()
    }
}

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
