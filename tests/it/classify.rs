//! The classifier's runtimes against onnxruntime (issue 23): the same outputs, within
//! 1e-4, on the crops `tests/tools/ort_reference.py` generates, whose outputs it wrote to
//! tests/data/ort_reference.json with onnxruntime.

use std::path::Path;

use boardscribe_vision::classify::{OccupancyModel, Runtime};
use serde_json::Value;

/// The generator of tests/tools/ort_reference.py (`lcg`).
fn lcg(seed: u32, n: usize) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        })
        .collect()
}

/// tests/tools/ort_reference.py's `crop`, value for value.
fn reference_crop(spec: &Value) -> Vec<f32> {
    let (c, h, w) = (3usize, 40usize, 32usize);
    let n = c * h * w;
    let seed = || spec["seed"].as_u64().expect("a seed") as u32;
    match spec["kind"].as_str().expect("a kind") {
        "noise" => lcg(seed(), n),
        "flat" => vec![spec["value"].as_f64().expect("a value") as f32; n],
        "pattern" => {
            let r = lcg(seed(), 8 + n);
            let (bg, fg) = (&r[0..3], &r[3..6]);
            let cy = 14.5 + (12f32 * r[6]).floor() as f64;
            let cx = 10.5 + (12f32 * r[7]).floor() as f64;
            let mut out = Vec::with_capacity(n);
            for ch in 0..c {
                for y in 0..h {
                    for x in 0..w {
                        let inside = (y as f64 - cy).powi(2) + (x as f64 - cx).powi(2) < 81.0;
                        let base = if inside { fg[ch] } else { bg[ch] };
                        let noise = r[8 + (ch * h + y) * w + x];
                        out.push((base + 0.1f32 * (noise - 0.5f32)).clamp(0.0, 1.0));
                    }
                }
            }
            out
        }
        k => panic!("unknown crop kind {k}"),
    }
}

fn fnv1a64(bytes: &[u8]) -> String {
    let h = bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    });
    format!("{h:016x}")
}

#[test]
fn classify_agrees_with_onnxruntime() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("models/occupancy.onnx");
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/ort_reference.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        doc["model_fnv1a64"].as_str().unwrap(),
        fnv1a64(&std::fs::read(&model).unwrap()),
        "tests/data/ort_reference.json was written for another models/occupancy.onnx: \
         run `python3 tests/tools/ort_reference.py` to refresh it"
    );
    let specs = doc["crops"].as_array().unwrap();
    let crops: Vec<f32> = specs.iter().flat_map(reference_crop).collect();
    let rows = |key: &str| -> Vec<Vec<f32>> {
        doc[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap() as f32)
                    .collect()
            })
            .collect()
    };
    let (logits, embedding) = (rows("logits"), rows("embedding"));
    for runtime in [Runtime::Direct, Runtime::Tract] {
        let m = OccupancyModel::load_with(&model, runtime).unwrap();
        if runtime == Runtime::Direct {
            // The shipped model is one the direct engine runs.
            assert!(m.runtime().starts_with("direct"), "{}", m.runtime());
        }
        let out = m.run(&crops).unwrap();
        assert_eq!(out.len(), specs.len());
        let mut worst = 0f32;
        for (i, r) in out.iter().enumerate() {
            assert_eq!(r.embedding.len(), embedding[i].len());
            for (a, b) in r
                .logits
                .iter()
                .chain(&r.embedding)
                .zip(logits[i].iter().chain(&embedding[i]))
            {
                worst = worst.max((a - b).abs());
            }
        }
        assert!(worst <= 1e-4, "{}: {worst} from onnxruntime", m.runtime());
    }
}
