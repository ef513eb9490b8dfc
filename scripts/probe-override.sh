#!/usr/bin/env bash
# On the GPU machine: measures a hand edit of generated CUDA C against the kernel as generated.
# Each line of PROBES_FILE is `<edit> | <tilejit-softmax arguments>`, the edit a sed expression or
# `@<script>`, a program (path from the repository root) that takes a dumped kernel's file and
# prints the edited text. For each line the kernel is built as generated (NVRTC,
# TILEJIT_CODEGEN=cuda) with its CUDA C dumped, the edit is applied to every dumped kernel, and
# the edited text is built through
# TILEJIT_OVERRIDE_DIR. The two then run in turn, ROUNDS times each (generated first), every run
# checked against float64 by tilejit-softmax itself. Each run's PTX line (registers, spills) and
# bandwidth line go to $OUT/override.md.
#
#   OUT=out PROBES_FILE=edits.txt [ROUNDS=2] bash scripts/probe-override.sh   (after a build-gpu/ build)
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
OUT=${OUT:-out}
ROUNDS=${ROUNDS:-2}
BIN=${TILEJIT_SOFTMAX:-build-gpu/examples/tilejit-softmax}
mkdir -p "$OUT"
work=$(mktemp -d)
export TILEJIT_CODEGEN=cuda
report=$OUT/override.md
echo "| arguments | edit | kernel | registers | result |" >"$report"
echo "|---|---|---|---|---|" >>"$report"
i=0
# Runs one form and appends its row: form name, cache dir, extra environment.
run_form() {
  local form=$1 cache=$2 args=$3 edit=$4
  shift 4
  local log words
  # Words as the shell splits them, quotes honoured (--config "group BLOCK=8192 warps=8").
  mapfile -t words < <(xargs printf '%s\n' <<<"$args")
  log=$(env "$@" TILEJIT_CACHE_DIR="$cache" timeout 120 "$BIN" "${words[@]}" --reps 20 2>&1)
  echo "$log" >>"$OUT/override.log"
  local regs result
  regs=$(echo "$log" | grep -E '^PTX' | sed -E 's/.*\(([^)]*)\).*/\1/' | paste -sd';' -)
  result=$(echo "$log" | grep -E 'GB/s|rror|FAIL' | tail -n 1)
  echo "| $args | ${edit:0:60} | $form | $regs | $result |" | tee -a "$report"
}
while IFS= read -r line; do
  [[ -z ${line// /} || $line == \#* ]] && continue
  i=$((i + 1))
  edit=${line%%|*}
  args=${line#*|}
  edit=$(echo "$edit" | sed 's/[[:space:]]*$//')
  dump=$work/dump_$i ovr=$work/ovr_$i
  mkdir -p "$dump" "$ovr"
  echo "=== $i: $args (edit: $edit)" >>"$OUT/override.log"
  run_form generated "$work/cache_gen_$i" "$args" "" TILEJIT_DUMP=cuda TILEJIT_DUMP_DIR="$dump"
  for f in "$dump"/*.cuda; do
    [[ -f $f ]] || continue
    if [[ $edit == @* ]]; then
      "./${edit#@}" "$f" >"$ovr/$(basename "$f")" || echo "probe $i: the edit failed on $(basename "$f")" | tee -a "$report"
    else
      sed -E "$edit" "$f" >"$ovr/$(basename "$f")"
    fi
    cmp -s "$f" "$ovr/$(basename "$f")" && echo "probe $i: the edit changed nothing in $(basename "$f")" | tee -a "$report"
  done
  run_form edited "$work/cache_ovr_$i" "$args" "$edit" TILEJIT_OVERRIDE_DIR="$ovr"
  for ((r = 1; r < ROUNDS; r++)); do
    run_form generated "$work/cache_gen_$i" "$args" ""
    run_form edited "$work/cache_ovr_$i" "$args" "$edit" TILEJIT_OVERRIDE_DIR="$ovr"
  done
done <"${PROBES_FILE:?a file of 'sed expression | tilejit-softmax arguments' lines}"
rm -rf "$work"
