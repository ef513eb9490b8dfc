#!/usr/bin/env python3
"""Does an L2 set-aside for persisting accesses make the walks' Eviction::last re-reads stay in L2?

The walked strategies read the part of a row they cannot keep on chip with an evict_last hint
and read it again in the second pass. Without a set-aside (the context's default, 0 bytes) the
hint may count for nothing: ncu saw f32 16 x 4M read a quarter of its input twice from DRAM.
This times ops::softmax (the table's plan, or forced configurations) with the set-aside at 0 and at
other sizes, rounds alternating, each run's L2 flushed (a 256 MiB buffer zeroed) and its persisting
lines reset first (cuCtxResetPersistingL2Cache), so no run starts with the previous run's lines.
Method: CUDA events around one launch, median of --reps; the copy (y.copy_(x)) timed the same way
gives the fraction of C. Output: a markdown table on stdout.

  python3 bench/l2_persisting.py --lib build-gpu/libtilejit_c.so [--shapes f32:16x4194304,...]
"""
import argparse
import ctypes
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
import tilejit  # noqa: E402

CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38
CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108
DTYPES = {"f32": (torch.float32, tilejit.F32), "bf16": (torch.bfloat16, tilejit.BF16)}
SHAPES = ("f32:16x4194304,bf16:16x4194304,f32:128x1048576,bf16:128x1048576,f32:1x16777216,bf16:1x16777216,"
          "f32:1x1048576,f32:4096x65536,bf16:4096x65536,f32:4096x262144,bf16:4096x262144")


def driver():
    cu = ctypes.CDLL("libcuda.so.1")
    cu.cuCtxSetLimit.argtypes = [ctypes.c_int, ctypes.c_size_t]
    cu.cuCtxGetLimit.argtypes = [ctypes.POINTER(ctypes.c_size_t), ctypes.c_int]
    cu.cuDeviceGetAttribute.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int]
    return cu


def checked(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what} failed: CUresult {rc}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--shapes", default=SHAPES, help="comma-separated dtype:MxN[=config]")
    ap.add_argument("--sizes", default="0,max", help="set-aside sizes in MiB, or max")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-reset", action="store_true", help="keep persisting lines between runs")
    args = ap.parse_args()

    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the primary context, current on this thread
    cu = driver()
    value = ctypes.c_int()
    checked(cu.cuDeviceGetAttribute(ctypes.byref(value), CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 0), "max")
    max_bytes = value.value
    checked(cu.cuDeviceGetAttribute(ctypes.byref(value), CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0), "L2 size")
    print(f"{torch.cuda.get_device_name()}: L2 {value.value / 2**20:.1f} MiB, "
          f"persisting set-aside at most {max_bytes / 2**20:.1f} MiB", flush=True)
    sizes = [max_bytes if s == "max" else int(float(s) * 2**20) for s in args.sizes.split(",")]

    lib = tilejit.Library(args.lib)
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream

    def set_aside(size):
        torch.cuda.synchronize()
        checked(cu.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, size), f"cuCtxSetLimit({size})")
        got = ctypes.c_size_t()
        checked(cu.cuCtxGetLimit(ctypes.byref(got), CU_LIMIT_PERSISTING_L2_CACHE_SIZE), "cuCtxGetLimit")
        return got.value

    def time_us(fn):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(args.reps + 3):
            if not args.no_reset:
                checked(cu.cuCtxResetPersistingL2Cache(), "cuCtxResetPersistingL2Cache")
            flush.zero_()
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1e3)
        return statistics.median(samples[3:])

    problems = []
    for spec in args.shapes.split(","):
        spec, _, config = spec.partition("=")
        dname, shape = spec.split(":")
        m, n = (int(v) for v in shape.split("x"))
        torch_dtype, dtype = DTYPES[dname]
        x = torch.randn(m, n, device="cuda", dtype=torch_dtype) * 3
        y = torch.empty_like(x)
        plan = config or lib.softmax_plan(m, n, dtype)[0]

        def op(x=x, y=y, m=m, n=n, dtype=dtype, config=config or None):
            lib.softmax(y.data_ptr(), x.data_ptr(), m, n, n, n, dtype, dtype, stream, config=config)

        ref = torch.softmax(x.double(), dim=-1)
        op()
        err = ((y.double() - ref).norm() / ref.norm()).item()
        del ref
        if not err <= (1e-5 if dname == "f32" else 1e-2):
            raise RuntimeError(f"{spec} {plan}: relative error {err:.2e}")
        problems.append((spec, plan, op, lambda x=x, y=y: y.copy_(x)))

    times = {}  # (spec, size) -> [op us], [copy us]
    for r in range(args.rounds):
        for size in sizes:
            got = set_aside(size)
            for spec, plan, op, copy in problems:
                t_copy, t_op = time_us(copy), time_us(op)
                times.setdefault((spec, size), ([], []))
                times[(spec, size)][0].append(t_op)
                times[(spec, size)][1].append(t_copy)
                print(f"round {r + 1} set-aside {got / 2**20:5.1f} MiB {spec:18s} op {t_op:8.1f} us "
                      f"copy {t_copy:8.1f} us  {t_copy / t_op:.3f} C", flush=True)
    set_aside(0)

    print("\n| shape | plan | set-aside MiB | op us (median of rounds) | copy us | fraction of C (rounds) |")
    print("|---|---|---|---|---|---|")
    for spec, plan, _, _ in problems:
        for size in sizes:
            ops, copies = times[(spec, size)]
            fr = [c / o for c, o in zip(copies, ops)]
            print(f"| {spec} | {plan} | {size / 2**20:.1f} | {statistics.median(ops):.1f} | "
                  f"{statistics.median(copies):.1f} | {statistics.median(fr):.3f} ({min(fr):.3f}-{max(fr):.3f}) |")


if __name__ == "__main__":
    main()
