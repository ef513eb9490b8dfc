"""Host time to issue one softmax from Python (the GPU kept busy, so no call waits on a kernel):
torch.softmax, tilejit.softmax on torch tensors (examples/python/tilejit/; allocating its output as
torch.softmax does, and into a given `out`), its raw form on
addresses (Library.softmax), and the bare ctypes call underneath, each over the same tensors; then
cProfile's top entries for tilejit.softmax. Shapes where a kernel takes a few microseconds are where
this time, not the kernel's, sets the speed a Python caller sees.

Usage: python3 bench/host_overhead.py [--lib build/libtilejit_c.so] [--calls N] [--package DIR]
(--package: the directory holding the tilejit package to time, default examples/python; e.g. an
earlier tree's, to compare two versions of the wrapper on one machine)
"""
import argparse
import cProfile
import os
import pstats
import sys
import time

import torch


def package_dir(argv):
    """--package's value, read before argparse: the package is imported at the top."""
    for i, a in enumerate(argv):
        if a == "--package" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--package="):
            return a.split("=", 1)[1]
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python")


sys.path.insert(0, package_dir(sys.argv))
import tilejit  # noqa: E402


def host_us(fn, calls, rounds=5):
    """Median over rounds of the host time per call of `calls` calls issued back to back."""
    fn()
    times = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    torch.cuda.synchronize()
    return sorted(times)[len(times) // 2]


class _NoLaunch:
    """Stands in for the Library under the tensor wrapper: its calls return at once."""
    def softmax(self, *args, **kwargs):
        pass


def wrapper_alone(lib, x, y, calls):
    """The tensor wrapper's own time (its library calls made no-ops), and each tensor read it makes."""
    real = tilejit.tensors.library
    tilejit.tensors.library = _NoLaunch
    try:
        alone = {"tilejit.softmax(x)": lambda: tilejit.softmax(x),
                 "tilejit.softmax(x, out=y)": lambda: tilejit.softmax(x, out=y)}
        print(f"\nThe wrapper alone (no launch), {tuple(x.shape)} {x.dtype}, host microseconds per call:")
        for name, fn in alone.items():
            print(f"  {name:40s} {host_us(fn, calls * 5):6.2f}")
    finally:
        tilejit.tensors.library = real
    contiguous = torch.contiguous_format
    xp, yp, f32 = x.data_ptr(), y.data_ptr(), tilejit.F32
    reads = {
        "x.shape": lambda: x.shape, "x.dtype": lambda: x.dtype, "x.stride()": lambda: x.stride(),
        "x.get_device()": lambda: x.get_device(), "x.data_ptr()": lambda: x.data_ptr(),
        "x.element_size()": lambda: x.element_size(), "x.dim()": lambda: x.dim(),
        "x.requires_grad": lambda: x.requires_grad, "torch.is_grad_enabled()": torch.is_grad_enabled,
        "torch.compiler.is_compiling()": torch.compiler.is_compiling,
        "torch.empty_like(x, contiguous)": lambda: torch.empty_like(x, memory_format=contiguous),
        "torch.empty(shape, dtype, device)": lambda: torch.empty(x.shape, dtype=x.dtype, device=x.device),
        "raw current stream": lambda: torch._C._cuda_getCurrentRawStream(0),
        # rows 0: the C entry returns before planning or launching, so this is ctypes' own cost
        "ctypes tilejit_softmax, rows 0": lambda: lib.c.tilejit_softmax(yp, xp, 0, 128, 128, 128, f32, f32, 0),
        "(a Python lambda's call, for scale)": lambda: None,
    }
    print("Each read, host microseconds per call (a lambda's call included):")
    for name, fn in reads.items():
        print(f"  {name:40s} {host_us(fn, calls * 5):6.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="")
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--package", default="", help="the directory holding the tilejit package (read at import)")
    args = ap.parse_args()
    if args.lib:
        os.environ["TILEJIT_LIB"] = args.lib  # before tilejit.library() first loads it
    lib = tilejit.library()
    print(f"{torch.cuda.get_device_name(0)}; package {os.path.dirname(tilejit.__file__)}; "
          f"host microseconds per call, median of 5 rounds of {args.calls}")
    print(f"{'shape':>14} {'dtype':>9} {'torch':>7} {'tilejit':>8} {'tilejit out=':>12} {'Library':>8} {'ctypes':>7}")
    for (rows, cols), dtype in (((65536, 128), torch.float32), ((4096, 1024), torch.bfloat16),
                                ((16, 1 << 22), torch.bfloat16)):
        x = torch.randn(rows, cols, device="cuda", dtype=dtype)
        y = torch.empty_like(x)
        code = tilejit.torch_dtype_code(dtype)
        stream = torch.cuda.current_stream().cuda_stream
        xp, yp = x.data_ptr(), y.data_ptr()
        calls = {
            "torch": lambda: torch.softmax(x, -1),
            "tilejit": lambda: tilejit.softmax(x),  # allocates its output, as torch.softmax does
            "tilejit out=": lambda: tilejit.softmax(x, out=y),
            "Library": lambda: lib.softmax(yp, xp, rows, cols, cols, cols, code, code, stream),
            "ctypes": lambda: lib.c.tilejit_softmax(yp, xp, rows, cols, cols, cols, code, code, stream),
        }
        n = max(50, args.calls // (1 + rows * cols // (1 << 22)))  # big shapes: fewer calls
        t = {k: host_us(f, n) for k, f in calls.items()}
        print(f"{rows:>6} x {cols:<7} {str(dtype)[6:]:>9} {t['torch']:>7.1f} {t['tilejit']:>8.1f}"
              f" {t['tilejit out=']:>12.1f} {t['Library']:>8.1f} {t['ctypes']:>7.1f}")
    x = torch.randn(65536, 128, device="cuda")
    y = torch.empty_like(x)
    wrapper_alone(lib, x, y, args.calls)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(2000):
        tilejit.softmax(x, out=y)
    profile.disable()
    torch.cuda.synchronize()
    print("\ncProfile of 2000 calls of tilejit.softmax(x, out=y), 65536 x 128 f32 (tottime order):")
    pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
