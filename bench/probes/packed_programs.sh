#!/usr/bin/env bash
# On the GPU machine: dumps the seed's persistent kernel at 128 columns (one warp, 8 and 4 stages,
# f32 and bf16) with tilejit-softmax, packs several programs a block into it by hand
# (pack_programs.py), builds bench/probes/packed_programs.cu and runs it at 65536 and 262144 rows,
# then times torch.softmax and a copy at 65536 x 128 under triton.testing.do_bench for scale.
# Output to stdout and $OUT/packed_programs.log.
#
#   OUT=out [TILEJIT_SOFTMAX=build-gpu/examples/tilejit-softmax] bash bench/probes/packed_programs.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
BIN=${TILEJIT_SOFTMAX:-build-gpu/examples/tilejit-softmax}
if [[ ! -x $BIN ]]; then
  cmake -S . -B build-gpu -DTILEJIT_WITH_LLVM=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build-gpu -j "${JOBS:-16}" --target tilejit-softmax >/dev/null || exit 1
fi
work=$(mktemp -d)
for form in f32:8 bf16:8 f32:4 bf16:4; do
  dtype=${form%:*} stages=${form#*:}
  TILEJIT_CODEGEN=cuda TILEJIT_CACHE_DIR=$work/cache TILEJIT_DUMP_DIR=$work/${dtype}_s$stages "$BIN" --rows 256 \
    --cols 128 --dtype "$dtype" --kernel seed --warps 1 --stages "$stages" --reps 1 --dump cuda >/dev/null || exit 1
done
python3 bench/probes/pack_programs.py "$work/packed_programs_kernels.cuh" seed_f32_s8="$work/f32_s8" \
  seed_bf16_s8="$work/bf16_s8" seed_f32_s4="$work/f32_s4" seed_bf16_s4="$work/bf16_s4" || exit 1
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I"$work" -o "$OUT/packed" bench/probes/packed_programs.cu \
  2>"$OUT/packed_build.log" || { cat "$OUT/packed_build.log"; exit 1; }
{
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
  grep -E 'registers|spill' "$OUT/packed_build.log" | sort | uniq -c | head -n 8
  for rows in 65536 262144; do timeout 120 "$OUT/packed" "$rows" 200 || echo "  failed at $rows rows (rc $?)"; done
  python3 - <<'PY'
import torch, triton
for dt in (torch.float32, torch.bfloat16):
    x = torch.randn(65536, 128, device="cuda", dtype=dt)
    y = torch.empty_like(x)
    copy = triton.testing.do_bench(lambda: y.copy_(x), return_mode="median")
    sm = triton.testing.do_bench(lambda: torch.softmax(x, dim=-1), return_mode="median")
    print(f"do_bench {dt} 65536 x 128: copy {copy*1e3:.1f} us, torch.softmax {sm*1e3:.1f} us: {copy/sm:.3f} of copy")
PY
} 2>&1 | tee "$OUT/packed_programs.log"
rm -rf "$work"
