#!/usr/bin/env bash
# On the GPU machine: ncu sections (speed of light, occupancy, launch, scheduler, warp state,
# instructions), DRAM bytes read and written, the L2 hit rate, the stall reasons above 0.5 warps per
# issued instruction, and static SASS opcode counts of the softmax op's kernels, one shape per line
# of PROBES_FILE
# (tilejit-softmax arguments). NVRTC's kernels (TILEJIT_CODEGEN=cuda). Results under $OUT.
# Caches are left as the previous kernel left them (NCU_CACHE_CONTROL=none, the default here): ncu's
# own default flushes L2 before every profiled kernel, so a second pass over a row always reads DRAM.
#
#   OUT=out PROBES_FILE=shapes.txt bash scripts/ncu-softmax.sh
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
OUT=${OUT:-out}
mkdir -p "$OUT"
cmake -S . -B build-gpu -DTILEJIT_WITH_LLVM=OFF -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1
cmake --build build-gpu -j 16 --target tilejit-softmax >>"$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log"
  exit 1
}
export TILEJIT_CODEGEN=cuda TILEJIT_CACHE_DIR=$PWD/ncu-cache
i=0
while read -r args; do
  i=$((i + 1))
  echo "=== $i: $args" | tee -a "$OUT/diag.txt"
  # shellcheck disable=SC2086  # an argument list
  ./build-gpu/examples/tilejit-softmax $args --reps 20 >"$OUT/run_$i.txt" 2>&1
  grep -E "^PTX|library op|fraction" "$OUT/run_$i.txt" | tee -a "$OUT/diag.txt"
  for ptx in $(grep -E "^PTX" "$OUT/run_$i.txt" | sed 's/.*: //'); do
    ptxas -arch=sm_90 -O3 "$ptx" -o /tmp/k.cubin && nvdisasm -c /tmp/k.cubin >/tmp/k.sass 2>&1
    echo "SASS opcodes:" | tee -a "$OUT/diag.txt"
    grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+' /tmp/k.sass | awk '{print $NF}' | sed 's/\..*//' |
      sort | uniq -c | sort -rn | head -25 | tr '\n' ' ' | tee -a "$OUT/diag.txt"
    echo | tee -a "$OUT/diag.txt"
  done
  metrics="regex:^(dram__bytes_(read|write)\.sum|lts__t_sector_hit_rate\.pct|smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio)$"
  for _ in 1 2; do
    # shellcheck disable=SC2086
    timeout 120 ncu --clock-control none --cache-control "${NCU_CACHE_CONTROL:-none}" -k regex:softmax_ \
      --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
      --section SchedulerStats --section InstructionStats --metrics "$metrics" \
      ./build-gpu/examples/tilejit-softmax $args --reps 5 >"$OUT/ncu_$i.txt" 2>&1
    grep -q "==ERROR==" "$OUT/ncu_$i.txt" || break
    # An ncu without regular expressions in --metrics: the named metrics only.
    metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
  done
  grep -E "Duration|Throughput|Executed Ipc|Issue Slots|Executed Instructions|Issued Instructions|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|No Eligible|One or More|Warp Cycles Per Issued|dram__bytes|lts__t_sector_hit" \
    "$OUT/ncu_$i.txt" | tee -a "$OUT/diag.txt"
  # Stall reasons worth reading (the ratio: warps stalled for it per issued instruction).
  grep -E "issue_stalled_.*ratio" "$OUT/ncu_$i.txt" | awk '$NF + 0 >= 0.5' | tee -a "$OUT/diag.txt"
done <"${PROBES_FILE:?a file of tilejit-softmax argument lists}"
