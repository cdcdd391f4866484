//! The lab's commands (`render`, `eval`, `dataset`, `bench`, `demo`, and `locate`
//! measuring itself) live in the `boardscribe-lab` binary, built beside this one:
//! the renderer and the photo sets are no part of the product. The command lines
//! people and scripts know (`boardscribe bench --what record`) keep working: they
//! are handed to that binary as they were typed.

use std::ffi::OsString;
use std::path::PathBuf;

/// The commands that are the lab's.
const LAB_COMMANDS: [&str; 5] = ["render", "eval", "dataset", "bench", "demo"];

/// The lab's flags of `locate` (measuring the locator, not locating a photo).
const LAB_LOCATE_FLAGS: [&str; 2] = ["--eval-synth", "--eval-real"];

/// Whether these arguments (the program's name first) are a lab command's.
pub fn is_lab_command(args: &[OsString]) -> bool {
    let Some(command) = args.get(1).and_then(|a| a.to_str()) else {
        return false;
    };
    LAB_COMMANDS.contains(&command)
        || (command == "locate"
            && args[2..].iter().any(|a| {
                a.to_str().is_some_and(|a| {
                    LAB_LOCATE_FLAGS
                        .iter()
                        .any(|f| a == *f || a.starts_with(&format!("{f}=")))
                })
            }))
}

/// Runs `boardscribe-lab` with these arguments (the program's name first) and
/// returns its exit status; an error when it cannot be found or started.
pub fn run_lab(args: &[OsString]) -> anyhow::Result<u8> {
    let lab = lab_binary();
    let status = std::process::Command::new(&lab)
        .args(&args[1..])
        .status()
        .map_err(|e| {
            anyhow::anyhow!(
                "'{}' is a command of boardscribe-lab, which could not be started ('{}': {e}); \
                 build it with `cargo build --workspace` (or `make build`)",
                args[1].to_string_lossy(),
                lab.display()
            )
        })?;
    Ok(status.code().map_or(1, |c| c.clamp(0, 255) as u8))
}

/// `boardscribe-lab` beside this program, else the one on the PATH.
fn lab_binary() -> PathBuf {
    let name = format!("boardscribe-lab{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

#[cfg(test)]
mod tests {
    use super::is_lab_command;

    fn args(a: &[&str]) -> Vec<std::ffi::OsString> {
        a.iter().map(Into::into).collect()
    }

    #[test]
    fn the_lab_commands_are_told_apart() {
        assert!(is_lab_command(&args(&["boardscribe", "render", "clip"])));
        assert!(is_lab_command(&args(&[
            "boardscribe",
            "bench",
            "--what",
            "record"
        ])));
        assert!(is_lab_command(&args(&[
            "boardscribe",
            "locate",
            "--eval-synth",
            "4"
        ])));
        assert!(is_lab_command(&args(&[
            "boardscribe",
            "locate",
            "--eval-real"
        ])));
        assert!(!is_lab_command(&args(&[
            "boardscribe",
            "locate",
            "--grid",
            "8x8",
            "a.jpg"
        ])));
        assert!(!is_lab_command(&args(&[
            "boardscribe",
            "record",
            "--input",
            "bench"
        ])));
        assert!(!is_lab_command(&args(&["boardscribe"])));
    }
}
