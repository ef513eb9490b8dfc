// Atomics: one predicated `atom.acq_rel.gpu.global` per element (this generator's pointers are
// global addresses), made by the first copy of a replicated element (and by the program's first
// thread for a scalar), as the CUDA C generator does; f32/f64 max and min as two integer atoms
// chosen by the sign bit. Where the old values are used, copies in other lanes or warps read
// theirs from shared memory, in the reduction buffers' turn.
#include "codegen/cuda/atomic.h"

#include <fmt/format.h>

#include "codegen/cuda/layout.h"
#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {

int Emitter::atomic_broadcast_bytes(const ir::Op& op) const {
  const ir::Type& t = type(op.results[0]);
  if (!ir::is_used(f_.body, op.results[0])) return 0;
  const int bytes = static_cast<int>(dtype_size(t.elem));
  if (t.is_scalar()) return bytes;
  const Layout& l = plan_.fixed.at(op.results[0]);
  if (!cuda::replica_mask(l.lane) && !cuda::replica_mask(l.warp)) return 0;
  return static_cast<int>(t.numel()) * bytes;
}

// `old = atom(ptr, [expected,] value)` where `pred` holds (always when empty); 0 elsewhere.
std::string Emitter::atom(const ir::Op& op, const std::string& pred, const std::string& ptr,
                          const std::string& expected, const std::string& value) {
  const DType t = type(op.results[0]).elem;
  const RegClass c = reg_class(t);
  const std::string old = pred.empty() ? code_.reg(c) : zero(c);
  const std::string at = pred.empty() ? "" : "@" + pred + " ";
  if (!cuda::atom_splits_on_sign(op.attrs.atomic, t)) {
    const std::string operands = expected.empty() ? value : expected + ", " + value;
    code_.ins(fmt::format("{}atom.acq_rel.gpu.global.{} {}, [{}], {}", at, cuda::atom_operation(op.attrs.atomic, t),
                          old, ptr, operands));
    return old;
  }
  // The value's bits pick a signed atom (sign clear) or an unsigned one (sign set).
  const bool wide = t == DType::f64;
  const RegClass ic = wide ? RegClass::b64 : RegClass::b32;
  const std::string bits = code_.reg(ic), clear = code_.reg(RegClass::pred), set = code_.reg(RegClass::pred);
  code_.ins(fmt::format("mov.b{} {}, {}", wide ? 64 : 32, bits, value));
  code_.ins(fmt::format("setp.ge.s{} {}, {}, 0", wide ? 64 : 32, clear, bits));
  code_.ins(fmt::format("not.pred {}, {}", set, clear));
  std::string signed_pred = clear, unsigned_pred = set;
  if (!pred.empty()) {
    signed_pred = code_.reg(RegClass::pred);
    unsigned_pred = code_.reg(RegClass::pred);
    code_.ins(fmt::format("and.pred {}, {}, {}", signed_pred, pred, clear));
    code_.ins(fmt::format("and.pred {}, {}, {}", unsigned_pred, pred, set));
  }
  const std::string a = zero(ic), b = zero(ic), chosen = code_.reg(ic);
  code_.ins(fmt::format("@{} atom.acq_rel.gpu.global.{} {}, [{}], {}", signed_pred,
                        cuda::atom_operation(op.attrs.atomic, t, false), a, ptr, bits));
  code_.ins(fmt::format("@{} atom.acq_rel.gpu.global.{} {}, [{}], {}", unsigned_pred,
                        cuda::atom_operation(op.attrs.atomic, t, true), b, ptr, bits));
  code_.ins(fmt::format("selp.b{} {}, {}, {}, {}", wide ? 64 : 32, chosen, a, b, clear));
  code_.ins(fmt::format("mov.b{} {}, {}", wide ? 64 : 32, old, chosen));
  return old;
}

void Emitter::atomic_op(const ir::Op& op) {
  const ir::ValueId res = op.results[0];
  const ir::AtomicOperands at = ir::atomic_operands(op);
  auto operand = [&](int i) { return op.operands[static_cast<std::size_t>(i)]; };
  const int bytes = static_cast<int>(dtype_size(type(res).elem));
  const char* move_bits = bytes == 8 ? "b64" : "b32";
  const int broadcast = atomic_broadcast_bytes(op);
  // Copies read the old values the first copies wrote at `address` (+ each element's offset).
  auto share = [&](const std::string& writer, const std::string& address, const std::vector<std::int64_t>& offsets,
                   Regs& values) {
    const int buffer = reduction_turn_++ % 2 == 0 ? 0 : reduction_buffer_bytes_;
    for (std::size_t i = 0; i < values.size(); ++i)
      code_.ins(fmt::format("{}st.shared.{} [{}+{}], {}", writer.empty() ? "" : "@" + writer + " ", move_bits, address,
                            buffer + offsets[i] * bytes, values[i]));
    code_.ins(barrier());
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = code_.reg(reg_class(type(res).elem));
      code_.ins(fmt::format("ld.shared.{} {}, [{}+{}]", move_bits, values[i], address, buffer + offsets[i] * bytes));
    }
  };
  if (type(res).is_scalar()) {
    const std::string pred = at.mask >= 0 ? both(first_thread(), scalar(operand(at.mask))) : first_thread();
    Regs old{atom(op, pred, scalar(op.operands[0]), at.compare >= 0 ? scalar(operand(at.compare)) : "",
                  scalar(operand(at.value)))};
    if (broadcast) share(first_thread(), shared_base(), {0}, old);
    scalars_[res] = old[0];
    return;
  }
  const Layout& l = plan_.fixed.at(res);
  const int n = l.num_regs();
  const std::string owner = owner_predicate(l);
  const std::uint32_t replica_regs = cuda::replica_mask(l.reg);
  Regs old(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    if ((static_cast<std::uint32_t>(r) & replica_regs) != 0) continue;
    const std::string pred = at.mask >= 0 ? both(owner, element(operand(at.mask), l, r)) : owner;
    old[static_cast<std::size_t>(r)] =
        atom(op, pred, element(op.operands[0], l, r), at.compare >= 0 ? element(operand(at.compare), l, r) : "",
             element(operand(at.value), l, r));
  }
  // Register copies take their first copy's register; lane and warp copies go through memory.
  for (int r = 0; r < n; ++r)
    if ((static_cast<std::uint32_t>(r) & replica_regs) != 0)
      old[static_cast<std::size_t>(r)] = old[static_cast<std::size_t>(r & ~static_cast<int>(replica_regs))];
  if (broadcast) {
    std::vector<std::int64_t> offsets;
    for (int r = 0; r < n; ++r) offsets.push_back(reg_linear(l, r));
    share(owner, thread_shared_address(l, bytes), offsets, old);
  }
  remember(res, l, old);
}

}  // namespace tilejit::codegen::ptx
