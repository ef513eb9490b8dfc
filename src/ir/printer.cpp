#include "ir/printer.h"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

namespace tilejit::ir {
namespace {

std::string float_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

class Printer {
 public:
  Printer(const Function& f, PrintOptions o) : f_(f), opts_(o) {}

  std::unordered_map<ValueId, int> numbers() {
    run();
    std::unordered_map<ValueId, int> out;
    for (const auto& [v, text] : names_) out[v] = std::stoi(text.substr(1));
    return out;
  }

  std::string run() {
    std::vector<std::string> params;
    for (const auto& p : f_.params) {
      std::string facts;
      if (p.divisibility > 1) facts = fmt::format(" {}({})", f_.type(p.value).is_ptr ? "align" : "div", p.divisibility);
      params.push_back(fmt::format("{}: {}{}", name(p.value), to_string(f_.type(p.value)), facts));
    }
    out_ += fmt::format("kernel {}({}) {{\n", f_.name, fmt::join(params, ", "));
    for (std::size_t i = 0; i < f_.stashes.size(); ++i)
      out_ += fmt::format("  stash {}: {} x {} slots\n", i, to_string(f_.stashes[i].block), f_.stashes[i].slots);
    region(f_.body, 1);
    out_ += "}\n";
    return out_;
  }

 private:
  std::string name(ValueId v) {
    auto it = names_.find(v);
    if (it == names_.end()) it = names_.emplace(v, fmt::format("%{}", names_.size())).first;
    return it->second;
  }

  std::string names(const std::vector<ValueId>& vs) {
    std::vector<std::string> s;
    for (auto v : vs) s.push_back(name(v));
    return fmt::format("{}", fmt::join(s, ", "));
  }

  std::string attrs(const Op& op) {
    const auto& a = op.attrs;
    switch (op.kind) {
      case OpKind::constant: return is_float(a.dtype) ? float_text(a.float_value) : std::to_string(a.int_value);
      case OpKind::program_id:
      case OpKind::num_programs: return std::to_string(a.int_value);
      case OpKind::arange: return fmt::format("{}, {}", a.start, a.end);
      case OpKind::expand_dims:
      case OpKind::reduce: return fmt::format("axis={}", a.axis);
      case OpKind::cluster_reduce: return fmt::format("cluster={}", a.cluster_size);
      case OpKind::group_reduce:
        if (a.phase == ExchangePhase::whole) return fmt::format("group={}", a.cluster_size);
        return fmt::format("group={}, {}", a.cluster_size, phase_name(a.phase));
      case OpKind::exp2: return a.flush_subnormals ? "ftz" : "";
      case OpKind::stash_put:
      case OpKind::stash_get:
      case OpKind::stash_copy: return fmt::format("stash={}", a.int_value);
      case OpKind::copies_wait: return fmt::format("pending={}", a.int_value);
      case OpKind::load:
      case OpKind::store:
        return a.eviction == Eviction::first ? "evict_first" : a.eviction == Eviction::last ? "evict_last" : "";
      default: return "";
    }
  }

  void line(int indent, const std::string& text, const Op& op) {
    out_ += std::string(2 * indent, ' ') + text;
    if (opts_.locations && op.loc.line) {
      auto slash = op.loc.file.find_last_of('/');
      out_ += fmt::format("  // {}:{}", slash == std::string::npos ? op.loc.file : op.loc.file.substr(slash + 1),
                          op.loc.line);
    }
    out_ += "\n";
  }

  void region(const Region& r, int indent) {
    for (const Op& op : r.ops) {
      if (op.kind == OpKind::for_range) {
        loop(op, indent);
        continue;
      }
      std::string opname = op_name(op.kind);
      if (op.kind == OpKind::reduce || op.kind == OpKind::cluster_reduce || op.kind == OpKind::group_reduce)
        opname += std::string(".") + reduce_name(op.attrs.reduce);
      if (op.kind == OpKind::atomic) opname += std::string(".") + atomic_name(op.attrs.atomic);
      std::vector<std::string> parts;
      if (op.kind == OpKind::atomic) {
        const AtomicOperands at = atomic_operands(op);
        parts.push_back(name(op.operands[0]));
        if (at.compare >= 0) parts.push_back("cmp=" + name(op.operands[static_cast<std::size_t>(at.compare)]));
        parts.push_back(name(op.operands[static_cast<std::size_t>(at.value)]));
        if (at.mask >= 0) parts.push_back("mask=" + name(op.operands[static_cast<std::size_t>(at.mask)]));
      } else if (op.kind == OpKind::load || op.kind == OpKind::store) {
        std::size_t plain = op.kind == OpKind::load ? 1 : 2;
        for (std::size_t i = 0; i < plain; ++i) parts.push_back(name(op.operands[i]));
        if (op.attrs.has_mask) parts.push_back("mask=" + name(op.operands[plain]));
        if (op.attrs.has_other) parts.push_back("other=" + name(op.operands[plain + 1]));
      } else {
        for (auto v : op.operands) parts.push_back(name(v));
      }
      std::string extra = attrs(op);
      if (!extra.empty()) parts.push_back(extra);
      std::string args = parts.empty() ? "" : " " + fmt::format("{}", fmt::join(parts, ", "));
      if (op.results.empty()) {
        line(indent, opname + args, op);
      } else {
        std::string res = names(op.results);
        line(indent, fmt::format("{} = {}{} : {}", res, opname, args, to_string(f_.type(op.results[0]))), op);
      }
    }
  }

  void loop(const Op& op, int indent) {
    const Region& body = op.regions[0];
    // Named in reading order: results, induction variable, then each carried value.
    std::string head = op.results.empty() ? "" : names(op.results) + " = ";
    std::string iv = name(body.args[0]);
    head += fmt::format("for_range {} = {} to {} step {}", iv, name(op.operands[0]), name(op.operands[1]),
                        name(op.operands[2]));
    std::vector<std::string> carried;
    std::vector<std::string> types;
    for (std::size_t i = 1; i < body.args.size(); ++i) {
      std::string arg = name(body.args[i]);
      carried.push_back(fmt::format("{} = {}", arg, name(op.operands[kForFixedOperands + i - 1])));
      types.push_back(to_string(f_.type(body.args[i])));
    }
    if (!carried.empty())
      head += fmt::format(" iter_args({}) -> ({})", fmt::join(carried, ", "), fmt::join(types, ", "));
    if (op.attrs.num_stages != 1) head += fmt::format(" num_stages={}", op.attrs.num_stages);
    line(indent, head + " {", op);
    region(body, indent + 1);
    out_ += std::string(2 * indent, ' ') + "}\n";
  }

  const Function& f_;
  PrintOptions opts_;
  std::unordered_map<ValueId, std::string> names_;
  std::string out_;
};

}  // namespace

std::string print(const Function& f, PrintOptions options) { return Printer(f, options).run(); }

std::unordered_map<ValueId, int> value_numbers(const Function& f) { return Printer(f, {}).numbers(); }

}  // namespace tilejit::ir
