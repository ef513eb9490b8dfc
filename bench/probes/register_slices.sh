#!/usr/bin/env bash
# On the GPU machine: builds bench/probes/register_slices.cu and runs it once for each line of
# $CONFIGS (default bench/probes/register_slices.txt: dtype rows cols groups threadsxchunks order mode
# [reps]). Output to stdout and $OUT/register_slices.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/slices bench/probes/register_slices.cu || exit 1
CONFIGS=${CONFIGS:-bench/probes/register_slices.txt}
{
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
  grep -v '^#' "$CONFIGS" | while read -r line; do
    [[ -z $line ]] && continue
    timeout 60 /tmp/slices $line || echo "  failed: $line (rc $?)"
  done
} 2>&1 | tee "$OUT/register_slices.log"
