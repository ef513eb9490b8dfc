#!/usr/bin/env bash
# On the GPU machine: builds bench/probes/streamed_ring.cu and runs it once for each line of
# $CONFIGS (default bench/probes/streamed_ring.txt: dtype rows cols groups group_size threads slots
# lag l2_ahead [reps mode]). Output to stdout and $OUT/streamed_ring.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
nvcc -O3 -std=c++17 -arch=sm_90a -o "$OUT/ring" bench/probes/streamed_ring.cu || exit 1
CONFIGS=${CONFIGS:-bench/probes/streamed_ring.txt}
{
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
  grep -v '^#' "$CONFIGS" | while read -r line; do
    [[ -z $line ]] && continue
    timeout 60 "$OUT/ring" $line || echo "  failed: $line (rc $?)"
  done
} 2>&1 | tee "$OUT/streamed_ring.log"
