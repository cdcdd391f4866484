//! Writing an image a command made.

use anyhow::Context;

/// Writes `img` to `path` (format from its extension), creating the folder.
pub fn write_image(path: &std::path::Path, img: &opencv::core::Mat) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create '{}'", dir.display()))?;
    }
    let ok = opencv::imgcodecs::imwrite(path, img, &opencv::core::Vector::new())
        .map_err(|e| anyhow::anyhow!("cannot write '{}': {}", path.display(), e.message))?;
    anyhow::ensure!(
        ok,
        "cannot write '{}' (unknown image extension?)",
        path.display()
    );
    Ok(())
}
