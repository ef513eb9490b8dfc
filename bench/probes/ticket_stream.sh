#!/usr/bin/env bash
# On the GPU machine: builds bench/probes/ticket_stream.cu and runs it once for each line of
# $CONFIGS (default bench/probes/ticket_stream.txt), then the library op on the same four shapes, in its own
# choice and in the H200 table's (tilejit-softmax, CUDA events after an L2 flush), ROUNDS times in turn (default 1).
# Output to stdout and $OUT/ticket_stream.log.
set -uo pipefail
# shellcheck source=bench/probes/probe_build.sh
source "$(dirname "$0")/probe_build.sh"
ROUNDS=${ROUNDS:-1}
build_probe_and_op bench/probes/ticket_stream.cu /tmp/ticket_stream || exit 1
CONFIGS=${CONFIGS:-bench/probes/ticket_stream.txt}
{
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
  for ((r = 1; r <= ROUNDS; r++)); do
    grep -v '^#' "$CONFIGS" | while read -r line; do
      [[ -z $line ]] && continue
      # shellcheck disable=SC2086  # an argument list
      timeout 60 /tmp/ticket_stream $line || echo "  failed: $line (rc $?)"
    done
    # The op's own choice, then the H200 table's entries for these shapes (on any GPU).
    shapes=("--rows 16 --cols 4194304" "--rows 128 --cols 1048576"
            "--dtype bf16 --rows 16 --cols 4194304" "--dtype bf16 --rows 128 --cols 1048576")
    table=("group BLOCK=8192 warps=16 stages=2 group=64" "group BLOCK=8192 warps=8 stages=1 group=64"
           "group BLOCK=8192 warps=16 stages=1 group=64" "group BLOCK=8192 warps=8 stages=1 group=32")
    for i in 0 1 2 3; do
      for config in "" "${table[$i]}"; do
        echo "round $r: op ${shapes[$i]} ${config:+--config \"$config\"}"
        # shellcheck disable=SC2086  # an argument list
        timeout 60 build-gpu/examples/tilejit-softmax ${shapes[$i]} ${config:+--config "$config"} --reps 50 |
          grep -E 'library op|GB/s|copy'
      done
    done
  done
} 2>&1 | tee "$OUT/ticket_stream.log"
