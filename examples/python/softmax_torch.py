"""Softmax of torch tensors by tilejit, beside torch.softmax, on the GPU:

    python3 examples/python/softmax_torch.py      # after bash scripts/setup.sh; needs torch and a GPU

For each shape: tilejit.softmax's error against a float64 reference, then both implementations'
GPU time per call (CUDA events around 20 calls back to back, median of 10; L2 not flushed), the
bandwidth that means (input read + output written), and the host time to issue one call. Then the
configuration tilejit ran each shape with (tilejit.softmax_plan), and where it came from.
bench/softmax_bench.py is the full benchmark (L2 flushed, against the copy ceiling).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilejit  # noqa: E402

try:
    import torch
except ImportError as e:
    sys.exit(f"this example needs torch ({e})")
if not torch.cuda.is_available():
    sys.exit("this example needs a CUDA device, and torch sees none")


def median_us(fn, batches=10, calls=20):
    """Median over batches of the GPU time per call of `calls` calls issued back to back, so the
    host's time per call (the wrapper's Python) overlaps the kernels before it."""
    fn()  # compiles on first use
    times = []
    for _ in range(batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000 / calls)
    return sorted(times)[len(times) // 2]


def host_us(fn, calls=200):
    """Host time to issue one call, the GPU kept busy."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def main():
    torch.manual_seed(0)
    print(f"{torch.cuda.get_device_name(0)}; tilejit from {tilejit.library().path}")
    print(f"{'shape':>18} {'dtype':>9} {'dim':>3} {'rel. error':>10} {'tilejit us':>10} {'GB/s':>6}"
          f" {'host us':>7} {'torch us':>9} {'GB/s':>6} {'host us':>7}")
    cases = [((4096, 4096), torch.float32, -1), ((4096, 16384), torch.bfloat16, -1),
             ((32, 128, 1000), torch.float16, -1), ((2048, 4096), torch.float32, 0),
             ((16, 1 << 22), torch.bfloat16, -1), ((65536, 128), torch.float32, -1)]
    plans = []
    for shape, dtype, dim in cases:
        x = torch.randn(shape, device="cuda", dtype=dtype)
        y = tilejit.softmax(x, dim=dim)
        ref = torch.softmax(x.double(), dim=dim)
        err = ((y.double() - ref).norm() / ref.norm()).item()
        limit = 1e-5 if dtype == torch.float32 else 1e-2
        if not err <= limit:
            sys.exit(f"{shape} {dtype}: relative error {err:.1e} above {limit}")
        gb = 2 * x.numel() * x.element_size() / 1e9
        ours, theirs = (lambda: tilejit.softmax(x, dim=dim, out=y)), (lambda: torch.softmax(x, dim=dim))
        t_ours, t_theirs = median_us(ours), median_us(theirs)
        print(f"{' x '.join(map(str, shape)):>18} {str(dtype)[6:]:>9} {dim:>3} {err:>10.1e} {t_ours:>10.1f}"
              f" {gb / t_ours * 1e6:>6.0f} {host_us(ours):>7.1f} {t_theirs:>9.1f} {gb / t_theirs * 1e6:>6.0f}"
              f" {host_us(theirs):>7.1f}")
        plans.append((shape, dtype, dim, *tilejit.softmax_plan(x, dim=dim), tilejit.softmax_plan_table(x, dim=dim)))
    print("\ntilejit's configuration (Library.softmax's config= takes the same words):")
    for shape, dtype, dim, config, source, table in plans:
        source = f"{source}: {table}" if table else source
        print(f"{' x '.join(map(str, shape)):>18} {str(dtype)[6:]:>9} {dim:>3}  {config} ({source})")


if __name__ == "__main__":
    main()
