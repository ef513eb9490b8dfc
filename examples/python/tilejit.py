"""tilejit from Python: the C API (libtilejit_c.so, include/tilejit/c_api.h) through ctypes.

Two layers:
  - Library: every C entry point with its argument types declared, failures raised as TilejitError
    carrying tilejit's own message. Works on raw device pointers and needs no third-party module.
  - softmax / log_softmax / softmax_seed: the same on torch tensors (imported only when called),
    on the tensor's current CUDA stream, for any dim, with the rows' stride taken from the tensor.

The library is found at $TILEJIT_LIB, else build/libtilejit_c.so of this checkout (bash scripts/setup.sh
builds it). tilejit runs on CUDA device 0 through its primary context, the one PyTorch uses.

    import torch, tilejit
    x = torch.randn(4096, 1024, device="cuda")
    y = tilejit.softmax(x)                                  # torch.softmax(x, -1)
    z = tilejit.log_softmax(x.bfloat16(), out_dtype=torch.float32)
"""

import ctypes
import os

# tilejit_dtype codes (c_api.h)
F16, BF16, F32 = 3, 4, 5
I32, I64 = 1, 2


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


class CompileOptions(ctypes.Structure):
    """tilejit_compile_options."""
    _fields_ = [("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int), ("min_blocks_per_sm", ctypes.c_int)]


def default_library_path():
    """$TILEJIT_LIB, else the build tree of the checkout this file belongs to."""
    env = os.environ.get("TILEJIT_LIB")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
            "tilejit_kernel_names": (ctypes.c_char_p, []),
            "tilejit_compile_with": (ci, [ctypes.c_char_p, ctypes.POINTER(Arg), ci, ctypes.POINTER(CompileOptions),
                                          ctypes.POINTER(vp)]),
            "tilejit_launch": (ci, [vp, u64, u64, u64, ctypes.POINTER(Arg), ci, vp]),
            "tilejit_persistent_grid": (ci, [vp, u64, ctypes.POINTER(u64)]),
            "tilejit_stage": (ctypes.c_char_p, [vp, ctypes.c_char_p]),
            "tilejit_softmax_seed": (ci, [vp, vp, i64, i64, i64, i64, ci, vp]),
            "tilejit_softmax": (ci, [vp, vp, i64, i64, i64, i64, ci, ci, vp]),
            "tilejit_log_softmax": (ci, [vp, vp, i64, i64, i64, i64, ci, ci, vp]),
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

    def kernel_names(self):
        return self.c.tilejit_kernel_names().decode().split("\n")

    def wait_for_background_compiles(self):
        """Waits for the background NVRTC builds of TILEJIT_CODEGEN=tiered; a no-op otherwise."""
        self.c.tilejit_wait_for_background_compiles()

    def compile(self, kernel, args, num_warps=4, num_stages=1, min_blocks_per_sm=0):
        """Compiles one of kernel_names() for these arguments (their dtypes, alignment and values
        are the specialization). Needs no GPU."""
        array = (Arg * len(args))(*args)
        handle = ctypes.c_void_p()
        options = CompileOptions(num_warps, num_stages, min_blocks_per_sm)
        self._check(self.c.tilejit_compile_with(kernel.encode(), array, len(args), ctypes.byref(options),
                                                ctypes.byref(handle)))
        return Compiled(self, handle)

    def softmax(self, out, x, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, stream=0, log=False):
        """ops::softmax (or log_softmax) on device addresses; asynchronous on `stream`."""
        fn = self.c.tilejit_log_softmax if log else self.c.tilejit_softmax
        self._check(fn(out, x, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, stream))

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


# ---- torch tensors -------------------------------------------------------------------------------
# The common calls (over the last dim of a 2-D tensor with adjacent columns, or of a contiguous one)
# take a short path of a few tensor attribute reads: a Python caller pays this code's time on every call, and at short rows
# it is longer than the kernel's (bench/host_overhead.py).

_torch = None
_codes = None


def _torch_module():
    """torch, imported on first use (the raw Library needs no third-party module)."""
    global _torch, _codes
    if _torch is None:
        import torch
        _torch = torch
        _codes = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16}
    return _torch


def torch_dtype_code(dtype):
    _torch_module()
    if dtype not in _codes:
        raise TilejitError(f"softmax takes float32, float16 or bfloat16 tensors, not {dtype}")
    return _codes[dtype]


def _current_stream():
    """The current CUDA stream of device 0 as an int (a CUstream)."""
    torch = _torch_module()
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what torch.cuda.current_stream reads
    return raw(0) if raw else torch.cuda.current_stream(0).cuda_stream


def _dim_last(t, dim):
    """t with `dim` moved last (a view); a 0-d tensor as one element."""
    return t.movedim(dim, -1) if t.dim() else t.reshape(1)


def _rows_view(t):
    """(rows, cols, row stride) when t (dim last) is stride-spaced rows of adjacent elements, as
    the C API takes them, else None."""
    cols = t.shape[-1]
    rows = t.numel() // cols if cols else 0
    if cols > 1 and t.stride(-1) != 1:
        return None
    try:
        flat = t.view(rows, cols) if t.dim() != 2 else t
    except RuntimeError:  # leading dims that no single stride spans
        return None
    return rows, cols, flat.stride(0) if rows > 1 else max(cols, 1)


def _fast_rows(t):
    """_rows_view's answer for the common layouts, from a few attribute reads: a 2-D tensor whose
    columns are adjacent, or a contiguous one of more dims; else None."""
    n = t.dim()
    if n == 2 and t.stride(1) == 1:
        rows, cols = t.shape
        return rows, cols, t.stride(0) if rows > 1 else cols
    if n > 2 and t.is_contiguous():
        cols = t.shape[-1]
        return (t.numel() // cols if cols else 0), cols, cols
    return None


def _check_tensor(name, t):
    torch = _torch_module()
    if not isinstance(t, torch.Tensor):
        raise TilejitError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.get_device() != 0:  # -1 on the CPU
        if t.device.type != "cuda":
            raise TilejitError(f"{name} is on {t.device}: tilejit runs on the GPU (move it with .cuda())")
        raise TilejitError(f"{name} is on {t.device}: tilejit runs on CUDA device 0")


def _overlap(a, b):
    """Whether two tensors' spans of memory meet (then out is written through a temporary: the
    library's kernels assume the output does not alias the rows they still read)."""
    def span(t):
        last = sum((n - 1) * s for n, s in zip(t.shape, t.stride())) if t.numel() else -1
        return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()
    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1


def _launch(kind, out, x, rows, cols, in_stride, out_stride, in_code, out_code):
    if kind == "seed":
        library().softmax_seed(out, x, rows, cols, in_stride, out_stride, in_code, _current_stream())
    else:
        library().softmax(out, x, rows, cols, in_stride, out_stride, in_code, out_code, _current_stream(),
                          log=kind == "log")


def _run(kind, x, dim, out, out_dtype):
    torch = _torch_module()
    _check_tensor("x", x)
    out_dtype = out_dtype or (out.dtype if out is not None else x.dtype)
    in_code, out_code = torch_dtype_code(x.dtype), torch_dtype_code(out_dtype)
    if kind == "seed" and out_dtype != x.dtype:
        raise TilejitError(f"softmax_seed writes x's dtype ({x.dtype}), not {out_dtype}")
    if out is not None:
        _check_tensor("out", out)
        if out.shape != x.shape or out.dtype != out_dtype:
            raise TilejitError(f"out is {tuple(out.shape)} {out.dtype}; expected {tuple(x.shape)} {out_dtype}")
    fast = _fast_rows(x) if dim in (-1, x.dim() - 1) else None
    if fast:  # the short path
        rows, cols, in_stride = fast
        if out is None:
            out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
        fast_out = _fast_rows(out)
        if fast_out:
            out_stride = fast_out[2]
            xp, op = x.data_ptr(), out.data_ptr()
            x_end = xp + ((rows - 1) * in_stride + cols) * x.element_size()
            o_end = op + ((rows - 1) * out_stride + cols) * out.element_size()
            if op >= x_end or xp >= o_end or rows * cols == 0:  # out does not overlap x
                _launch(kind, op, xp, rows, cols, in_stride, out_stride, in_code, out_code)
                return out
    elif not -max(x.dim(), 1) <= dim < max(x.dim(), 1):
        raise TilejitError(f"dim {dim} is out of range for a {x.dim()}-d tensor")

    src = _dim_last(x, dim)
    layout = _rows_view(src)
    if layout is None:
        src = src.contiguous()
        layout = _rows_view(src)
    rows, cols, in_stride = layout
    dst = _dim_last(out, dim) if out is not None else torch.empty(src.shape, dtype=out_dtype, device=x.device)
    dst_layout = _rows_view(dst) if not _overlap(dst, src) else None
    target = dst if dst_layout is not None else torch.empty(src.shape, dtype=out_dtype, device=x.device)
    out_stride = (dst_layout or _rows_view(target))[2]
    _launch(kind, target.data_ptr(), src.data_ptr(), rows, cols, in_stride, out_stride, in_code, out_code)
    if target is not dst:
        dst.copy_(target)  # out's layout has no stride-spaced rows, or it overlaps x
    if out is not None:
        return out
    return dst.movedim(-1, dim) if x.dim() else dst.reshape(())


def softmax(x, dim=-1, out=None, out_dtype=None):
    """torch.softmax(x, dim) by tilejit::ops::softmax: float32 accumulation, written in out_dtype
    (default: out's dtype, else x's). Asynchronous on the current stream of x's device."""
    return _run("softmax", x, dim, out, out_dtype)


def log_softmax(x, dim=-1, out=None, out_dtype=None):
    """torch.log_softmax(x, dim) by tilejit::ops::log_softmax."""
    return _run("log", x, dim, out, out_dtype)


def softmax_seed(x, dim=-1, out=None):
    """softmax by the seed kernel (rows of at most 16384 columns, output in x's dtype)."""
    return _run("seed", x, dim, out, None)
