#!/usr/bin/env bash
# On the GPU machine: the same tilejit-softmax probes through two source trees, rounds alternating
# between them, so drift over the run falls on both. Each tree is built (tilejit-softmax only) in
# its own build-gpu/ and runs with its own kernel cache. Each line of PROBES_FILE is an argument
# list; every run's bandwidth line goes to $OUT/ab.md.
#
#   A=tree-a B=tree-b OUT=out PROBES_FILE=probes.txt [ROUNDS=3] bash scripts/ab-probe.sh
set -u
OUT=${OUT:-out}
ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT"
for tree in "${A:?the first tree}" "${B:?the second tree}"; do
  (cmake -S "$tree" -B "$tree/build-gpu" -DTILEJIT_WITH_LLVM=OFF -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$tree/build-gpu" -j"$(nproc)" --target tilejit-softmax) >"$OUT/build-$(basename "$tree").log" 2>&1 ||
    { echo "ab-probe: the build of $tree failed (see $OUT/build-$(basename "$tree").log)"; exit 1; }
done
report=$OUT/ab.md
echo "| arguments | tree | round | result |" >"$report"
echo "|---|---|---|---|" >>"$report"
while IFS= read -r args; do
  [[ -z ${args// /} || $args == \#* ]] && continue
  for ((r = 1; r <= ROUNDS; r++)); do
    for tree in "$A" "$B"; do
      # shellcheck disable=SC2086  # an argument list
      log=$(TILEJIT_CACHE_DIR="$tree/kc" timeout 120 "$tree/build-gpu/examples/tilejit-softmax" $args --reps 20 2>&1)
      echo "$log" >>"$OUT/ab.log"
      result=$(echo "$log" | grep -E 'GB/s|rror|FAIL' | tail -n 1)
      echo "| $args | $(basename "$tree") | $r | $result |" | tee -a "$report"
    done
  done
done <"${PROBES_FILE:?a file of tilejit-softmax argument lists}"
