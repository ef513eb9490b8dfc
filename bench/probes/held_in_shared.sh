#!/usr/bin/env bash
# On the GPU machine: builds bench/probes/held_in_shared.cu (rows held in shared memory against
# rows held in registers) and runs it at 4096 and 8192 rows, then the seed's kernels through
# tilejit-softmax at the same shapes for scale (CUDA events, L2 flushed, against a copy).
# Output to stdout and $OUT/held_in_shared.log.
#
#   OUT=out [TILEJIT_SOFTMAX=build-gpu/examples/tilejit-softmax] bash bench/probes/held_in_shared.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
BIN=${TILEJIT_SOFTMAX:-build-gpu/examples/tilejit-softmax}
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o "$OUT/held_in_shared" bench/probes/held_in_shared.cu \
  2>"$OUT/held_in_shared_build.log" || { cat "$OUT/held_in_shared_build.log"; exit 1; }
{
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
  for rows in 4096 8192; do timeout 200 "$OUT/held_in_shared" "$rows" 100 || echo "  failed at $rows rows (rc $?)"; done
  if [[ -x $BIN ]]; then
    for shape in bf16:16384 bf16:8192 f32:8192 f32:16384; do
      echo "tilejit-softmax --kernel simple --dtype ${shape%:*} --rows 4096 --cols ${shape#*:}"
      timeout 120 "$BIN" --kernel simple --dtype "${shape%:*}" --rows 4096 --cols "${shape#*:}" | tail -n 1
    done
  fi
} 2>&1 | tee "$OUT/held_in_shared.log"
