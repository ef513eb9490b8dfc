#!/usr/bin/env bash
# Sets up tilejit on Debian/Ubuntu and builds it into build/. Safe to run again: it installs only
# what is missing (apt is skipped when everything is present), then configures and builds
# incrementally.
#
#   bash scripts/setup.sh            # JOBS=N to change the build's parallelism (default 2)
#
# Environment: JOBS (default 2), BUILD_TYPE (default RelWithDebInfo), CUDA_HOME or CUDA_PATH
# (default /usr/local/cuda), VERBOSE=1 to show the full configure and build output.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JOBS=${JOBS:-2}
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
BUILD_DIR=build
PACKAGES=(cmake g++ make libfmt-dev doctest-dev llvm-19-dev clang-format python3)

say() { printf 'setup: %s\n' "$*"; }
die() {
  printf 'setup: error: %s\n' "$*" >&2
  exit 1
}

# 1. System packages.
installed() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }
missing=()
if command -v dpkg >/dev/null 2>&1; then
  for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
else
  die "dpkg not found: this script supports Debian/Ubuntu; install ${PACKAGES[*]} (or equivalents) by hand"
fi
if ((${#missing[@]} == 0)); then
  say "packages: all present (${PACKAGES[*]})"
else
  say "packages: installing ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    die "not root and sudo is not available: install ${missing[*]} as root"
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq || die "apt-get update failed"
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
    die "apt-get install ${missing[*]} failed"
fi

# 2. CUDA toolkit: tilejit needs nvrtc.h, cuda.h and libnvrtc (not a GPU, not libcuda).
cuda_root=""
for c in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  if [[ -n $c && -f $c/include/nvrtc.h ]]; then
    cuda_root=$c
    break
  fi
done
[[ -n $cuda_root ]] ||
  die "CUDA toolkit not found: no nvrtc.h under \$CUDA_HOME, \$CUDA_PATH or /usr/local/cuda.
       Install the CUDA toolkit (13.x; NVRTC and headers are enough, no GPU needed) and/or set CUDA_HOME."
[[ -f $cuda_root/include/cuda.h ]] || die "CUDA toolkit at $cuda_root has no include/cuda.h"
nvrtc_lib=""
for f in "$cuda_root"/lib64/libnvrtc.so* "$cuda_root"/targets/*/lib/libnvrtc.so*; do
  if [[ -e $f ]]; then
    nvrtc_lib=$f
    break
  fi
done
[[ -n $nvrtc_lib ]] || die "CUDA toolkit at $cuda_root has no libnvrtc.so (lib64/ or targets/*/lib/)"
cuda_version=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$cuda_root/include/cuda.h" | head -n 1)
if [[ -n $cuda_version ]]; then
  say "CUDA toolkit: $cuda_root (CUDA $((cuda_version / 1000)).$((cuda_version % 1000 / 10)), $(basename "$nvrtc_lib"))"
else
  say "CUDA toolkit: $cuda_root ($(basename "$nvrtc_lib"))"
fi

# 3. Configure and build.
mkdir -p "$BUILD_DIR"
log=$BUILD_DIR/setup.log
run_logged() {
  if [[ ${VERBOSE:-0} == 1 ]]; then
    "$@" 2>&1 | tee -a "$log"
  else
    "$@" >>"$log" 2>&1
  fi
}
: >"$log"
say "configure: $BUILD_DIR/ ($BUILD_TYPE; log: $log)"
if ! run_logged cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DCUDAToolkit_ROOT="$cuda_root"; then
  tail -n 40 "$log" >&2
  die "cmake configure failed (full log: $log)"
fi
grep -A 3 '^CMake Warning' "$log" | sed 's/^/setup:   /' || true
say "build: $JOBS jobs (set JOBS to change)"
start=$SECONDS
if ! run_logged cmake --build "$BUILD_DIR" -j "$JOBS"; then
  grep -E -B 2 -A 12 'error:|Error [0-9]' "$log" | tail -n 60 >&2 || tail -n 60 "$log" >&2
  die "build failed (full log: $log)"
fi
say "build: done in $((SECONDS - start)) s"
