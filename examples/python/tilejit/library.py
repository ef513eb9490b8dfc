"""The C API (libtilejit_c.so, include/tilejit/c_api.h) through ctypes: every entry point with its
argument types declared (sizes and strides are 64-bit), failures raised as TilejitError carrying
tilejit's own message. Works on raw device addresses and needs no third-party module.

The library is found at $TILEJIT_LIB, else build/libtilejit_c.so of this checkout (bash scripts/setup.sh
builds it). tilejit runs on CUDA device 0 through its primary context, the one PyTorch uses.
"""

import ctypes
import os

# tilejit_dtype codes (c_api.h)
F16, BF16, F32 = 3, 4, 5
I32, I64 = 1, 2
# tilejit_backend codes: CUDA takes device addresses and a stream, CPU host addresses (and is done
# when the call returns).
CUDA, CPU = 0, 1
# tilejit_config_source codes, by name: where a softmax plan's configuration came from.
CONFIG_SOURCES = ("forced", "autotune", "device table", "table")


class TilejitError(RuntimeError):
    """A call into tilejit failed; the message is tilejit's (tilejit_last_error)."""


class Arg(ctypes.Structure):
    """tilejit_arg. Build one with pointer(), integer() or floating()."""
    _fields_ = [("kind", ctypes.c_int), ("dtype", ctypes.c_int), ("address", ctypes.c_uint64),
                ("value", ctypes.c_int64), ("fvalue", ctypes.c_double)]


def pointer(address, dtype):
    """A pointer argument: a device address and its element type (F32, BF16, ...)."""
    return Arg(0, dtype, address, 0, 0.0)


def integer(value):
    return Arg(1, 0, 0, value, 0.0)


def floating(value):
    return Arg(2, 0, 0, 0, value)


class SoftmaxOptions(ctypes.Structure):
    """tilejit_softmax_options."""
    _fields_ = [("backend", ctypes.c_int), ("log", ctypes.c_int), ("cpu_threads", ctypes.c_int),
                ("config", ctypes.c_char_p)]


def _softmax_options(backend, log, cpu_threads, config):
    return SoftmaxOptions(backend, 1 if log else 0, cpu_threads, config.encode() if config else None)


class CompileOptions(ctypes.Structure):
    """tilejit_compile_options."""
    _fields_ = [("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int), ("min_blocks_per_sm", ctypes.c_int),
                ("programs_per_block", ctypes.c_int)]


def default_library_path():
    """$TILEJIT_LIB, else the build tree of the checkout this file belongs to."""
    env = os.environ.get("TILEJIT_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))  # examples/python/tilejit
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    return os.path.join(root, "build", "libtilejit_c.so")


class Compiled:
    """A compiled specialization of one of the library's kernels (owned by tilejit)."""

    def __init__(self, library, handle):
        self._lib = library
        self._handle = handle

    def launch(self, grid, args, stream=0):
        """Launches on `grid` (an int or a tuple of up to three) with arguments of the kinds it was
        compiled for, on `stream` (a CUstream as an int; 0 is the legacy default stream)."""
        x, y, z = (tuple(grid) + (1, 1))[:3] if isinstance(grid, (tuple, list)) else (grid, 1, 1)
        array = (Arg * len(args))(*args)
        self._lib._check(self._lib.c.tilejit_launch(self._handle, x, y, z, array, len(args), stream))

    def persistent_grid(self, work_items):
        """As many programs as the device holds at once, at most `work_items`. Needs a GPU."""
        grid = ctypes.c_uint64()
        self._lib._check(self._lib.c.tilejit_persistent_grid(self._handle, work_items, ctypes.byref(grid)))
        return grid.value

    def stage(self, name):
        """A stage of the kernel as text: "ir", "ir.lowered", "cuda" or "ptx"."""
        text = self._lib.c.tilejit_stage(self._handle, name.encode())
        if text is None:
            raise TilejitError(self._lib.last_error())
        return text.decode()


class Library:
    """libtilejit_c.so with every entry point typed."""

    def __init__(self, path=None):
        path = path or default_library_path()
        if not os.path.exists(path):
            raise TilejitError(f"{path} not found: build tilejit (bash scripts/setup.sh) or set TILEJIT_LIB")
        self.path = path
        self.c = c = ctypes.CDLL(path)
        i64, u64, vp, ci = ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int
        signatures = {
            "tilejit_last_error": (ctypes.c_char_p, []),
            "tilejit_has_gpu": (ci, []),
            "tilejit_wait_for_background_compiles": (None, []),
            "tilejit_flush_l2": (ci, [vp]),
            "tilejit_kernel_names": (ctypes.c_char_p, []),
            "tilejit_compile_with": (ci, [ctypes.c_char_p, ctypes.POINTER(Arg), ci, ctypes.POINTER(CompileOptions),
                                          ctypes.POINTER(vp)]),
            "tilejit_launch": (ci, [vp, u64, u64, u64, ctypes.POINTER(Arg), ci, vp]),
            "tilejit_persistent_grid": (ci, [vp, u64, ctypes.POINTER(u64)]),
            "tilejit_stage": (ctypes.c_char_p, [vp, ctypes.c_char_p]),
            "tilejit_softmax_seed": (ci, [vp, vp, i64, i64, i64, i64, ci, vp]),
            "tilejit_softmax": (ci, [vp, vp, i64, i64, i64, i64, ci, ci, vp]),
            "tilejit_log_softmax": (ci, [vp, vp, i64, i64, i64, i64, ci, ci, vp]),
            "tilejit_softmax_with": (ci, [vp, vp, i64, i64, i64, i64, ci, ci, vp, ctypes.POINTER(SoftmaxOptions)]),
            "tilejit_softmax_plan": (ctypes.c_char_p, [i64, i64, ci, ci, ctypes.POINTER(SoftmaxOptions),
                                                       ctypes.POINTER(ci)]),
            "tilejit_softmax_plan_table": (ctypes.c_char_p, [i64, i64, ci, ci, ctypes.POINTER(SoftmaxOptions)]),
            "tilejit_softmax_kernels": (ci, [vp, vp, i64, i64, i64, i64, ci, ci, ctypes.POINTER(SoftmaxOptions),
                                             ctypes.POINTER(vp), ci, ctypes.POINTER(ci)]),
        }
        for name, (restype, argtypes) in signatures.items():
            fn = getattr(c, name)
            fn.restype, fn.argtypes = restype, argtypes

    def last_error(self):
        return self.c.tilejit_last_error().decode()

    def _check(self, rc):
        if rc != 0:
            raise TilejitError(self.last_error())

    def gpu(self):
        """(True, "") when a CUDA device is usable, else (False, why)."""
        if self.c.tilejit_has_gpu():
            return True, ""
        return False, self.last_error()

    def flush_l2(self, stream=0):
        """Enqueues on `stream` what empties L2 before each of tilejit's timed runs: lines held with
        an evict_last hint dropped, then a 256 MiB buffer overwritten. For timing loops of one's own."""
        self._check(self.c.tilejit_flush_l2(stream))

    def kernel_names(self):
        return self.c.tilejit_kernel_names().decode().split("\n")

    def wait_for_background_compiles(self):
        """Waits for the background NVRTC builds of TILEJIT_CODEGEN=tiered; a no-op otherwise."""
        self.c.tilejit_wait_for_background_compiles()

    def compile(self, kernel, args, num_warps=4, num_stages=1, min_blocks_per_sm=0, programs_per_block=1):
        """Compiles one of kernel_names() for these arguments (their dtypes, alignment and values
        are the specialization). Needs no GPU."""
        array = (Arg * len(args))(*args)
        handle = ctypes.c_void_p()
        options = CompileOptions(num_warps, num_stages, min_blocks_per_sm, programs_per_block)
        self._check(self.c.tilejit_compile_with(kernel.encode(), array, len(args), ctypes.byref(options),
                                                ctypes.byref(handle)))
        return Compiled(self, handle)

    def softmax(self, out, x, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, stream=0, log=False,
                backend=CUDA, cpu_threads=0, config=None):
        """ops::softmax (or log_softmax). CUDA: on device addresses, asynchronous on `stream`; CPU:
        on host addresses through the CPU backend (a build with LLVM), done on return. `config`
        forces a configuration of the op's own, in the words it describes plans with, e.g.
        "split_row BLOCK=4096 warps=4 stages=2 splits=8"."""
        if backend == CUDA and not cpu_threads and not config:  # the plain entry points: fewest arguments
            fn = self.c.tilejit_log_softmax if log else self.c.tilejit_softmax
            self._check(fn(out, x, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, stream))
            return
        options = _softmax_options(backend, log, cpu_threads, config)
        self._check(self.c.tilejit_softmax_with(out, x, rows, cols, in_row_stride, out_row_stride, in_dtype,
                                                out_dtype, stream, ctypes.byref(options)))

    def softmax_plan(self, rows, cols, in_dtype, out_dtype=None, backend=CUDA, cpu_threads=0, config=None):
        """(configuration, source): what softmax would run this problem with, in the words `config`
        takes, and where that came from ("forced", "autotune", "device table" or "table")."""
        options = _softmax_options(backend, False, cpu_threads, config)
        source = ctypes.c_int()
        text = self.c.tilejit_softmax_plan(rows, cols, in_dtype, in_dtype if out_dtype is None else out_dtype,
                                           ctypes.byref(options), ctypes.byref(source))
        if text is None:
            raise TilejitError(self.last_error())
        return text.decode(), CONFIG_SOURCES[source.value]

    def softmax_plan_table(self, rows, cols, in_dtype, out_dtype=None, backend=CUDA, cpu_threads=0, config=None):
        """Whose shipped table held that plan's band when its source is "device table" (this GPU's
        own, or one of the same compute capability and SM count, e.g. "NVIDIA H200"); None for
        every other source."""
        options = _softmax_options(backend, False, cpu_threads, config)
        text = self.c.tilejit_softmax_plan_table(rows, cols, in_dtype, in_dtype if out_dtype is None else out_dtype,
                                                 ctypes.byref(options))
        if text is None:
            raise TilejitError(self.last_error())
        return text.decode() or None

    def softmax_kernels(self, out, x, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, log=False,
                        backend=CUDA, cpu_threads=0, config=None):
        """The kernels softmax would launch with these arguments, compiled but not launched (one, or
        split_row's two), as Compiled: read their PTX, CUDA C or IR with .stage(). Needs no GPU."""
        options = _softmax_options(backend, log, cpu_threads, config)
        handles = (ctypes.c_void_p * 4)()
        count = ctypes.c_int()
        self._check(self.c.tilejit_softmax_kernels(out, x, rows, cols, in_row_stride, out_row_stride, in_dtype,
                                                   out_dtype, ctypes.byref(options), handles, len(handles),
                                                   ctypes.byref(count)))
        return [Compiled(self, ctypes.c_void_p(handles[i])) for i in range(min(count.value, len(handles)))]

    def softmax_seed(self, out, x, rows, cols, in_row_stride, out_row_stride, dtype, stream=0):
        """The seed kernel's softmax (cols <= 16384) on device addresses."""
        self._check(self.c.tilejit_softmax_seed(out, x, rows, cols, in_row_stride, out_row_stride, dtype, stream))


_default = None


def library():
    """The process's Library at default_library_path(), loaded on first use."""
    global _default
    if _default is None:
        _default = Library()
    return _default
