"""Softmax on the GPU: tilejit (through its C API) beside torch.softmax, a Triton kernel of
the seed's algorithm and a device-to-device copy of the same bytes (the ceiling, C).

Method: triton.testing.do_bench (CUDA events, L2 flushed by zeroing a 256 MB buffer before
each run, median of the runs); bytes = input read once + output written once. Every result
is checked against a float64 reference before it is timed.

Usage: python3 bench/softmax_bench.py --lib build/libtilejit_c.so --out DIR [--quick]
Writes DIR/softmax.md (table) and DIR/softmax.png (plot).
"""
import argparse
import ctypes
import datetime
import os
import subprocess
import sys

import torch
import triton
import triton.testing

sys.path.insert(0, os.path.dirname(__file__))
from triton_seed_softmax import TritonSeedSoftmax  # noqa: E402

DTYPES = {torch.float32: 5, torch.float16: 3, torch.bfloat16: 4}  # tilejit::DType codes


class Tilejit:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.tilejit_softmax_seed.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * 4 + [
            ctypes.c_int, ctypes.c_void_p]
        self.lib.tilejit_softmax_seed.restype = ctypes.c_int
        self.lib.tilejit_last_error.restype = ctypes.c_char_p

    def __call__(self, x, y):
        rows, cols = x.shape
        rc = self.lib.tilejit_softmax_seed(y.data_ptr(), x.data_ptr(), rows, cols, x.stride(0), y.stride(0),
                                           DTYPES[x.dtype], torch.cuda.current_stream().cuda_stream)
        if rc != 0:
            raise RuntimeError(self.lib.tilejit_last_error().decode())
        return y


def check(name, y, x):
    ref = torch.softmax(x.double(), dim=-1)
    err = ((y.double() - ref).norm() / ref.norm()).item()
    tol = 1e-5 if x.dtype == torch.float32 else 1e-2
    if not err <= tol:
        raise RuntimeError(f"{name}: relative error {err:.2e} above {tol} for {tuple(x.shape)} {x.dtype}")
    return err


def time_ms(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    torch.manual_seed(0)
    tj, tr = Tilejit(args.lib), TritonSeedSoftmax()
    shapes = [(4096, n) for n in (256, 1024, 2048, 4096, 8192, 16384)] + [(65536, 128)]
    if args.quick:
        shapes = [(4096, 1024), (4096, 4096), (4096, 16384)]
    rows = []
    for dtype in (torch.float32, torch.bfloat16):
        for m, n in shapes:
            x = torch.randn(m, n, device="cuda", dtype=dtype) * 3
            gbytes = 2 * x.numel() * x.element_size() / 1e9
            impls = {
                "copy": lambda: y.copy_(x),
                "tilejit": lambda: tj(x, y),
                "torch": lambda: torch.softmax(x, dim=-1),  # allocates its output, as users call it
                "triton": lambda: tr(x, y),
            }
            result = {}
            for name, fn in impls.items():
                y = torch.full_like(x, float("nan"))
                out = fn()
                torch.cuda.synchronize()
                if name != "copy":
                    check(name, out if name == "torch" else y, x)
                result[name] = time_ms(fn)
            c = result["copy"]
            rows.append((str(dtype).replace("torch.", ""), m, n, gbytes, result, c))
            line = " ".join(f"{k} {v * 1e3:8.1f}us {gbytes / (v / 1e3):6.0f}GB/s {c / v:4.2f}C" for k, v in result.items())
            print(f"{rows[-1][0]:9s} {m:6d} x {n:6d}: {line}", flush=True)
    write_report(rows, args.out)


def write_report(rows, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    try:
        commit = subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], text=True).strip()
    except Exception:  # the GPU machine gets a copy of the tree without .git
        commit = os.environ.get("TILEJIT_COMMIT", "unknown")
    gpu = torch.cuda.get_device_name()
    lines = [f"# Softmax on {gpu}", "",
             f"Date {datetime.date.today()}, commit {commit}, torch {torch.__version__}, triton {triton.__version__}.",
             "Method: triton.testing.do_bench median (L2 flushed before each run); bytes = input read + output "
             "written; C = device-to-device copy of the same bytes timed the same way. Every output checked "
             "against float64 first.", "",
             "| dtype | M | N | impl | time (us) | GB/s | fraction of C |", "|---|---|---|---|---|---|---|"]
    for dtype, m, n, gbytes, result, c in rows:
        for name, ms in result.items():
            lines.append(f"| {dtype} | {m} | {n} | {name} | {ms * 1e3:.1f} | {gbytes / (ms / 1e3):.0f} | {c / ms:.2f} |")
    with open(os.path.join(out_dir, "softmax.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
        for ax, dtype in zip(axes, ("float32", "bfloat16")):
            sel = [r for r in rows if r[0] == dtype and r[1] == 4096]
            ns = [r[2] for r in sel]
            for name in ("copy", "tilejit", "torch", "triton"):
                ax.plot(ns, [r[3] / (r[4][name] / 1e3) for r in sel], marker="o", label=name)
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
