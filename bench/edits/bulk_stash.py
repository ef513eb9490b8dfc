#!/usr/bin/env python3
"""A hand edit of a walked group kernel (16-bit elements, one stage, a tl::stash of kept blocks)
for scripts/probe-override.sh: the kept blocks of each row's slice arrive by bulk copies
(cp.async.bulk, one per block, issued by thread 0 at the start of the row, each completing on its
own mbarrier) straight into their stash slots, instead of each thread loading its 16-byte pieces
and putting them there block after block. The whole kept part of the slice is then in flight at
once, at no register cost; the first pass waits on each block's barrier and reads it from shared
memory. The stash keeps the block's layout in global memory, so a block copied whole lands where
the threads' own puts would have put it. Rows must fill every kept block (the probe's shapes do).

    python3 bench/edits/bulk_stash.py kernel.cuda > edited.cuda
"""
import re
import sys


def fail(why):
    sys.exit(f"bulk_stash: {why}")


def main():
    text = open(sys.argv[1]).read()

    # Barriers, one per stash slot, initialised once.
    m = re.search(r"\n  constexpr int tj_stash_offset = \d+;[^\n]*\n", text)
    if not m:
        fail("no stash in this kernel")
    init = (
        "  __shared__ __align__(8) unsigned long long tj_bulk_bar[32];  // one per kept block\n"
        "  unsigned tj_bulk_phase = 0;\n"
        "  if (threadIdx.x == 0)\n"
        "    for (int i = 0; i < 32; ++i)\n"
        "      asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\"((unsigned)__cvta_generic_to_shared(&tj_bulk_bar[i])) : \"memory\");\n"
        "  asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
        "  __syncthreads();\n")
    text = text[:m.end()] + init + text[m.end():]

    # The input row's pointer: the first `unsigned short* const vN = (v1 + vM);` in the row loop.
    m = re.search(r"unsigned short\* const (v\d+) = \(v1 \+ v\d+\);", text)
    if not m:
        fail("no 16-bit input row pointer")
    row = m.group(1)

    # The kept loop: the first `for (int vI = vB; vI < vK; vI += vS) {` whose bound vK is a
    # tj_min (the kept end) and whose start vB is not (the loop over the rest starts at vK).
    mins = set(re.findall(r"int const (v\d+) = tj_min\(", text))
    loops = re.finditer(r"    for \(int (v\d+) = (v\d+); \1 < (v\d+); \1 \+= (v\d+)\) \{\n", text)
    m = next((l for l in loops if l.group(3) in mins and l.group(2) not in mins), None)
    if not m:
        fail("no kept loop")
    var, begin, kend, step = m.group(1), m.group(2), m.group(3), m.group(4)
    loop_start = m.start(0)
    issue = (
        "    __syncthreads();  // the previous row's second pass is done with the stash\n"
        "    const unsigned tj_par = tj_bulk_phase;\n"
        "    tj_bulk_phase ^= 1u;\n"
        "    if (threadIdx.x == 0) {\n"
        "      asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
        f"      for (int c = {begin}; c < {kend}; c += {step}) {{\n"
        f"        const unsigned bar = (unsigned)__cvta_generic_to_shared(&tj_bulk_bar[(c - {begin}) / {step}]);\n"
        f"        const unsigned dst = (unsigned)__cvta_generic_to_shared(tj_smem + tj_stash_offset) + (unsigned)(c - {begin}) * 2u;\n"
        f"        const unsigned bytes = (unsigned){step} * 2u;\n"
        "        asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" :: \"r\"(bar), \"r\"(bytes) : \"memory\");\n"
        "        asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\"\n"
        f"                     :: \"r\"(dst), \"l\"({row} + c), \"r\"(bytes), \"r\"(bar) : \"memory\");\n"
        "      }\n"
        "    }\n")
    wait = (
        f"      {{\n"
        f"        const unsigned bar = (unsigned)__cvta_generic_to_shared(&tj_bulk_bar[({var} - {begin}) / {step}]);\n"
        "        asm volatile(\"{ .reg .pred P; TJW%=: mbarrier.try_wait.parity.shared::cta.b64 P, [%0], %1; @!P bra TJW%=; }\"\n"
        "                     :: \"r\"(bar), \"r\"(tj_par) : \"memory\");\n"
        "      }\n")
    header_end = m.end(0)
    text = text[:loop_start] + issue + text[loop_start:header_end] + wait + text[header_end:]

    # In the kept loop (up to its stash put): the load reads shared memory, and the put goes.
    body_start = loop_start + len(issue)
    put = re.compile(r"      if \(\(unsigned\)(v\d+) < (\d+)u\) \{\n")
    pm = put.search(text, body_start)
    if not pm:
        fail("no stash put in the kept loop")
    load = re.compile(r'asm volatile\("\{ \.reg \.pred p; setp\.ne\.b32 p, %4, 0; @p ld\.global\.cs\.v4\.b32 \{%0, %1, %2, %3\}, \[%5\]; \}" : '
                      r'"\+r"\(tj_w0\), "\+r"\(tj_w1\), "\+r"\(tj_w2\), "\+r"\(tj_w3\) : "r"\(\(int\)(v[\d_]+\[r\])\), "l"\((v[\d_]+\[r\])\)\);')
    lm = load.search(text, body_start, pm.start())
    if not lm:
        fail("no 16-byte load in the kept loop")
    mask, ptr = lm.group(1), lm.group(2)
    from_smem = (f"if ({mask}) {{ const uint4 tj_v = *reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned short*>(tj_smem + tj_stash_offset) + "
                 f"({ptr} - ({row} + {begin}))); tj_w0 = tj_v.x; tj_w1 = tj_v.y; tj_w2 = tj_v.z; tj_w3 = tj_v.w; }}")
    # The put (after the load) first, so the load's offsets still hold.
    text = text[:pm.start()] + f"      if (false && (unsigned){pm.group(1)} < {pm.group(2)}u) {{  // copied in whole\n" + text[pm.end():]
    text = text[:lm.start()] + from_smem + text[lm.end():]
    sys.stdout.write(text)


main()
