//! Training crops exported through the same crop code the recorder uses, as NumPy
//! arrays the Python trainer loads: `crops.npy` (u8, N x 40 x 32 x 3, RGB) and
//! `labels.npy` (u8, N).

use std::io::Write;
use std::path::Path;

use boardscribe_vision::classify::{CropView, CROP_H, CROP_W};

/// Crops and labels collected in memory before writing.
#[derive(Default)]
pub struct CropSet {
    crops: Vec<u8>,
    labels: Vec<u8>,
}

impl CropSet {
    /// Crops in the set.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether the set holds no crop.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Per-class counts (empty, white, black, hidden).
    pub fn counts(&self) -> [usize; 4] {
        let mut c = [0; 4];
        for &l in &self.labels {
            c[(l as usize).min(3)] += 1;
        }
        c
    }

    /// Adds the crops of the chosen sites of one rectified board.
    pub fn add(
        &mut self,
        view: &CropView,
        rectified: &opencv::core::Mat,
        sites: &[(u32, u32, u8)],
    ) {
        for &(r, c, label) in sites {
            self.crops.extend(crop_rgb8(view, rectified, r, c));
            self.labels.push(label);
        }
    }

    /// Writes `crops.npy`, `labels.npy` and `meta.json` into `dir`.
    pub fn write(&self, dir: &Path, meta: &serde_json::Value) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let n = self.len();
        write_npy(
            &dir.join("crops.npy"),
            &[n, CROP_H as usize, CROP_W as usize, 3],
            &self.crops,
        )?;
        write_npy(&dir.join("labels.npy"), &[n], &self.labels)?;
        let mut meta = meta.clone();
        if let Some(m) = meta.as_object_mut() {
            m.insert("count".into(), n.into());
            m.insert("class_counts".into(), serde_json::json!(self.counts()));
            m.insert(
                "crop".into(),
                serde_json::json!({"width": CROP_W, "height": CROP_H}),
            );
        }
        std::fs::write(
            dir.join("meta.json"),
            serde_json::to_string_pretty(&meta)? + "\n",
        )
    }
}

/// The same crop as 8-bit RGB interleaved (H, W, 3), for exporting training data.
fn crop_rgb8(view: &CropView, rectified: &opencv::core::Mat, row: u32, col: u32) -> Vec<u8> {
    let mut planar = vec![0.0; 3 * (CROP_W * CROP_H) as usize];
    view.crop_rgb_planar(rectified, row, col, &mut planar);
    let n = (CROP_W * CROP_H) as usize;
    let mut out = Vec::with_capacity(3 * n);
    for i in 0..n {
        for c in 0..3 {
            out.push((planar[c * n + i] * 255.0).round() as u8);
        }
    }
    out
}

/// A NumPy `.npy` (format 1.0) file of unsigned bytes.
fn write_npy(path: &Path, shape: &[usize], data: &[u8]) -> std::io::Result<()> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header = format!("{{'descr': '|u1', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic (6) + version (2) + length (2) + header + newline, padded to 64 bytes.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(b"\x93NUMPY\x01\x00")?;
    f.write_all(&(header.len() as u16).to_le_bytes())?;
    f.write_all(header.as_bytes())?;
    f.write_all(data)?;
    f.flush()
}

#[cfg(test)]
mod tests {
    #[test]
    fn npy_header_is_aligned() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.npy");
        super::write_npy(&p, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(&bytes[..6], b"\x93NUMPY");
        let hlen = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        assert!(String::from_utf8_lossy(&bytes[10..10 + hlen]).contains("'shape': (2, 3)"));
        assert_eq!(&bytes[10 + hlen..], &[1, 2, 3, 4, 5, 6]);
    }
}
