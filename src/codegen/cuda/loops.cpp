// for_range: carried values live in variables declared before the loop; the body's yield
// assigns them through temporaries (a yield may permute them).
#include <fmt/format.h>

#include "codegen/cuda/emitter.h"

namespace tilejit::codegen::cuda {

void Emitter::loop_op(const ir::Op& op) {
  const ir::Region& body = op.regions[0];
  std::size_t carried = op.results.size();
  std::vector<Layout> layouts(carried);
  for (std::size_t i = 0; i < carried; ++i) {
    ir::ValueId arg = body.args[i + 1], init = op.operands[ir::kForFixedOperands + i];
    std::string name = value_name(arg);
    if (type(arg).is_scalar()) {
      line(fmt::format("{} {} = {};", storage_type(arg), name, scalar(init)));
    } else {
      layouts[i] = plan_.fixed.at(arg);
      std::string from = block(init, layouts[i]);
      line(fmt::format("{} {}[{}];", storage_type(arg), name, layouts[i].num_regs()));
      per_register(layouts[i].num_regs(), fmt::format("{}[r] = {}[r];", name, from));
    }
    alias_[op.results[i]] = name;
  }
  ir::ValueId iv = body.args[0];
  std::string ivn = scalar(iv);
  // A pipelined loop (passes/pipeline_loads.cpp) shifts its carried loads down one place per
  // iteration. Unrolled num_stages times, the shifts become renames; rolled, each is a register
  // move that waits for the load it copies. Measured on the H200: from three stages unrolling
  // pays (seed kernel, 65536 x 128 f32, 4 stages: 0.94 of copy against 0.89 rolled); at two it
  // does not (the split-row walks of 1 x 16M f32: 0.54 against 0.59 rolled), so two-stage loops
  // stay rolled (bench/results/probes_6a3e534.md, probes_feac075.md, probes_ba38583.md).
  if (op.attrs.num_stages > 2)
    line(fmt::format("#pragma unroll {}  // num_stages={}", op.attrs.num_stages, op.attrs.num_stages));
  else if (op.attrs.num_stages == 2) line("// num_stages=2: the next iteration's loads in flight");
  open(fmt::format("for ({} {} = {}; {} < {}; {} += {})", storage_type(iv), ivn, scalar(op.operands[0]), ivn,
                   scalar(op.operands[1]), ivn, scalar(op.operands[2])));
  for (std::size_t i = 0; i < carried; ++i)
    if (!type(body.args[i + 1]).is_scalar()) remember(body.args[i + 1], layouts[i], value_name(body.args[i + 1]));
  const int turn_before = reduction_turn_;
  region(body);
  const ir::Op& yield = body.ops.back();
  at_source(yield);
  // Read every yielded value before assigning any carried variable.
  std::vector<std::string> temps(carried);
  for (std::size_t i = 0; i < carried; ++i) {
    ir::ValueId arg = body.args[i + 1], y = yield.operands[i];
    temps[i] = fresh(value_name(arg) + "_next");
    if (type(arg).is_scalar()) {
      line(fmt::format("{} const {} = {};", storage_type(arg), temps[i], scalar(y)));
    } else {
      std::string from = block(y, layouts[i]);
      line(fmt::format("{} {}[{}];", storage_type(arg), temps[i], layouts[i].num_regs()));
      per_register(layouts[i].num_regs(), fmt::format("{}[r] = {}[r];", temps[i], from));
    }
  }
  for (std::size_t i = 0; i < carried; ++i) {
    ir::ValueId arg = body.args[i + 1];
    if (type(arg).is_scalar()) line(fmt::format("{} = {};", value_name(arg), temps[i]));
    else per_register(layouts[i].num_regs(), fmt::format("{}[r] = {}[r];", value_name(arg), temps[i]));
  }
  // Reductions alternate scratch buffers. With an odd number in the body, the next iteration's
  // first one would reuse the buffer the last one just read: a barrier separates them, and the
  // turn skips one so the code after the loop (or a zero-trip loop) also alternates.
  if ((reduction_turn_ - turn_before) % 2 != 0) {
    line(barrier() + "  // odd number of reductions in the loop: see Emitter::reduction_scratch");
    ++reduction_turn_;
  }
  close();
  for (std::size_t i = 0; i < carried; ++i)
    if (!type(op.results[i]).is_scalar()) remember(op.results[i], layouts[i], value_name(body.args[i + 1]));
}

}  // namespace tilejit::codegen::cuda
