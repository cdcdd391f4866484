//! Game records: PGN (chess), PDN (draughts), the Tablut record, SGF (Go) and the free log
//! (games without rules), each rendered whole from the accepted move log, and
//! written so that the file on disk is always a complete, valid record of the
//! moves accepted so far.

pub(crate) mod date;
mod error;
pub(crate) mod free_log;
mod lock;
pub(crate) mod log;
pub(crate) mod pdn;
pub(crate) mod pgn;
pub(crate) mod resume;
pub(crate) mod sgf;
mod sgf_read;
mod sgf_syntax;
#[cfg(test)]
mod sgf_tests;
mod tablut_record;
mod tags;

// The formats' modules stay private: what they offer is here, one flat list.
pub use date::{today, utc_now};
pub use free_log::{Change, Edit, FreeLog, Stone};
pub use log::{rule_ending_note, GameRecord, RecordFile, Recordable};
pub use pdn::PdnRecord;
pub use pgn::{parse_pgn, parse_pgn_games, PgnMove, PgnRecord};
pub use resume::{Before, Resume, Resumed};
pub use sgf::{SgfMove, SgfRecord};

pub use error::{EditError, LockError, PgnError, ReadError, SgfError, TextError, TextPos};

use std::io::Write;
use std::path::Path;

pub use lock::Lock;

pub use tablut_record::{RecordMove, TablutRecord};
pub use tags::Tags;

/// What a path holds when it is there but is not a regular file: a record is
/// never written over one (`None` when absent or regular).
pub fn not_regular(path: &Path) -> Option<&'static str> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_symlink() {
        return Some("a symbolic link");
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

/// The folder a record's temporary and lock files go in: the record's own.
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

fn file_name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".into())
}

/// A name no other process can guess: the process id and a per-call random number.
fn unguessable() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{}.{:016x}", std::process::id(), h.finish())
}

/// Writes `text` to `path` through a temporary file created exclusively (never an
/// existing file, never through a symbolic link) in the same folder, then a
/// rename, so a reader (or a crash) never sees a half-written record. A path that
/// holds something other than a regular file (a symbolic link, a FIFO, a device,
/// a folder) is refused, never replaced. The record keeps its permissions.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    replace(path, text, true)
}

/// As [`write_atomic`], but without waiting for the disk: for a copy rebuilt
/// from elsewhere (a broadcast's records, rebuilt from the stream after a
/// crash), where a thousand writes a second must not each wait for the disk.
pub fn write_atomic_unsynced(path: &Path, text: &str) -> std::io::Result<()> {
    replace(path, text, false)
}

fn replace(path: &Path, text: &str, sync: bool) -> std::io::Result<()> {
    if let Some(kind) = not_regular(path) {
        return Err(std::io::Error::other(format!(
            "'{}' is {kind}; a record is only written over a regular file",
            path.display()
        )));
    }
    let dir = folder_of(path);
    std::fs::create_dir_all(dir)?;
    let name = file_name_of(path);
    let (tmp, mut f) = loop {
        let tmp = dir.join(format!(".{name}.{}.tmp", unguessable()));
        // create_new is O_CREAT | O_EXCL: it fails on anything already there,
        // a symbolic link included.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let written = (|| {
        f.write_all(text.as_bytes())?;
        if let Ok(meta) = std::fs::metadata(path) {
            f.set_permissions(meta.permissions())?;
        }
        if sync {
            f.sync_all()?;
        }
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.pgn");
        super::write_atomic(&path, "first").unwrap();
        super::write_atomic(&path, "second, longer").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second, longer");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn the_atomic_write_never_replaces_a_link_a_fifo_or_a_device() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.pgn");
        std::fs::write(&target, "kept").unwrap();
        let link = dir.path().join("link.pgn");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = super::write_atomic(&link, "new").unwrap_err().to_string();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        let fifo = dir.path().join("fifo.pgn");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let err = super::write_atomic(&fifo, "new").unwrap_err().to_string();
        assert!(err.to_string().contains("FIFO"), "{err}");
        let err = super::write_atomic(std::path::Path::new("/dev/null"), "new")
            .unwrap_err()
            .to_string();
        assert!(err.to_string().contains("device"), "{err}");
        // Nothing but the three left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[cfg(unix)]
    #[test]
    fn the_atomic_write_keeps_the_record_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.pgn");
        super::write_atomic(&path, "a").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        super::write_atomic(&path, "b").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
