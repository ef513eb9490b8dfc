#!/usr/bin/env bash
# On the GPU machine: ops::softmax as built from a landed revision (AB_REF) against this tree's,
# under do_bench (bench/softmax_bench.py: L2 flushed, median), in fresh processes that alternate
# between the two libraries, ROUNDS of each. A kernel change is judged by its own A/B in one lease,
# where separate tables would compare different leases. Each library keeps its own kernel cache.
#
#   OUT=out AB_REF=<revision> SHAPES=MxN[,MxN...] [ROUNDS=2] [REPEAT=3] bash bench/tree_ab.sh
#
# Writes $OUT/tree_ab.md: per dtype and shape, the median over processes of the op's time and of
# its fraction of the copy (C, timed in the same process), for AB_REF and for this tree, and the
# ratio of the times (this tree / AB_REF; below 1 is faster). softmax_bench.py checks every
# output against float64 before timing it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TILEJIT_BUILD_DIR:-build-gpu}
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ref=${AB_REF:?a landed git revision}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The reference library, configured as scripts/gpu-check.sh configures this tree.
mkdir -p "$work/src"
git archive "$ref" | tar -x -C "$work/src"
cmake -S "$work/src" -B "$work/build" -DTILEJIT_WITH_LLVM=OFF -DCMAKE_BUILD_TYPE=Release \
  ${CUDA_ROOT:+-DCUDAToolkit_ROOT=$CUDA_ROOT} >"$work/configure.log"
cmake --build "$work/build" -j "${JOBS:-16}" --target tilejit_c >"$work/build.log"

# The table so far (after every process: a run cut short keeps what it measured).
summarize() {
  python3 - "$work/rows" "$ref" "$(git rev-parse --short HEAD)" "${REPEAT:-3}" >"$OUT/tree_ab.md" <<'EOF'
import glob, json, os, statistics, sys
rows_dir, ref, head, repeat = sys.argv[1:]
runs = {"ref": [], "tree": []}
for path in sorted(glob.glob(os.path.join(rows_dir, "*.json"))):
    runs[os.path.basename(path).split("-")[0]].append(json.load(open(path)))
def per_shape(side):
    out = {}
    for run in runs[side]:
        for r in run:
            out.setdefault((r["dtype"], r["m"], r["n"]), []).append((r["time"]["tilejit_op"], r["fraction"]["tilejit_op"]))
    return out
a, b = per_shape("ref"), per_shape("tree")
print(f"# ops::softmax, {ref} against this tree (HEAD {head} plus what the copy carried)\n")
print(f"Method: bench/softmax_bench.py (do_bench median, L2 flushed; {repeat} rounds a process), "
      f"{len(runs['ref'])} processes of each library, alternating; fraction of C against the copy timed in the same "
      "process; medians over processes, the range of the op's times in brackets.\n")
print("| dtype | M | N | ref time (us) | ref fraction of C | tree time (us) | tree fraction of C | tree / ref |")
print("|---|---|---|---|---|---|---|---|")
for key in sorted(a, key=lambda k: (k[0], k[1] * k[2], k[2])):
    if key not in b:
        continue
    ta, fa = statistics.median(t for t, _ in a[key]), statistics.median(f for _, f in a[key])
    tb, fb = statistics.median(t for t, _ in b[key]), statistics.median(f for _, f in b[key])
    span = lambda xs: f"{min(t for t, _ in xs) * 1e3:.1f}-{max(t for t, _ in xs) * 1e3:.1f}"
    print(f"| {key[0]} | {key[1]} | {key[2]} | {ta * 1e3:.1f} [{span(a[key])}] | {fa:.2f} | "
          f"{tb * 1e3:.1f} [{span(b[key])}] | {fb:.2f} | {tb / ta:.3f} |")
EOF
}

declare -A lib=([ref]="$work/build/libtilejit_c.so" [tree]="$BUILD/libtilejit_c.so")
mkdir -p "$work/cache-ref" "$work/cache-tree" "$work/rows"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in ref tree; do
    echo "--- round $round: $side"
    TILEJIT_CACHE_DIR=$work/cache-$side PYTHONUNBUFFERED=1 python3 -X faulthandler bench/softmax_bench.py \
      --lib "${lib[$side]}" --out "$work/out" --shapes "${SHAPES:?MxN shapes}" --impls copy,tilejit_op \
      --repeat "${REPEAT:-3}" --json "$work/rows/$side-$round.json"
    summarize
  done
done

cat "$OUT/tree_ab.md"
