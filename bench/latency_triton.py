"""Triton's compile and launch latency, measured the way bench-latency measures tilejit's.

  (a) cold compile of the seed softmax: Triton already loaded and warmed by compiling another
      tiny kernel, empty TRITON_CACHE_DIR (a fresh process, so the in-memory cache is empty too)
  (b) first compile in a fresh process: from the script's start (before importing torch) and the
      first call alone
  (c) first call in a fresh process with a warm disk cache, after CUDA context creation
  (d) host cost per launch of the compiled seed kernel: 10000 launches, median of 5 rounds,
      host clock around the enqueue loop only

Usage: python3 bench/latency_triton.py [--launches N] [--rounds R]   (prints a markdown table)
"""
import time

T_START = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

ROWS, COLS = 4096, 1024


def child(mode, launches, rounds):
    import torch
    import triton
    import triton.language as tl

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from triton_seed_softmax import seed_softmax_kernel

    @triton.jit
    def touch_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)

    out = {}
    c0 = time.perf_counter()
    torch.cuda.init()
    torch.empty(1, device="cuda")  # creates the context
    torch.cuda.synchronize()
    out["context_ms"] = (time.perf_counter() - c0) * 1e3
    rows, cols = (64, 128) if mode == "launch" else (ROWS, COLS)
    x = torch.zeros(rows, cols, device="cuda")
    y = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    num_warps = 4
    grid = (rows,)

    def call():
        seed_softmax_kernel[grid](y, x, x.stride(0), y.stride(0), rows, cols, BLOCK_SIZE=block, num_stages=2,
                                  num_warps=num_warps)

    if mode == "cold":
        touch_kernel[(1,)](x, 16, BLOCK=128)
        torch.cuda.synchronize()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    call()
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    out["first_call_ms"] = (t1 - t0) * 1e3
    out["start_to_done_ms"] = (t1 - T_START) * 1e3
    if mode == "launch":
        for _ in range(1000):
            call()
        per = []
        for _ in range(rounds):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(launches):
                call()
            per.append((time.perf_counter() - t0) * 1e6 / launches)
        torch.cuda.synchronize()
        out["launch_us"] = sorted(per)[len(per) // 2]
    print(json.dumps(out))


def run(mode, cache_dir, launches, rounds):
    env = dict(os.environ, TRITON_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, str(launches), str(rounds)],
                       env=env, capture_output=True, text=True, timeout=300)
    wall = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        raise RuntimeError(f"{mode} child failed: {p.stderr[-2000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["wall_ms"] = wall
    return r


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    launches = int(sys.argv[sys.argv.index("--launches") + 1]) if "--launches" in sys.argv else 10000
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        cold = run("cold", a, launches, rounds)
        first = run("first", b, launches, rounds)
        warm = run("warm", b, launches, rounds)
        launch = run("launch", b, launches, rounds)
    print(f"# Triton compile and launch latency (seed softmax f32 {ROWS}x{COLS}; launches 64x128, {launches} per "
          f"round, median of {rounds})\n")
    print("| Measurement | Triton |\n| --- | --- |")
    print(f"| (a) cold compile (Triton warmed by another kernel, empty cache) | {cold['first_call_ms']:.2f} ms |")
    print(f"| (b) first compile in a fresh process: script start to done | {first['start_to_done_ms']:.2f} ms |")
    print(f"|     the first call alone | {first['first_call_ms']:.2f} ms |")
    print(f"|     exec to exit, seen by the parent | {first['wall_ms']:.2f} ms |")
    print(f"| (c) first call, fresh process, warm disk cache (after context creation) | {warm['first_call_ms']:.3f} ms |")
    print(f"|     context creation before it | {warm['context_ms']:.2f} ms |")
    print(f"| (d) host cost per launch | {launch['launch_us']:.2f} us |")


if __name__ == "__main__":
    main()
