"""tilejit's softmax on torch tensors, run at once (eager): any dim, N-d, sliced, expanded or permuted
inputs (copied only where no row stride spans the leading dims), an `out` of any layout (written
through a temporary where it has no such rows, or overlaps the input). CUDA tensors (device 0) run
on the current stream; CPU tensors on tilejit's CPU backend (a library built with LLVM).

The common CUDA calls (over the last dim of a 2-D tensor with adjacent columns, or of a contiguous
one) take a short path of a few tensor attribute reads: a Python caller pays this code's time on
every call, and at short rows it is longer than the kernel's (bench/host_overhead.py). CPU tensors,
whose kernels take far longer than any of this, always take the general path.
"""

from .library import BF16, CPU, CUDA, F16, F32, TilejitError, library

_torch = None
_codes = None


def torch_module():
    """torch, imported on first use (the raw Library needs no third-party module)."""
    global _torch, _codes
    if _torch is None:
        import torch
        _torch = torch
        _codes = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16}
    return _torch


def torch_dtype_code(dtype):
    torch_module()
    if dtype not in _codes:
        raise TilejitError(f"softmax takes float32, float16 or bfloat16 tensors, not {dtype}")
    return _codes[dtype]


def _current_stream():
    """The current CUDA stream of device 0 as an int (a CUstream)."""
    torch = torch_module()
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
    shape = t.shape
    if len(shape) == 2:
        row_stride, col_stride = t.stride()
        if col_stride == 1:
            rows, cols = shape
            return rows, cols, row_stride if rows > 1 else cols
    elif len(shape) > 2 and t.is_contiguous():
        cols = shape[-1]
        return (t.numel() // cols if cols else 0), cols, cols
    return None


def _short_path(kind, x, dim, out, out_dtype):
    """The common eager call, with as few tensor reads as a Python caller can pay for: softmax or
    log_softmax over the last dim of a CUDA tensor on device 0 in one of _fast_rows' layouts,
    written to a new tensor, or to an `out` of such a layout that does not overlap x. The output,
    or None where the general path must run (it also raises every error)."""
    if not isinstance(x, _torch.Tensor) or x.get_device() != 0:
        return None
    in_code = _codes.get(x.dtype)
    out_dtype = out_dtype or (out.dtype if out is not None else x.dtype)
    out_code = _codes.get(out_dtype)
    if in_code is None or out_code is None or dim not in (-1, x.dim() - 1) or (kind == "seed" and out_code != in_code):
        return None
    layout = _fast_rows(x)
    if layout is None:
        return None
    rows, cols, in_stride = layout
    xp = x.data_ptr()
    if out is None:  # a new contiguous tensor: rows of cols, nothing shared with x
        out = _torch.empty_like(x, dtype=out_dtype, memory_format=_torch.contiguous_format)
        op, out_stride = out.data_ptr(), cols
    else:
        if not isinstance(out, _torch.Tensor) or out.get_device() != 0 or out.dtype != out_dtype or \
                out.shape != x.shape:
            return None
        out_layout = _fast_rows(out)
        if out_layout is None:
            return None
        op, out_stride = out.data_ptr(), out_layout[2]
        x_end = xp + ((rows - 1) * in_stride + cols) * x.element_size()
        o_end = op + ((rows - 1) * out_stride + cols) * out.element_size()
        if rows * cols and op < x_end and xp < o_end:  # out overlaps x
            return None
    _launch(kind, CUDA, op, xp, rows, cols, in_stride, out_stride, in_code, out_code)
    return out


def _backend(name, t):
    """CUDA for a tensor on CUDA device 0, CPU for one in host memory; else TilejitError."""
    torch = torch_module()
    if not isinstance(t, torch.Tensor):
        raise TilejitError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    device = t.get_device()  # -1 on the CPU
    if device == 0:
        return CUDA
    if device == -1 and t.device.type == "cpu":
        return CPU
    raise TilejitError(f"{name} is on {t.device}: tilejit runs on CUDA device 0 or on the CPU")


def _overlap(a, b):
    """Whether two tensors' spans of memory meet (then out is written through a temporary: the
    library's kernels assume the output does not alias the rows they still read)."""
    def span(t):
        last = sum((n - 1) * s for n, s in zip(t.shape, t.stride())) if t.numel() else -1
        return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()
    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1


def _launch(kind, backend, out, x, rows, cols, in_stride, out_stride, in_code, out_code):
    if backend == CPU:
        library().softmax(out, x, rows, cols, in_stride, out_stride, in_code, out_code, log=kind == "log", backend=CPU)
    elif kind == "seed":
        library().softmax_seed(out, x, rows, cols, in_stride, out_stride, in_code, _current_stream())
    else:
        library().softmax(out, x, rows, cols, in_stride, out_stride, in_code, out_code, _current_stream(),
                          log=kind == "log")


def _check_dim(x, dim):
    if not -max(x.dim(), 1) <= dim < max(x.dim(), 1):
        raise TilejitError(f"dim {dim} is out of range for a {x.dim()}-d tensor")


def plan(x, dim, out_dtype, table=False):
    """library().softmax_plan for softmax(x, dim) (log_softmax runs the same configuration), or
    with `table` library().softmax_plan_table."""
    backend = _backend("x", x)
    _check_dim(x, dim)
    cols = x.shape[dim] if x.dim() else 1
    rows = x.numel() // cols if cols else 0
    ask = library().softmax_plan_table if table else library().softmax_plan
    return ask(rows, cols, torch_dtype_code(x.dtype), torch_dtype_code(out_dtype or x.dtype), backend=backend)


def run(kind, x, dim, out, out_dtype):
    """kind: "softmax", "log" or "seed"; the public functions' arguments."""
    torch = torch_module()
    done = _short_path(kind, x, dim, out, out_dtype)
    if done is not None:
        return done
    backend = _backend("x", x)
    out_dtype = out_dtype or (out.dtype if out is not None else x.dtype)
    in_code, out_code = torch_dtype_code(x.dtype), torch_dtype_code(out_dtype)
    if kind == "seed" and (out_dtype != x.dtype or backend == CPU):
        raise TilejitError(f"softmax_seed runs on CUDA tensors and writes x's dtype; x is a {x.dtype} tensor on "
                           f"{x.device}, the output {out_dtype}")
    if out is not None:
        if _backend("out", out) != backend:
            raise TilejitError(f"out is on {out.device} and x on {x.device}: both on the same device")
        if out.shape != x.shape or out.dtype != out_dtype:
            raise TilejitError(f"out is {tuple(out.shape)} {out.dtype}; expected {tuple(x.shape)} {out_dtype}")
    _check_dim(x, dim)
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
    _launch(kind, backend, target.data_ptr(), src.data_ptr(), rows, cols, in_stride, out_stride, in_code, out_code)
    if target is not dst:
        dst.copy_(target)  # out's layout has no stride-spaced rows, or it overlaps x
    if out is not None:
        return out
    return dst.movedim(-1, dim) if x.dim() else dst.reshape(())
