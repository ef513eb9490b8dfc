#include "codegen/ptx/emitter.h"

#include <fmt/format.h>

#include <algorithm>

#include "codegen/cuda/stash_layout.h"
#include "ir/printer.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

const char* param_type(const ir::Type& t) {
  if (t.is_ptr) return "u64";
  switch (t.elem) {
    case DType::i32: return "u32";
    case DType::i64: return "u64";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    default: return nullptr;
  }
}

// "sm_90a" -> 90.
int arch_number(const std::string& arch) {
  int n = 0;
  for (std::size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    n = n * 10 + (arch[i] - '0');
  return n;
}

}  // namespace

RegClass reg_class(DType t) {
  switch (t) {
    case DType::i1: return RegClass::pred;
    case DType::i32: return RegClass::b32;
    case DType::i64: return RegClass::b64;
    case DType::f16:
    case DType::bf16: return RegClass::b16;
    case DType::f32: return RegClass::f32;
    case DType::f64: return RegClass::f64;
  }
  return RegClass::b32;
}

RegClass reg_class(const ir::Type& t) { return t.is_ptr ? RegClass::b64 : reg_class(t.elem); }

RegClass compute_class(DType t) { return t == DType::f16 || t == DType::bf16 ? RegClass::f32 : reg_class(t); }

Emitter::Emitter(const ir::Function& f, const PtxCodegenOptions& options)
    : f_(f),
      options_(options),
      plan_(cuda::assign_layouts(f, options.num_warps)),
      axes_(passes::analyze_axes(f)),
      def_(ir::definitions(f.body)),
      cluster_size_(ir::cluster_size(f)),
      group_size_(ir::group_size(f)),
      group_workspace_(group_size_ > 1 || ir::has_split_exchange(f.body)) {
  // Both reduction buffers are sized before any code that addresses the region after them.
  for_each_op(f.body, [&](const ir::Op& op) {
    const int bytes = op.kind == ir::OpKind::reduce   ? cross_warp_bytes(op)
                      : op.kind == ir::OpKind::atomic ? atomic_broadcast_bytes(op)
                                                      : 0;
    reduction_buffer_bytes_ = std::max(reduction_buffer_bytes_, (bytes + 15) / 16 * 16);
  });
  need_shared(conversion_base());
  find_rereadable_reads(f.body, false);
  if (options_.arch.rfind("sm_", 0) != 0 || arch_number(options_.arch) < 80)
    throw Unsupported(fmt::format("PTX generation targets sm_80 and newer, not '{}'", options_.arch));
}

// ---------------------------------------------------------------- values

const std::string& Emitter::scalar(ir::ValueId v) const {
  auto it = scalars_.find(v);
  if (it == scalars_.end()) throw InternalError(fmt::format("ptx codegen: scalar %{} used before it was emitted", v));
  return it->second;
}

Layout Emitter::natural_layout(ir::ValueId v) const {
  auto it = plan_.fixed.find(v);
  return it != plan_.fixed.end() ? it->second : plan_.default_layout(type(v).shape);
}

void Emitter::remember(ir::ValueId v, const std::string& where, const Regs& regs) { scopes_.back()[{v, where}] = regs; }

const std::string& Emitter::layout_name(const Layout& l) const {
  for (const auto& [known, name] : layout_names_)
    if (known == l) return name;
  return layout_names_.emplace_back(l, cuda::to_string(l)).second;
}

const Regs* Emitter::recall(ir::ValueId v, const std::string& where) const {
  auto key = std::make_pair(v, where);
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    // Rematerializing: index values set before (outer scopes) are computed again instead.
    if (rematerializing_ && it != scopes_.rbegin() && index_only(v)) return nullptr;
    auto found = it->find(key);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

bool Emitter::index_only(ir::ValueId v) const {
  if (auto memo = index_only_.find(v); memo != index_only_.end()) return memo->second;
  bool yes = false;
  auto def = def_.find(v);
  if (def != def_.end() && !type(v).is_scalar() && plan_.is_free(v)) {
    const ir::Op& op = *def->second;
    bool cheap = ir::op_category(op.kind) == ir::OpCategory::Compare;
    switch (op.kind) {
      case ir::OpKind::constant:
      case ir::OpKind::arange:
      case ir::OpKind::splat:
      case ir::OpKind::broadcast:
      case ir::OpKind::expand_dims:
      case ir::OpKind::add:
      case ir::OpKind::sub:
      case ir::OpKind::mul:
      case ir::OpKind::maximum:
      case ir::OpKind::minimum:
      case ir::OpKind::bit_and:
      case ir::OpKind::bit_or:
      case ir::OpKind::shl:
      case ir::OpKind::shr:
      case ir::OpKind::cast:
      case ir::OpKind::addptr: cheap = true; break;
      default: break;
    }
    yes = cheap && std::all_of(op.operands.begin(), op.operands.end(), [&](ir::ValueId o) {
            const ir::Type& t = type(o);
            return t.is_scalar() || ((t.is_ptr || !is_float(t.elem)) && index_only(o));
          });
  }
  index_only_[v] = yes;
  return yes;
}

Emitter::Rematerialize::Rematerialize(Emitter& e) : e_(e), thread_values_again_(e.scopes_.size() == 1) {
  if (thread_values_again_) {
    saved_hoisted_ = std::move(e_.hoisted_);
    e_.hoisted_.clear();
    e_.hoisted_in_place_ = true;
  }
  e_.rematerializing_ = true;
  e_.scopes_.emplace_back();
}

Emitter::Rematerialize::~Rematerialize() {
  e_.scopes_.pop_back();
  e_.rematerializing_ = false;
  if (thread_values_again_) {
    e_.hoisted_in_place_ = false;
    e_.hoisted_ = std::move(saved_hoisted_);
  }
}

Regs Emitter::block(ir::ValueId v, const Layout& l) {
  if (type(v).is_scalar()) throw InternalError("ptx codegen: block() on a scalar");
  if (streamed(v)) {
    Regs regs;
    for (int r = 0; r < l.num_regs(); ++r) regs.push_back(element(v, l, r));
    return regs;
  }
  if (const Regs* known = recall(v, l)) return *known;
  if (plan_.is_free(v)) {
    Regs regs;
    if (index_only(v))
      for (int r = 0; r < l.num_regs(); ++r) regs.push_back(element(v, l, r));
    else regs = block_op(*def_.at(v), l);
    remember(v, l, regs);
    return regs;
  }
  auto fixed = plan_.fixed.find(v);
  if (fixed == plan_.fixed.end()) throw InternalError(fmt::format("ptx codegen: %{} has no layout", v));
  if (!recall(v, fixed->second)) throw InternalError(fmt::format("ptx codegen: %{} used before it was emitted", v));
  Regs regs = convert_layout(v, fixed->second, l);
  remember(v, l, regs);
  return regs;
}

std::string Emitter::element(ir::ValueId v, const Layout& l, int r) {
  if (type(v).is_scalar()) return scalar(v);
  const auto i = static_cast<std::size_t>(r);
  if (!index_only(v) && !streamed(v)) return block(v, l).at(i);
  const std::string& layout = layout_name(l);
  if (const Regs* known = recall(v, layout)) return known->at(i);
  const std::string where = fmt::format("{}#{}", layout, r);
  if (const Regs* known = recall(v, where)) return known->front();
  const ir::Op& op = *def_.at(v);
  std::string e;
  switch (op.kind) {
    case ir::OpKind::arange: {
      // start + the register's coordinate + the thread's coordinate.
      std::string base = thread_coord(l, 0);
      const bool wide = type(v).elem == DType::i64;
      const std::int64_t k = op.attrs.start + reg_coord(l, 0, r);
      if (base.empty()) {
        e = code_.imm(wide ? RegClass::b64 : RegClass::b32, std::to_string(k));
      } else if (k == 0 && !wide) {
        e = base;
      } else {
        if (wide)
          base = hoisted("wide:" + base, [&] {
            std::string w = code_.reg(RegClass::b64);
            code_.ins(fmt::format("cvt.s64.s32 {}, {}", w, base));
            return w;
          });
        e = code_.reg(wide ? RegClass::b64 : RegClass::b32);
        code_.ins(fmt::format("add.{} {}, {}, {}", wide ? "s64" : "s32", e, base, k));
      }
      break;
    }
    case ir::OpKind::stash_get: return streamed_stash_read(op, l, r);
    case ir::OpKind::splat: e = scalar(op.operands[0]); break;
    case ir::OpKind::expand_dims:
    case ir::OpKind::broadcast: e = element(op.operands[0], operand_layout(op, l), r); break;
    case ir::OpKind::div:
      if (auto q = uniform_float_division_element(op, l, r)) {
        e = *q;
        break;
      }
      [[fallthrough]];
    default: {
      std::vector<std::string> args;
      for (ir::ValueId o : op.operands) args.push_back(element(o, l, r));
      e = elementwise(op, args);
    }
  }
  remember(v, where, {e});
  return e;
}

Layout Emitter::operand_layout(const ir::Op& op, const Layout& l) const {
  if (op.kind == ir::OpKind::expand_dims) return cuda::squeeze_layout(l, op.attrs.axis);
  return cuda::broadcast_source_layout(l, type(op.operands[0]).shape);
}

// ---------------------------------------------------------------- kernel

PtxKernelSource Emitter::run() {
  std::vector<std::string> params;
  scopes_.emplace_back();
  if (packed()) {
    if (cluster_size_ > 1 || !f_.stashes.empty())
      throw InternalError("PTX generation: programs sharing a block with clusters or stashes");
    packed_prologue();
  }
  // Parameters: loaded in the prologue; pointers converted to global-window addresses.
  for (std::size_t i = 0; i < f_.params.size(); ++i) {
    const auto& p = f_.params[i];
    const ir::Type& t = type(p.value);
    const char* pt = param_type(t);
    if (!pt) throw Unsupported(fmt::format("PTX generation: a kernel parameter of type {}", ir::to_string(t)));
    std::string name = fmt::format("tj_param_{}", i);  // scoped to the entry
    params.push_back(fmt::format("\t.param .{} {}", pt, name));
    Code::Prologue in_prologue(code_);
    std::string r = code_.reg(reg_class(t));
    code_.ins(fmt::format("ld.param.{} {}, [{}]", pt, r, name));
    if (t.is_ptr) {
      std::string g = code_.reg(RegClass::b64);
      code_.ins(fmt::format("cvta.to.global.u64 {}, {}", g, r));
      r = g;
    }
    scalars_[p.value] = r;
  }
  if (packed()) params.push_back("\t.param .u32 tj_param_programs");  // the grid's programs along x
  cluster_prologue();
  group_prologue();
  region(f_.body);

  // PTX ISA 8.0 (CUDA 12.0) covers everything used here up to sm_90a but the cluster exchanges'
  // st.async (8.1, CUDA 12.1); newer targets need the ISA of the CUDA 13.0 toolkit.
  const char* isa = arch_number(options_.arch) > 90 ? "9.0" : cluster_size_ > 1 ? "8.1" : "8.0";
  std::string out = fmt::format(
      "//\n// Generated by tilejit: kernel {}, {} warps{}\n//\n\n.version {}\n.target {}\n.address_size 64\n\n"
      ".extern .shared .align 16 .b8 tj_smem[];\n\n",
      f_.name, options_.num_warps,
      packed() ? fmt::format(" a program, {} programs a block", options_.programs_per_block) : "", isa, options_.arch);
  out += cluster_declarations();
  out += group_declarations();
  // .minnctapersm asks ptxas to fit that many blocks an SM (CompileOptions::min_blocks_per_sm).
  std::string min_blocks =
      options_.min_blocks_per_sm > 0 ? fmt::format(".minnctapersm {}\n", options_.min_blocks_per_sm) : "";
  const int programs = options_.programs_per_block;
  out += fmt::format(".visible .entry {}(\n{}\n)\n.maxntid {}, 1, 1\n{}{}{{\n", options_.entry_name,
                     fmt::join(params, ",\n"), 32 * options_.num_warps * programs, min_blocks, cluster_directive());
  out += code_.declarations();
  out += "\n";
  out += code_.prologue();
  out += code_.body();
  out += "\tret;\n}\n";
  if (options_.line_info) out += code_.file_directives();
  if (!f_.stashes.empty()) {
    // The stashes follow the scratch, which is known only now that the body is out.
    const int scratch = (shared_bytes_ + 15) / 16 * 16;
    for (std::size_t id = 0; id < f_.stashes.size(); ++id) {
      const std::string place = stash_place(id), at = std::to_string(scratch + cuda::stash_offset(f_, id));
      for (auto i = out.find(place); i != std::string::npos; i = out.find(place, i)) out.replace(i, place.size(), at);
    }
    shared_bytes_ = scratch + static_cast<int>(cuda::stash_offset(f_, f_.stashes.size()));
  }
  if (!packed()) return PtxKernelSource{out, options_.entry_name, options_.num_warps, shared_bytes_};
  const int per_program = (shared_bytes_ + 15) / 16 * 16;  // each program's slice 16-byte aligned
  for (auto at = out.find(kProgramSharedBytes); at != std::string::npos; at = out.find(kProgramSharedBytes, at))
    out.replace(at, std::string_view(kProgramSharedBytes).size(), std::to_string(per_program));
  return PtxKernelSource{out, options_.entry_name, options_.num_warps, programs * per_program};
}

void Emitter::region(const ir::Region& r) {
  for (const ir::Op& o : r.ops) op(o);
}

void Emitter::op(const ir::Op& op) {
  if (op.kind == ir::OpKind::yield) return;  // handled by loop_op
  if (options_.line_info) code_.set_loc(op.loc.file, op.loc.line);
  switch (op.kind) {
    case ir::OpKind::for_range: return loop_op(op);
    case ir::OpKind::store: return store_op(op);
    case ir::OpKind::atomic: return atomic_op(op);
    case ir::OpKind::reduce: return reduce_op(op);
    case ir::OpKind::cluster_reduce: return cluster_reduce_op(op);
    case ir::OpKind::group_reduce: return group_reduce_op(op);
    case ir::OpKind::stash_put: return stash_put_op(op);
    case ir::OpKind::stash_copy: return stash_copy_op(op);
    case ir::OpKind::copies_wait: code_.ins(fmt::format("cp.async.wait_group {}", op.attrs.int_value)); return;
    default: break;
  }
  ir::ValueId res = op.results.at(0);
  if (type(res).is_scalar()) return scalar_op(op);
  if (plan_.is_free(res) || streamed(res)) return;  // computed where used
  const Layout& l = plan_.fixed.at(res);
  remember(res, l, block_op(op, l));
}

void Emitter::scalar_op(const ir::Op& op) {
  ir::ValueId res = op.results[0];
  static const char* axes[] = {"x", "y", "z"};
  switch (op.kind) {
    case ir::OpKind::constant: scalars_[res] = constant(op.attrs.dtype, op.attrs); return;
    case ir::OpKind::program_id:
      if (packed() && op.attrs.int_value == 0) {
        scalars_[res] = hoisted_.at("program");
        return;
      }
      scalars_[res] = code_.imm(RegClass::b32, fmt::format("%ctaid.{}", axes[op.attrs.int_value]));
      return;
    case ir::OpKind::num_programs:
      if (packed() && op.attrs.int_value == 0) {
        scalars_[res] = hoisted_.at("programs");
        return;
      }
      scalars_[res] = code_.imm(RegClass::b32, fmt::format("%nctaid.{}", axes[op.attrs.int_value]));
      return;
    case ir::OpKind::load: scalars_[res] = scalar_load(op); return;
    default: break;
  }
  std::vector<std::string> args;
  for (ir::ValueId v : op.operands) args.push_back(scalar(v));
  scalars_[res] = elementwise(op, args);
}

// Index values, aranges among them, are built by element().
Regs Emitter::block_op(const ir::Op& op, const Layout& l) {
  const int n = l.num_regs();
  switch (op.kind) {
    // Splats, broadcasts and expand_dims only rename registers.
    case ir::OpKind::splat: return Regs(static_cast<std::size_t>(n), scalar(op.operands[0]));
    case ir::OpKind::expand_dims: {
      ir::ValueId src = op.operands[0];
      if (type(src).is_scalar()) return Regs(static_cast<std::size_t>(n), scalar(src));
      return block(src, operand_layout(op, l));
    }
    case ir::OpKind::broadcast: return block(op.operands[0], operand_layout(op, l));
    case ir::OpKind::load: return load_op(op, l);
    case ir::OpKind::stash_get: return stash_get_op(op, l);
    case ir::OpKind::div: {
      Regs out;
      if (uniform_float_division(op, l, out)) return out;
      break;
    }
    default: break;
  }
  std::vector<Regs> operands;
  for (ir::ValueId v : op.operands)
    operands.push_back(type(v).is_scalar() ? Regs(static_cast<std::size_t>(n), scalar(v)) : block(v, l));
  // A register that replicates another (a reduction's result keeps its parent's registers) is
  // the original's register: each distinct element is computed once.
  const std::uint32_t replicas = cuda::replica_mask(l.reg);
  Regs out;
  for (int r = 0; r < n; ++r) {
    if (r & replicas) {
      out.push_back(out[static_cast<std::size_t>(r & ~replicas)]);
      continue;
    }
    std::vector<std::string> args;
    for (const auto& o : operands) args.push_back(o[static_cast<std::size_t>(r)]);
    out.push_back(elementwise(op, args));
  }
  return out;
}

PtxKernelSource generate_ptx(const ir::Function& f, const PtxCodegenOptions& options) {
  return Emitter(f, options).run();
}

}  // namespace tilejit::codegen::ptx
