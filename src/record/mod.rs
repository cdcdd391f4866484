//! Game records: PGN (chess), PDN (draughts), the Tablut record and the free log
//! (games without rules), each rendered whole from the accepted move log, and
//! written so that the file on disk is always a complete, valid record of the
//! moves accepted so far.

pub mod free_log;
pub mod log;
pub mod pdn;
pub mod pgn;
pub mod resume;
pub mod tablut_record;

use std::io::Write;
use std::path::Path;

/// Writes `text` to `path` through a temporary file in the same folder and a rename,
/// so a reader (or a crash) never sees a half-written record.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
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
}
