"""tilejit's softmax as PyTorch operators (torch.library): what torch.compile traces (no graph break,
and CUDA graphs under mode="reduce-overhead") and what autograd records.

torch.ops.tilejit.softmax(x, dim, log, out_dtype) returns a new contiguous tensor. Its backward is
written with torch's own operators in float32 from the saved output (softmax: y * (g - sum(g * y));
log_softmax: g - exp(y) * sum(g)), not a tilejit kernel. It needs torch 2.4 or newer
(torch.library.custom_op); with an older torch the calls that need it raise TilejitError.
"""

from . import tensors
from .library import TilejitError

_registered = None


def softmax_op():
    """torch.ops.tilejit.softmax, registered on first use; None where torch is older than 2.4."""
    global _registered
    if _registered is not None:
        return _registered or None
    torch = tensors.torch_module()
    if not hasattr(torch.library, "custom_op"):
        _registered = False
        return None
    from typing import Optional

    @torch.library.custom_op("tilejit::softmax", mutates_args=())
    def softmax(x: torch.Tensor, dim: int, log: bool, out_dtype: Optional[torch.dtype]) -> torch.Tensor:
        out = torch.empty(x.shape, dtype=out_dtype or x.dtype, device=x.device)
        return tensors.run("log" if log else "softmax", x, dim, out, None)

    @softmax.register_fake
    def _(x, dim, log, out_dtype):
        return torch.empty(x.shape, dtype=out_dtype or x.dtype, device=x.device)

    def setup_context(ctx, inputs, output):
        x, dim, log, _ = inputs
        ctx.save_for_backward(output)
        ctx.dim, ctx.log, ctx.in_dtype = dim, log, x.dtype

    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        y, g = y.float(), grad.float()
        if ctx.log:
            dx = g - y.exp() * g.sum(ctx.dim, keepdim=True)
        else:
            dx = y * (g - (g * y).sum(ctx.dim, keepdim=True))
        return dx.to(ctx.in_dtype), None, None, None

    softmax.register_autograd(backward, setup_context=setup_context)
    _registered = torch.ops.tilejit.softmax
    return _registered


_is_compiling = None  # torch.compiler.is_compiling (torch 2.0 on), looked up once


def wanted(x):
    """Whether a call must go through the operator: torch.compile is tracing it, or autograd is to
    record it (the eager path's output has no gradient function)."""
    global _is_compiling
    torch = tensors.torch_module()
    if _is_compiling is None:
        _is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (lambda: False)
    return _is_compiling() or (getattr(x, "requires_grad", False) and torch.is_grad_enabled())


def run(log, x, dim, out, out_dtype):
    operator = softmax_op()
    if operator is None:
        raise TilejitError("gradients and torch.compile through tilejit need torch 2.4 or newer "
                           f"(torch.library.custom_op); this is torch {tensors.torch_module().__version__}")
    result = operator(x, dim, log, out_dtype or (out.dtype if out is not None else None))
    if out is None:
        return result
    out.copy_(result)
    return out
