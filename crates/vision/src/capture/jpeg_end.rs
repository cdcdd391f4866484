//! Whether a JPEG file is whole. OpenCV decodes a JPEG cut short (a copy
//! interrupted, a card pulled out) without an error, the missing part grey; a
//! recorder would read that grey as squares. So the file's markers are walked
//! from its start: a whole JPEG reaches its end-of-image marker (FFD9). Data after
//! it (a maker's trailer, a second picture, padding) is not looked at, and an
//! embedded thumbnail's own end is inside a segment that is skipped whole.

/// Whether `bytes` begin a JPEG (start-of-image marker FFD8) that ends before its
/// end-of-image marker. Anything not a JPEG is not cut short here.
pub(crate) fn cut_short(bytes: &[u8]) -> bool {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return false;
    }
    let mut i = 2;
    loop {
        // The next marker: bytes not FF between segments are skipped, as
        // decoders do, and so are fill bytes (FF FF ...).
        while i < bytes.len() && bytes[i] != 0xFF {
            i += 1;
        }
        while i < bytes.len() && bytes[i] == 0xFF {
            i += 1;
        }
        let Some(&marker) = bytes.get(i) else {
            return true;
        };
        i += 1;
        match marker {
            0xD9 => return false,
            // Markers without a length: TEM, RSTn, SOI, and a stuffed zero.
            0x00 | 0x01 | 0xD0..=0xD8 => {}
            _ => {
                let Some(len) = bytes
                    .get(i..i + 2)
                    .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
                else {
                    return true;
                };
                if len < 2 || i + len > bytes.len() {
                    return true;
                }
                i += len;
                if marker == 0xDA {
                    // A scan's entropy-coded data runs to the next marker: FF
                    // followed by anything but a stuffed zero or a restart.
                    loop {
                        while i < bytes.len() && bytes[i] != 0xFF {
                            i += 1;
                        }
                        match bytes.get(i + 1) {
                            None => return true,
                            Some(0x00 | 0xD0..=0xD7) => i += 2,
                            Some(_) => break,
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cut_short;

    /// A real JPEG of a few blocks, as the `image` crate encodes it.
    fn jpeg(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x * 7) as u8, (y * 5) as u8, ((x + y) * 3) as u8])
        });
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
            .encode_image(&img)
            .unwrap();
        out
    }

    #[test]
    fn a_whole_jpeg_is_whole_with_or_without_trailing_data() {
        let whole = jpeg(64, 48);
        assert!(!cut_short(&whole));
        let mut padded = whole.clone();
        padded.extend_from_slice(&[0u8; 100]);
        assert!(!cut_short(&padded));
        let mut trailer = whole.clone();
        trailer.extend_from_slice(b"SEFHtrailer\xFF\xD8\xFF\xE0junk");
        assert!(!cut_short(&trailer));
    }

    #[test]
    fn every_cut_of_a_jpeg_is_found() {
        let whole = jpeg(64, 48);
        // Cut anywhere before its last byte (the D9 of its end marker).
        for len in 2..whole.len() {
            assert!(cut_short(&whole[..len]), "cut at {len} of {}", whole.len());
        }
    }

    #[test]
    fn other_files_are_not_judged() {
        assert!(!cut_short(b""));
        assert!(!cut_short(b"\x89PNG\r\n\x1a\n"));
        assert!(!cut_short(b"\xFF"));
    }
}
