#!/usr/bin/env python3
"""Read-only (sum), write-only (fill) and copy bandwidth of f32 tensors through torch, CUDA events, median of 20:
the ceilings a kernel that reads in one phase and writes in another is held to."""
import torch
def t(f, n=20):
    s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True)
    for _ in range(3): f()
    ts=[]
    for _ in range(n):
        s.record(); f(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); return ts[len(ts)//2]
for mb in [64, 256, 1024]:
    n=mb*2**20//4; x=torch.randn(n, device='cuda'); y=torch.empty_like(x)
    r=t(lambda: x.sum()); w=t(lambda: y.fill_(1.0)); c=t(lambda: y.copy_(x))
    b=n*4
    print(f"{mb} MiB f32: read-only sum {r*1e3:.1f} us {b/r/1e6:.0f} GB/s; write-only fill {w*1e3:.1f} us {b/w/1e6:.0f} GB/s; copy {c*1e3:.1f} us {2*b/c/1e6:.0f} GB/s (read+write)")
