//! Where a render's time goes: thread CPU time per stage, summed over
//! renders, for `boardscribe bench --what render --stages`. Off (the
//! default), marking a stage reads no clock.

use crate::cputime::thread_cpu_ms;

#[derive(Clone, Debug, Default)]
pub struct Stages {
    on: bool,
    last: f64,
    /// Stage name and its total ms, in the order the stages first ran.
    pub ms: Vec<(&'static str, f64)>,
}

impl Stages {
    /// Records nothing.
    pub fn off() -> Stages {
        Stages::default()
    }

    /// Records from now on.
    pub fn on() -> Stages {
        Stages {
            on: true,
            last: thread_cpu_ms(),
            ms: Vec::new(),
        }
    }

    /// Starts timing the next stage here (time since the last mark is
    /// dropped).
    pub fn restart(&mut self) {
        if self.on {
            self.last = thread_cpu_ms();
        }
    }

    /// Charges the time since the last mark to `name`.
    pub fn mark(&mut self, name: &'static str) {
        if !self.on {
            return;
        }
        let t = thread_cpu_ms();
        let d = t - self.last;
        self.last = t;
        match self.ms.iter_mut().find(|e| e.0 == name) {
            Some(e) => e.1 += d,
            None => self.ms.push((name, d)),
        }
    }

    pub fn total_ms(&self) -> f64 {
        self.ms.iter().map(|e| e.1).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_sum_and_off_records_nothing() {
        let mut off = Stages::off();
        off.mark("a");
        assert!(off.ms.is_empty());
        let mut on = Stages::on();
        let mut x = 0u64;
        for i in 0..200_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        on.mark("a");
        on.mark("b");
        on.mark("a");
        assert_eq!(on.ms.iter().map(|e| e.0).collect::<Vec<_>>(), ["a", "b"]);
        assert!(on.ms.iter().all(|e| e.1 >= 0.0));
        assert!((on.total_ms() - on.ms[0].1 - on.ms[1].1).abs() < 1e-9);
    }
}
