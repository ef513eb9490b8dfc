#!/usr/bin/env python3
"""A hand edit of any generated softmax kernel for scripts/probe-override.sh: every exponent the
kernel takes as 2^((a - b) * log2(e)) (a subtract, a multiply, MUFU.EX2) becomes
2^(fma(a, log2(e), -(b * log2(e)))): one FFMA per element where there were two instructions, the
product b * log2(e) computed once per statistic (b is a row or lane maximum, shared by a lane's
elements). The question it answers: do the 16-bit walks, which issue on about half the cycles
while DRAM is 62-67% busy, go faster with one instruction fewer per exponent (two per element)?
The rounding of b * log2(e) is not shared between the two passes here, so results differ from the
generated kernel's in the last bits; tilejit-softmax still checks them against float64.

    python3 bench/edits/fma_exp.py kernel.cuda > edited.cuda
"""
import re
import sys

LOOP = r"for \(int r = 0; r < \d+; \+\+r\) "
# vD[r] = (A - B);   A and B are vN[r] or vN[r & ~7]-style references
SUB = re.compile(r"^(\s*)" + LOOP + r"(v\w+)\[r\] = \((v\w+\[[^\]]+\]) - (v\w+\[[^\]]+\])\);$")
# float const vL = 1.44269502f;
LOG2E = re.compile(r"^\s*float const (v\w+) = 1\.44269502f;$")
# vS[r] = vL;   (the constant splat)
SPLAT = re.compile(r"^\s*" + LOOP + r"(v\w+)\[r\] = (v\w+);$")
# vM[r] = (vD[I] * vS[I]);
MUL = re.compile(r"^(\s*)(" + LOOP + r")(v\w+)\[r\] = \((v\w+)\[([^\]]+)\] \* (v\w+)\[[^\]]+\]\);$")


def at(ref, index):
    """A reference vN[...] read at `index` instead (r & ~7 stays as it is: a lane's statistic)."""
    name, old = re.match(r"(v\w+)\[([^\]]+)\]", ref).groups()
    return f"{name}[{index if old == 'r' else old}]"


def main():
    lines = open(sys.argv[1]).read().split("\n")
    subs, log2e, splats, edits = {}, set(), set(), 0
    for i, line in enumerate(lines):
        if m := SUB.match(line):
            subs[m.group(2)] = (m.group(3), m.group(4))
        elif m := LOG2E.match(line):
            log2e.add(m.group(1))
        elif (m := SPLAT.match(line)) and m.group(2) in log2e:
            splats.add(m.group(1))
        elif (m := MUL.match(line)) and m.group(4) in subs and m.group(6) in splats:
            indent, loop, out, diff, index, _ = m.groups()
            a, b = subs[m.group(4)]
            lines[i] = (f"{indent}{loop}{out}[r] = fmaf({at(a, index)}, 1.44269502f, "
                        f"-({at(b, index)} * 1.44269502f));")
            edits += 1
    if not edits:
        sys.exit("fma_exp: no (a - b) * log2(e) in this kernel")
    print("\n".join(lines), end="")


if __name__ == "__main__":
    main()
