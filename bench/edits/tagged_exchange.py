#!/usr/bin/env python3
"""A hand edit of a group kernel's softmax-stats exchanges (tl::group_softmax_stats, whole form)
for scripts/probe-override.sh: no barrier. Each program writes its (max, sum) slot in one 64-bit
release store whose top bit (the sum's sign, a sum being never negative) is a tag that flips on
every use of the slot set; warp 0 polls every slot at once (acquire loads) until all carry this
round's tag. The critical path loses the barrier's atomic round trip, and the group's atomics on
one word. Tags stay uniform across a group's slots because every program of a group makes the
same exchanges; each program reads its own slots' tags once at the start (the previous launch's).

    python3 bench/edits/tagged_exchange.py kernel.cuda > edited.cuda
"""
import re
import sys

HELPERS = r'''
// Tagged (max, sum) slots: the tag in the top bit, the sum's sign.
__device__ __forceinline__ void tj_put_tagged(float* slot, float a, float b, unsigned tag) {
  const unsigned long long w = (unsigned long long)__float_as_uint(a) | ((unsigned long long)((__float_as_uint(b) & 0x7fffffffu) | (tag << 31)) << 32);
  asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(slot), "l"(w) : "memory");
}
__device__ __forceinline__ unsigned long long tj_poll(const float* slot) {
  unsigned long long w;
  asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(slot) : "memory");
  return w;
}
'''


def fail(why):
    sys.exit(f"tagged_exchange: {why}")


def main():
    src = open(sys.argv[1]).read()
    if "group_softmax_stats over" not in src:
        print(src, end="")
        return
    m = re.search(r"const unsigned tj_group_rank = blockIdx\.x % (\d+)u;\n", src)
    ws = re.search(r"\(unsigned char\*\)\((v\d+)\) \+ \(unsigned long long\)\(blockIdx\.x / \d+u\) \* (\d+)ull", src)
    if not m or not ws:
        fail("no group")
    g = int(m.group(1))
    src = src.replace(m.group(0), m.group(0)
                      + "  __shared__ unsigned tj_tag0[4];  // each set's tag before this launch\n"
                      + f"  if (threadIdx.x == 0) for (int s = 0; s < 4; ++s) tj_tag0[s] = (unsigned)(tj_poll(reinterpret_cast<const float*>((const unsigned char*)({ws.group(1)}) + (unsigned long long)(blockIdx.x / {g}u) * {ws.group(2)}ull + 512 + s * {8 * g}) + 2 * tj_group_rank) >> 63);\n", 1)
    src = src.replace('\n// kernel ', HELPERS + '\n// kernel ', 1)
    put = re.compile(r"tj_group_put2\(tj_slots \+ 2 \* tj_group_rank, (v\d+), (v\d+)\);\n(\s*)tj_group_wait\(tj_barrier, tj_group_arrive\(tj_barrier, \d+u, tj_group_rank\)\);\n")
    n = len(put.findall(src))
    if n == 0:
        fail("no whole stats exchange")
    src = put.sub(lambda q: f"tj_put_tagged(tj_slots + 2 * tj_group_rank, {q.group(1)}, {q.group(2)}, tj_tag0[tj_group_turn & 3u] ^ (((tj_group_turn >> 2) + 1u) & 1u));\n", src)
    load = re.compile(r"( *)float2 tj_v\[(\d+)\];\n *#pragma unroll\n *for \(int tj_k = 0; tj_k < \2; \+\+tj_k\) \{\n *const int tj_r = threadIdx\.x \+ 32 \* \(0 \+ tj_k\);\n *tj_v\[tj_k\] = tj_r < (\d+) \? tj_group_get2\(tj_slots \+ 2 \* tj_r\) : make_float2\(__int_as_float\(0xff800000\), 0\.0f\);\n *\}\n")
    if len(load.findall(src)) != n:
        fail("slot loads do not match the exchanges (chunked group?)")
    def poll(q):
        i, k, gg = q.group(1), q.group(2), q.group(3)
        return (f"{i}float2 tj_v[{k}];\n"
                f"{i}const unsigned tj_want = tj_tag0[(tj_group_turn - 1u) & 3u] ^ ((((tj_group_turn - 1u) >> 2) + 1u) & 1u);\n"
                f"{i}bool tj_ready;\n"
                f"{i}do {{\n"
                f"{i}  tj_ready = true;\n"
                f"{i}  #pragma unroll\n"
                f"{i}  for (int tj_k = 0; tj_k < {k}; ++tj_k) {{\n"
                f"{i}    const int tj_r = threadIdx.x + 32 * tj_k;\n"
                f"{i}    if (tj_r < {gg}) {{\n"
                f"{i}      const unsigned long long tj_w = tj_poll(tj_slots + 2 * tj_r);\n"
                f"{i}      tj_ready = tj_ready && (unsigned)(tj_w >> 63) == tj_want;\n"
                f"{i}      tj_v[tj_k] = make_float2(__uint_as_float((unsigned)tj_w), __uint_as_float((unsigned)(tj_w >> 32) & 0x7fffffffu));\n"
                f"{i}    }} else {{\n"
                f"{i}      tj_v[tj_k] = make_float2(__int_as_float(0xff800000), 0.0f);\n"
                f"{i}    }}\n"
                f"{i}  }}\n"
                f"{i}}} while (!tj_ready);\n")
    src = load.sub(poll, src)
    print(src, end="")


if __name__ == "__main__":
    main()
