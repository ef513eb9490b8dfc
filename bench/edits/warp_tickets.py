#!/usr/bin/env python3
"""A hand edit of a walked group kernel (softmax_group_online_op, one stage) for
scripts/probe-override.sh: the blocks each program re-reads (its slice past the kept blocks) go
into one pool per row, shared out at run time as in bench/edits/dynamic_blocks.py, but per warp
and without barriers: warp w of every program takes its part of the next unclaimed block from the
group's counter w, so the warps of a program run ahead of each other as in the generated walk
(which reduces inside threads until the pass ends) and a fast warp anywhere in the group takes
more. The kept blocks stay with their program.

Tickets: lane 0 takes the next ticket (atomicAdd on its warp's counter) while the warp walks the
part it holds, and shuffles it to the warp. Each warp takes exactly one ticket past the pool per
round, so round k's tickets of every counter are [k (P + G), (k + 1)(P + G)) for a pool of P and a
group of G, and the exchange between two rounds keeps them apart. The last program to leave the
kernel (after a barrier, so its own warps are done) puts the counters back to zero.

    python3 bench/edits/warp_tickets.py kernel.cuda > edited.cuda
"""
import re
import sys


def fail(why):
    sys.exit(f"warp_tickets: {why}")


def main():
    src = open(sys.argv[1]).read()
    if "softmax_group_online_op" not in src:
        print(src, end="")
        return
    m = re.search(r"const unsigned tj_group_rank = blockIdx\.x % (\d+)u;\n", src)
    if not m:
        fail("no group rank")
    group = int(m.group(1))
    lb = re.search(r"__launch_bounds__\((\d+)\)", src)
    if not lb or int(lb.group(1)) > 512:
        fail("more than 16 warps: the workspace has 16 counters a walk")
    ws = re.search(r"\(unsigned char\*\)\((v\d+)\) \+ \(unsigned long long\)\(blockIdx\.x / \d+u\) \* (\d+)ull", src)
    if not ws:
        fail("no workspace")
    workspace, stride = ws.group(1), ws.group(2)
    sl = re.search(r"int const (v\d+) = \((v\d+) \+ (v\d+)\);\n    int const (v\d+) = tj_min\(\1, (v\d+)\);", src)
    if not sl:
        fail("no slice end")
    begin, slice_, end, ncols = sl.group(2), sl.group(3), sl.group(4), sl.group(5)
    kp = re.search(r"int const (v\d+) = (\d+);\n    int const (v\d+) = \(" + begin + r" \+ \1\);\n    int const (v\d+) = tj_min\(\3, " + end + r"\);", src)
    if not kp:
        fail("no kept end")
    kept_cols, kend = kp.group(2), kp.group(4)
    # Declarations after the group prologue.
    decl = (m.group(0)
            + f"  unsigned* const tj_ctr = (unsigned*)((unsigned char*)({workspace}) + (unsigned long long)(blockIdx.x / {group}u) * {stride}ull + 64);\n"
            + "  unsigned tj_base[2] = {0u, 0u};\n")
    src = src.replace(m.group(0), decl, 1)
    # The row loop: on leaving it, the last program out resets the counters.
    row = re.search(r"^  for \(int (v\d+) = (v\d+); (v\d+) < (v\d+); (v\d+) \+= (v\d+)\) \{$", src, re.M)
    if not row:
        fail("no row loop")
    v, a, c1, c2, s1, s2 = row.groups()
    src = src.replace(row.group(0),
                      f"  for (int {v} = {a}; ; {s1} += {s2}) {{\n"
                      f"    if (!({c1} < {c2})) {{\n"
                      f"      __syncthreads();  // this program's warps are done with their tickets\n"
                      f"      if (threadIdx.x == 0) if (atomicAdd(tj_ctr + 64, 1u) == {group - 1}u) {{ for (int w = 0; w < 16; ++w) {{ tj_ctr[w] = 0u; tj_ctr[32 + w] = 0u; }} tj_ctr[64] = 0u; }}\n"
                      f"      break;\n    }}", 1)
    # The two walks over [kend, end): first pass, then second.
    pat = re.compile(r"^    for \(int (v\d+) = " + kend + r"; \1 < " + end + r"; \1 \+= (v\d+)\) \{$", re.M)
    walks = list(pat.finditer(src))
    if len(walks) != 2:
        fail(f"{len(walks)} walks over the re-read blocks, expected 2 (one stage only)")
    for i, w in reversed(list(enumerate(walks))):
        var, step = w.group(1), w.group(2)
        if "num_stages" in src[max(0, w.start() - 120):w.start()]:
            fail("a pipelined walk (num_stages > 1): its loads run a block ahead of the tickets")
        close = src.index("\n    }\n", w.end())
        body = src[w.end():close]
        if "__syncthreads" in body:
            fail("a walk with a barrier in its step")
        ctr = f"(tj_ctr + {32 * i} + tj_warp)"
        nrest = f"tj_max(({slice_} - {kept_cols} + {step} - 1) / {step}, 0)"
        head = (f"    const int tj_nrest{i} = {nrest}, tj_pool{i} = {group} * tj_nrest{i};\n"
                f"    unsigned tj_tk{i} = 0u;\n"
                f"    if (tj_lane == 0) tj_tk{i} = atomicAdd({ctr}, 1u);\n"
                f"    tj_tk{i} = __shfl_sync(0xffffffffu, tj_tk{i}, 0) - tj_base[{i}];\n"
                f"    for (;;) {{\n"
                f"      const int tj_t = (int)tj_tk{i};\n"
                f"      if (tj_t >= tj_pool{i}) break;\n"
                f"      unsigned tj_nx = 0u;\n"
                f"      if (tj_lane == 0) tj_nx = atomicAdd({ctr}, 1u);\n"
                f"      const int tj_q = tj_t / tj_nrest{i};\n"
                f"      const int {var} = tj_q * {slice_} + {kept_cols} + (tj_t % tj_nrest{i}) * {step};\n"
                f"      const int {end} = tj_min(tj_q * {slice_} + {slice_}, {ncols});\n")
        tail = (f"\n      tj_tk{i} = __shfl_sync(0xffffffffu, tj_nx, 0) - tj_base[{i}];\n"
                f"    }}\n    tj_base[{i}] += (unsigned)(tj_pool{i} + {group});\n")
        src = src[:w.start()] + head + body + tail + src[close + len("\n    }\n"):]
    print(src, end="")


if __name__ == "__main__":
    main()
