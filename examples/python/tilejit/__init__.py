"""tilejit from Python: the C API (libtilejit_c.so) through ctypes, on torch tensors or raw pointers.

  - Library (library.py): every C entry point typed; failures raise TilejitError with tilejit's
    message. Needs no third-party module.
  - softmax / log_softmax / softmax_seed: the same on torch tensors, for any dim and layout, CUDA
    tensors on the current stream, CPU tensors on the CPU backend (tensors.py). Under torch.compile,
    and where autograd records the call, softmax and log_softmax run as the PyTorch operator
    torch.ops.tilejit.softmax (torch_ops.py). softmax_plan names the configuration softmax runs a
    tensor with; Library.softmax_kernels compiles its kernels for inspection (.stage("ptx")).

Where torch is installed, importing this package imports torch and registers that operator, so
nothing torch.compile traces meets its registration; elsewhere the package loads without torch.
The library is found at $TILEJIT_LIB, else build/libtilejit_c.so of this checkout (bash scripts/setup.sh
builds it). tilejit runs on CUDA device 0 through its primary context, the one PyTorch uses.

    import torch, tilejit
    x = torch.randn(4096, 1024, device="cuda")
    y = tilejit.softmax(x)                                  # torch.softmax(x, -1)
    z = tilejit.log_softmax(x.bfloat16(), out_dtype=torch.float32)
"""

import importlib.util

from . import tensors, torch_ops
from .library import (BF16, CONFIG_SOURCES, CPU, CUDA, F16, F32, I32, I64, Arg, Compiled, CompileOptions, Library,
                      SoftmaxOptions, TilejitError, default_library_path, floating, integer, library, pointer)
from .tensors import torch_dtype_code

# The operator exists before anything is traced: torch.compile must not meet its registration.
if importlib.util.find_spec("torch") is not None:
    torch_ops.softmax_op()


def softmax(x, dim=-1, out=None, out_dtype=None):
    """torch.softmax(x, dim) by tilejit::ops::softmax: float32 arithmetic, written in out_dtype
    (default: out's dtype, else x's). Asynchronous on the current stream."""
    if torch_ops.wanted(x):
        return torch_ops.run(False, x, dim, out, out_dtype)
    return tensors.run("softmax", x, dim, out, out_dtype)


def log_softmax(x, dim=-1, out=None, out_dtype=None):
    """torch.log_softmax(x, dim) by tilejit::ops::log_softmax."""
    if torch_ops.wanted(x):
        return torch_ops.run(True, x, dim, out, out_dtype)
    return tensors.run("log", x, dim, out, out_dtype)


def softmax_plan(x, dim=-1, out_dtype=None):
    """(configuration, source): the configuration softmax(x, dim) runs with, in the words
    Library.softmax's `config` takes, and where it came from ("autotune": the user's tuning file,
    "device table": the table shipped for this GPU or for one of the same compute capability and
    SM count, "table": the built-in one)."""
    return tensors.plan(x, dim, out_dtype)


def softmax_plan_table(x, dim=-1, out_dtype=None):
    """Whose shipped table holds softmax(x, dim)'s band when softmax_plan says "device table" (this
    GPU's own, or that of one with the same compute capability and SM count: an H100 SXM takes
    most bands from "NVIDIA H200"); None for every other source."""
    return tensors.plan(x, dim, out_dtype, table=True)


def softmax_seed(x, dim=-1, out=None):
    """softmax by the seed kernel (rows of at most 16384 columns, output in x's dtype); always
    eager: no gradient, and a graph break under torch.compile."""
    return tensors.run("seed", x, dim, out, None)
