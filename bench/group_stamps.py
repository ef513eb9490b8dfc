#!/usr/bin/env python3
"""Reads the per-program timestamps that bench/override_group_stamps.txt prints and says where a
walked group's time goes.

The hand edit stamps %globaltimer (ns) in thread 0 of every program at each row's start, at the
start of each walk loop (pass 1 over the kept blocks, pass 1 over the rest, pass 2 over the rest,
pass 2 over the kept blocks), at the arrival at the exchange and at its release, and keeps them in
a device buffer; the fifth launch's last program prints them as `TJ program sm row a b c` lines,
three 21-bit values packed per hex word. A program's last row line holds only its end.

    python3 bench/group_stamps.py override.log > group_stamps.md
"""
import re
import statistics
import sys
from collections import defaultdict

SM_BAND = 16  # SM ids per band in the per-SM summary
EVENTS = ["start", "pass1_kept", "pass1_rest", "arrive", "release", "pass2_rest", "pass2_kept"]


def unpack(words):
    a, b, c = (int(w, 16) for w in words)
    mask = (1 << 21) - 1
    return [a & mask, (a >> 21) & mask, (a >> 42) & mask, b & mask, (b >> 21) & mask, (b >> 42) & mask, c & mask]


def sections(lines):
    """Yields (arguments, kernel form, group size, stamps) per tilejit-softmax run that printed stamps."""
    args, group, stamps = None, None, None
    for line in lines:
        m = re.match(r"=== \d+: (.*) \(edit:", line)
        if m:
            args = m.group(1).strip()
            continue
        m = re.search(r"group=(\d+)", line)
        if m and "tilejit-softmax:" in line:
            group = int(m.group(1))
        if line.startswith("TJB "):
            stamps = defaultdict(dict)
            continue
        m = re.match(r"TJ (\d+) (\d+) (\d+) (\w+) (\w+) (\w+)", line)
        if m and stamps is not None:
            prog, sm, row = int(m.group(1)), int(m.group(2)), int(m.group(3))
            stamps[prog][row] = (sm, unpack(m.group(4, 5, 6)))
            continue
        if "GB/s" in line and stamps:
            yield args, group, stamps
            stamps = None


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def describe(args, group, stamps):
    out = [f"### {args} (groups of {group}, {len(stamps)} programs)", ""]
    ends = {p: rows[max(rows)][1][0] for p, rows in stamps.items()}
    starts = {p: rows[0][1][0] for p, rows in stamps.items()}
    launch = max(ends.values()) - min(starts.values())
    per_sm = defaultdict(list)
    for p, rows in stamps.items():
        per_sm[rows[0][0]].append(p)
    out.append(f"launch (first start to last end): {launch / 1000:.1f} us; programs per SM: "
               + ", ".join(f"{n}: {sum(1 for v in per_sm.values() if len(v) == n)} SMs"
                           for n in sorted({len(v) for v in per_sm.values()})))
    out.append("")
    # Per (group, row): the exchange's spread and cost, and the passes' durations.
    cells = defaultdict(list)
    by_sharing = defaultdict(list)  # pass 1's duration by the number of programs on the SM
    by_band = defaultdict(list)  # pass 1's duration by band of SM ids
    wait_total = busy_total = 0
    for g in sorted({p // group for p in stamps}):
        members = [p for p in stamps if p // group == g]
        for r in sorted({r for p in members for r in stamps[p] if r + 1 in stamps[p]}):
            ev = [stamps[p][r][1] for p in members]
            nxt = [stamps[p][r + 1][1][0] for p in members]
            arrive = [e[3] for e in ev]
            release = [e[4] for e in ev]
            cells["start spread"].append(max(e[0] for e in ev) - min(e[0] for e in ev))
            cells["pass 1 (start to arrival)"] += [e[3] - e[0] for e in ev]
            cells["  pass 1 over kept blocks"] += [e[2] - e[1] for e in ev]
            cells["  pass 1 over re-read blocks"] += [e[3] - e[2] for e in ev]
            for p, e in zip(members, ev):
                by_sharing[len(per_sm[stamps[p][0][0]])].append(e[3] - e[0])
                by_band[stamps[p][0][0] // SM_BAND].append(e[3] - e[0])
            cells["arrival spread (last - first)"].append(max(arrive) - min(arrive))
            cells["last arrival to first release"].append(min(release) - max(arrive))
            cells["wait at the exchange (arrival to release)"] += [e[4] - e[3] for e in ev]
            cells["pass 2 (release to row end)"] += [n - e[4] for e, n in zip(ev, nxt)]
            cells["  pass 2 over re-read blocks"] += [e[6] - e[5] for e in ev]
            cells["  pass 2 over kept blocks"] += [n - e[6] for e, n in zip(ev, nxt)]
            cells["row (start to end)"] += [n - e[0] for e, n in zip(ev, nxt)]
            cells["end spread"].append(max(nxt) - min(nxt))
            wait_total += sum(e[4] - e[3] for e in ev)
            busy_total += sum(n - e[0] for e, n in zip(ev, nxt))
    out.append("| per group and row (us) | median | min | max |")
    out.append("|---|---|---|---|")
    for name, xs in cells.items():
        out.append(f"| {name} | {med(xs) / 1000:.2f} | {min(xs) / 1000:.2f} | {max(xs) / 1000:.2f} |")
    out.append("")
    out.append("pass 1 by programs on the SM (us, median): "
               + ", ".join(f"{n}: {med(xs) / 1000:.2f}" for n, xs in sorted(by_sharing.items())))
    out.append(f"time programs spend waiting at the exchange: {100.0 * wait_total / busy_total:.1f}% of their rows' time")
    # Do the groups meet their exchanges together? First release of each group's row r.
    firsts = defaultdict(list)
    for g in sorted({p // group for p in stamps}):
        members = [p for p in stamps if p // group == g]
        for r in sorted({r for p in members for r in stamps[p] if r + 1 in stamps[p]}):
            firsts[r].append(min(stamps[p][r][1][4] for p in members))
    spreads = [max(v) - min(v) for v in firsts.values() if len(v) > 1]
    if spreads:
        out.append(f"spread of the groups' releases of their k-th row: median {med(spreads) / 1000:.2f} us, "
                   f"max {max(spreads) / 1000:.2f} us")
    # Late programs: which arrive last, and do they share their SM with more programs?
    last_counts = defaultdict(int)
    for g in sorted({p // group for p in stamps}):
        members = [p for p in stamps if p // group == g]
        for r in sorted({r for p in members for r in stamps[p] if r + 1 in stamps[p]}):
            last = max(members, key=lambda p: stamps[p][r][1][3])
            last_counts[last] += 1
    if last_counts:
        top = sorted(last_counts.items(), key=lambda kv: -kv[1])[:5]
        out.append("programs most often last to arrive (program: times, SM, programs on that SM): "
                   + "; ".join(f"{p}: {n}, SM {stamps[p][0][0]}, {len(per_sm[stamps[p][0][0]])}" for p, n in top))
    # Does one part of the chip read slower? Bands of SM ids stand in for GPCs (the eighteenth
    # session's late programs sat on SMs 124-131).
    band_lasts = defaultdict(int)
    for p, n in last_counts.items():
        band_lasts[stamps[p][0][0] // SM_BAND] += n
    if by_band:
        out.append(f"pass 1 by SM id, bands of {SM_BAND} (us, median; times a program there arrived last, of "
                   f"{sum(last_counts.values())}): "
                   + ", ".join(f"{b * SM_BAND}-{b * SM_BAND + SM_BAND - 1}: {med(xs) / 1000:.2f} ({band_lasts[b]})"
                               for b, xs in sorted(by_band.items())))
    out.append("")
    return "\n".join(out)


def persistence(group, stamps):
    """Is a program's first pass slow again on its group's next row? If so, shares sized from the
    previous row's speeds would even out the arrivals; this estimates how much, taking a pass's
    time as proportional to the blocks it walks."""
    cors, spread, spread_shared = [], [], []
    for g in sorted({p // group for p in stamps}):
        members = [p for p in stamps if p // group == g]
        rows = sorted({r for p in members for r in stamps[p] if r + 2 in stamps[p]})
        for r in rows:
            if any(r + 1 not in stamps[p] for p in members):
                continue
            a = [stamps[p][r][1][3] - stamps[p][r][1][0] for p in members]
            b = [stamps[p][r + 1][1][3] - stamps[p][r + 1][1][0] for p in members]
            if min(a) <= 0 or min(b) <= 0 or len(set(a)) < 2 or len(set(b)) < 2:
                continue
            cors.append(statistics.correlation(a, b))
            spread.append(max(b) / statistics.mean(b) - 1)
            speed = [1 / x for x in a]
            mean_speed = statistics.mean(speed)
            shared = [t * v / mean_speed for t, v in zip(b, speed)]
            spread_shared.append(max(shared) / statistics.mean(shared) - 1)
    if not cors:
        return "pass 1 across rows: fewer than two rows per group"
    return (f"pass 1 across rows: correlation of a program's time with its time on the next row, median "
            f"{med(cors):.2f} over {len(cors)} row pairs; slowest over mean {med(spread):.3f}, with shares from the "
            f"previous row's speeds {med(spread_shared):.3f}")


def timeline(stamps, bins=40):
    """Programs in the first pass / waiting at the exchange / in the second pass, averaged over each
    of `bins` equal slices of the launch: where the launch leaves programs idle."""
    end = max(rows[max(rows)][1][0] for rows in stamps.values())
    width = end / bins
    counts = [[0.0, 0.0, 0.0] for _ in range(bins)]

    def add(phase, a, b):
        for i in range(bins):
            overlap = min(b, (i + 1) * width) - max(a, i * width)
            if overlap > 0:
                counts[i][phase] += overlap / width

    for rows in stamps.values():
        for r, (_, e) in rows.items():
            if r + 1 in rows:
                add(0, e[0], e[3])
                add(1, e[3], e[4])
                add(2, e[4], rows[r + 1][1][0])
    out = [f"programs in pass 1 / waiting / in pass 2, per {width / 1000:.2f} us of the launch:", "```"]
    for i in range(0, bins, 10):
        out.append("  ".join(f"{a:3.0f}/{b:3.0f}/{c:3.0f}" for a, b, c in counts[i:i + 10]))
    out.append("```")
    return "\n".join(out)


def main():
    lines = open(sys.argv[1]).read().splitlines()
    for args, group, stamps in sections(lines):
        print(describe(args, group or len(stamps), stamps))
        print(persistence(group or len(stamps), stamps))
        print()
        print(timeline(stamps))
        print()


if __name__ == "__main__":
    main()
