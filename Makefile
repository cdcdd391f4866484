# boardscribe: `make demo` and `make test` are all a new user needs.
SHELL := /bin/bash
CARGO ?= cargo
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := libopencv-dev clang libclang-dev pkg-config

.PHONY: deps build demo test test-sweeps test-core bench model model-points ort-reference commands-doc fmt clean

# OpenCV and libclang (for the opencv crate's bindings) from Debian/Ubuntu packages,
# installed only when pkg-config cannot find OpenCV.
deps:
	@if ! pkg-config --exists opencv4 2>/dev/null || ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then \
		echo "installing $(APT_PACKAGES)"; \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(APT_PACKAGES); \
	fi

# The dev profile is optimised (see Cargo.toml), so demo and tests share one build;
# the workspace builds both binaries, `boardscribe` and the lab's `boardscribe-lab`.
build: deps
	$(CARGO) build --workspace

demo: build
	./target/debug/boardscribe-lab demo --out out/demo

# The tests on the real photo sets are ignored by plain `cargo test`; they run here
# when ../shared/data is there (as in CI). The live tests spend much of their time
# waiting on clips played at their real pace, so four run at once on two cores.
# The long sweeps (every module's `sweeps::`: twenty seeds of each rendered trouble,
# every resume cut point, twenty kills, a CPU measurement) are `make test-sweeps`.
TEST_THREADS ?= 4

test: deps
	$(CARGO) test --workspace -- --test-threads=$(TEST_THREADS)
	@if [ -d ../shared/data ]; then \
		echo "../shared/data found: running the tests on real photos"; \
		$(CARGO) test --workspace -- --ignored --skip sweeps:: --test-threads=$(TEST_THREADS); \
	else \
		echo "note: ../shared/data is absent; the tests on real photos (cargo test -- --ignored) were not run"; \
	fi

# The long sweeps, about 6.5 minutes (394 s) on two cores after `make test`'s build; CI
# runs them after `make test`.
test-sweeps: deps
	$(CARGO) test --workspace -- --ignored sweeps::

# The core crate (rules, records, inference) needs no OpenCV: its dependency tree
# must not hold it, and its tests run on a machine without OpenCV's files.
test-core:
	@if $(CARGO) tree -p boardscribe-core -e normal,build,dev --prefix none | grep -q '^opencv'; then \
		echo "boardscribe-core depends on OpenCV"; exit 1; \
	fi
	$(CARGO) test -p boardscribe-core

# Benchmarks run the release profile: every crate at opt-level 3, tract too (the
# dev profile builds tract at opt-level 1, see Cargo.toml).
bench: deps
	$(CARGO) build --workspace --release
	./target/release/boardscribe-lab bench

# Rebuild models/occupancy.onnx: renders, exports crops, trains (PyTorch, CPU), exports ONNX.
model: deps
	bash training/make_model.sh

# Rebuild models/occupancy-points.onnx, the model Go boards are read with: the same
# recipe with go-roboflow's stone photos added (models/README.md).
model-points: deps
	REAL_SETS="chess-ray-vision:4 chesscog-grey:4 raspberry-turk:2 webcam-pcwawc:8 imago-go:1 go-roboflow:1" \
	MODEL_OUT=models/occupancy-points.onnx REPORT=training/last_run_points.json \
	bash training/make_model.sh

# Refresh tests/data/ort_reference.json (onnxruntime's outputs the classifier test checks
# against) after models/occupancy.onnx changes. Needs numpy and onnxruntime (pip).
ort-reference:
	python3 tests/tools/ort_reference.py

# Rewrite docs/commands.md from the binary's help after a change to the command line
# (the test that builds it fails while the file differs).
commands-doc: deps
	$(CARGO) build --workspace
	BLESS=1 $(CARGO) test --test it commands_doc

fmt:
	$(CARGO) fmt

clean:
	$(CARGO) clean
	rm -rf out
