#!/bin/sh
# Issue 29's measures, counted the way the issue's figures were taken:
#   public items: lines declaring a `pub` (not `pub(crate)`/`pub(super)`) fn,
#     struct, enum, trait, type, const, static or mod in the library crates'
#     sources (crates/core, crates/vision, crates/round, and crates/rng: the
#     seeded generator's items were moved out of the core, so they count as
#     library items still; their unit tests included); `pub use` re-exports, enum variants and
#     fields are not counted;
#   command-line code: the lines of the `boardscribe` binary's sources (src/,
#     its unit tests included; the shared kit crates/cli is counted apart).
# Run from the repository root: sh tests/tools/api_size.sh
set -eu
items=$(grep -rE '^\s*pub (async |unsafe )?(fn|struct|enum|trait|type|const|static|mod)\b' \
    crates/core/src crates/vision/src crates/round/src crates/rng/src | wc -l)
uses=$(grep -rE '^\s*pub use\b' crates/core/src crates/vision/src crates/round/src crates/rng/src | wc -l)
cli=$(find src -name '*.rs' -exec cat {} + | wc -l)
kit=$(find crates/cli/src -name '*.rs' -exec cat {} + | wc -l)
echo "public items (core, vision, round, rng): $items (pub use lines besides: $uses)"
echo "command-line code (src/): $cli lines (crates/cli kit: $kit)"
