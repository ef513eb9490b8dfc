#!/usr/bin/env bash
# GPU benchmarks, run by scripts/gpu-check.sh on the GPU machine. Writes under $OUT (3 files):
# softmax.md and softmax.png (tilejit vs torch vs Triton vs device copy), and latency.md
# (bench-latency: tilejit's compile and launch latency, with Triton's measured the same way).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TILEJIT_BUILD_DIR:-build-gpu}
OUT=${OUT:-out}
mkdir -p "$OUT"
PYTHONUNBUFFERED=1 python3 bench/softmax_bench.py --lib "$BUILD/libtilejit_c.so" --out "$OUT" ${BENCH_ARGS:-}
"$BUILD/bench/bench-latency" --out "$OUT"
# Triton beside it, in the same file (a failure here does not lose tilejit's numbers).
{
  echo
  timeout 120 python3 bench/latency_triton.py || echo "(Triton latency measurement failed: exit $?)"
} | tee -a "$OUT/latency.md"
