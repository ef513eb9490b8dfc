#!/usr/bin/env bash
# On the GPU machine: the register-slices probe's best order (4) against the op's walks on the
# same shapes, in turn, ROUNDS times (default 2), both timed with CUDA events after an L2 flush.
# Builds the probe and tilejit-softmax (build-gpu/, no LLVM) in parallel first.
# Output to stdout and $OUT/register_slices_ab.log.
set -uo pipefail
# shellcheck source=bench/probes/probe_build.sh
source "$(dirname "$0")/probe_build.sh"
ROUNDS=${ROUNDS:-2}
build_probe_and_op bench/probes/register_slices.cu /tmp/slices || exit 1
# probe arguments | tilejit-softmax arguments
shapes=("f32 16 4194304 1 1024x8 4 0|--rows 16 --cols 4194304"
        "bf16 128 1048576 8 512x8@2 4 0|--dtype bf16 --rows 128 --cols 1048576")
{
  for ((r = 1; r <= ROUNDS; r++)); do
    for s in "${shapes[@]}"; do
      echo "round $r: probe ${s%%|*}"
      # shellcheck disable=SC2086  # argument lists
      timeout 60 /tmp/slices ${s%%|*} | tail -n 1
      echo "round $r: op ${s#*|}"
      # shellcheck disable=SC2086
      timeout 60 build-gpu/examples/tilejit-softmax ${s#*|} --reps 50 | grep -E 'library op|GB/s'
    done
  done
} 2>&1 | tee "$OUT/register_slices_ab.log"
