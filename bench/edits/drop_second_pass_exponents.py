#!/usr/bin/env python3
"""A timing-only hand edit for scripts/probe-override.sh (its outputs are wrong by design): a walked
group kernel's second pass, everything after its exchange (`group_softmax_stats`), takes x where it
took 2^x (MUFU.EX2 dropped). The question it answers: how much of a walk's time is the second pass's
exponents, which keeping exponentials in the stash (instead of the loaded inputs) would save for its
kept blocks? Kernels without a group exchange come back unchanged.

    python3 bench/edits/drop_second_pass_exponents.py kernel.cuda > edited.cuda
"""
import sys

text = open(sys.argv[1]).read().split("\n")
out, after = [], False
for line in text:
    if "group_softmax_stats over" in line:
        after = True
    out.append(line.replace("tj_ex2_ftz(", "(") if after else line)
sys.stdout.write("\n".join(out))
