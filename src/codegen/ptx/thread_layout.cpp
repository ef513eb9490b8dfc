// Where a thread's elements are: the compile-time part of each coordinate (from the register
// index) and the run-time part (from the lane and warp ids, computed once in the prologue).
// Layout conversions through shared memory use both.
#include <fmt/format.h>

#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

// Bits of `var` whose basis has a component along `dim`, as (bit, basis) pairs.
std::vector<std::pair<int, std::int64_t>> contributions(const std::vector<cuda::Coord>& bases, int dim) {
  std::vector<std::pair<int, std::int64_t>> out;
  for (std::size_t i = 0; i < bases.size(); ++i)
    if (std::int64_t b = bases[i][static_cast<std::size_t>(dim)]; b != 0) out.emplace_back(static_cast<int>(i), b);
  return out;
}

int log2_of(std::int64_t v) {
  int b = 0;
  while ((std::int64_t{1} << b) < v) ++b;
  return b;
}

}  // namespace

const std::string& Emitter::thread_id() {
  static const std::string key = "tid";
  hoisted(key, [&] {
    std::string tid = code_.imm(RegClass::b32, "%tid.x");
    if (!packed()) return tid;
    std::string r = code_.reg(RegClass::b32);
    code_.ins(fmt::format("and.b32 {}, {}, {}", r, tid, 32 * options_.num_warps - 1));
    return r;
  });
  return hoisted_.at(key);
}

const std::string& Emitter::lane() {
  static const std::string key = "lane";
  thread_id();
  hoisted(key, [&] {
    std::string r = code_.reg(RegClass::b32);
    code_.ins(fmt::format("and.b32 {}, {}, 31", r, hoisted_.at("tid")));
    return r;
  });
  return hoisted_.at(key);
}

const std::string& Emitter::warp() {
  static const std::string key = "warp";
  lane();  // defines the thread id (and keeps the registers numbered as they always were)
  hoisted(key, [&] {
    std::string r = code_.reg(RegClass::b32);
    code_.ins(fmt::format("shr.u32 {}, {}, 5", r, hoisted_.at("tid")));
    return r;
  });
  return hoisted_.at(key);
}

// Program k of a block runs on warps [k * num_warps, (k + 1) * num_warps) and waits at barrier
// k (ids 0-15 are the block's), so programs never wait for each other; its shared memory starts
// k x its size after tj_smem (the size is known once the body is out: see run()).
void Emitter::packed_prologue() {
  Code::Prologue in_prologue(code_);
  std::string tid = code_.imm(RegClass::b32, "%tid.x"), slot = code_.reg(RegClass::b32);
  code_.ins(fmt::format("shr.u32 {}, {}, {}", slot, tid, log2_of(32 * options_.num_warps)));
  std::string block = code_.imm(RegClass::b32, "%ctaid.x"), program = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mad.lo.s32 {}, {}, {}, {}", program, block, options_.programs_per_block, slot));
  std::string programs = code_.reg(RegClass::b32);
  code_.ins(fmt::format("ld.param.u32 {}, [tj_param_programs]", programs));
  std::string past = code_.reg(RegClass::pred);
  code_.ins(fmt::format("setp.ge.s32 {}, {}, {}", past, program, programs));
  code_.ins(fmt::format("@{} ret", past));
  hoisted_["program_in_block"] = slot;
  hoisted_["program"] = program;
  hoisted_["programs"] = programs;
}

std::string Emitter::barrier() {
  if (!packed()) return "bar.sync 0";
  return fmt::format("bar.sync {}, {}", hoisted_.at("program_in_block"), 32 * options_.num_warps);
}

std::int64_t Emitter::reg_coord(const Layout& l, int dim, int r) {
  std::int64_t c = 0;
  for (auto [bit, basis] : contributions(l.reg, dim))
    if ((r >> bit) & 1) c += basis;
  return c;
}

// Sum over the lane and warp bits of (bit set) * basis. Each basis is a power of two, so a
// term is a shift of one bit of the id.
std::string Emitter::thread_coord(const Layout& l, int dim) {
  auto lanes = contributions(l.lane, dim), warps = contributions(l.warp, dim);
  if (lanes.empty() && warps.empty()) return "";
  std::string key = fmt::format("coord{}:{}", dim, cuda::to_string(l));
  return hoisted(key, [&] {
    // Each contributing bit of %tid.x (lane bits are its bits 0-4, warp bits the ones above)
    // moves to its basis' bit. Runs of neighbouring bits that move by the same distance go
    // together: one and + one shift per run (a contiguous layout is one run: tid * k).
    struct Run {
      int first_bit, bits, shift;
    };
    std::vector<Run> runs;
    auto add = [&](int bit, std::int64_t basis) {
      int shift = log2_of(basis) - bit;
      if (!runs.empty() && runs.back().first_bit + runs.back().bits == bit && runs.back().shift == shift)
        ++runs.back().bits;
      else runs.push_back({bit, 1, shift});
    };
    for (auto [bit, basis] : lanes) add(bit, basis);
    for (auto [bit, basis] : warps) add(5 + bit, basis);
    lane();  // defines the thread id (and keeps the registers numbered as they always were)
    const std::string tid = thread_id();
    std::string sum;
    for (const Run& run : runs) {
      std::string masked = code_.reg(RegClass::b32), term = masked;
      code_.ins(fmt::format("and.b32 {}, {}, {}", masked, tid, ((std::int64_t{1} << run.bits) - 1) << run.first_bit));
      if (run.shift != 0) {
        term = code_.reg(RegClass::b32);
        if (run.shift > 0) code_.ins(fmt::format("shl.b32 {}, {}, {}", term, masked, run.shift));
        else code_.ins(fmt::format("shr.u32 {}, {}, {}", term, masked, -run.shift));
      }
      if (sum.empty()) {
        sum = term;
        continue;
      }
      std::string next = code_.reg(RegClass::b32);
      code_.ins(fmt::format("add.s32 {}, {}, {}", next, sum, term));
      sum = next;
    }
    return sum;
  });
}

std::int64_t Emitter::reg_linear(const Layout& l, int r) {
  if (l.rank() == 0) return 0;
  if (l.rank() == 1) return reg_coord(l, 0, r);
  return reg_coord(l, 0, r) * l.shape[1] + reg_coord(l, 1, r);
}

std::string Emitter::thread_linear(const Layout& l) {
  if (l.rank() <= 1) return l.rank() == 0 ? "" : thread_coord(l, 0);
  std::string row = thread_coord(l, 0), col = thread_coord(l, 1);
  if (row.empty()) return col;
  return hoisted("linear:" + cuda::to_string(l), [&] {
    std::string d = code_.reg(RegClass::b32);
    if (col.empty()) code_.ins(fmt::format("mul.lo.s32 {}, {}, {}", d, row, l.shape[1]));
    else code_.ins(fmt::format("mad.lo.s32 {}, {}, {}, {}", d, row, l.shape[1], col));
    return d;
  });
}

std::string Emitter::owner_predicate(const Layout& l) {
  std::uint32_t lanes = cuda::replica_mask(l.lane), warps = cuda::replica_mask(l.warp);
  if (!lanes && !warps) return "";
  return hoisted(fmt::format("owner:{}:{}", lanes, warps), [&] {
    std::string bits = code_.reg(RegClass::b32), p = code_.reg(RegClass::pred);
    // The replica bits of lane and warp id, side by side in one word: all zero for the owner.
    std::string w = code_.reg(RegClass::b32), l2 = code_.reg(RegClass::b32), both = code_.reg(RegClass::b32);
    code_.ins(fmt::format("and.b32 {}, {}, {}", l2, lane(), lanes));
    code_.ins(fmt::format("and.b32 {}, {}, {}", w, warp(), warps));
    code_.ins(fmt::format("shl.b32 {}, {}, 5", bits, w));
    code_.ins(fmt::format("or.b32 {}, {}, {}", both, bits, l2));
    code_.ins(fmt::format("setp.eq.u32 {}, {}, 0", p, both));
    return p;
  });
}

const std::string& Emitter::shared_base() {
  static const std::string key = "smem";
  hoisted(key, [&] {
    std::string base = code_.imm(RegClass::b32, "tj_smem");
    if (!packed()) return base;
    std::string mine = code_.reg(RegClass::b32);
    code_.ins(
        fmt::format("mad.lo.s32 {}, {}, {}, {}", mine, hoisted_.at("program_in_block"), kProgramSharedBytes, base));
    return mine;
  });
  return hoisted_.at(key);
}

std::string Emitter::thread_shared_address(const Layout& l, int bytes) {
  std::string lin = thread_linear(l);
  if (lin.empty()) return shared_base();
  return hoisted(fmt::format("smem{}:{}", bytes, cuda::to_string(l)), [&] {
    std::string a = code_.reg(RegClass::b32);
    code_.ins(fmt::format("mad.lo.s32 {}, {}, {}, {}", a, lin, bytes, shared_base()));
    return a;
  });
}

// Every thread writes what it holds (replicas write equal values), then reads what the new
// layout gives it; in the region after the reduction buffers, with a barrier on either side.
Regs Emitter::convert_layout(ir::ValueId v, const Layout& from, const Layout& to) {
  const Regs src = *recall(v, from);
  const ir::Type& t = type(v);
  if (t.is_bool()) throw Unsupported("PTX generation: a layout conversion of an i1 block");
  const int bytes = t.is_ptr ? 8 : static_cast<int>(dtype_size(t.elem));
  need_shared(conversion_base() + static_cast<int>(t.numel()) * bytes);
  RegClass c = reg_class(t);
  const char* st = bytes == 8 ? "b64" : bytes == 4 ? "b32" : "b16";
  std::string in = thread_shared_address(from, bytes), out = thread_shared_address(to, bytes);
  for (int r = 0; r < from.num_regs(); ++r)
    code_.ins(fmt::format("st.shared.{} [{}+{}], {}", st, in, conversion_base() + reg_linear(from, r) * bytes,
                          src[static_cast<std::size_t>(r)]));
  code_.ins(barrier());
  Regs regs;
  for (int r = 0; r < to.num_regs(); ++r) {
    regs.push_back(code_.reg(c));
    code_.ins(
        fmt::format("ld.shared.{} {}, [{}+{}]", st, regs.back(), out, conversion_base() + reg_linear(to, r) * bytes));
  }
  code_.ins(barrier());
  return regs;
}

}  // namespace tilejit::codegen::ptx
