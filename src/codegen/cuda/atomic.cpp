// Atomic read-modify-writes: one PTX `atom` per element, acquire-release at device scope,
// through a small helper function per operation and type, emitted once before the kernel.
// Only the first copy of a replicated element performs the atomic; where the old values are
// used, copies receive theirs through shared memory.
#include "codegen/cuda/atomic.h"

#include <fmt/format.h>

#include "codegen/cuda/cuda_types.h"
#include "codegen/cuda/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::cuda {

bool atom_splits_on_sign(ir::AtomicKind k, DType t) {
  return (k == ir::AtomicKind::max || k == ir::AtomicKind::min) && (t == DType::f32 || t == DType::f64);
}

std::string atom_operation(ir::AtomicKind k, DType t, bool sign_set) {
  const int bits = t == DType::i64 || t == DType::f64 ? 64 : 32;
  const bool fp = t == DType::f32 || t == DType::f64;
  switch (k) {
    case ir::AtomicKind::add: return fmt::format("add.{}{}", fp ? "f" : "u", bits);
    case ir::AtomicKind::max:
    case ir::AtomicKind::min: {
      const bool max = k == ir::AtomicKind::max;
      if (!fp || !sign_set) return fmt::format("{}.s{}", max ? "max" : "min", bits);
      return fmt::format("{}.u{}", max ? "min" : "max", bits);  // the order reversed
    }
    case ir::AtomicKind::bit_and:
    case ir::AtomicKind::bit_or:
    case ir::AtomicKind::bit_xor: return fmt::format("{}.b{}", ir::atomic_name(k), bits);
    case ir::AtomicKind::xchg: return fmt::format("exch.b{}", bits);
    case ir::AtomicKind::cas: return fmt::format("cas.b{}", bits);
  }
  throw InternalError("codegen: unknown atomic");
}

namespace {

// One `atom` instruction: `old = atom(p, args...)` on C type `c`, register constraint `reg`.
std::string atom_function(const std::string& name, const std::string& c, const std::string& reg,
                          const std::string& instr, bool cas) {
  const std::string params = cas ? fmt::format("{0}* p, {0} expected, {0} v", c) : fmt::format("{0}* p, {0} v", c);
  const std::string operands =
      cas ? fmt::format("\"l\"(p), \"{0}\"(expected), \"{0}\"(v)", reg) : fmt::format("\"l\"(p), \"{}\"(v)", reg);
  return fmt::format(
      "__device__ __forceinline__ {0} {1}({2}) {{\n"
      "  {0} old;\n"
      "  asm volatile(\"atom.acq_rel.gpu.{3} %0, [%1], %2{4};\" : \"={5}\"(old) : {6} : \"memory\");\n"
      "  return old;\n"
      "}}\n",
      c, name, params, instr, cas ? ", %3" : "", reg, operands);
}

}  // namespace

// The helper for `op`'s operation and type, added to the kernel's helpers; returns its name.
std::string Emitter::atomic_helper(const ir::Op& op) {
  const DType t = type(op.results[0]).elem;
  const ir::AtomicKind k = op.attrs.atomic;
  const std::string name = fmt::format("tj_atomic_{}_{}", ir::atomic_name(k), dtype_name(t));
  if (atomic_helpers_.count(name)) return name;
  const bool wide = dtype_size(t) == 8;
  const std::string c = c_type(t), reg = t == DType::f32 ? "f" : t == DType::f64 ? "d" : wide ? "l" : "r";
  if (!atom_splits_on_sign(k, t)) {
    atomic_helpers_.emplace(name, atom_function(name, c, reg, atom_operation(k, t), k == ir::AtomicKind::cas));
    return name;
  }
  const std::string si = wide ? "long long" : "int", ui = wide ? "unsigned long long" : "unsigned";
  const std::string s_reg = wide ? "l" : "r";
  const std::string as_int = wide ? "__double_as_longlong" : "__float_as_int";
  const std::string from_int = wide ? "__longlong_as_double" : "__int_as_float";
  std::string text = atom_function(name + "_signed", si, s_reg, atom_operation(k, t, false), false);
  text += atom_function(name + "_unsigned", ui, s_reg, atom_operation(k, t, true), false);
  text += fmt::format(
      "__device__ __forceinline__ {0} {1}({0}* p, {0} v) {{\n"
      "  const {2} bits = {3}(v);\n"
      "  if (bits >= 0) return {4}({1}_signed(({2}*)p, bits));\n"
      "  return {4}(({2}){1}_unsigned(({5}*)p, ({5})bits));\n"
      "}}\n",
      c, name, si, as_int, from_int, ui);
  atomic_helpers_.emplace(name, text);
  return name;
}

std::string Emitter::atomic_helpers() const {
  std::string out;
  for (const auto& [name, text] : atomic_helpers_) out += "\n" + text;
  return out;
}

void Emitter::atomic_op(const ir::Op& op) {
  const ir::ValueId res = op.results[0];
  const ir::AtomicOperands at = ir::atomic_operands(op);
  const std::string fn = atomic_helper(op), t = storage_type(res);
  const std::string zero = fmt::format("({})0", t);
  const bool used = ir::is_used(f_.body, res);
  auto operand = [&](int i) { return op.operands[static_cast<std::size_t>(i)]; };
  const int bytes = static_cast<int>(dtype_size(type(res).elem));
  if (type(res).is_scalar()) {
    std::string args = scalar(op.operands[0]);
    if (at.compare >= 0) args += ", " + scalar(operand(at.compare));
    args += ", " + scalar(operand(at.value));
    const std::string cond = at.mask >= 0 ? fmt::format(" && {}", scalar(operand(at.mask))) : "";
    const std::string name = scalar(res);
    line(fmt::format("{} {} = {};", t, name, zero));
    line(fmt::format("if ({}{}) {} = {}({});", first_thread(), cond, name, fn, args));
    if (!used) return;
    open("");  // every thread gets the first thread's old value
    line(fmt::format("{0}* tj_x = reinterpret_cast<{0}*>({1});", t, reduction_scratch(bytes)));
    line(fmt::format("if ({}) tj_x[0] = {};", first_thread(), name));
    line(barrier());
    line(fmt::format("{} = tj_x[0];", name));
    close();
    return;
  }
  const Layout& l = plan_.fixed.at(res);
  const int n = l.num_regs();
  std::string args = block(op.operands[0], l) + "[r]";
  if (at.compare >= 0) args += ", " + block(operand(at.compare), l) + "[r]";
  args += ", " + block(operand(at.value), l) + "[r]";
  const std::vector<std::string> owner = first_copy_conditions(l);
  const bool replicated = !owner.empty();
  std::vector<std::string> conds = owner;
  if (at.mask >= 0) conds.push_back(block(operand(at.mask), l) + "[r]");
  const std::string name = value_name(res);
  line(fmt::format("{} {}[{}];", t, name, n));
  const std::string guard = conds.empty() ? "" : fmt::format("if ({}) ", fmt::join(conds, " && "));
  per_register(n, fmt::format("{{ {0}[r] = {1}; {2}{0}[r] = {3}({4}); }}", name, zero, guard, fn, args));
  if (replicated && used) {
    open("");  // copies of an element take the old value its first copy received
    line(fmt::format("{0}* tj_x = reinterpret_cast<{0}*>({1});", t,
                     reduction_scratch(static_cast<int>(type(res).numel()) * bytes)));
    per_register(n, fmt::format("if ({}) tj_x[{}] = {}[r];", fmt::join(owner, " && "), linear_index(l, "r"), name));
    line(barrier());
    per_register(n, fmt::format("{}[r] = tj_x[{}];", name, linear_index(l, "r")));
    close();
  }
  remember(res, l, name);
}

}  // namespace tilejit::codegen::cuda
