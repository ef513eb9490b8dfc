#!/usr/bin/env bash
# On the GPU machine: builds bench/probes/packed_programs.cu and runs it at 65536 and 262144 rows of
# 128 columns, then times torch.softmax and a copy of the same bytes at 65536 x 128 under
# triton.testing.do_bench for scale. Output to stdout and $OUT/packed_programs.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o "$OUT/packed" bench/probes/packed_programs.cu 2>"$OUT/packed_build.log" ||
  { cat "$OUT/packed_build.log"; exit 1; }
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
