#!/usr/bin/env bash
# Quick start #2: set up and build, run every test suite, then build the CPU suites with
# AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and run them, and build without
# LLVM in build-nollvm/ (the backend-selection suite runs there).
# GPU suites report themselves skipped (with the reason) when there is no device.
#
#   bash scripts/test.sh
#
# Environment: JOBS (default 2), TILEJIT_SKIP_SANITIZERS=1 to skip the sanitizer build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JOBS=${JOBS:-2}
failed=()

bash scripts/setup.sh

echo "test: ctest --test-dir build --output-on-failure"
ctest --test-dir build --output-on-failure || failed+=("tests (build/)")

if [[ ${TILEJIT_SKIP_SANITIZERS:-0} == 1 ]]; then
  echo "test: sanitizers skipped (TILEJIT_SKIP_SANITIZERS=1)"
else
  echo "test: ASan+UBSan build of the CPU suites in build-asan/ ($JOBS jobs; log: build-asan/build.log)"
  mkdir -p build-asan
  log=build-asan/build.log
  if cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTILEJIT_SANITIZE=ON >"$log" 2>&1 &&
    cmake --build build-asan -j "$JOBS" >>"$log" 2>&1; then
    echo "test: ctest --test-dir build-asan -L cpu --output-on-failure"
    # format_check is not a compiled suite; it already ran above.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      ctest --test-dir build-asan -L cpu -E '^format_check$' --output-on-failure || failed+=("sanitizer tests (build-asan/)")
  else
    grep -E -B 2 -A 12 'error:|Error [0-9]' "$log" | tail -n 60 >&2 || tail -n 60 "$log" >&2
    echo "test: sanitizer build failed (full log: $log)" >&2
    failed+=("sanitizer build (build-asan/)")
  fi
fi

# A build without LLVM (as on the GPU machine): everything but the CPU backend builds, the
# backend-selection suite checks that asking for the CPU backend says why it is not there, and the
# main job's command-line tests run as they do on the GPU machine (its build has no LLVM either).
echo "test: build without LLVM in build-nollvm/ ($JOBS jobs; log: build-nollvm/build.log)"
mkdir -p build-nollvm
log=build-nollvm/build.log
if cmake -S . -B build-nollvm -DCMAKE_BUILD_TYPE=Release -DTILEJIT_WITH_LLVM=OFF >"$log" 2>&1 &&
  cmake --build build-nollvm -j "$JOBS" --target test_backends tilejit-softmax >>"$log" 2>&1; then
  ctest --test-dir build-nollvm -R '^(test_backends|cli_.*)$' --output-on-failure || failed+=("tests without LLVM (build-nollvm/)")
else
  grep -E -B 2 -A 12 'error:|Error [0-9]' "$log" | tail -n 60 >&2 || tail -n 60 "$log" >&2
  echo "test: build without LLVM failed (full log: $log)" >&2
  failed+=("build without LLVM (build-nollvm/)")
fi

if ((${#failed[@]} > 0)); then
  printf 'test: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "test: all passed"
