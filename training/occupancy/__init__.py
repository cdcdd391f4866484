"""Training pipeline for boardscribe's occupancy classifier.

The Rust library cuts the crops (src/classify/crop.rs) and writes them as datasets;
this package only learns from them and exports the ONNX model the runtime loads
(src/classify/model.rs). Nothing here knows about board geometry, on purpose: the
crop geometry lives once, in the library.
"""

CLASSES = ("empty", "white", "black", "occluded")
CROP_H, CROP_W = 40, 32
EMBEDDING_DIM = 32
