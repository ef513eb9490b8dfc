# Sourced by the probe scripts that time a hand-written probe beside the library op: moves to the
# repository root and makes $OUT (default out). build_probe_and_op SOURCE BINARY builds the probe
# (nvcc, sm_90) and tilejit-softmax (build-gpu/, no LLVM) in parallel; non-zero if either fails.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
OUT=${OUT:-out}
mkdir -p "$OUT"
build_probe_and_op() {
  nvcc -O3 -std=c++17 -arch=sm_90 -o "$2" "$1" &
  local probe=$!
  { cmake -S . -B build-gpu -DTILEJIT_WITH_LLVM=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build-gpu --target tilejit-softmax -j "${JOBS:-16}" >/dev/null; } || return 1
  wait "$probe"
}
