#!/usr/bin/env bash
# On the GPU machine: the op under forced configurations beside its shipped table, each line of
# $CONFIGS run in turn, ROUNDS times (default 2), so drift over the run lands on every line alike.
# Each run is one tilejit-softmax process: CUDA events, L2 flushed before each launch, the median
# of --reps launches against a device-to-device copy of the same bytes, the output checked against
# float64 first and again after the timed launches. Builds tilejit-softmax (build-gpu/, no LLVM).
#
#   OUT=out CONFIGS=bench/held_slices.txt [ROUNDS=2] [REPS=100] bash bench/config_ab.sh
#
# CONFIGS: lines "<tilejit-softmax arguments>|<configuration>", the configuration as describe()
# writes it (e.g. "group BLOCK=4096 warps=32 group=128 overlap"), or `table` for the shipped table;
# # starts a comment. Output to stdout and $OUT/config_ab.log.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
{ cmake -S . -B build-gpu -DTILEJIT_WITH_LLVM=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build build-gpu --target tilejit-softmax -j "${JOBS:-16}" >/dev/null; } || exit 1
mapfile -t lines < <(grep -v -e '^#' -e '^[[:space:]]*$' "${CONFIGS:?a file of configuration lines}")
{
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
  for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
    for line in "${lines[@]}"; do
      args=${line%%|*} config=${line#*|}
      forced=()
      [[ $config != table ]] && forced=(--config "$config")
      echo "round $r | $args | $config"
      # shellcheck disable=SC2086  # the arguments are a list
      timeout 120 build-gpu/examples/tilejit-softmax $args "${forced[@]}" --reps "${REPS:-100}" 2>&1 |
        grep -E 'library op|check|GB/s|rror' || echo "  failed (rc ${PIPESTATUS[0]})"
    done
  done
} 2>&1 | tee "$OUT/config_ab.log"
