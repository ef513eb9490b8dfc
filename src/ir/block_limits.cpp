// How large a block a program may hold: a bound on elements per thread, checked once per
// specialization, so an oversized block is refused at its source line instead of compiling
// for minutes into a kernel that lives in local memory.
#include <fmt/format.h>

#include "ir/ir.h"
#include "ir/type.h"
#include "tilejit/error.h"

namespace tilejit::ir {
namespace {

constexpr int kWarpSize = 32;
constexpr int kMaxWarps = 32;

const Op* first_oversized(const Function& f, const Region& r, std::int64_t max_numel) {
  for (const Op& op : r.ops) {
    for (ValueId v : op.results)
      if (f.type(v).numel() > max_numel) return &op;
    for (const Region& inner : op.regions)
      if (const Op* found = first_oversized(f, inner, max_numel)) return found;
  }
  return nullptr;
}

}  // namespace

void check_block_sizes(const Function& f, int num_warps) {
  const std::int64_t threads = std::int64_t{kWarpSize} * num_warps;
  const Op* op = first_oversized(f, f.body, kMaxElementsPerThread * threads);
  if (!op) return;
  const Type& t = f.type(op->results.front());
  const std::int64_t per_thread = (t.numel() + threads - 1) / threads;
  const std::int64_t warps_needed =
      (t.numel() + kMaxElementsPerThread * kWarpSize - 1) / (kMaxElementsPerThread * kWarpSize);
  std::int64_t warps = 1;
  while (warps < warps_needed) warps *= 2;
  const std::string more_warps = warps > kMaxWarps   ? ""
                                 : warps < kMaxWarps ? fmt::format("num_warps = {} or more, ", warps)
                                                     : fmt::format("num_warps = {}, ", kMaxWarps);
  throw UserError(
      fmt::format("{} makes a block of {} elements ({}): over {} warps that is {} elements a thread, "
                  "and a program may hold at most {} a thread (a GPU thread has 255 registers; "
                  "larger blocks live in local memory and compile slowly): use {}a smaller block, or walk the "
                  "data in a tl::for_range loop",
                  op_name(op->kind), t.numel(), to_string(t), num_warps, per_thread, kMaxElementsPerThread, more_warps),
      op->loc.file, op->loc.line);
}

}  // namespace tilejit::ir
