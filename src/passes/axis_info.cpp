#include "passes/axis_info.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace tilejit::passes {
namespace {

using Facts = AxisFacts;
constexpr std::int64_t kMax = AxisFacts::kMax;

// Every fact is a power of two, so gcd is min.
std::int64_t gcd2(std::int64_t a, std::int64_t b) { return std::min(a, b); }

std::int64_t low_bit(std::int64_t v) {
  if (v == 0) return kMax;
  std::uint64_t u = static_cast<std::uint64_t>(v < 0 ? -v : v);
  return std::min<std::int64_t>(kMax, static_cast<std::int64_t>(u & (~u + 1)));
}

// Divisibility of every single element along `d` (a run's later elements are start + i).
std::int64_t element_divisibility(const Facts& f, int d) { return f.contiguity[d] > 1 ? 1 : f.divisibility[d]; }

Facts scalar_facts(std::int64_t divisibility) {
  Facts f;
  f.divisibility = {divisibility, divisibility};
  return f;
}

// What holds of both a and b (every fact is a power of two, so the weaker one is the smaller).
// Where a value's runs are cut to shorter ones, the later pieces start `run` past a run's first
// value: only a multiple of gcd(divisibility, run) is known of them.
Facts meet(const Facts& a, const Facts& b) {
  Facts m;
  for (int d = 0; d < 2; ++d) {
    const std::int64_t run = std::min(a.contiguity[d], b.contiguity[d]);
    auto divisibility = [&](const Facts& f) {
      return f.contiguity[d] > run ? gcd2(f.divisibility[d], run) : f.divisibility[d];
    };
    m.contiguity[d] = run;
    m.divisibility[d] = gcd2(divisibility(a), divisibility(b));
    m.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
  }
  return m;
}

class Analyzer {
 public:
  explicit Analyzer(const ir::Function& f) : f_(f) {}

  AxisInfo run() {
    for (const auto& p : f_.params) info_.set(p.value, scalar_facts(p.divisibility));
    region(f_.body);
    return std::move(info_);
  }

 private:
  const Facts& of(ir::ValueId v) const { return info_.of(v); }
  int rank(ir::ValueId v) const { return f_.type(v).rank(); }
  std::int64_t extent(ir::ValueId v, int d) const { return f_.type(v).shape.at(static_cast<std::size_t>(d)); }

  void region(const ir::Region& r) {
    for (const ir::Op& op : r.ops) {
      if (op.kind == ir::OpKind::for_range) {
        loop(op);
        continue;
      }
      if (op.results.size() == 1) {
        info_.set(op.results[0], facts(op));
        remember_constant(op);
      }
    }
  }

  // Integer constants and their splats and broadcasts, for the shifts' amounts.
  void remember_constant(const ir::Op& op) {
    if (op.kind == ir::OpKind::constant && !is_float(op.attrs.dtype)) {
      constants_[op.results[0]] = op.attrs.int_value;
    } else if (op.kind == ir::OpKind::splat || op.kind == ir::OpKind::broadcast) {
      if (auto it = constants_.find(op.operands[0]); it != constants_.end()) constants_[op.results[0]] = it->second;
    }
  }

  // The amount of a shift when it is a constant within the type's width, else -1.
  int shift_amount(const ir::Op& op) const {
    auto it = constants_.find(op.operands[1]);
    const int bits = f_.type(op.results[0]).elem == DType::i64 ? 64 : 32;
    return it != constants_.end() && it->second >= 0 && it->second < bits ? static_cast<int>(it->second) : -1;
  }

  // A loop's carried values hold what both their initial values and every yielded value hold.
  // Starting from the initial values' facts, the body is analyzed again with the meet of those and
  // what it yields until nothing changes (facts only weaken, so this ends): a carried value that
  // is always reassigned a multiple of 16 stays one, and its accesses keep their vector width.
  void loop(const ir::Op& op) {
    const ir::Region& body = op.regions[0];
    // The induction variable is start + k * step.
    std::int64_t div = gcd2(of(op.operands[0]).divisibility[0], of(op.operands[2]).divisibility[0]);
    info_.set(body.args[0], scalar_facts(div));
    const std::size_t carried = body.args.size() - 1;
    std::vector<Facts> state(carried);
    for (std::size_t i = 0; i < carried; ++i) state[i] = of(op.operands[ir::kForFixedOperands + i]);
    const ir::Op& yield = body.ops.back();  // a verified body ends with its yield
    while (true) {
      for (std::size_t i = 0; i < carried; ++i) info_.set(body.args[i + 1], state[i]);
      region(body);
      bool changed = false;
      for (std::size_t i = 0; i < carried; ++i) {
        Facts next = meet(state[i], of(yield.operands.at(i)));
        if (next != state[i]) {
          state[i] = next;
          changed = true;
        }
      }
      if (!changed) break;
    }
    for (std::size_t i = 0; i < carried && i < op.results.size(); ++i) info_.set(op.results[i], state[i]);
  }

  Facts facts(const ir::Op& op) const {
    const ir::ValueId res = op.results[0];
    const int n = rank(res);
    Facts out;
    auto a = [&]() -> const Facts& { return of(op.operands[0]); };
    auto b = [&]() -> const Facts& { return of(op.operands[1]); };
    switch (op.kind) {
      case ir::OpKind::constant: return scalar_facts(is_float(op.attrs.dtype) ? 1 : low_bit(op.attrs.int_value));
      case ir::OpKind::arange:
        out.contiguity[0] = op.attrs.end - op.attrs.start;
        out.divisibility[0] = low_bit(op.attrs.start);
        return out;
      case ir::OpKind::splat:
        for (int d = 0; d < n; ++d) {
          out.constancy[d] = extent(res, d);
          out.divisibility[d] = a().divisibility[0];
        }
        return out;
      case ir::OpKind::broadcast:
        out = a();
        for (int d = 0; d < n; ++d)
          if (extent(op.operands[0], d) == 1 && extent(res, d) > 1) {
            out.constancy[d] = extent(res, d);
            out.contiguity[d] = 1;
          }
        return out;
      case ir::OpKind::expand_dims: {
        const Facts& s = a();
        int axis = op.attrs.axis;
        std::int64_t elem = rank(op.operands[0]) == 0 ? s.divisibility[0] : element_divisibility(s, 0);
        int src = 0;
        for (int d = 0; d < n; ++d) {
          if (d == axis) {
            out.divisibility[d] = elem;
            continue;
          }
          out.contiguity[d] = s.contiguity[src];
          out.divisibility[d] = s.divisibility[src];
          out.constancy[d] = s.constancy[src];
          ++src;
        }
        return out;
      }
      case ir::OpKind::add:
      case ir::OpKind::sub:
      case ir::OpKind::addptr: {
        std::int64_t scale =
            op.kind == ir::OpKind::addptr ? static_cast<std::int64_t>(dtype_size(f_.type(op.operands[0]).elem)) : 1;
        for (int d = 0; d < std::max(n, 1); ++d) {
          const Facts &x = a(), &y = b();
          std::int64_t ydiv = std::min(kMax, y.divisibility[d] * scale);
          std::int64_t yelem = std::min(kMax, element_divisibility(y, d) * scale);
          std::int64_t via_a = std::min(x.contiguity[d], y.constancy[d]);
          std::int64_t via_b = op.kind == ir::OpKind::sub ? 1 : std::min(x.constancy[d], y.contiguity[d]);
          out.constancy[d] = gcd2(x.constancy[d], y.constancy[d]);
          if (via_a > 1 && via_a >= via_b) {
            out.contiguity[d] = via_a;
            out.divisibility[d] = gcd2(x.divisibility[d], yelem);
          } else if (via_b > 1) {
            out.contiguity[d] = via_b;
            out.divisibility[d] = gcd2(element_divisibility(x, d), ydiv);
          } else {
            out.divisibility[d] = gcd2(element_divisibility(x, d), yelem);
          }
        }
        return out;
      }
      case ir::OpKind::mul:
        for (int d = 0; d < std::max(n, 1); ++d) {
          out.constancy[d] = gcd2(a().constancy[d], b().constancy[d]);
          out.divisibility[d] = std::min(kMax, element_divisibility(a(), d) * element_divisibility(b(), d));
        }
        return out;
      case ir::OpKind::shl:
      case ir::OpKind::shr:
        // By a constant k: x << k is x * 2^k; x >> k (arithmetic) keeps what divides x beyond 2^k.
        elementwise_constancy(op, n, out);
        if (const int k = shift_amount(op); k >= 0)
          for (int d = 0; d < std::max(n, 1); ++d) {
            const std::int64_t x = element_divisibility(a(), d);
            out.divisibility[d] = op.kind == ir::OpKind::shl ? (k >= 30 ? kMax : std::min(kMax, x << k))
                                                             : std::max<std::int64_t>(1, x == kMax ? kMax : x >> k);
          }
        return out;
      case ir::OpKind::cmp_lt:
      case ir::OpKind::cmp_le:
      case ir::OpKind::cmp_gt:
      case ir::OpKind::cmp_ge:
      case ir::OpKind::cmp_eq:
      case ir::OpKind::cmp_ne:
        for (int d = 0; d < n; ++d) {
          // A run of consecutive integers starting at a multiple of g, compared with a value
          // that is a multiple of g and constant over the run, gives one answer per group of g.
          auto groups = [&](const Facts& run, const Facts& other) {
            return std::min(
                {run.contiguity[d], run.divisibility[d], element_divisibility(other, d), other.constancy[d]});
          };
          out.constancy[d] = std::max({gcd2(a().constancy[d], b().constancy[d]), groups(a(), b()), groups(b(), a())});
        }
        return out;
      case ir::OpKind::cast:
        if (f_.type(res).is_int() && f_.type(op.operands[0]).is_int()) return a();
        for (int d = 0; d < n; ++d) out.constancy[d] = a().constancy[d];
        return out;
      case ir::OpKind::load:
      case ir::OpKind::atomic:  // even of one address: each element sees the one before it
      case ir::OpKind::stash_get:
      case ir::OpKind::reduce:
      case ir::OpKind::cluster_reduce:
      case ir::OpKind::group_reduce:
      case ir::OpKind::program_id:
      case ir::OpKind::num_programs: return out;
      case ir::OpKind::select:
        // Integer: the result is one of the two values, so what divides both divides it (a slice
        // end chosen between two aligned ends stays aligned).
        if (f_.type(res).is_int()) {
          const Facts &x = of(op.operands[1]), &y = of(op.operands[2]);
          for (int d = 0; d < std::max(n, 1); ++d)
            out.divisibility[d] = gcd2(element_divisibility(x, d), element_divisibility(y, d));
        }
        elementwise_constancy(op, n, out);
        return out;
      case ir::OpKind::maximum:
      case ir::OpKind::minimum:
        // Integer: the result is one of the operands, so what divides both divides it
        // (min(begin + chunk, n_cols) keeps a chunk end aligned when both are).
        if (f_.type(res).is_int()) {
          for (int d = 0; d < std::max(n, 1); ++d) {
            out.divisibility[d] = gcd2(element_divisibility(a(), d), element_divisibility(b(), d));
            if (d < n) out.constancy[d] = std::min(gcd2(a().constancy[d], b().constancy[d]), extent(res, d));
          }
          return out;
        }
        [[fallthrough]];
      default: elementwise_constancy(op, n, out); return out;
    }
  }

  // Elementwise: runs of equal inputs give runs of equal outputs.
  void elementwise_constancy(const ir::Op& op, int n, Facts& out) const {
    const ir::ValueId res = op.results[0];
    for (int d = 0; d < n; ++d) {
      std::int64_t c = kMax;
      for (ir::ValueId v : op.operands) c = gcd2(c, rank(v) == 0 ? kMax : of(v).constancy[d]);
      out.constancy[d] = std::min(c, extent(res, d));
    }
  }

  const ir::Function& f_;
  AxisInfo info_;
  std::unordered_map<ir::ValueId, std::int64_t> constants_;
};

}  // namespace

const AxisFacts& AxisInfo::of(ir::ValueId v) const {
  auto it = facts_.find(v);
  return it == facts_.end() ? unknown_ : it->second;
}

AxisInfo analyze_axes(const ir::Function& f) { return Analyzer(f).run(); }

}  // namespace tilejit::passes
