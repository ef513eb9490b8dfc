#!/usr/bin/env bash
# GPU benchmarks, run by scripts/gpu-check.sh on the GPU machine. Writes under $OUT:
#   softmax    softmax.md, softmax.png: tilejit vs torch vs torch.compile vs Triton vs device copy
#   latency    latency.md: bench-latency (compile and launch latency), Triton's measured the same way
#   sweep      seed_sweep.md: the persistent seed kernel over num_warps x num_stages
#   tune       tune.md and tune/autotune-*.txt: the softmax autotuner over the benchmark shapes
#   tuned      the autotuner (TUNE_ARGS, e.g. "--shapes 16x4194304,128x1048576"), then softmax_bench.py
#              (BENCH_ARGS) with its file in effect
#              (the op reads a tuning file before the shipped table): its picks under do_bench before
#              any enters a device table. tuned/tune.md, tuned/autotune-*.txt, tuned/softmax.md
#   latency-ptx, sweep-ptx   the same with TILEJIT_CODEGEN=ptx, the PTX generator
#                            (ptx/latency.md, seed_sweep_ptx.md); the default is tiered
#   latency-cuda    bench-latency with TILEJIT_CODEGEN=cuda, CUDA C + NVRTC (cuda/latency.md)
#   generators  tilejit's op and seed kernels (and copy) through each generator, cuda, ptx, then
#               tiered: generators/<generator>/softmax.md
#   probe       tilejit-softmax once per argument list in PROBES (';'-separated) or, when PROBES is
#               empty, per line of the file PROBES_FILE (relative to the repository root; # comments;
#               quotes group words, as in the shell: --config "group BLOCK=8192 warps=8"), e.g.
#               forced configurations: probe.log, and the last line of each (its bandwidth) in probe.md.
#               An argument list may start with environment assignments (TILEJIT_CODEGEN=ptx --rows ...).
#               bench/probes_wide_rows.txt: the wide rows' table entries and the candidates to try next
#   l2          bench/l2_persisting.py (L2_ARGS): ops::softmax with an L2 set-aside for persisting
#               accesses against none, rounds alternating, once per ';'-separated argument list in
#               L2_ARGS: l2_persisting.md
#   host        bench/host_overhead.py, Python's host time per call: host_overhead.md; with HOST_REF (a git
#               revision) also the Python package as it was there, runs alternating, two each
#   ab          bench/tree_ab.sh: the op built from AB_REF (a landed revision) against this tree's, on
#               SHAPES, processes alternating: tree_ab.md
#   held        bench/probes/held_in_shared.sh: rows held in shared memory against rows held in
#               registers, a hand-written probe (held_in_shared.log)
#   borrowed    softmax_bench.py (BENCH_ARGS) for BORROW_IMPLS (default the op and torch) twice: with
#               the op's own choice (its shipped tables) and with BORROW_TABLE (default the H200's,
#               src/ops/tuned/NVIDIA_H200.txt) installed as this device's tuning file, which the op
#               asks first, band by band: borrowed/own/softmax.md, borrowed/<table's name>/softmax.md
#   opcompile   bench-op-compile: the op's kernels for each benchmark shape compiled cold through each
#               CUDA generator (no GPU needed): op_compile.md
#   none        nothing (a tests-only gpu-check run)
# BENCHES (space-separated, default "softmax latency") picks which run, in that order.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TILEJIT_BUILD_DIR:-build-gpu}
OUT=${OUT:-out}
mkdir -p "$OUT"
# The autotuner over TUNE_ARGS into a scratch cache directory (printed), its report to $2 and its
# tuned file to the directory $1; the caller removes the scratch directory.
tune_into() {
  local scratch
  scratch=$(mktemp -d)
  rm -rf "$1" && mkdir -p "$1"
  TILEJIT_CACHE_DIR=$scratch "$BUILD/bench/bench-tune-softmax" --out "$2" ${TUNE_ARGS:-} >&2
  cp "$scratch"/autotune-*.txt "$1/"
  echo "$scratch"
}
for bench in ${BENCHES:-softmax latency}; do
  echo "---- bench: $bench"
  case $bench in
    softmax)
      PYTHONUNBUFFERED=1 python3 -X faulthandler bench/softmax_bench.py --lib "$BUILD/libtilejit_c.so" --out "$OUT" ${BENCH_ARGS:-} ;;
    generators)
      for gen in cuda ptx tiered; do
        TILEJIT_CODEGEN=$gen PYTHONUNBUFFERED=1 python3 bench/softmax_bench.py --lib "$BUILD/libtilejit_c.so" \
          --out "$OUT/generators/$gen" --impls copy,tilejit_op,tilejit_seed ${BENCH_ARGS:-}
      done ;;
    latency)
      "$BUILD/bench/bench-latency" --out "$OUT"
      # Triton beside it, in the same file (a failure here does not lose tilejit's numbers).
      {
        echo
        timeout 120 python3 bench/latency_triton.py || echo "(Triton latency measurement failed: exit $?)"
      } | tee -a "$OUT/latency.md" ;;
    l2)
      # L2_ARGS: ';'-separated argument lists, one run each
      IFS=';' read -ra l2_runs <<<"${L2_ARGS:- }"
      for l2_args in "${l2_runs[@]}"; do
        # shellcheck disable=SC2086  # an argument list
        PYTHONUNBUFFERED=1 python3 bench/l2_persisting.py --lib "$BUILD/libtilejit_c.so" $l2_args | tee -a "$OUT/l2_persisting.md"
      done ;;
    host)
      packages=(examples/python)
      if [[ -n ${HOST_REF:-} ]]; then
        ref_dir=$(mktemp -d)
        git archive "$HOST_REF" examples/python/tilejit | tar -x -C "$ref_dir"
        packages=("$ref_dir/examples/python" examples/python "$ref_dir/examples/python" examples/python)
      fi
      for package in "${packages[@]}"; do
        python3 bench/host_overhead.py --lib "$BUILD/libtilejit_c.so" --package "$package" | tee -a "$OUT/host_overhead.md"
      done ;;
    sweep) "$BUILD/bench/bench-seed-sweep" --out "$OUT/seed_sweep.md" ;;
    held) OUT=$OUT TILEJIT_SOFTMAX=$BUILD/examples/tilejit-softmax bash bench/probes/held_in_shared.sh ;;
    ab) OUT=$OUT TILEJIT_BUILD_DIR=$BUILD bash bench/tree_ab.sh ;;
    probe)
      echo "| arguments | result |" >"$OUT/probe.md"
      echo "|---|---|" >>"$OUT/probe.md"
      if [[ -n ${PROBES:-} ]]; then
        IFS=';' read -ra probes <<<"$PROBES"
      elif [[ -n ${PROBES_FILE:-} ]]; then
        mapfile -t probes < <(grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#' "$PROBES_FILE")
      else
        probes=()
      fi
      for probe in "${probes[@]}"; do
        # Words as the shell splits them, quotes honoured (--config "group BLOCK=8192 warps=8").
        mapfile -t words < <(xargs printf '%s\n' <<<"$probe")
        assignments=()
        while [[ ${#words[@]} -gt 0 && ${words[0]} == *=* ]]; do
          assignments+=("${words[0]}")
          words=("${words[@]:1}")
        done
        # A probe that fails (e.g. a configuration the device cannot hold) reports its last line too.
        result=$(timeout 120 env "${assignments[@]}" "$BUILD/examples/tilejit-softmax" "${words[@]}" 2>&1 |
          tee -a "$OUT/probe.log" | tail -n 1) || true
        echo "| $probe | $result |" | tee -a "$OUT/probe.md"
      done ;;
    borrowed)
      # The tuning file's name as softmax_tuning_file() spells it for this device.
      name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
      table=${BORROW_TABLE:-src/ops/tuned/NVIDIA_H200.txt}
      label=$(basename "$table" .txt)
      own=$(mktemp -d) borrowed=$(mktemp -d)
      cp "$table" "$borrowed/autotune-$(echo "$name" | sed 's/[^A-Za-z0-9().-]/_/g').txt"
      for run in own "$label"; do
        dir=$own
        [[ $run == own ]] || dir=$borrowed
        TILEJIT_CACHE_DIR=$dir PYTHONUNBUFFERED=1 python3 bench/softmax_bench.py --lib "$BUILD/libtilejit_c.so" \
          --out "$OUT/borrowed/$run" --impls "${BORROW_IMPLS:-tilejit_op,torch}" ${BENCH_ARGS:-}
      done
      rm -rf "$own" "$borrowed" ;;
    opcompile) "$BUILD/bench/bench-op-compile" --out "$OUT/op_compile.md" ;;
    none) ;;
    sweep-ptx) TILEJIT_CODEGEN=ptx "$BUILD/bench/bench-seed-sweep" --out "$OUT/seed_sweep_ptx.md" ;;
    latency-ptx)
      mkdir -p "$OUT/ptx"
      TILEJIT_CODEGEN=ptx "$BUILD/bench/bench-latency" --out "$OUT/ptx" ;;
    latency-cuda)
      mkdir -p "$OUT/cuda"
      TILEJIT_CODEGEN=cuda "$BUILD/bench/bench-latency" --out "$OUT/cuda" ;;
    tune)
      # Kernels and the tuned file go to a scratch cache; only the tuned file is kept.
      scratch=$(tune_into "$OUT/tune" "$OUT/tune.md")
      rm -rf "$scratch" ;;
    tuned)
      scratch=$(tune_into "$OUT/tuned" "$OUT/tuned/tune.md")
      TILEJIT_CACHE_DIR=$scratch PYTHONUNBUFFERED=1 python3 bench/softmax_bench.py --lib "$BUILD/libtilejit_c.so" \
        --out "$OUT/tuned" ${BENCH_ARGS:-}
      rm -rf "$scratch" ;;
    *) echo "run_all.sh: unknown bench '$bench'" >&2; exit 2 ;;
  esac
done
