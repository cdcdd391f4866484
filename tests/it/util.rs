use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_boardscribe"))
}

/// The lab's binary, which `boardscribe` hands its lab commands to: built beside
/// it by `cargo test --workspace` (the lab package's own tests need it), as
/// `make test` runs.
pub fn lab_binary() -> PathBuf {
    let product = Path::new(env!("CARGO_BIN_EXE_boardscribe"));
    let lab = product.with_file_name(format!("boardscribe-lab{}", std::env::consts::EXE_SUFFIX));
    assert!(
        lab.is_file(),
        "{} is missing: run the tests with `cargo test --workspace` (or `make test`)",
        lab.display()
    );
    lab
}

/// Runs the CLI and returns its output.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("boardscribe runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Asserts a clean failure: non-zero exit, one `error:` line naming `needle`, no panic.
pub fn assert_fails_with(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "expected failure, got success: {err}");
    assert_eq!(o.status.code(), Some(1), "exit code: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(err.contains("error:"), "no error line: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
}

pub fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

pub fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// A folder of the real photo sets beside the project. Tests that need them are
/// `#[ignore = "needs ../shared/data"]` (`make test` runs them when the folder is
/// there), so an absent folder fails the test rather than passing it unseen.
pub fn shared_data(sub: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(sub);
    assert!(
        dir.is_dir(),
        "{} is absent: this test needs the real photo sets",
        dir.display()
    );
    dir
}

/// Whether an outside checker (python-chess, pydraughts, pgn-extract, chromium)
/// is there. Absent, the check is skipped with a message, except where
/// `BOARDSCRIBE_REQUIRE_TOOLS` is set (`.ci/run` sets it after installing them),
/// where a missing tool fails the test.
pub fn have_tool(name: &str, present: bool) -> bool {
    if !present {
        assert!(
            std::env::var_os("BOARDSCRIBE_REQUIRE_TOOLS").is_none(),
            "{name} is required (BOARDSCRIBE_REQUIRE_TOOLS) but not installed"
        );
        eprintln!("skipping the {name} check: it is not installed");
    }
    present
}

/// `event ROUND --out OUT` with its pages on a free port, its standard output
/// dropped and its standard error piped (read it with [`stderr_lines`]).
pub fn event_command(round: &Path, out: &Path) -> Command {
    let mut c = bin();
    c.args([
        "event",
        p(round),
        "--out",
        p(out),
        "--listen",
        "127.0.0.1:0",
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped());
    c
}

/// A running command's standard error, line by line, read on a thread of its own.
pub fn stderr_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let err = child.stderr.take().expect("standard error piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The page's address and the arbiter's token, as printed at start-up.
pub fn address_and_token(rx: &std::sync::mpsc::Receiver<String>) -> (String, String) {
    let (mut addr, mut token) = (None, None);
    let mut seen = Vec::new();
    while addr.is_none() || token.is_none() {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no address and token printed: {seen:?}"));
        if let Some(rest) = line.strip_prefix("live page: http://") {
            addr = Some(rest.trim_end_matches('/').to_string());
        }
        if let Some(t) = line.strip_prefix("arbiter token: ") {
            token = Some(t.to_string());
        }
        seen.push(line);
    }
    (addr.unwrap(), token.unwrap())
}

/// `--corners` from a rendered photo folder's truth: its first photo's corners,
/// as a user reads them off.
pub fn first_photo_corners(photos: &Path) -> Vec<String> {
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(photos.join("truth.json")).unwrap()).unwrap();
    truth["photos"][0]["corners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{:.1},{:.1}",
                c[0].as_f64().unwrap(),
                c[1].as_f64().unwrap()
            )
        })
        .collect()
}
