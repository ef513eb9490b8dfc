#!/usr/bin/env bash
# GPU benchmarks, run by scripts/gpu-check.sh on the GPU machine. Writes under $OUT:
# softmax.md and softmax.png (tilejit vs torch vs Triton vs device copy).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TILEJIT_BUILD_DIR:-build-gpu}
OUT=${OUT:-out}
mkdir -p "$OUT"
PYTHONUNBUFFERED=1 python3 bench/softmax_bench.py --lib "$BUILD/libtilejit_c.so" --out "$OUT" ${BENCH_ARGS:-}
