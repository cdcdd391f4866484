//! A progress bar on a terminal.

use std::io::Write;

/// A progress bar on one line of stderr, redrawn in place; any other line is
/// written only after clearing it.
pub struct Bar {
    err: Box<dyn Write>,
    on: bool,
    shown: bool,
}

impl Bar {
    /// A bar on stderr when stderr is a terminal; otherwise one that shows nothing.
    pub fn on_terminal() -> Bar {
        let on = std::io::IsTerminal::is_terminal(&std::io::stderr());
        Bar::to(Box::new(std::io::stderr()), on)
    }

    pub fn to(err: Box<dyn Write>, on: bool) -> Bar {
        Bar {
            err,
            on,
            shown: false,
        }
    }

    /// Draws `done` of `total`, then `extra`.
    pub fn show(&mut self, done: usize, total: usize, extra: &str) {
        if !self.on || total == 0 {
            return;
        }
        let pct = (done.min(total) * 100 / total).min(100);
        let bar = "#".repeat(pct / 4);
        let _ = write!(
            self.err,
            "\r\x1b[2K[{bar:<25}] {pct:>3}% frame {}/{total}{extra}",
            done.min(total)
        );
        let _ = self.err.flush();
        self.shown = true;
    }

    /// Clears the bar's line (the cursor back at its start).
    pub fn clear(&mut self) {
        if self.shown {
            let _ = write!(self.err, "\r\x1b[2K");
            let _ = self.err.flush();
            self.shown = false;
        }
    }

    /// A line of text, after clearing the bar.
    pub fn line(&mut self, text: &str) {
        self.clear();
        let _ = writeln!(self.err, "{text}");
        let _ = self.err.flush();
    }
}
