"""tilejit.softmax / log_softmax on torch CPU tensors, through tilejit's CPU backend, against torch's
float64 softmax: dims, N-d and sliced inputs, dtypes in and out, and what needs a newer torch.
Exits 77 (skipped) after saying why where torch or the CPU backend (a library built with LLVM) is
missing."""
import os
import sys
import unittest

try:
    import torch
except ImportError as e:
    print(f"skipped: torch is not importable ({e})")
    sys.exit(77)

import tilejit

try:
    tilejit.softmax(torch.ones(1, 1))
except tilejit.TilejitError as e:
    if "not available" not in str(e) or os.environ.get("TILEJIT_EXPECT_CPU_BACKEND") != "0":
        raise
    print(f"skipped: this library has no CPU backend ({e})")
    sys.exit(77)


def relative_error(y, ref):
    return ((y.double() - ref).norm() / ref.norm()).item()


class TorchCpuSoftmax(unittest.TestCase):
    def test_layouts_and_dtypes(self):
        torch.manual_seed(0)
        base = torch.randn(64, 3000) * 4
        cases = [(base, -1), (base[:, 5:2005], -1), (base, 0), (torch.randn(3, 5, 777), 1),
                 (torch.randn(7, 4, 9).permute(2, 0, 1), -1)]
        for x, dim in cases:
            for dtype in (torch.float32, torch.bfloat16):
                xd = x.to(dtype)
                with self.subTest(shape=tuple(x.shape), dim=dim, dtype=dtype):
                    tol = 1e-5 if dtype == torch.float32 else 1e-2
                    y = tilejit.softmax(xd, dim=dim)
                    self.assertEqual((y.shape, y.dtype), (xd.shape, dtype))
                    self.assertLessEqual(relative_error(y, torch.softmax(xd.double(), dim)), tol)
                    z = tilejit.log_softmax(xd, dim=dim, out_dtype=torch.float32)
                    self.assertLessEqual(relative_error(z, torch.log_softmax(xd.double(), dim)), tol)

    def test_out(self):
        x = torch.randn(100, 500)
        out = torch.empty(500, 100).t()
        self.assertIs(tilejit.softmax(x, out=out), out)
        self.assertLessEqual(relative_error(out, torch.softmax(x.double(), -1)), 1e-5)

    def test_plan(self):
        # A CPU tensor's plan is the CPU backend's, in words that force it again there.
        x = torch.randn(3, 50, 4000)
        config, source = tilejit.softmax_plan(x)
        self.assertIn(source, ("autotune", "device table", "table"))
        self.assertEqual(tilejit.library().softmax_plan(150, 4000, tilejit.F32, backend=tilejit.CPU, config=config),
                         (config, "forced"))
        self.assertEqual(tilejit.softmax_plan(x, dim=1),
                         tilejit.library().softmax_plan(3 * 4000, 50, tilejit.F32, backend=tilejit.CPU))

    def test_what_runs_on_the_gpu_only(self):
        with self.assertRaisesRegex(tilejit.TilejitError, "softmax_seed runs on CUDA tensors"):
            tilejit.softmax_seed(torch.randn(4, 4))

    def test_gradients(self):
        x = torch.randn(16, 100, requires_grad=True)
        if tilejit.torch_ops.softmax_op() is None:
            with self.assertRaisesRegex(tilejit.TilejitError, "need torch 2.4 or newer"):
                tilejit.softmax(x)
            return
        y = tilejit.softmax(x)
        g = torch.randn(16, 100)
        (y * g).sum().backward()
        ref_x = x.detach().double().requires_grad_()
        (torch.softmax(ref_x, -1) * g.double()).sum().backward()
        self.assertLessEqual(relative_error(x.grad, ref_x.grad), 1e-5)


if __name__ == "__main__":
    unittest.main()
