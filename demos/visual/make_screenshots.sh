#!/usr/bin/env bash
# Regenerates the screenshots of gfxq-visual in docs/images (README "Visual demo", docs/VISUAL_DEMO.md).
# Headless (EGL, no display needed); the third one runs the compute backend (Vulkan; lavapipe will do).
# usage: demos/visual/make_screenshots.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
exe="${1:-build}/gfxq-visual"
out=docs/images
mkdir -p "$out"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"

# A 3-clause CNF on sorted columns, after clause 2's comparison: the records of clause 1's failures
# are rejected (red), the ones b >= -500 just satisfied are valid (green), the rest wait (amber).
"$exe" --dist sorted --screenshot "$out/visual_cnf_clause2.png" --pass 10 \
  --query "SELECT COUNT(*) FROM t WHERE (a < 300000 OR c > 0.8) AND b >= -500 AND (c < 0.9 OR b = 7)"
# The count pass of a 2-clause CNF on 10,000 uniform rows: the occlusion query counts the valid records.
"$exe" --rows 10000 --screenshot "$out/visual_count_pass.png" --pass last \
  --query "SELECT COUNT(*) FROM t WHERE b < 0 AND (a > 500000 OR c < 0.25)"
# AVG of a FLOAT column: the raster backend says Unsupported, the compute backend's stages are listed.
"$exe" --screenshot "$out/visual_compute_stages.png" \
  --query "SELECT COUNT(*), AVG(c) FROM t WHERE b > 900"
echo "gfxq-visual screenshots written to $out"
