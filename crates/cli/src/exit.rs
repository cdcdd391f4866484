//! How a command's error reaches the user: one line on stderr, and an exit status
//! by kind (the README's table).

/// The command line is wrong: a flag's value malformed or out of range, flags that
/// conflict or are missing. Exit status 2, as clap gives its own usage errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A recording ended with its record written but not to be trusted as complete:
/// nothing recorded, out of sync, or the input ended early. Exit status 3.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Incomplete(pub String);

/// A usage error with a formatted message.
#[macro_export]
macro_rules! usage {
    ($($arg:tt)*) => {
        anyhow::Error::new($crate::UsageError(format!($($arg)*)))
    };
}

/// The exit status for an error (see the README's table): 2 for usage errors, 3
/// for an incomplete recording, 1 for everything else.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<UsageError>().is_some() {
        2
    } else if e.downcast_ref::<Incomplete>().is_some() {
        3
    } else {
        1
    }
}

/// An error as one line: causes joined by `: `, line breaks folded, and OpenCV's
/// raw assertion texts (source paths, condition codes) cut to what they say.
pub fn error_line(e: &anyhow::Error) -> String {
    let text = format!("{e:#}");
    let text = tidy_opencv(&text);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `OpenCV(4.6.0) /build/.../resize.cpp:4052: error: (-215:Assertion failed)
/// !ssize.empty() in function 'resize'` becomes `OpenCV could not process the
/// image (resize: !ssize.empty())`.
fn tidy_opencv(text: &str) -> String {
    let Some(start) = text.find("OpenCV(") else {
        return text.to_string();
    };
    let rest = &text[start..];
    let Some(err) = rest.find("error: (") else {
        return text.to_string();
    };
    let after = &rest[err + "error: (".len()..];
    let Some(close) = after.find(')') else {
        return text.to_string();
    };
    let detail = after[close + 1..].trim();
    let (cond, func) = match detail.rfind(" in function '") {
        Some(i) => (
            detail[..i].trim(),
            detail[i + " in function '".len()..]
                .trim_end()
                .trim_end_matches('\'')
                .split('\'')
                .next()
                .unwrap_or(""),
        ),
        None => (detail, ""),
    };
    let what = if func.is_empty() {
        cond.to_string()
    } else {
        format!("{func}: {cond}")
    };
    format!(
        "{}OpenCV could not process the image ({what})",
        &text[..start]
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn opencv_assertions_are_cut_to_what_they_say() {
        let raw = "recording 'a': OpenCV(4.6.0) /build/opencv-x/modules/imgproc/src/resize.cpp:4052: error: (-215:Assertion failed) !ssize.empty() in function 'resize'\n";
        let e = anyhow::anyhow!(raw.to_string());
        assert_eq!(
            super::error_line(&e),
            "recording 'a': OpenCV could not process the image (resize: !ssize.empty())"
        );
        let e = anyhow::Error::new(super::UsageError("x".into()));
        assert_eq!(super::exit_code(&e), 2);
        assert_eq!(super::exit_code(&e.context("more")), 2);
        let e = anyhow::Error::new(super::Incomplete("y".into())).context("z");
        assert_eq!(super::exit_code(&e), 3);
        assert_eq!(super::exit_code(&anyhow::anyhow!("other")), 1);
    }
}
