#!/usr/bin/env bash
# On the GPU machine: the library op under do_bench (bench/softmax_bench.py) with one candidate
# configuration at a time in effect, beside the copy and torch.softmax, in fresh processes. The op
# reads a tuning file ($TILEJIT_CACHE_DIR/autotune-<device>.txt) before the shipped table, so
# each candidate runs as a one-line tuning file in its own cache directory; the line `table`
# runs the shipped table. Judges a table entry against its alternatives the way the tables are
# judged, across processes, where one process's CUDA events cannot order them.
#
#   OUT=out CANDIDATES=file SHAPES=32768x512[,MxN...] [PROCESSES=3] [REPEAT=3] bash bench/op_candidates.sh
#
# CANDIDATES: one tuning-file entry per line ("<element bytes> <rows band> <N band> : ..."), or
# `table`; a line may hold entries for several bands, separated by " ; " (say one for f32 and one
# for bf16: each shape's dtypes then time their own candidate in one run). Writes
# $OUT/candidates.md (the op's and torch's rows) and $OUT/candidates_full.md (each line's whole
# table, one after another).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TILEJIT_BUILD_DIR:-build-gpu}
OUT=${OUT:-out}
mkdir -p "$OUT"
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | sed 's/[^A-Za-z0-9.()-]/_/g')
summary=$OUT/candidates.md
: >"$OUT/candidates_full.md"
echo "| candidate | dtype | M | N | impl | time (us) | GB/s | fraction of C | range over processes |" >"$summary"
echo "|---|---|---|---|---|---|---|---|---|" >>"$summary"
i=0
while IFS= read -r line; do
  [[ -z ${line// /} || $line == \#* ]] && continue
  i=$((i + 1))
  dir=$(mktemp -d) cache=$(mktemp -d)
  if [[ $line != table ]]; then
    printf 'tilejit-softmax-autotune v2\n%s\n' "${line// ; /$'\n'}" >"$cache/autotune-$device.txt"
  fi
  TILEJIT_CACHE_DIR=$cache python3 bench/softmax_bench.py --lib "$BUILD/libtilejit_c.so" --out "$dir" \
    --shapes "${SHAPES:?MxN shapes}" --impls copy,tilejit_op,torch --processes "${PROCESSES:-3}" \
    --repeat "${REPEAT:-3}" >"$dir/run.log" 2>&1 || { echo "candidate $i failed:" && tail -n 5 "$dir/run.log"; } | tee -a "$summary"
  grep -E '\| (tilejit_op|torch) \|' "$dir/softmax.md" | sed "s/^/| $line /" | tee -a "$summary" || true
  { echo "## $line" && echo && cat "$dir/softmax.md" 2>/dev/null; echo; } >>"$OUT/candidates_full.md"
  rm -rf "$cache" "$dir"
done <"${CANDIDATES:?a file of candidate lines}"
