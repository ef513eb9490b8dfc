#include "codegen/cuda/emitter.h"

#include <fmt/format.h>

#include "codegen/cuda/cuda_types.h"
#include "ir/printer.h"
#include "tilejit/error.h"

namespace tilejit::codegen::cuda {

Emitter::Emitter(const ir::Function& f, const CudaCodegenOptions& options)
    : f_(f),
      options_(options),
      plan_(assign_layouts(f, options.num_warps)),
      axes_(passes::analyze_axes(f)),
      def_(ir::definitions(f.body)),
      numbers_(ir::value_numbers(f)),
      cluster_size_(ir::cluster_size(f)),
      group_size_(ir::group_size(f)),
      group_workspace_(group_size_ > 1 || ir::has_split_exchange(f.body)) {}

// ---------------------------------------------------------------- output helpers

void Emitter::line(const std::string& text) {
  if (!pending_loc_.empty() && pending_loc_ != last_loc_) {
    out_ += pending_loc_ + "\n";
    last_loc_ = pending_loc_;
  }
  out_ += std::string(static_cast<std::size_t>(2 * indent_), ' ');
  out_ += text;
  out_ += '\n';
}

void Emitter::open(const std::string& text) {
  line(text + " {");
  ++indent_;
  scopes_.emplace_back();
}

void Emitter::close(const std::string& tail) {
  scopes_.pop_back();
  --indent_;
  line(tail);
}

void Emitter::per_register(int n, const std::string& body) {
  line("#pragma unroll");
  line(fmt::format("for (int r = 0; r < {}; ++r) {}", n, body));
}

void Emitter::at_source(const ir::Op& op) {
  if (!options_.line_directives || op.loc.line == 0) return;
  // Written before the op's first line of code (free values may emit none here).
  pending_loc_ = fmt::format("#line {} \"{}\"", op.loc.line, op.loc.file);
}

std::string Emitter::fresh(const std::string& base) { return fmt::format("{}_{}", base, counter_++); }

// Barrier ids 0-15 are the block's; with programs sharing a block, program k of it waits at
// barrier k for its own warps only, so programs never wait for each other.
std::string Emitter::barrier() const {
  if (!packed()) return "__syncthreads();";
  return fmt::format(R"(asm volatile("bar.sync %0, {};" :: "r"(tj_program_in_block) : "memory");)",
                     32 * options_.num_warps);
}

std::string Emitter::first_thread() const {
  if (!packed()) return "threadIdx.x == 0";
  return fmt::format("(threadIdx.x & {}) == 0", 32 * options_.num_warps - 1);
}

std::string Emitter::reduction_scratch(int bytes) {
  reduction_buffer_bytes_ = std::max(reduction_buffer_bytes_, (bytes + 15) / 16 * 16);
  return reduction_turn_++ % 2 == 0 ? "tj_smem" : "(tj_smem + tj_reduction_buffer_bytes)";
}

std::string Emitter::conversion_scratch(int bytes) {
  conversion_bytes_ = std::max(conversion_bytes_, bytes);
  return "(tj_smem + 2 * tj_reduction_buffer_bytes)";
}

// ---------------------------------------------------------------- values

std::string Emitter::storage_type(ir::ValueId v) const {
  const ir::Type& t = type(v);
  return t.is_ptr ? c_type(t.elem) + "*" : c_type(t.elem);
}

std::string Emitter::scalar(ir::ValueId v) const {
  auto it = alias_.find(v);
  return it != alias_.end() ? it->second : value_name(v);
}

std::string Emitter::value_name(ir::ValueId v) const {
  auto it = numbers_.find(v);
  return it != numbers_.end() ? fmt::format("v{}", it->second) : fmt::format("tmp{}", v);
}

Layout Emitter::natural_layout(ir::ValueId v) const {
  auto it = plan_.fixed.find(v);
  return it != plan_.fixed.end() ? it->second : plan_.default_layout(type(v).shape);
}

void Emitter::remember(ir::ValueId v, const Layout& l, const std::string& name) {
  scopes_.back()[{v, to_string(l)}] = name;
}

const std::string* Emitter::recall(ir::ValueId v, const Layout& l) const {
  auto key = std::make_pair(v, to_string(l));
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(key);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

std::string Emitter::block(ir::ValueId v, const Layout& l) {
  if (type(v).is_scalar()) throw InternalError("codegen: block() on a scalar");
  if (const std::string* known = recall(v, l)) return *known;
  if (plan_.is_free(v)) {
    std::string name = fresh(value_name(v));
    block_op(*def_.at(v), l, name);
    remember(v, l, name);
    return name;
  }
  auto fixed = plan_.fixed.find(v);
  if (fixed == plan_.fixed.end()) throw InternalError(fmt::format("codegen: %{} has no layout", v));
  const std::string* have = recall(v, fixed->second);
  if (!have) throw InternalError(fmt::format("codegen: %{} used before it was emitted", v));
  std::string name = convert_layout(v, fixed->second, l);
  remember(v, l, name);
  return name;
}

std::string Emitter::coord(const Layout& l, int dim, const std::string& reg) const {
  return fmt::format("({} + {} + {})", coord_expr(l.reg, dim, reg), coord_expr(l.lane, dim, "tj_lane"),
                     coord_expr(l.warp, dim, "tj_warp"));
}

std::string Emitter::linear_index(const Layout& l, const std::string& reg) const {
  if (l.rank() == 1) return coord(l, 0, reg);
  return fmt::format("({} * {} + {})", coord(l, 0, reg), l.shape[1], coord(l, 1, reg));
}

// Layout changes go through shared memory: every thread writes what it holds (replicas
// write equal values), then reads what the new layout gives it.
std::string Emitter::convert_layout(ir::ValueId v, const Layout& from, const Layout& to) {
  std::string src = *recall(v, from);
  std::string t = storage_type(v);
  std::string name = fresh(value_name(v) + "_cvt");
  std::string scratch = conversion_scratch(
      static_cast<int>(type(v).numel() * (type(v).is_ptr ? 8 : static_cast<int>(dtype_size(type(v).elem)))));
  line(fmt::format("{} {}[{}];  // %{} in another layout, through shared memory", t, name, to.num_regs(), v));
  open("");
  line(fmt::format("{}* tj_x = reinterpret_cast<{}*>({});", t, t, scratch));
  per_register(from.num_regs(), fmt::format("tj_x[{}] = {}[r];", linear_index(from, "r"), src));
  line(barrier());
  per_register(to.num_regs(), fmt::format("{}[r] = tj_x[{}];", name, linear_index(to, "r")));
  line(barrier());
  close();
  return name;
}

// ---------------------------------------------------------------- kernel

CudaKernelSource Emitter::run() {
  std::vector<std::string> params;
  for (const auto& p : f_.params) params.push_back(fmt::format("{} {}", storage_type(p.value), value_name(p.value)));
  const int programs = options_.programs_per_block;
  if (packed()) {
    if (cluster_size_ > 1 || group_workspace_ || !f_.stashes.empty())
      throw InternalError("codegen: programs sharing a block with clusters, groups or stashes");
    params.push_back("int tj_programs");  // the grid's programs along x (the launch's grid.x)
  }
  int threads = 32 * options_.num_warps * programs;
  std::string body;
  scopes_.emplace_back();
  indent_ = 1;
  line("const int tj_lane = threadIdx.x & 31;");
  if (!packed()) {
    line("const int tj_warp = threadIdx.x >> 5;");
    line("extern __shared__ __align__(16) unsigned char tj_smem[];");
    line("(void)tj_lane; (void)tj_warp; (void)tj_smem;");
  } else {
    // Program k of the block runs on warps [k * num_warps, (k + 1) * num_warps) with its own
    // slice of shared memory (tj_smem, declared below once its size is known).
    line(fmt::format("const int tj_warp = (threadIdx.x >> 5) & {};", options_.num_warps - 1));
    line(fmt::format("const int tj_program_in_block = threadIdx.x / {};", 32 * options_.num_warps));
    line(fmt::format("const int tj_program = (int)blockIdx.x * {} + tj_program_in_block;", programs));
    line("if (tj_program >= tj_programs) return;  // the last block's programs past the grid");
    line("extern __shared__ __align__(16) unsigned char tj_block_smem[];");
  }
  out_ += cluster_prologue();
  out_ += group_prologue();
  const std::size_t constants_at = out_.size();
  region(f_.body);
  // Known only now that the body is out.
  const int scratch_bytes = (2 * reduction_buffer_bytes_ + conversion_bytes_ + 15) / 16 * 16;
  if (!f_.stashes.empty())
    out_.insert(constants_at,
                fmt::format("  constexpr int tj_stash_offset = {};  // after the scratch\n", scratch_bytes));
  if (reduction_buffer_bytes_ > 0 || conversion_bytes_ > 0)
    out_.insert(constants_at,
                fmt::format("  constexpr int tj_reduction_buffer_bytes = {};\n", reduction_buffer_bytes_));
  if (packed())
    out_.insert(constants_at, fmt::format("  constexpr int tj_program_smem_bytes = {};\n"
                                          "  unsigned char* const tj_smem = tj_block_smem + tj_program_in_block * "
                                          "tj_program_smem_bytes;\n"
                                          "  (void)tj_lane; (void)tj_warp; (void)tj_smem;\n",
                                          scratch_bytes));
  body.swap(out_);
  out_ = prelude();
  out_ += group_helpers();
  out_ += atomic_helpers();
  out_ += packed() ? fmt::format("\n// kernel {}: {} warps a program, {} programs a block\n", f_.name,
                                 options_.num_warps, programs)
                   : fmt::format("\n// kernel {}: {} warps\n", f_.name, options_.num_warps);
  // Clusters are compiled in, so a plain launch runs the kernel in clusters.
  std::string cluster_dims = cluster_size_ > 1 ? fmt::format(" __cluster_dims__({}, 1, 1)", cluster_size_) : "";
  // A second bound asks ptxas to fit that many blocks an SM (CompileOptions::min_blocks_per_sm).
  std::string bounds = options_.min_blocks_per_sm > 0 ? fmt::format("{}, {}", threads, options_.min_blocks_per_sm)
                                                      : std::to_string(threads);
  out_ += fmt::format("extern \"C\" __global__ void __launch_bounds__({}){} {}({}) {{\n", bounds, cluster_dims,
                      options_.entry_name, fmt::join(params, ", "));
  out_ += body;
  out_ += "}\n";
  if (packed()) return CudaKernelSource{out_, options_.entry_name, options_.num_warps, programs * scratch_bytes};
  return CudaKernelSource{
      out_, options_.entry_name, options_.num_warps,
      f_.stashes.empty() ? 2 * reduction_buffer_bytes_ + conversion_bytes_ : scratch_bytes + stash_bytes()};
}

void Emitter::region(const ir::Region& r) {
  for (const ir::Op& o : r.ops) op(o);
}

void Emitter::op(const ir::Op& op) {
  if (op.kind == ir::OpKind::yield) return;  // handled by loop_op
  at_source(op);
  switch (op.kind) {
    case ir::OpKind::for_range: return loop_op(op);
    case ir::OpKind::store: return store_op(op);
    case ir::OpKind::atomic: return atomic_op(op);
    case ir::OpKind::reduce: return reduce_op(op);
    case ir::OpKind::cluster_reduce: return cluster_reduce_op(op);
    case ir::OpKind::group_reduce: return group_reduce_op(op);
    case ir::OpKind::stash_put: return stash_put_op(op);
    case ir::OpKind::stash_copy: return stash_copy_op(op);
    case ir::OpKind::copies_wait: return copies_wait_op(op);
    default: break;
  }
  ir::ValueId res = op.results.at(0);
  if (type(res).is_scalar()) return scalar_op(op);
  if (plan_.is_free(res)) return;  // computed where used
  const Layout& l = plan_.fixed.at(res);
  std::string name = value_name(res);
  block_op(op, l, name);
  remember(res, l, name);
}

void Emitter::scalar_op(const ir::Op& op) {
  ir::ValueId res = op.results[0];
  std::string t = storage_type(res);
  std::string name = scalar(res);
  const auto& a = op.attrs;
  static const char* axes[] = {"x", "y", "z"};
  switch (op.kind) {
    case ir::OpKind::constant:
      line(fmt::format("{} const {} = {};", t, name,
                       is_float(a.dtype) ? float_literal(a.dtype, a.float_value) : int_literal(a.dtype, a.int_value)));
      return;
    case ir::OpKind::program_id:
      if (packed() && a.int_value == 0) line(fmt::format("const int {} = tj_program;", name));
      else line(fmt::format("const int {} = (int)blockIdx.{};", name, axes[a.int_value]));
      return;
    case ir::OpKind::num_programs:
      if (packed() && a.int_value == 0) line(fmt::format("const int {} = tj_programs;", name));
      else line(fmt::format("const int {} = (int)gridDim.{};", name, axes[a.int_value]));
      return;
    case ir::OpKind::load:
      if (a.has_mask)
        line(fmt::format("{} const {} = {} ? *{} : {};", t, name, scalar(op.operands[1]), scalar(op.operands[0]),
                         a.has_other ? scalar(op.operands[2]) : fmt::format("({})0", t)));
      else line(fmt::format("{} const {} = *{};", t, name, scalar(op.operands[0])));
      return;
    default: break;
  }
  std::vector<std::string> args;
  for (ir::ValueId v : op.operands) args.push_back(scalar(v));
  line(fmt::format("{} const {} = {};", t, name, elementwise(op, args)));
}

void Emitter::block_op(const ir::Op& op, const Layout& l, const std::string& name) {
  ir::ValueId res = op.results.at(0);
  int n = l.num_regs();
  std::string decl = fmt::format("{} {}[{}];", storage_type(res), name, n);
  switch (op.kind) {
    case ir::OpKind::arange:
      line(decl);
      per_register(n, fmt::format("{}[r] = {} + {};", name, op.attrs.start, coord(l, 0, "r")));
      return;
    case ir::OpKind::splat:
      line(decl);
      per_register(n, fmt::format("{}[r] = {};", name, scalar(op.operands[0])));
      return;
    case ir::OpKind::expand_dims: {
      ir::ValueId src = op.operands[0];
      std::string from = type(src).is_scalar() ? scalar(src) : block(src, squeeze_layout(l, op.attrs.axis)) + "[r]";
      line(decl);
      per_register(n, fmt::format("{}[r] = {};", name, from));
      return;
    }
    case ir::OpKind::broadcast: {
      std::string from = block(op.operands[0], broadcast_source_layout(l, type(op.operands[0]).shape));
      line(decl);
      per_register(n, fmt::format("{}[r] = {}[r];", name, from));
      return;
    }
    case ir::OpKind::load: return load_op(op, l, name);
    case ir::OpKind::stash_get: return stash_get_op(op, l, name);
    case ir::OpKind::div:
      if (uniform_float_division(op, l, name)) return;
      break;
    default: break;
  }
  // Registers that replicate another (a reduction's result keeps its parent's registers) read the
  // original's operands, so each copy is the same expression: NVVM computes it once, and a loop
  // carrying such a value carries one register per distinct element.
  const std::uint32_t replicas = replica_mask(l.reg);
  const std::string r = replicas ? fmt::format("[r & ~{}]", replicas) : "[r]";
  std::vector<std::string> args;
  for (ir::ValueId v : op.operands) args.push_back(type(v).is_scalar() ? scalar(v) : block(v, l) + r);
  line(decl);
  per_register(n, fmt::format("{}[r] = {};", name, elementwise(op, args)));
}

std::string Emitter::elementwise(const ir::Op& op, const std::vector<std::string>& args) const {
  ir::ValueId res = op.results.at(0);
  DType t = type(res).elem;
  DType in = op.operands.empty() ? t : type(op.operands[0]).elem;
  auto c = [&](std::size_t i) { return to_compute(in, args.at(i)); };
  auto wrap = [&](const std::string& e) { return from_compute(t, e); };
  bool f64 = in == DType::f64;
  auto math = [&](const char* f32name, const char* f64name) {
    return wrap(fmt::format("{}({})", f64 ? f64name : f32name, c(0)));
  };
  switch (op.kind) {
    case ir::OpKind::add: return wrap(fmt::format("({} + {})", c(0), c(1)));
    case ir::OpKind::sub: return wrap(fmt::format("({} - {})", c(0), c(1)));
    case ir::OpKind::mul: return wrap(fmt::format("({} * {})", c(0), c(1)));
    case ir::OpKind::div: return wrap(fmt::format("({} / {})", c(0), c(1)));
    case ir::OpKind::rem:
      if (is_float(in)) return wrap(fmt::format("{}({}, {})", f64 ? "fmod" : "fmodf", c(0), c(1)));
      return fmt::format("({} % {})", c(0), c(1));
    case ir::OpKind::maximum: return wrap(fmt::format("tj_max({}, {})", c(0), c(1)));
    case ir::OpKind::minimum: return wrap(fmt::format("tj_min({}, {})", c(0), c(1)));
    case ir::OpKind::bit_and: return fmt::format("({} & {})", c(0), c(1));
    case ir::OpKind::bit_or: return fmt::format("({} | {})", c(0), c(1));
    case ir::OpKind::bit_xor: return fmt::format("({} ^ {})", c(0), c(1));
    case ir::OpKind::shl:
    case ir::OpKind::shr: {
      // An amount past the width (or negative) is defined here: 0, or the sign, for C++ leaves it open.
      const bool wide = in == DType::i64;
      const std::string u = wide ? "unsigned long long" : "unsigned", bits = wide ? "64ull" : "32u";
      if (op.kind == ir::OpKind::shl)
        return fmt::format("(({})({}) >= {} ? 0 : ({})(({})({}) << ({})))", u, c(1), bits, wide ? "long long" : "int",
                           u, c(0), c(1));
      return fmt::format("(({})({}) >= {} ? ({} >> {}) : ({} >> ({})))", u, c(1), bits, c(0), wide ? 63 : 31, c(0),
                         c(1));
    }
    case ir::OpKind::cmp_lt: return fmt::format("({} < {})", c(0), c(1));
    case ir::OpKind::cmp_le: return fmt::format("({} <= {})", c(0), c(1));
    case ir::OpKind::cmp_gt: return fmt::format("({} > {})", c(0), c(1));
    case ir::OpKind::cmp_ge: return fmt::format("({} >= {})", c(0), c(1));
    case ir::OpKind::cmp_eq: return fmt::format("({} == {})", c(0), c(1));
    case ir::OpKind::cmp_ne: return fmt::format("({} != {})", c(0), c(1));
    case ir::OpKind::neg: return wrap(fmt::format("(-{})", c(0)));
    case ir::OpKind::bit_not: return in == DType::i1 ? fmt::format("(!{})", c(0)) : fmt::format("(~{})", c(0));
    // expf/exp2f (2 ulp over the whole range); a faster ex2.approx form would lose accuracy
    // for large arguments.
    case ir::OpKind::exp: return math("expf", "exp");
    case ir::OpKind::exp2:
      if (op.attrs.flush_subnormals && !f64) return wrap(fmt::format("tj_ex2_ftz({})", c(0)));
      return math("exp2f", "exp2");
    case ir::OpKind::log: return math("logf", "log");
    case ir::OpKind::log2: return math("log2f", "log2");
    case ir::OpKind::sqrt: return math("sqrtf", "sqrt");
    case ir::OpKind::rsqrt: return math("rsqrtf", "rsqrt");
    case ir::OpKind::sin: return math("sinf", "sin");
    case ir::OpKind::cos: return math("cosf", "cos");
    case ir::OpKind::tanh: return math("tanhf", "tanh");
    case ir::OpKind::erf: return math("erff", "erf");
    case ir::OpKind::floor: return math("floorf", "floor");
    case ir::OpKind::ceil: return math("ceilf", "ceil");
    case ir::OpKind::abs:
      if (is_float(in)) return math("fabsf", "fabs");
      return fmt::format("({0} < 0 ? -{0} : {0})", c(0));
    case ir::OpKind::cast: return convert(in, t, args.at(0));
    case ir::OpKind::select: return fmt::format("({} ? {} : {})", args.at(0), args.at(1), args.at(2));
    case ir::OpKind::fma:
      return fmt::format("{}({}, {}, {})", f64 ? "fma" : "fmaf", args.at(0), args.at(1), args.at(2));
    case ir::OpKind::addptr: return fmt::format("({} + {})", args.at(0), args.at(1));
    default: throw InternalError(fmt::format("codegen: '{}' is not elementwise", ir::op_name(op.kind)));
  }
}

}  // namespace tilejit::codegen::cuda

namespace tilejit::codegen::cuda {

// x * (1/s) is within 2 ulp of x / s, as div.full (IEEE division costs a dozen instructions per
// element); the reciprocal is rcp.approx, 1 ulp for the normal s this path takes.
// Where 1/s is not a normal float (s tiny, zero, infinite or NaN) the exact division runs
// instead; that test is uniform across the program, so the branch costs nothing.
bool Emitter::uniform_float_division(const ir::Op& op, const Layout& l, const std::string& name) {
  ir::ValueId res = op.results[0], divisor = op.operands[1];
  DType t = type(res).elem;
  if (t != DType::f32 && t != DType::f16 && t != DType::bf16) return false;
  auto def = def_.find(divisor);
  if (def == def_.end() || def->second->kind != ir::OpKind::splat) return false;
  std::string s = to_compute(t, scalar(def->second->operands[0]));
  std::string x = block(op.operands[0], l);
  int n = l.num_regs();
  std::string rcp = fresh("tj_rcp");
  line(fmt::format("{} {}[{}];", storage_type(res), name, n));
  line(fmt::format("const float {} = tj_rcp_approx({});", rcp, s));
  open(fmt::format("if (fabsf({}) <= 8.50705917e37f && fabsf({}) >= 1.17549435e-38f)", s, s));  // 2^126, 2^-126
  per_register(
      n, fmt::format("{}[r] = {};", name, from_compute(t, fmt::format("{} * {}", to_compute(t, x + "[r]"), rcp))));
  close("} else {");
  ++indent_;
  scopes_.emplace_back();
  // div.full (within 2 ulp), as the PTX generator divides here: see its uniform_float_division.
  per_register(n, fmt::format("{}[r] = {};", name,
                              from_compute(t, fmt::format("tj_div_full({}, {})", to_compute(t, x + "[r]"), s))));
  close();
  return true;
}

}  // namespace tilejit::codegen::cuda
