#!/usr/bin/env bash
# The one script run on the GPU machine (from the repository root of a copy of the working tree):
# builds without LLVM into build-gpu/, runs every test suite, runs the softmax demo over a few
# shapes, runs bench/run_all.sh when it exists, and ends with a summary table.
#
#   bash scripts/gpu-check.sh        # results under $OUT (default ./out)
#
# Files written under $OUT: ctest.log, softmax.log, python.log, build.log (configure + build
# output), plus whatever bench/run_all.sh writes there. Only the tail of stdout comes back, so the
# summary is printed last. Every step runs under a time limit taken from one overall budget
# (GPU_CHECK_BUDGET_S, default 540 s; the bench step at most BENCH_CAP_S, default 330 s), so the
# whole script ends within the 10-minute call limit. BENCHES picks the benchmarks
# (bench/run_all.sh); GPU_CHECK_TESTS=0 leaves ctest out (a benchmark-only run of a tree already
# tested in the session); GPU_CHECK_TESTS_REGEX runs only the suites it matches (ctest -R);
# GPU_CHECK_DEMO=0 leaves out the softmax demo over a few shapes and the Python example (about 35 s
# of device time);
# GPU_CHECK_CMAKE_ARGS adds configure options (e.g. -DTILEJIT_WITH_NVPTXCOMPILER=ON).
# Steps keep going after a failure; the exit status is non-zero if any step failed.
#
# If fmt or doctest are not installed on the GPU machine, run scripts/stage-gpu-deps.sh here first:
# the configure step falls back to -DCMAKE_PREFIX_PATH=$PWD/.gpu-deps.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
ROOT=$PWD

OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=build-gpu
JOBS=${JOBS:-16}
BUDGET=${GPU_CHECK_BUDGET_S:-540}
DEADLINE=$((SECONDS + BUDGET))
ROWS=4096
COLS_LIST=(1024 4096 16384)
KERNELS=(simple persistent op)  # op: ops::softmax, the default of tilejit-softmax

steps=() statuses=() times=() notes=()
failures=0
record() {  # name status seconds note
  steps+=("$1") statuses+=("$2") times+=("$3") notes+=("${4:-}")
  [[ $2 == ok || $2 == skipped ]] || failures=$((failures + 1))
}
# Seconds a step may take: its own cap, but never past the overall deadline (10 s kept for the end).
limit() {
  local left=$((DEADLINE - SECONDS - 10))
  ((left < $1)) && echo "$left" || echo "$1"
}
# run_step <name> <cap seconds> <log file> <command...>: runs with a time limit, tee'd to the log.
run_step() {
  local name=$1 cap=$2 log=$3
  shift 3
  local t
  t=$(limit "$cap")
  if ((t < 5)); then
    echo "gpu-check: $name: not run, out of time budget" | tee -a "$log"
    record "$name" "no time" 0
    return 1
  fi
  local start=$SECONDS rc
  timeout --kill-after=10 "$t" "$@" 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  if ((rc == 0)); then
    record "$name" ok $((SECONDS - start))
  elif ((rc == 124 || rc == 137)); then
    record "$name" "timeout ${t}s" $((SECONDS - start))
  else
    record "$name" "FAIL rc=$rc" $((SECONDS - start))
  fi
  return "$rc"
}
banner() { printf '\n==== %s ====\n' "$*"; }

# 1. Machine and toolchain.
banner "machine"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,power.limit,clocks.max.sm,clocks.max.mem \
    --format=csv || true
  nvidia-smi | sed -n '1,4p' || true
  record "nvidia-smi" ok 0
else
  echo "nvidia-smi not found"
  record "nvidia-smi" "missing" 0
fi
uname -srm
sed -n "s/^PRETTY_NAME=//p" /etc/os-release 2>/dev/null | tr -d '"' || true
g++ --version | head -n 1
cmake --version | head -n 1
CUDA_ROOT=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
if [[ -x $CUDA_ROOT/bin/nvcc ]]; then "$CUDA_ROOT/bin/nvcc" --version | tail -n 2; else echo "nvcc: not at $CUDA_ROOT/bin"; fi
# The copy sent here may carry git metadata older than its files: say how many paths differ from it.
if commit=$(git rev-parse --short HEAD 2>/dev/null); then
  echo "git: $commit ($(git status --porcelain 2>/dev/null | wc -l) paths differ from it)"
else
  echo "git: no .git here"
fi
echo "out: $OUT, budget: ${BUDGET}s, jobs: $JOBS"

# 2. Configure (falling back to the staged .gpu-deps for fmt/doctest) and build.
banner "configure + build ($BUILD/)"
buildlog=$OUT/build.log
: >"$buildlog"
cmake_args=(-S . -B "$BUILD" -DTILEJIT_WITH_LLVM=OFF -DCMAKE_BUILD_TYPE=Release)
[[ -f $CUDA_ROOT/include/nvrtc.h ]] && cmake_args+=(-DCUDAToolkit_ROOT="$CUDA_ROOT")
read -r -a extra_cmake_args <<<"${GPU_CHECK_CMAKE_ARGS:-}"
cmake_args+=("${extra_cmake_args[@]}")
configured=0
if run_step configure 120 "$buildlog" cmake "${cmake_args[@]}" >/dev/null; then
  configured=1
elif [[ -d .gpu-deps/lib/cmake ]]; then
  # Most likely fmt or doctest is missing here: not a failure if the staged copies work.
  echo "gpu-check: configure failed; retrying with the staged fmt/doctest in .gpu-deps" | tee -a "$buildlog"
  rm -f "$BUILD/CMakeCache.txt"
  if run_step "configure (.gpu-deps)" 120 "$buildlog" cmake "${cmake_args[@]}" \
    -DCMAKE_PREFIX_PATH="$ROOT/.gpu-deps" >/dev/null; then
    configured=1
    statuses[-2]="fell back"
    failures=$((failures - 1))
  fi
else
  echo "gpu-check: configure failed and there is no .gpu-deps (run scripts/stage-gpu-deps.sh before the GPU call)" |
    tee -a "$buildlog"
fi
built=0
if ((configured)); then
  if run_step build 300 "$buildlog" cmake --build "$BUILD" -j "$JOBS" >/dev/null; then
    built=1
    echo "build: ok"
  fi
fi
if ((!built)); then
  echo "---- last lines of $buildlog ----"
  grep -E -B 2 -A 10 'error|Error' "$buildlog" | tail -n 60 || tail -n 60 "$buildlog"
fi

# 3. Tests, every label, GPU_CHECK_CTEST_JOBS suites at a time (default 4; one at a time they take
# about 350 s on the H200 machine, the three kernel suites most of it, compiling kernels on the
# host). Each suite keeps its own disk-cache directory or shares one that is safe between
# processes. format_check is left out: it needs clang-format and a git checkout, neither of which
# the GPU machine has; CI runs it.
banner "ctest"
ctest_summary=""
if ((built)) && [[ ${GPU_CHECK_TESTS:-1} == 0 ]]; then
  record ctest skipped 0 "GPU_CHECK_TESTS=0"
  ctest_summary="not run (GPU_CHECK_TESTS=0)"
elif ((built)); then
  ctest_filter=(-E '^format_check$')
  [[ -n ${GPU_CHECK_TESTS_REGEX:-} ]] && ctest_filter+=(-R "$GPU_CHECK_TESTS_REGEX")
  run_step ctest 360 "$OUT/ctest.log" ctest --test-dir "$BUILD" --output-on-failure --timeout 180 \
    -j "${GPU_CHECK_CTEST_JOBS:-4}" "${ctest_filter[@]}"
  ctest_summary=$(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -n 1)
  # On this machine a skipped suite means the GPU was not usable (e.g. libcuda not found): a failure.
  # The CPU-backend suites are the exception: this build has no LLVM, and they say so when they skip.
  skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (\(Skipped\|Not Run\|Disabled\)).*/\1/p' "$OUT/ctest.log" |
    grep -vxE 'test_kernels_cpu|python_torch_cpu' | paste -sd, -)
  if [[ -n $skipped ]]; then
    ctest_summary+="; did not run: $skipped"
    record "ctest: suites not run" "FAIL" 0 "$skipped"
  fi
else
  record ctest "not built" 0
fi

# 4. Softmax demo across shapes and kernels (the PTX it writes goes to build-gpu/tilejit-dump).
banner "softmax"
export TILEJIT_DUMP_DIR=$ROOT/$BUILD/tilejit-dump
softmax_rows=()
if ((built)) && [[ ${GPU_CHECK_DEMO:-1} == 0 ]]; then
  record "softmax demo" skipped 0 "GPU_CHECK_DEMO=0"
elif ((built)); then
  for cols in "${COLS_LIST[@]}"; do
    for kernel in "${KERNELS[@]}"; do
      args=(--rows "$ROWS" --cols "$cols" --kernel "$kernel")
      echo "---- tilejit-softmax ${args[*]}" | tee -a "$OUT/softmax.log"
      tmp=$(mktemp)
      run_step "softmax $kernel ${ROWS}x$cols" 60 "$tmp" "$BUILD/examples/tilejit-softmax" "${args[@]}"
      cat "$tmp" >>"$OUT/softmax.log"
      # The most telling line: the bandwidth, else the check or an error, else the last one.
      line=$(grep -E 'GB/s' "$tmp" | tail -n 1)
      [[ -n $line ]] || line=$(grep -E -i 'check vs|error|failed' "$tmp" | tail -n 1)
      [[ -n $line ]] || line=$(grep -v '^[[:space:]]*$' "$tmp" | tail -n 1)
      softmax_rows+=("$(printf '%-10s %5sx%-6s %s' "$kernel" "$ROWS" "$cols" "${line:0:110}")")
      rm -f "$tmp"
    done
  done
  # The Python binding on torch tensors beside torch.softmax (examples/python).
  echo "---- examples/python/softmax_torch.py" | tee -a "$OUT/python.log"
  TILEJIT_LIB=$ROOT/$BUILD/libtilejit_c.so run_step "python example" 60 "$OUT/python.log" \
    python3 examples/python/softmax_torch.py
else
  record softmax "not built" 0
fi

# 5. Benchmarks, when the suite exists (it writes its own files under $OUT).
if [[ -f bench/run_all.sh ]]; then
  banner "bench/run_all.sh"
  if ((built)); then
    export OUT TILEJIT_BUILD_DIR=$ROOT/$BUILD
    run_step bench "${BENCH_CAP_S:-330}" /dev/null bash bench/run_all.sh
  else
    record bench "not built" 0
  fi
fi

# 6. Summary (last in the output on purpose).
banner "summary"
printf '%-30s %-16s %7s  %s\n' step status seconds note
for i in "${!steps[@]}"; do
  printf '%-30s %-16s %7s  %s\n' "${steps[$i]}" "${statuses[$i]}" "${times[$i]}" "${notes[$i]}"
done
[[ -n $ctest_summary ]] && echo "ctest: $ctest_summary"
if ((${#softmax_rows[@]})); then
  echo "softmax (last line of each run):"
  printf '  %s\n' "${softmax_rows[@]}"
fi
echo "files in $OUT: $(cd "$OUT" && find . -type f | sed 's|^\./||' | sort | paste -sd' ' -)"
echo "total: $SECONDS s of ${BUDGET} s budget; failures: $failures"
((failures == 0))
