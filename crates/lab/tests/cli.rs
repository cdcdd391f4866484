//! The `boardscribe-lab` binary's command line. (Its commands are also reached
//! through `boardscribe COMMAND`, tested with the product's command line; this
//! package's integration test also makes cargo build the binary for those.)

use std::process::Command;

fn lab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_boardscribe-lab"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn lists_the_lab_commands() {
    let o = lab(&["--help"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for command in ["demo", "render", "eval", "dataset", "bench", "locate"] {
        assert!(text.contains(command), "{command} missing from:\n{text}");
    }
}

#[test]
fn a_bad_flag_value_is_a_usage_error() {
    let o = lab(&["bench", "--what", "garbage"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("garbage"));
    let o = lab(&["locate", "--eval-synth", "1", "--grid", "8by8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("8by8"));
}
