//! One writer at a time: a lock on a record (`record`, and every board of an
//! `event`) and on a round's folder (`event --out DIR`).
//!
//! Each lock is an advisory `flock` on a small file (`.NAME.lock` beside a
//! record, `.boardscribe.lock` in a round's folder), so a writer that crashes or
//! is killed (`kill -9`) leaves no lock that holds: the kernel releases it with
//! the process, and the next writer takes over the file. The holder writes its
//! process id, its command line and the time it took the lock into the file, so
//! that whoever is refused can name it.
//!
//! The lock is the standard library's `File::try_lock` (stable since Rust 1.89;
//! `flock` on Linux and macOS, `LockFileEx` on Windows) rather than a crate such
//! as fs4 or fd-lock: it is the same system call behind a safe, maintained
//! interface, and a crate would add a dependency for nothing more.
//!
//! The lock file is opened without truncation and never through a symbolic link;
//! a name that is a hard link to another file (more than one name) or is not a
//! regular file is refused and left untouched, so a planted link cannot make the
//! lock write over someone's file.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::error::LockError;
use super::{file_name_of, folder_of, not_regular};

/// The lock file that keeps a second `event` off a round's folder.
pub(crate) const FOLDER_LOCK_NAME: &str = ".boardscribe.lock";

/// A lock on a record (no other recorder writes the same path while it is
/// held) or on a round's folder (no other `event` records into it).
#[derive(Debug)]
pub struct Lock {
    _held: Held,
}

impl Lock {
    /// Takes the lock on `record` for `command` (the holder's command line, shown
    /// to whoever is refused), or says who holds it.
    pub fn record(record: &Path, command: &str) -> Result<Lock, LockError> {
        let dir = folder_of(record);
        std::fs::create_dir_all(dir).map_err(|source| LockError::Folder {
            dir: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(format!(".{}.lock", file_name_of(record)));
        match take(&path, command)? {
            Taken::Mine(held) => Ok(Lock { _held: held }),
            Taken::Theirs(holder) => Err(LockError::Held {
                record: record.to_path_buf(),
                holder,
            }),
        }
    }

    /// Takes the lock on the round's folder `dir` (which must exist) for
    /// `command`, or says who holds it.
    pub fn folder(dir: &Path, command: &str) -> Result<Lock, LockError> {
        let path = dir.join(FOLDER_LOCK_NAME);
        match take(&path, command)? {
            Taken::Mine(held) => Ok(Lock { _held: held }),
            Taken::Theirs(holder) => Err(LockError::FolderHeld {
                dir: dir.to_path_buf(),
                holder,
            }),
        }
    }
}

/// A lock file held: its name, the open file the `flock` is on, and the file's
/// identity (device, inode).
#[derive(Debug)]
struct Held {
    path: PathBuf,
    _file: File,
    id: Option<(u64, u64)>,
}

impl Drop for Held {
    fn drop(&mut self) {
        // Removed while still locked, and only while the name is still this
        // file: a writer that opened it meanwhile finds the name gone and starts
        // again on a new file (see `take`).
        if self.id.is_some() && file_id_at(&self.path) == self.id {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

enum Taken {
    Mine(Held),
    /// Held by another writer, described when it wrote who it is.
    Theirs(Option<String>),
}

/// Rounds of open-lock-check before giving up: only a writer that releases and
/// another that takes the name in between makes `take` go round again.
const ATTEMPTS: usize = 8;

fn take(path: &Path, command: &str) -> Result<Taken, LockError> {
    for _ in 0..ATTEMPTS {
        if let Some(kind) = not_regular(path) {
            return Err(LockError::NotALockFile {
                path: path.to_path_buf(),
                what: kind.to_string(),
            });
        }
        let mut file = open(path)?;
        let meta = file.metadata().map_err(|source| LockError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        if !meta.is_file() {
            return Err(LockError::NotALockFile {
                path: path.to_path_buf(),
                what: "not a regular file".into(),
            });
        }
        let names = link_count(&meta);
        if names > 1 {
            return Err(LockError::NotALockFile {
                path: path.to_path_buf(),
                what: format!("a hard link (one of {names} names of one file)"),
            });
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Ok(Taken::Theirs(describe(&read_holder(&mut file))));
            }
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(LockError::Open {
                    path: path.to_path_buf(),
                    source,
                })
            }
        }
        let id = file_id(&meta);
        if id.is_some() && file_id_at(path) != id {
            // The holder removed the name as it let go: this file is no lock.
            continue;
        }
        // Ours now, a regular file with one name: rewritten with who holds it.
        let _ = file.set_len(0);
        let _ = file.write_all(holder_text(command).as_bytes());
        return Ok(Taken::Mine(Held {
            path: path.to_path_buf(),
            _file: file,
            id,
        }));
    }
    Err(LockError::Open {
        path: path.to_path_buf(),
        source: std::io::Error::other("the lock file kept changing; try again"),
    })
}

/// Opens (or creates) the lock file: never truncated, never through a symbolic
/// link, never blocking on a FIFO.
fn open(path: &Path) -> Result<File, LockError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .mode(0o644);
    }
    options.open(path).map_err(|source| {
        #[cfg(unix)]
        if source.raw_os_error() == Some(libc::ELOOP) {
            return LockError::NotALockFile {
                path: path.to_path_buf(),
                what: "a symbolic link".into(),
            };
        }
        LockError::Open {
            path: path.to_path_buf(),
            source,
        }
    })
}

#[cfg(unix)]
fn link_count(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn link_count(_: &std::fs::Metadata) -> u64 {
    1
}

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

fn file_id_at(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .and_then(|m| file_id(&m))
}

/// What the holder writes into its lock file.
fn holder_text(command: &str) -> String {
    format!(
        "pid {}\nsince {}\ncommand {}\n",
        std::process::id(),
        super::date::utc_now(),
        one_line(command, 300)
    )
}

/// The start of a lock file (a lock file holds a few short lines; a longer one
/// is not ours and is not read whole).
fn read_holder(file: &mut File) -> String {
    let mut bytes = Vec::new();
    let _ = file.take(4096).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The holder as the refused are told: `process 12345, running "boardscribe event
/// r.toml --out r3", since 2026.12.03 13:50:12 UTC`; None when the file names no process
/// (the holder has not written it yet). A lock file of older versions holds the
/// process id alone.
fn describe(text: &str) -> Option<String> {
    let (mut pid, mut since, mut command) = (None, None, None);
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("pid ") {
            pid = Some(v.trim());
        } else if let Some(v) = line.strip_prefix("since ") {
            since = Some(v.trim());
        } else if let Some(v) = line.strip_prefix("command ") {
            command = Some(v.trim());
        } else if !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) {
            pid = Some(line);
        }
    }
    let pid = pid.filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))?;
    let mut out = format!("process {pid}");
    if let Some(c) = command.filter(|c| !c.is_empty()) {
        out.push_str(&format!(", running \"{}\"", one_line(c, 300)));
    }
    if let Some(s) = since.filter(|s| !s.is_empty()) {
        out.push_str(&format!(", since {}", one_line(s, 40)));
    }
    Some(out)
}

/// `text` on one line of at most `max` characters, control characters as spaces.
fn one_line(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect();
    if text.chars().count() > max {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_recorder_is_kept_off_the_record_and_told_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.pgn");
        let first = Lock::record(&path, "boardscribe record --pgn game.pgn").unwrap();
        let err = Lock::record(&path, "other").unwrap_err().to_string();
        assert!(err.contains("another recorder"), "{err}");
        assert!(
            err.contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        assert!(err.contains("boardscribe record --pgn game.pgn"), "{err}");
        assert!(err.contains("since 2"), "{err}");
        assert!(err.contains("UTC"), "{err}");
        drop(first);
        // Released: taken again, and the lock file goes with the lock.
        let again = Lock::record(&path, "x").unwrap();
        drop(again);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_second_event_is_kept_off_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let first = Lock::folder(dir.path(), "boardscribe event r.toml").unwrap();
        let err = Lock::folder(dir.path(), "x").unwrap_err().to_string();
        assert!(err.contains("boardscribe event r.toml"), "{err}");
        assert!(err.contains("recording into the folder"), "{err}");
        // The folder lock is not a record's lock.
        let record = Lock::record(&dir.path().join("board-1.pgn"), "x").unwrap();
        drop((first, record));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_stale_lock_file_is_taken_over() {
        // What a killed writer leaves: the file, with no flock on it.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.pgn");
        std::fs::write(dir.path().join(".game.pgn.lock"), "pid 1\n").unwrap();
        let lock = Lock::record(&path, "me").unwrap();
        let text = std::fs::read_to_string(dir.path().join(".game.pgn.lock")).unwrap();
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        drop(lock);
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_file_that_is_a_hard_link_or_a_symbolic_link_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("notes.txt");
        std::fs::write(&victim, "keep me").unwrap();
        std::fs::hard_link(&victim, dir.path().join(".game.pgn.lock")).unwrap();
        let err = Lock::record(&dir.path().join("game.pgn"), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("hard link"), "{err}");
        assert!(err.contains(".game.pgn.lock"), "{err}");
        std::fs::hard_link(&victim, dir.path().join(FOLDER_LOCK_NAME)).unwrap();
        let err = Lock::folder(dir.path(), "x").unwrap_err().to_string();
        assert!(err.contains("hard link"), "{err}");
        std::os::unix::fs::symlink(&victim, dir.path().join(".other.pgn.lock")).unwrap();
        let err = Lock::record(&dir.path().join("other.pgn"), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    }

    #[test]
    fn holders_are_described_from_what_they_wrote() {
        assert_eq!(describe(""), None);
        assert_eq!(describe("garbage\n"), None);
        assert_eq!(describe("4242\n").as_deref(), Some("process 4242"));
        assert_eq!(
            describe("pid 7\nsince 2026.12.03 13:50:12 UTC\ncommand boardscribe event r.toml\n")
                .as_deref(),
            Some("process 7, running \"boardscribe event r.toml\", since 2026.12.03 13:50:12 UTC")
        );
        assert_eq!(describe("pid x\n"), None);
        assert!(one_line("a\nb\u{1b}[2J", 300)
            .chars()
            .all(|c| !c.is_control()));
    }
}
