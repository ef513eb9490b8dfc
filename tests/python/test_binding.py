"""examples/python/tilejit without a GPU or torch: every entry point typed (64-bit sizes reach the
library whole), failures raised with tilejit's message, a library kernel compiled and its stages read. The C API's own error paths are tests/c_api's; this checks what the binding adds."""
import ctypes
import math
import os
import unittest

import tilejit


class Binding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = tilejit.library()

    def test_kernel_names(self):
        self.assertEqual(self.lib.kernel_names(), ["softmax_simple", "softmax_held", "softmax_persistent"])

    def test_sizes_are_64_bit(self):
        # Untyped, ctypes would pass these as C ints: an OverflowError, or sizes cut to 32 bits.
        with self.assertRaisesRegex(tilejit.TilejitError, "8589934592 x 3 is too large"):
            self.lib.softmax(0x1000, 0x2000, 1 << 33, 3, 3, 3, tilejit.F32, tilejit.F32)

    def test_errors_carry_the_librarys_message(self):
        with self.assertRaisesRegex(tilejit.TilejitError, "null output pointer"):
            self.lib.softmax(0, 0x2000, 2, 2, 2, 2, tilejit.F32, tilejit.F32)
        with self.assertRaisesRegex(tilejit.TilejitError, "unsupported input element type i32"):
            self.lib.softmax(0x1000, 0x2000, 2, 2, 2, 2, tilejit.I32, tilejit.F32, log=True)
        with self.assertRaisesRegex(tilejit.TilejitError, "16384"):
            self.lib.softmax_seed(0x1000, 0x2000, 2, 20000, 20000, 20000, tilejit.F32)
        with self.assertRaisesRegex(tilejit.TilejitError, "(?s)unknown kernel 'nope'.*softmax_persistent"):
            self.lib.compile("nope", [tilejit.integer(1)])

    def test_nothing_to_do_is_not_an_error(self):
        self.lib.softmax(0x1000, 0x2000, 0, 5, 5, 5, tilejit.BF16, tilejit.F32)
        self.lib.softmax_seed(0x1000, 0x2000, 3, 0, 0, 0, tilejit.F16)

    def test_a_missing_library_is_named(self):
        with self.assertRaisesRegex(tilejit.TilejitError, "no/such/libtilejit_c.so not found.*TILEJIT_LIB"):
            tilejit.Library("/no/such/libtilejit_c.so")

    def test_compile_and_read_stages(self):
        # out, in, in_stride, out_stride, n_rows, n_cols, BLOCK_SIZE, num_stages
        args = [tilejit.pointer(0x10000, tilejit.F32), tilejit.pointer(0x20000, tilejit.F32)]
        args += [tilejit.integer(v) for v in (1024, 1024, 4096, 1000, 1024, 2)]
        has_gpu, _ = self.lib.gpu()
        try:
            kernel = self.lib.compile("softmax_persistent", args, num_warps=4, num_stages=2)
        except tilejit.TilejitError as e:
            if has_gpu or "not available" not in str(e):
                raise
            self.skipTest(f"neither a GPU nor the CPU backend here ({e})")
        self.assertIn("softmax_persistent", kernel.stage("ir"))
        # Without a GPU the library compiles for its CPU backend (LLVM), which has no PTX.
        if has_gpu:
            self.assertIn(".entry softmax_persistent", kernel.stage("ptx"))
        else:
            self.assertIn("define", kernel.stage("llvm"))
        with self.assertRaisesRegex(tilejit.TilejitError, "no stage 'no-such-stage'"):
            kernel.stage("no-such-stage")

    def test_cpu_backend_on_host_memory(self):
        # 3 rows of 37 columns, 40 apart in the input; float64 reference.
        rows, cols, stride = 3, 37, 40
        x = (ctypes.c_float * (rows * stride))(*[((r * 7 + c * 13) % 29) * 0.25 - 3.0 if c < cols else 1e30
                                                 for r in range(rows) for c in range(stride)])
        # The op's choice, and a configuration forced in the words it describes plans with.
        for log, config in ((False, None), (True, None), (False, "split_row BLOCK=16 warps=1 splits=3")):
            y = (ctypes.c_float * (rows * cols))()
            try:
                self.lib.softmax(ctypes.addressof(y), ctypes.addressof(x), rows, cols, stride, cols, tilejit.F32,
                                 tilejit.F32, log=log, backend=tilejit.CPU, cpu_threads=2, config=config)
            except tilejit.TilejitError as e:
                if "not available" not in str(e) or os.environ.get("TILEJIT_EXPECT_CPU_BACKEND") != "0":
                    raise
                self.skipTest(f"this library has no CPU backend ({e})")
            for r in range(rows):
                row = [x[r * stride + c] for c in range(cols)]
                top = max(row)
                total = sum(math.exp(v - top) for v in row)
                for c in range(cols):
                    want = row[c] - top - math.log(total) if log else math.exp(row[c] - top) / total
                    self.assertAlmostEqual(y[r * cols + c], want, delta=1e-5 * max(1.0, abs(want)))
        with self.assertRaisesRegex(tilejit.TilejitError, "bad backend 5"):
            self.lib.softmax(ctypes.addressof(x), ctypes.addressof(x), 1, 1, 1, 1, tilejit.F32, tilejit.F32, backend=5)

    def test_a_configuration_it_cannot_use_is_named(self):
        # Refused before any device or CPU-backend work: the text reaches the library whole.
        with self.assertRaisesRegex(tilejit.TilejitError, "'split_row BLOCK=16 grid=each': unknown grid"):
            self.lib.softmax(0x1000, 0x2000, 2, 2, 2, 2, tilejit.F32, tilejit.F32,
                             config="split_row BLOCK=16 grid=each")

    def test_plan_and_kernels_for_inspection(self):
        # Neither needs a GPU: CUDA kernels compile for sm_90 without one.
        text, source = self.lib.softmax_plan(4, 1 << 20, tilejit.BF16,
                                             config="split_row splits=8 BLOCK=4096 warps=4 stages=2")
        self.assertEqual((text, source), ("split_row BLOCK=4096 warps=4 stages=2 splits=8", "forced"))
        chosen, source = self.lib.softmax_plan(65536, 128, tilejit.F32)
        self.assertIn(source, ("autotune", "device table", "table"))
        self.assertEqual(self.lib.softmax_plan(65536, 128, tilejit.F32, config=chosen), (chosen, "forced"))
        # Whose table: named exactly when the source is a device table.
        table = self.lib.softmax_plan_table(65536, 128, tilejit.F32)
        self.assertEqual(table is None, source != "device table")
        if table is not None:
            self.assertIsInstance(table, str)
        self.assertIsNone(self.lib.softmax_plan_table(65536, 128, tilejit.F32, config=chosen))
        with self.assertRaisesRegex(tilejit.TilejitError, "negative size 5 x -1"):
            self.lib.softmax_plan_table(5, -1, tilejit.F32)
        kernels = self.lib.softmax_kernels(0x10000, 0x20000, 4, 1 << 20, 1 << 20, 1 << 20, tilejit.BF16,
                                           tilejit.BF16, config=text)
        self.assertEqual([".entry softmax_split_partials" in k.stage("ptx") for k in kernels], [True, False])
        self.assertIn(".entry softmax_split_normalize", kernels[1].stage("ptx"))
        with self.assertRaisesRegex(tilejit.TilejitError, "0 x 5 has no elements"):
            self.lib.softmax_plan(0, 5, tilejit.F32)

    def test_device_calls_without_a_gpu_say_why(self):
        has_gpu, why = self.lib.gpu()
        if has_gpu:
            self.skipTest("this machine has a GPU (tests/python/test_torch_softmax.py runs there)")
        self.assertTrue(why)
        buffer = (ctypes.c_float * 4)()
        with self.assertRaises(tilejit.TilejitError) as caught:
            self.lib.softmax(ctypes.addressof(buffer), ctypes.addressof(buffer), 2, 2, 2, 2, tilejit.F32, tilejit.F32)
        self.assertTrue(str(caught.exception))
        with self.assertRaises(tilejit.TilejitError) as caught:
            self.lib.flush_l2()
        self.assertTrue(str(caught.exception))


if __name__ == "__main__":
    unittest.main()
