#include "dsl/tracer.h"

#include <fmt/format.h>

#include <atomic>

#include "dsl/semantics.h"
#include "tilejit/error.h"

namespace tilejit::tl::detail {
namespace {

thread_local Tracer* g_current = nullptr;
std::atomic<std::uint32_t> g_next_trace_id{1};

}  // namespace

Tracer::Tracer(std::string kernel_name, std::vector<TraceParam> params)
    : builder_(fn_), params_(std::move(params)), id_(g_next_trace_id++), previous_(g_current) {
  fn_.name = std::move(kernel_name);
  active_serials_.push_back(0);
  for (const auto& p : params_) {
    if (p.kind == TraceParam::Kind::constexpr_int) {
      param_values_.push_back(-1);
      continue;
    }
    ir::Type t = p.kind == TraceParam::Kind::pointer ? ir::Type::pointer(p.dtype) : ir::Type::scalar(p.dtype);
    int v = fn_.new_value(t);
    fn_.params.push_back({p.name, v, p.divisibility});
    param_values_.push_back(v);
  }
  sync_value_frames();
  g_current = this;
}

Tracer::~Tracer() { g_current = previous_; }

Tracer* Tracer::active() { return g_current; }

Tracer& Tracer::current(const std::source_location& loc) {
  if (!g_current)
    throw UserError("tilejit DSL operations can only run while a kernel is traced (call them from a kernel function)",
                    loc);
  return *g_current;
}

ir::Function Tracer::finish() {
  if (!frames_.empty()) throw InternalError("tracer finished inside a loop");
  return std::move(fn_);
}

ir::Builder& Tracer::at(const std::source_location& loc) {
  builder_.set_loc({loc.file_name(), loc.line()});
  return builder_;
}

void Tracer::sync_value_frames() {
  std::uint32_t serial = frames_.empty() ? 0 : frames_.back()->serial;
  value_frame_.resize(fn_.value_types.size(), serial);
}

void Tracer::check_visible(int value, const std::source_location& loc) {
  sync_value_frames();
  std::uint32_t serial = value_frame_.at(static_cast<std::size_t>(value));
  for (auto s : active_serials_)
    if (s == serial) return;
  throw UserError(
      "this value was computed inside a for_range body that has ended; to keep a value across "
      "iterations or after the loop, assign it to a Tensor declared before the loop",
      loc);
}

// Makes `t` a carried value of every open loop between its birth and the innermost one.
void Tracer::capture(const Tensor& t) {
  for (int depth = t.birth_depth_ + 1; depth <= this->depth(); ++depth) {
    Frame& frame = *frames_[static_cast<std::size_t>(depth - 1)];
    bool known = false;
    for (const auto& c : frame.carried) known |= c.object == &t;
    if (known) continue;
    sync_value_frames();
    int arg = fn_.new_value(fn_.type(t.value_));
    value_frame_.push_back(frame.serial);
    frame.body.args.push_back(arg);
    frame.carried.push_back({&t, t.value_, arg});
    t.value_ = arg;
  }
}

int Tracer::peek(const Tensor& t) {
  if (t.trace_id_ == id_ && t.birth_depth_ < depth()) capture(t);
  return t.value_;
}

int Tracer::read(const Tensor& t, const std::source_location& loc) {
  if (t.trace_id_ != id_) throw UserError("this Tensor belongs to another kernel trace", loc);
  if (t.birth_depth_ < depth()) capture(t);
  check_visible(t.value_, loc);
  return t.value_;
}

void Tracer::write(Tensor& t, int value) {
  if (t.birth_depth_ < depth()) {
    capture(t);
    if (fn_.type(value) != fn_.type(t.value_)) {
      // The op that produced `value` names the user's line; a plain assignment of another
      // Tensor has no op, so the loop is named instead.
      ir::SourceLoc where = frames_.back()->loop;
      for (const auto& op : builder_.insertion_region()->ops)
        for (int r : op.results)
          if (r == value) where = op.loc;
      throw UserError(fmt::format("a loop-carried value changes type inside the loop: it was {}, the new value is {}",
                                  ir::to_string(fn_.type(t.value_)), ir::to_string(fn_.type(value))),
                      where.file, where.line);
    }
  }
  t.value_ = value;
  t.trace_id_ = id_;
}

Tensor Tracer::make(int value) { return Tensor(Tensor::FromTrace{}, value); }

void Tracer::forget(const Tensor& t) {
  if (t.birth_depth_ >= depth()) return;
  for (auto& frame : frames_)
    for (auto& c : frame->carried)
      if (c.object == &t) {
        c.object = nullptr;
        c.last = t.value_;
      }
}

void Tracer::copy_into(Tensor& dst, const Tensor& src) { write(dst, peek(src)); }

Tensor Tracer::param_tensor(int index) {
  const TraceParam& p = params_.at(static_cast<std::size_t>(index));
  // An integer known to be 1 (strides of contiguous rows, say) folds into the code.
  if (p.kind == TraceParam::Kind::integer && p.equals_one) return make(builder_.constant_int(p.dtype, 1));
  return make(param_values_.at(static_cast<std::size_t>(index)));
}

std::int64_t Tracer::param_constexpr(int index) const {
  return params_.at(static_cast<std::size_t>(index)).constexpr_value;
}

void Tracer::trace_loop(const Operand& start, const Operand& end, const Operand& step, const LoopOptions& options,
                        const std::function<void(const Int&)>& body) {
  const auto& loc = start.loc();
  if (options.num_stages < 1 || options.num_stages > 8)
    throw UserError(fmt::format("for_range: num_stages must be between 1 and 8, got {}", options.num_stages), loc);
  auto bounds = loop_bounds(*this, start, end, step);
  if (step.kind() == Operand::Kind::int_literal && step.int_value() <= 0)
    throw UserError(fmt::format("for_range: step must be positive, got {}", step.int_value()), loc);

  sync_value_frames();
  auto frame = std::make_unique<Frame>();
  frame->serial = next_serial_++;
  frame->loop = {loc.file_name(), loc.line()};
  int iv = fn_.new_value(fn_.type(bounds[0]));
  frame->body.args.push_back(iv);
  ir::Region* outer = builder_.insertion_region();
  builder_.set_insertion_region(&frame->body);
  active_serials_.push_back(frame->serial);
  frames_.push_back(std::move(frame));
  sync_value_frames();
  {
    Int index(make(iv));
    body(index);
  }
  Frame& f = *frames_.back();
  std::vector<int> yields, inits;
  for (const auto& c : f.carried) {
    yields.push_back(c.object ? c.object->value_ : c.last);
    inits.push_back(c.init);
  }
  for (std::size_t i = 0; i < yields.size(); ++i) check_visible(yields[i], loc);
  at(loc).yield(yields);
  sync_value_frames();
  std::unique_ptr<Frame> done = std::move(frames_.back());
  frames_.pop_back();
  active_serials_.pop_back();
  builder_.set_insertion_region(outer);
  auto results = at(loc).for_range(bounds[0], bounds[1], bounds[2], inits, std::move(done->body),
                                   static_cast<int>(options.num_stages));
  sync_value_frames();
  for (std::size_t i = 0; i < done->carried.size(); ++i)
    if (done->carried[i].object) done->carried[i].object->value_ = results[i];
}

}  // namespace tilejit::tl::detail
