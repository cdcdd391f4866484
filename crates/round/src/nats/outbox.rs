//! The messages a recorder has not yet seen acknowledged, kept in the round's
//! folder so that a recorder killed and started again sends them.
//!
//! `outbox` holds one message a line, `SEQUENCE SUBJECT JSON`, appended before
//! the message is sent; `sent` holds the sequence of the last one JetStream
//! acknowledged. Lines at or below it are done; the file is emptied when every
//! line is. A line cut short by a kill is skipped when read (its state goes out
//! again with the board's next message, and its recorder publishes every board
//! when it starts).

use crate::lock;
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::NatsError;

/// A message waiting for its acknowledgement.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) seq: u64,
    pub(super) subject: String,
    pub(super) payload: String,
}

struct Inner {
    queue: VecDeque<Entry>,
    file: File,
    last_seq: u64,
}

/// The outbox of one round's folder.
pub(super) struct Outbox {
    path: PathBuf,
    sent: PathBuf,
    inner: Mutex<Inner>,
    /// Woken when a message is added.
    pub(super) added: tokio::sync::Notify,
}

/// A line of the outbox, if it is whole.
fn parse_line(line: &str) -> Option<Entry> {
    let (seq, rest) = line.split_once(' ')?;
    let (subject, payload) = rest.split_once(' ')?;
    // A line cut short by a kill is no JSON object.
    if !payload.ends_with('}') {
        return None;
    }
    Some(Entry {
        seq: seq.parse().ok()?,
        subject: subject.to_string(),
        payload: payload.to_string(),
    })
}

impl Outbox {
    /// Opens (or makes) the outbox in `dir`: what was not acknowledged is
    /// queued again, in order.
    pub(super) fn open(dir: &Path) -> Result<Outbox, NatsError> {
        let path = dir.join("outbox");
        let sent = dir.join("sent");
        let fail = |path: &Path| {
            let path = path.to_path_buf();
            move |source| NatsError::Outbox { path, source }
        };
        std::fs::create_dir_all(dir).map_err(fail(dir))?;
        let acked: u64 = std::fs::read_to_string(&sent)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(fail(&path)(e)),
        };
        let queue: VecDeque<Entry> = text
            .lines()
            .filter_map(parse_line)
            .filter(|e| e.seq > acked)
            .collect();
        let last_seq = queue.iter().map(|e| e.seq).max().unwrap_or(0).max(acked);
        // Written again with the waiting lines only.
        let mut file = File::create(&path).map_err(fail(&path))?;
        for e in &queue {
            writeln!(file, "{} {} {}", e.seq, e.subject, e.payload).map_err(fail(&path))?;
        }
        drop(file);
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(fail(&path))?;
        Ok(Outbox {
            path,
            sent,
            inner: Mutex::new(Inner {
                queue,
                file,
                last_seq,
            }),
            added: tokio::sync::Notify::new(),
        })
    }

    /// Adds the message `make(seq)` for `subject`, its sequence past every one
    /// used: the clock's microseconds, or one more than the last.
    pub(super) fn push(
        &self,
        subject: String,
        make: impl FnOnce(u64) -> String,
    ) -> Result<(), NatsError> {
        let mut inner = lock(&self.inner);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        let seq = now.max(inner.last_seq + 1);
        inner.last_seq = seq;
        let payload = make(seq);
        let line = format!("{seq} {subject} {payload}\n");
        inner
            .file
            .write_all(line.as_bytes())
            .map_err(|source| NatsError::Outbox {
                path: self.path.clone(),
                source,
            })?;
        inner.queue.push_back(Entry {
            seq,
            subject,
            payload,
        });
        drop(inner);
        self.added.notify_one();
        Ok(())
    }

    /// Up to `n` messages from the oldest not yet acknowledged.
    pub(super) fn first(&self, n: usize) -> Vec<Entry> {
        lock(&self.inner).queue.iter().take(n).cloned().collect()
    }

    /// The oldest message, `seq`, was acknowledged: it leaves the outbox.
    pub(super) fn acked(&self, seq: u64) {
        let mut inner = lock(&self.inner);
        if inner.queue.front().is_some_and(|e| e.seq == seq) {
            inner.queue.pop_front();
        }
        // Kept only to skip acknowledged lines after a restart; a `sent` not
        // written costs a message sent twice, stored once.
        let _ = std::fs::write(&self.sent, format!("{seq}\n"));
        if inner.queue.is_empty() {
            let _ = inner.file.set_len(0);
        }
    }

    /// The messages waiting.
    pub(super) fn len(&self) -> usize {
        lock(&self.inner).queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_not_acknowledged_is_sent_again_after_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let o = Outbox::open(dir.path()).unwrap();
        for i in 0..3 {
            o.push(format!("s.{i}"), |seq| format!("{{\"seq\":{seq}}}"))
                .unwrap();
        }
        let all = o.first(10);
        assert_eq!(all.len(), 3);
        assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
        o.acked(all[0].seq);
        drop(o);
        // A line cut short by a kill is skipped.
        let path = dir.path().join("outbox");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        write!(f, "99999999999999999 s.9 {{\"seq").unwrap();
        drop(f);
        let o = Outbox::open(dir.path()).unwrap();
        let again = o.first(10);
        assert_eq!(
            again.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [all[1].seq, all[2].seq]
        );
        assert_eq!(again[0].subject, "s.1");
        o.push("s.3".into(), |_| "{}".into()).unwrap();
        assert!(o.first(10)[2].seq > all[2].seq, "sequences only grow");
        for e in o.first(10) {
            o.acked(e.seq);
        }
        assert_eq!(o.len(), 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        drop(o);
        assert_eq!(Outbox::open(dir.path()).unwrap().len(), 0);
    }
}
