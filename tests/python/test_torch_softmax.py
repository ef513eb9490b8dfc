"""tilejit.softmax / log_softmax / softmax_seed (examples/python/tilejit) on torch CUDA tensors,
against torch's float64 softmax: the layouts a torch user passes (any dim, N-d, sliced and expanded
rows, an `out` of another layout or overlapping the input), the dtypes in and out, CUDA graphs,
autograd, torch.compile and the errors.
Exits 77 (skipped) after saying why where torch or a GPU is missing."""
import sys
import unittest

try:
    import torch
except ImportError as e:
    print(f"skipped: torch is not importable ({e})")
    sys.exit(77)

import tilejit

if not torch.cuda.is_available():
    print("skipped: torch sees no CUDA device")
    sys.exit(77)
has_gpu, why = tilejit.library().gpu()
if not has_gpu:
    print(f"skipped: tilejit sees no CUDA device ({why})")
    sys.exit(77)


def relative_error(y, ref):
    return ((y.double() - ref).norm() / ref.norm().clamp_min(1e-300)).item()


class TorchSoftmax(unittest.TestCase):
    def expect(self, y, x, dim=-1, log=False):
        ref = (torch.log_softmax if log else torch.softmax)(x.double(), dim)
        self.assertEqual(y.shape, x.shape)
        tol = 1e-5 if x.dtype == torch.float32 and y.dtype == torch.float32 else 1e-2
        err = relative_error(y, ref)
        self.assertLessEqual(err, tol, f"{tuple(x.shape)} {x.dtype} -> {y.dtype}, dim {dim}")

    def test_dtypes_and_widths(self):
        # Widths on both sides of the op's strategy boundaries (short rows, a row in registers,
        # clusters, walked rows), N % 4 != 0 among them.
        torch.manual_seed(0)
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for rows, cols in ((4096, 1), (513, 37), (64, 1000), (256, 4096), (8, 16385), (4, 70001), (2, 1 << 20)):
                x = torch.randn(rows, cols, device="cuda", dtype=dtype) * 4
                with self.subTest(dtype=dtype, cols=cols):
                    self.expect(tilejit.softmax(x), x)
                    self.expect(tilejit.log_softmax(x), x, log=True)

    def test_output_dtype(self):
        x = torch.randn(300, 2048, device="cuda", dtype=torch.bfloat16)
        y = tilejit.softmax(x, out_dtype=torch.float32)
        self.assertEqual(y.dtype, torch.float32)
        self.expect(y, x)

    def test_layouts(self):
        base = torch.randn(64, 3000, device="cuda")
        sliced = base[:, 7:2007]                      # rows 3000 apart, misaligned start
        self.expect(tilejit.softmax(sliced), sliced)
        expanded = base[0].expand(5, 3000)            # row stride 0
        self.expect(tilejit.softmax(expanded), expanded)
        batched = torch.randn(3, 5, 777, device="cuda")
        self.expect(tilejit.softmax(batched), batched)
        self.expect(tilejit.softmax(batched[:, :, :700]), batched[:, :, :700])  # rows 777 apart, 3-d
        for dim in (0, 1):                            # not the last dim: a copy, then back
            self.expect(tilejit.softmax(batched, dim=dim), batched, dim=dim)
        permuted = batched.permute(1, 0, 2)           # leading dims with no single stride
        self.expect(tilejit.softmax(permuted), permuted)
        scalar = torch.tensor(3.0, device="cuda")
        self.assertEqual(tilejit.softmax(scalar).item(), 1.0)
        self.assertEqual(tilejit.softmax(torch.empty(0, 5, device="cuda")).shape, (0, 5))

    def test_out(self):
        x = torch.randn(100, 500, device="cuda")
        out = torch.empty(500, 100, device="cuda").t()  # columns adjacent: written through a temporary
        self.assertIs(tilejit.softmax(x, out=out), out)
        self.expect(out, x)
        wide = torch.full((100, 600), float("nan"), device="cuda")
        tilejit.softmax(x, out=wide[:, :500])           # rows 600 apart, written in place
        self.expect(wide[:, :500], x)
        self.assertTrue(wide[:, 500:].isnan().all())    # nothing past each row
        batched = torch.randn(4, 6, 300, device="cuda", dtype=torch.float16)
        into = torch.empty(4, 6, 300, device="cuda", dtype=torch.float32)
        self.assertIs(tilejit.log_softmax(batched, out=into), into)  # out's dtype, written in place
        self.expect(into, batched, log=True)
        same = x.clone()
        tilejit.softmax(same, out=same)                 # out is the input
        self.expect(same, x)

    def test_seed(self):
        x = torch.randn(1000, 1001, device="cuda", dtype=torch.bfloat16)
        self.expect(tilejit.softmax_seed(x), x)

    def test_stream(self):
        x = torch.randn(2048, 4096, device="cuda")
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            y = tilejit.softmax(x)
        side.synchronize()
        self.expect(y, x)

    def test_cuda_graph(self):
        # Captured once after a warm-up call, replayed on new input: a strategy of each kind
        # (short rows, a row in registers, clusters, walking groups with their barrier workspace).
        for (rows, cols), dtype in (((65536, 128), torch.float32), ((4096, 1024), torch.bfloat16),
                                    ((4096, 65536), torch.float32), ((16, 1 << 22), torch.bfloat16)):
            with self.subTest(shape=(rows, cols), dtype=dtype):
                x = torch.randn(rows, cols, device="cuda", dtype=dtype)
                tilejit.softmax(x)
                tilejit.library().wait_for_background_compiles()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    y = tilejit.softmax(x)
                x.copy_(torch.randn(rows, cols, device="cuda", dtype=dtype) * 3)
                graph.replay()
                torch.cuda.synchronize()
                self.expect(y, x)

    def test_cuda_graph_of_every_strategy(self):
        # Each strategy and form forced (Library.softmax's config), captured and replayed on new
        # input: split rows and walking groups take a workspace, which a capture allocates in
        # stream order.
        lib = tilejit.library()
        cases = (
            ((65536, 128), torch.float32, "rows_2d BLOCK=128 warps=2 rows/program=4 grid=per_row"),
            ((4096, 1000), torch.bfloat16, "row_in_registers BLOCK=1024 warps=4 stages=2"),
            ((512, 65536), torch.float32, "online BLOCK=8192 warps=16 stages=2"),
            ((8, 1 << 20), torch.float32, "split_row BLOCK=4096 warps=4 stages=2 splits=32"),
            ((4096, 65536), torch.bfloat16, "cluster BLOCK=8192 warps=8 cluster=8"),
            ((64, 1 << 20), torch.bfloat16, "cluster BLOCK=8192 warps=16 stages=2 cluster=16"),
            ((256, 1 << 18), torch.float32, "group BLOCK=4096 warps=8 group=64 overlap"),
            ((16, 1 << 22), torch.float32, "group BLOCK=8192 warps=16 stages=2 group=64 interleave"),
        )
        for (rows, cols), dtype, config in cases:
            for log in (False, True):
                with self.subTest(config=config, log=log):
                    x = torch.randn(rows, cols, device="cuda", dtype=dtype)
                    y = torch.empty_like(x)
                    code = tilejit.torch_dtype_code(dtype)

                    def run():
                        lib.softmax(y.data_ptr(), x.data_ptr(), rows, cols, cols, cols, code, code,
                                    stream=torch.cuda.current_stream().cuda_stream, log=log, config=config)

                    run()  # compiles
                    lib.wait_for_background_compiles()
                    graph = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(graph):
                        run()
                    x.copy_(torch.randn(rows, cols, device="cuda", dtype=dtype) * 3)
                    y.fill_(float("nan"))
                    graph.replay()
                    torch.cuda.synchronize()
                    self.expect(y, x, log=log)

    def test_plan(self):
        # The configuration softmax runs a tensor with, over any dim, in words that force it again.
        x = torch.randn(8, 300, 4096, device="cuda", dtype=torch.bfloat16)
        config, source = tilejit.softmax_plan(x)
        self.assertIn(source, ("autotune", "device table", "table"))
        self.assertEqual(tilejit.library().softmax_plan(2400, 4096, tilejit.BF16, config=config), (config, "forced"))
        self.assertEqual(tilejit.softmax_plan(x, dim=1), tilejit.library().softmax_plan(8 * 4096, 300, tilejit.BF16))
        # On a GPU with a shipped table (or one borrowed from a device like it) the table is named.
        table = tilejit.softmax_plan_table(x)
        self.assertEqual(table is None, source != "device table")
        self.assertEqual(table, tilejit.library().softmax_plan_table(2400, 4096, tilejit.BF16))
        if torch.cuda.get_device_name() in ("NVIDIA H200", "NVIDIA H100 80GB HBM3") and source == "device table":
            self.assertIn(table, ("NVIDIA H200", "NVIDIA H100 80GB HBM3"))
        with self.assertRaisesRegex(tilejit.TilejitError, "dim 3 is out of range"):
            tilejit.softmax_plan(x, dim=3)

    def test_autograd(self):
        # Gradients against float64 torch: the operator's backward (torch's ops, float32).
        torch.manual_seed(1)
        for log, dtype, dim in ((False, torch.float32, -1), (True, torch.float32, 0), (False, torch.bfloat16, 1)):
            with self.subTest(log=log, dtype=dtype, dim=dim):
                x = (torch.randn(96, 1000, device="cuda") * 3).to(dtype).requires_grad_()
                g = torch.randn(96, 1000, device="cuda", dtype=torch.float64)
                y = (tilejit.log_softmax if log else tilejit.softmax)(x, dim=dim)
                self.assertIsNotNone(y.grad_fn)
                (y.double() * g).sum().backward()
                ref_x = x.detach().double().requires_grad_()
                ((torch.log_softmax if log else torch.softmax)(ref_x, dim) * g).sum().backward()
                err = relative_error(x.grad, ref_x.grad)
                self.assertLessEqual(err, 1e-5 if dtype == torch.float32 else 1e-2)

    def test_operator(self):
        x = torch.randn(33, 515, device="cuda")
        torch.library.opcheck(tilejit.torch_ops.softmax_op().default, (x, -1, False, None))
        torch.library.opcheck(tilejit.torch_ops.softmax_op().default, (x.half(), 0, True, torch.float32))

    def test_torch_compile(self):
        # fullgraph: a graph break (tilejit's ctypes call traced) would be an error.
        for mode in ("default", "reduce-overhead"):
            with self.subTest(mode=mode):
                f = torch.compile(lambda t: tilejit.softmax(t * 2.0, dim=-1) * 3.0, fullgraph=True, mode=mode)
                for _ in range(3):  # reduce-overhead records a CUDA graph on a later call
                    x = torch.randn(256, 3000, device="cuda")
                    self.expect(f(x).clone() / 3.0, x * 2.0)

    def test_errors(self):
        with self.assertRaisesRegex(tilejit.TilejitError, "x is on meta: tilejit runs on CUDA device 0 or on the CPU"):
            tilejit.softmax(torch.empty(4, 4, device="meta"))
        with self.assertRaisesRegex(tilejit.TilejitError, "out is on cpu and x on cuda:0"):
            tilejit.softmax(torch.randn(4, 4, device="cuda"), out=torch.empty(4, 4))
        with self.assertRaisesRegex(tilejit.TilejitError, "float32, float16 or bfloat16 tensors, not torch.int32"):
            tilejit.softmax(torch.ones(4, 4, device="cuda", dtype=torch.int32))
        with self.assertRaisesRegex(tilejit.TilejitError, "dim 2 is out of range for a 2-d tensor"):
            tilejit.softmax(torch.randn(4, 4, device="cuda"), dim=2)
        with self.assertRaisesRegex(tilejit.TilejitError, r"out is \(4, 5\) torch.float32; expected \(4, 4\)"):
            tilejit.softmax(torch.randn(4, 4, device="cuda"), out=torch.empty(4, 5, device="cuda"))
        with self.assertRaisesRegex(tilejit.TilejitError, "16384"):
            tilejit.softmax_seed(torch.randn(2, 20000, device="cuda"))


if __name__ == "__main__":
    unittest.main()
