"""Softmax on the GPU: tilejit's library op (tilejit_op: tilejit_softmax, every shape) and its seed
kernel (tilejit_seed: N <= 16384) through the C API, beside torch.softmax, torch.compile of
torch.softmax, a Triton kernel of the seed's algorithm (N <= 16384) and a device-to-device copy of
the same bytes (the ceiling, C). Implementations that cannot run a shape are reported as n/a.

Method: triton.testing.do_bench (CUDA events, L2 flushed before each run, median of the runs);
bytes = input read once + output written once. Every result is checked against a float64 reference
before it is timed. The flush (--flush): "held", the default, is tilejit's (tilejit_flush_l2, the
one its own timing uses): lines loaded with an evict_last hint, which tilejit's walking kernels
leave and a plain overwrite does not evict, are dropped first, then a 256 MiB buffer is
overwritten; "memset" is do_bench's own (a 256 MB buffer zeroed).

Usage: python3 bench/softmax_bench.py --lib build/libtilejit_c.so --out DIR [--quick]
         [--shapes MxN,...] [--impls ...] [--seed-configs simple:W[:B][xP],persistent:W:S[:B][@G][xP],...]
         [--op-configs "CONFIG[@MxN],..."] [--op-configs-file FILE] [--repeat R] [--flush held|memset]
Writes DIR/softmax.md (table) and DIR/softmax.png (plot).
--seed-configs times the seed's kernels at other launch configurations too, the same way, through
tilejit_compile_with / tilejit_launch (rows "tilejit_seed[persistent:W:S]"): how the seed wrapper's
choices are checked under this harness. An optional last number B asks ptxas for B blocks an SM
(min_blocks_per_sm; the seed wrapper's bf16 rows of 16384 are "simple:8:3"). A persistent launch
may end in "@G": a grid of G programs instead of tilejit_persistent_grid's. Either may end in "xP":
P programs a thread block (programs_per_block; the seed wrapper's f32 rows of 128 are
"persistent:1:8x4").
--op-configs times the library op at configurations of its own too (rows "tilejit_op[CONFIG]", through
tilejit_softmax_with), each on every shape or, ending in @MxN, on that shape only; --op-configs-file
reads them one a line.
--repeat R times every implementation R times per shape, round-robin (copy, then each in turn, R
rounds), and reports the median time and the range of the per-round fractions of C (each round's
implementation against that round's copy): on shapes of a few tens of microseconds one do_bench
median moves by a few hundredths between runs, enough to reorder implementations.
--processes K runs the whole measurement in K fresh processes one after another (each with its own
--repeat rounds, the implementations' order rotated by one each time) and reports, per shape and
implementation, the median over processes of each process's time and fraction of C, and the range
of those fractions: the same kernel reads differently from one process to the next (allocation,
clocks), more than between rounds of one process.
"""
import argparse
import ctypes
import datetime
import os
import statistics
import json
import subprocess
import sys
import tempfile

import torch
import triton
import triton.testing

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
import tilejit  # noqa: E402
from triton_seed_softmax import TritonSeedSoftmax  # noqa: E402

DTYPES = {torch.float32: tilejit.F32, torch.float16: tilejit.F16, torch.bfloat16: tilejit.BF16}


SEED_MAX_N = 16384  # the seed kernels (tilejit's and Triton's) hold a row in registers


class Tilejit:
    """The implementations timed here, as raw C API calls on (x, y) (examples/python/tilejit/library.py's
    Library: no layout handling on the timed path)."""

    def __init__(self, path):
        self.lib = tilejit.Library(path)

    def settle(self):
        """Waits for background NVRTC builds (TILEJIT_CODEGEN=tiered); a no-op otherwise."""
        self.lib.wait_for_background_compiles()

    def seed(self, x, y):
        rows, cols = x.shape
        self.lib.softmax_seed(y.data_ptr(), x.data_ptr(), rows, cols, x.stride(0), y.stride(0), DTYPES[x.dtype],
                              torch.cuda.current_stream().cuda_stream)
        return y

    def seed_launch(self, spec, x, y):
        """A launcher of the seed's kernels at one configuration: "simple:W" (one program of W warps
        per row) or "persistent:W:S" (a persistent grid of W-warp programs, S stages), either with an
        optional ":B" (ptxas asked for B blocks an SM); a persistent one also with an optional "@G"
        (a grid of G programs instead of tilejit_persistent_grid's); either ending in an optional
        "xP" (P programs a thread block)."""
        spec, _, packed = spec.partition("x")
        programs_per_block = int(packed) if packed else 1
        spec, _, fixed_grid = spec.partition("@")
        kind, *numbers = spec.split(":")
        if fixed_grid and kind != "persistent":
            raise ValueError(f"bad seed configuration '{spec}@{fixed_grid}' (a grid is for persistent launches)")
        if (kind, len(numbers)) not in (("simple", 1), ("simple", 2), ("persistent", 2), ("persistent", 3)):
            raise ValueError(f"bad seed configuration '{spec}' (simple:W[:B] or persistent:W:S[:B][@G])")
        fixed = 2 if kind == "persistent" else 1  # the numbers before the optional B
        warps, stages = int(numbers[0]), int(numbers[1]) if kind == "persistent" else 1
        min_blocks = int(numbers[fixed]) if len(numbers) > fixed else 0
        rows, cols = x.shape
        block = 1 << (cols - 1).bit_length()
        dtype = DTYPES[x.dtype]
        args = [tilejit.pointer(y.data_ptr(), dtype), tilejit.pointer(x.data_ptr(), dtype),
                tilejit.integer(x.stride(0)), tilejit.integer(y.stride(0))]
        args += [tilejit.integer(v) for v in ((rows, cols, block, stages) if kind == "persistent" else (cols, block))]
        kernel = self.lib.compile(f"softmax_{kind}", args, num_warps=warps, num_stages=1,
                                  min_blocks_per_sm=min_blocks, programs_per_block=programs_per_block)
        if fixed_grid:
            grid = int(fixed_grid)
        else:
            grid = kernel.persistent_grid(rows) if kind == "persistent" else rows

        def launch():
            kernel.launch(grid, args, torch.cuda.current_stream().cuda_stream)
            return y
        return launch

    def op_launch(self, config, x, y):
        """A launcher of the library op at a configuration of its own (tilejit_softmax_with's
        options.config, in the words ops::describe writes), its options built once."""
        rows, cols = x.shape
        self.lib.softmax_plan(rows, cols, DTYPES[x.dtype], config=config)  # raises if it cannot run the shape
        options = tilejit.SoftmaxOptions(tilejit.CUDA, 0, 0, config.encode())
        call = self.lib.c.tilejit_softmax_with
        args = (y.data_ptr(), x.data_ptr(), rows, cols, x.stride(0), y.stride(0), DTYPES[x.dtype], DTYPES[y.dtype],
                torch.cuda.current_stream().cuda_stream, ctypes.byref(options))

        def launch():
            self.lib._check(call(*args))
            return y
        return launch

    def op(self, x, y):
        rows, cols = x.shape
        self.lib.softmax(y.data_ptr(), x.data_ptr(), rows, cols, x.stride(0), y.stride(0), DTYPES[x.dtype],
                         DTYPES[y.dtype], torch.cuda.current_stream().cuda_stream)
        return y


def make_compiled_softmax():
    """torch.compile(torch.softmax), or None (with a message) where torch.compile does not work here."""
    try:
        # One compiled graph per shape and dtype (dynamic=False): raise dynamo's recompile limit
        # (8 by default) so later shapes are not silently run eagerly.
        for knob in ("cache_size_limit", "recompile_limit"):
            if hasattr(torch._dynamo.config, knob):
                setattr(torch._dynamo.config, knob, 64)
        fn = torch.compile(lambda t: torch.softmax(t, dim=-1), dynamic=False)
        fn(torch.randn(4, 64, device="cuda"))
        return fn
    except Exception as e:  # e.g. no C compiler or Triton mismatch on the bench machine
        print(f"torch.compile skipped: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
        return None


def check(name, y, x, ref):
    """tilejit's results must meet the tolerance; peers' errors are reported, not enforced (torch's
    own fp32 softmax over a 16M-element row is 1.1e-5 off float64)."""
    err = ((y.double() - ref).norm() / ref.norm()).item()
    tol = 1e-5 if x.dtype == torch.float32 else 1e-2
    if not err <= tol:
        if name.startswith("tilejit"):
            raise RuntimeError(f"{name}: relative error {err:.2e} above {tol} for {tuple(x.shape)} {x.dtype}")
        print(f"note: {name} relative error {err:.2e} above {tol} for {tuple(x.shape)} {x.dtype}", flush=True)
    return err


class Flush:
    """--flush held: do_bench's flush before each run (driver.active.clear_cache) becomes
    tilejit_flush_l2, and a run that did not go through it fails rather than read the other flush."""

    def __init__(self, mode, lib):
        self.mode, self.calls = mode, 0
        if mode == "held":
            def clear_cache(cache):
                self.calls += 1
                lib.flush_l2(torch.cuda.current_stream().cuda_stream)
            setattr(triton.runtime.driver.active, "clear_cache", clear_cache)

    def check(self):
        if self.mode == "held" and self.calls == 0:
            raise RuntimeError(f"--flush held: triton {triton.__version__}'s do_bench did not flush through "
                               "driver.active.clear_cache; run with --flush memset")


FLUSH = None  # main() sets it


def time_ms(fn):
    ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
    FLUSH.check()
    return ms


# M = 4096 across the row widths (the seed's table and the wide rows), then few wide rows and
# many short ones.
SHAPES = [(4096, n) for n in (256, 1024, 2048, 4096, 8192, 16384, 65536, 262144)] + [
    (1, 16 << 20), (16, 4 << 20), (128, 1 << 20), (1, 1 << 20),
    (65536, 32), (65536, 128), (32768, 512)]
QUICK_SHAPES = [(4096, 1024), (4096, 8192), (4096, 16384), (4096, 65536), (1, 16 << 20), (65536, 128)]
IMPLS = ("copy", "tilejit_op", "tilejit_seed", "torch", "torch_compile", "triton")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--min-n", type=int, default=0, help="only shapes with at least this many columns")
    ap.add_argument("--max-n", type=int, default=1 << 40, help="only shapes with at most this many columns")
    ap.add_argument("--impls", default=",".join(IMPLS),
                    help="comma-separated subset of " + ",".join(IMPLS) + " (copy is always run: it is C)")
    ap.add_argument("--shapes", default="", help="comma-separated MxN shapes instead of the table's")
    ap.add_argument("--seed-configs", default="",
                    help="comma-separated seed launches to time as well: simple:W[:B][xP] or "
                    "persistent:W:S[:B][@G][xP]")
    ap.add_argument("--op-configs", default="",
                    help="comma-separated configurations of the op's own to time as well, each in ops::describe's "
                    "words and optionally ending in @MxN (only that shape)")
    ap.add_argument("--op-configs-file", default="",
                    help="the same, one a line (# comments): configurations keep their spaces through shell variables")
    ap.add_argument("--repeat", type=int, default=1, help="timed rounds per shape (median, and the range)")
    ap.add_argument("--processes", type=int, default=1, help="fresh processes to repeat the run in (median, range)")
    ap.add_argument("--flush", choices=("held", "memset"), default="held",
                    help="L2 flush before each run: tilejit's (held lines dropped too) or do_bench's own memset")
    ap.add_argument("--json", default="", help=argparse.SUPPRESS)  # a child's rows, for --processes
    ap.add_argument("--rotate", type=int, default=0, help=argparse.SUPPRESS)  # a child's order of impls
    args = ap.parse_args()
    if args.processes > 1:
        return run_processes(args)
    torch.manual_seed(0)
    wanted = set(args.impls.split(",")) | {"copy"}
    unknown = wanted - set(IMPLS)
    if unknown:
        ap.error(f"unknown --impls: {','.join(sorted(unknown))}")
    tj, tr = Tilejit(args.lib), TritonSeedSoftmax()
    global FLUSH
    FLUSH = Flush(args.flush, tj.lib)
    compiled = make_compiled_softmax() if "torch_compile" in wanted else None
    if args.shapes:
        shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    else:
        shapes = QUICK_SHAPES if args.quick else SHAPES
    shapes = [s for s in shapes if args.min_n <= s[1] <= args.max_n]
    seed_configs = [c for c in args.seed_configs.split(",") if c]
    op_specs = args.op_configs.split(",")
    if args.op_configs_file:
        with open(args.op_configs_file) as f:
            op_specs += [line.split("#")[0] for line in f]
    op_configs = [tuple(part.strip() for part in c.partition("@")[::2]) for c in op_specs if c.strip()]
    rows = []
    for dtype in (torch.float32, torch.bfloat16):
        for m, n in shapes:
            x = torch.randn(m, n, device="cuda", dtype=dtype) * 3
            ref = torch.softmax(x.double(), dim=-1)
            gbytes = 2 * x.numel() * x.element_size() / 1e9
            y = torch.empty_like(x)
            seed_ok = n <= SEED_MAX_N
            impls = {
                "copy": lambda: y.copy_(x),
                "tilejit_op": lambda: tj.op(x, y),
                "tilejit_seed": (lambda: tj.seed(x, y)) if seed_ok else None,
                "torch": lambda: torch.softmax(x, dim=-1),  # allocates its output, as users call it
                "torch_compile": (lambda: compiled(x)) if compiled else None,
                "triton": (lambda: tr(x, y)) if seed_ok else None,
            }
            impls = {k: v for k, v in impls.items() if k in wanted}
            for spec in seed_configs:
                impls[f"tilejit_seed[{spec}]"] = tj.seed_launch(spec, x, y) if seed_ok else None
            for config, shape in op_configs:
                if not shape or shape == f"{m}x{n}":
                    impls[f"tilejit_op[{config.strip()}]"] = tj.op_launch(config.strip(), x, y)
            # Copy first in every round (it is each round's C); the rest in an order --rotate turns.
            names = [k for k in impls if k != "copy"]
            shift = args.rotate % len(names) if names else 0
            impls = {k: impls[k] for k in ["copy"] + names[shift:] + names[:shift]}
            for name, fn in impls.items():
                if fn is None:
                    continue
                y.fill_(float("nan"))
                out = fn()
                torch.cuda.synchronize()
                if name.startswith("tilejit"):
                    tj.settle()  # TILEJIT_CODEGEN=tiered: time NVRTC's kernel, not the stand-in before it
                if name != "copy":
                    check(name, out if name.startswith("torch") else y, x, ref)
            del ref
            samples = {name: [] for name, fn in impls.items() if fn is not None}
            for _ in range(max(1, args.repeat)):
                for name in samples:
                    samples[name].append(time_ms(impls[name]))
            times = {name: statistics.median(samples[name]) if name in samples else None for name in impls}
            c = times["copy"]
            rows.append({"dtype": str(dtype).replace("torch.", ""), "m": m, "n": n, "gbytes": gbytes, "time": times,
                         "fraction": {k: None if v is None else c / v for k, v in times.items()},
                         # Each round's fraction of C against that round's copy.
                         "spread": {k: [cr / t for cr, t in zip(samples["copy"], ts)] for k, ts in samples.items()}})
            line = " ".join(f"{k} n/a" if v is None else f"{k} {v * 1e3:8.1f}us {gbytes / (v / 1e3):6.0f}GB/s {c / v:4.2f}C"
                            for k, v in times.items())
            print(f"{rows[-1]['dtype']:9s} {m:6d} x {n:8d}: {line}", flush=True)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(rows, f)
            else:
                write_report(rows, args.out, args.flush, spread_of=f"{args.repeat} rounds", plot=False)  # a cut run keeps its rows
    if not args.json:
        write_report(rows, args.out, args.flush, spread_of=f"{args.repeat} rounds")


def run_processes(args):
    """--processes K: the run K times over in fresh processes, merged per shape and implementation."""
    child_args = sys.argv[1:]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.processes):
            path = os.path.join(tmp, f"rows{i}.json")
            print(f"--- process {i + 1} of {args.processes}", flush=True)
            cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__)] + child_args + [
                "--processes", "1", "--json", path, "--rotate", str(i)]
            rc = subprocess.run(cmd).returncode
            if rc != 0:
                raise SystemExit(f"process {i + 1} failed (exit {rc})")
            with open(path) as f:
                runs.append(json.load(f))
            write_merged(runs, args)  # after every process: a run cut short keeps what it measured


def write_merged(runs, args):
    merged = []
    for parts in zip(*runs):  # the same shapes in the same order in every process
        first = parts[0]
        row = {k: first[k] for k in ("dtype", "m", "n", "gbytes")}
        row["time"], row["fraction"], row["spread"] = {}, {}, {}
        for name in first["time"]:
            ts = [p["time"][name] for p in parts if p["time"].get(name) is not None]
            fs = [p["fraction"][name] for p in parts if p["fraction"].get(name) is not None]
            row["time"][name] = statistics.median(ts) if ts else None
            row["fraction"][name] = statistics.median(fs) if fs else None
            row["spread"][name] = fs
        verdicts = {name: [ahead_of_peers(p, name) for p in parts] for name in first["time"] if name.startswith("tilejit")}
        row["ahead"] = {name: sum(v is True for v in vs) for name, vs in verdicts.items()
                        if any(v is not None for v in vs)}
        merged.append(row)
    write_report(merged, args.out, args.flush, spread_of=f"{len(runs)} processes of {args.repeat} rounds each",
                 per_process=True)


PEERS = ("torch", "torch_compile", "triton")


def ahead_of_peers(row, name):
    """Whether `name` reads at or above every peer that ran in this row (None: no peer or no time)."""
    mine = row["fraction"].get(name)
    peers = [row["fraction"][p] for p in PEERS if row["fraction"].get(p) is not None]
    if mine is None or not peers:
        return None
    return mine >= max(peers)


FLUSH_WORDS = {"held": "lines held with an evict_last hint dropped, then 256 MiB overwritten (tilejit_flush_l2)",
               "memset": "do_bench's own, 256 MB zeroed"}


def write_report(rows, out_dir, flush, spread_of, plot=True, per_process=False):
    os.makedirs(out_dir, exist_ok=True)
    # TILEJIT_COMMIT first: the GPU machine's copy of the tree may carry a stale .git, so a commit
    # read from git says how many paths differ from it.
    commit = os.environ.get("TILEJIT_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], text=True).strip()
            changed = subprocess.check_output(["git", "status", "--porcelain"], text=True).splitlines()
            if changed:
                commit += f" with {len(changed)} paths changed"
        except Exception:
            commit = "unknown"
    gpu = torch.cuda.get_device_name()
    lines = [f"# Softmax on {gpu}", "",
             f"Date {datetime.date.today()}, commit {commit}, torch {torch.__version__}, triton {triton.__version__}, "
             f"tilejit GPU code generator: {os.environ.get('TILEJIT_CODEGEN') or 'default'}.",
             f"Method: triton.testing.do_bench median (L2 flushed before each run: {FLUSH_WORDS[flush]}); "
             "bytes = input read + output "
             "written; C = device-to-device copy of the same bytes timed the same way. Every output checked "
             "against float64 first.", "",
             "| dtype | M | N | impl | time (us) | GB/s | fraction of C |", "|---|---|---|---|---|---|---|"]
    samples = max((len(f) for row in rows for f in row["spread"].values()), default=1)
    if per_process:
        lines[-4] += (f" Timed in {spread_of}, round-robin within a process: time and fraction of C are the "
                      "medians over processes of each process's median time and fraction (its median against "
                      "its copy's), and the last column the range of the processes' fractions.")
    elif samples > 1:
        lines[-4] += (f" Each shape timed in {spread_of}, round-robin: time is the median, and the last column "
                      "the range of the rounds' fractions of C (each against its round's copy).")
    if samples > 1:
        lines[-2] += " range over processes |" if per_process else " range over rounds |"
        lines[-1] += "---|"
    for row in rows:
        dtype, m, n, gbytes = row["dtype"], row["m"], row["n"], row["gbytes"]
        for name, ms in row["time"].items():
            spread = ""
            if samples > 1:
                f = row["spread"].get(name)
                spread = f" {min(f):.2f}-{max(f):.2f} |" if f else " n/a |"
            if ms is None:
                lines.append(f"| {dtype} | {m} | {n} | {name} | n/a | n/a | n/a |" + spread)
            else:
                lines.append(f"| {dtype} | {m} | {n} | {name} | {ms * 1e3:.1f} | {gbytes / (ms / 1e3):.0f} | "
                             f"{row['fraction'][name]:.2f} |" + spread)
    if per_process:
        lines += ["", "Processes in which each tilejit implementation read at or above every peer that ran "
                  "(torch, torch.compile, Triton; each against its own process's copy):", ""]
        processes = max((len(f) for row in rows for f in row["spread"].values()), default=0)
        for row in rows:
            counts = ", ".join(f"{k} {v}/{processes}" for k, v in row.get("ahead", {}).items())
            if counts:
                lines.append(f"- {row['dtype']} {row['m']} x {row['n']}: {counts}")
    with open(os.path.join(out_dir, "softmax.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    if not plot:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
        for ax, dtype in zip(axes, ("float32", "bfloat16")):
            sel = [r for r in rows if r["dtype"] == dtype and r["m"] == 4096]
            for name in IMPLS:
                pts = [(r["n"], r["gbytes"] / (r["time"][name] / 1e3)) for r in sel if r["time"].get(name) is not None]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
            ax.set_xscale("log", base=2)
            ax.set_title(f"softmax M=4096 {dtype} on {gpu}")
            ax.set_xlabel("N")
            ax.set_ylabel("GB/s (read + write)")
            ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "softmax.png"), dpi=110)
    except Exception as e:  # the table is the result; the plot is a convenience
        print(f"plot skipped: {e}")


if __name__ == "__main__":
    main()
