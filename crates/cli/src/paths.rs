//! What a command may write: never over one of its inputs, never over something
//! that is not a regular file (a device, a FIFO, a folder, a symbolic link whose
//! target would be left stale), never two outputs onto one path.

use std::path::{Path, PathBuf};

use anyhow::bail;

use crate::capture::is_image_path;

/// Checks every output (`flag`, path) against the inputs and each other.
pub fn check_outputs(outputs: &[(&str, &Path)], inputs: &[&Path]) -> anyhow::Result<()> {
    for (i, (flag, out)) in outputs.iter().enumerate() {
        check_writable(flag, out)?;
        for input in inputs {
            if same_file(out, input) {
                bail!(
                    "{flag} '{}' is the input '{}': give another path for what is written",
                    out.display(),
                    input.display()
                );
            }
            if input.is_dir() && is_image_path(out) && same_dir(out, input) {
                bail!(
                    "{flag} '{}' is inside the input folder '{}', where it would be read as a photo: give another folder",
                    out.display(),
                    input.display()
                );
            }
        }
        for (other_flag, other) in &outputs[..i] {
            if same_file(out, other) {
                bail!(
                    "{other_flag} and {flag} name the same file '{}'",
                    out.display()
                );
            }
        }
    }
    Ok(())
}

/// An output path must be absent or a regular file.
pub fn check_writable(flag: &str, out: &Path) -> anyhow::Result<()> {
    if let Some(kind) = crate::record::not_regular(out) {
        bail!(
            "{flag} '{}' is {kind}; it is never replaced: give the path of a regular file",
            out.display()
        );
    }
    Ok(())
}

/// Whether two paths name one file (or would, once written).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn same_dir(file: &Path, dir: &Path) -> bool {
    let parent = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    same_file(parent, dir)
}

/// The absolute path a (possibly absent) file would have: its folder resolved.
fn resolved(p: &Path) -> Option<PathBuf> {
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(parent.canonicalize().ok()?.join(p.file_name()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_never_replace_an_input_or_a_special_file() {
        let dir = tempfile::tempdir().unwrap();
        let photo = dir.path().join("a.jpg");
        std::fs::write(&photo, b"x").unwrap();
        let err = check_outputs(&[("--pgn", &photo)], &[&photo]).unwrap_err();
        assert!(err.to_string().contains("is the input"), "{err}");
        // The same file by another spelling.
        let other = dir.path().join(".").join("a.jpg");
        assert!(check_outputs(&[("--pgn", &other)], &[&photo]).is_err());
        // A photo written into a photo folder that is read.
        let inside = dir.path().join("new.png");
        let err = check_outputs(&[("--overlay", &inside)], &[dir.path()]).unwrap_err();
        assert!(err.to_string().contains("inside the input folder"), "{err}");
        let pgn = dir.path().join("game.pgn");
        check_outputs(&[("--pgn", &pgn)], &[dir.path()]).unwrap();
        // Two outputs on one path.
        let err = check_outputs(&[("-o", &pgn), ("--overlay", &pgn)], &[]).unwrap_err();
        assert!(err.to_string().contains("same file"), "{err}");
        // A folder, a symbolic link, a device.
        assert!(check_outputs(&[("--pgn", dir.path())], &[]).is_err());
        #[cfg(unix)]
        {
            let link = dir.path().join("link.pgn");
            std::os::unix::fs::symlink(&pgn, &link).unwrap();
            let err = check_outputs(&[("--pgn", &link)], &[]).unwrap_err();
            assert!(err.to_string().contains("symbolic link"), "{err}");
            let err = check_outputs(&[("--pgn", Path::new("/dev/null"))], &[]).unwrap_err();
            assert!(err.to_string().contains("device"), "{err}");
        }
    }
}
