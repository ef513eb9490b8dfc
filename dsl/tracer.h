// The tracing context: while a kernel function runs under a Tracer, every DSL operation
// appends IR to the Tracer's function. It also implements loop-carried values: the first
// time a loop body touches a Tensor object created outside it, that object becomes a carried
// value of the loop (passes later drop the ones that never change).
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/ir.h"
#include "tilejit/tl.h"

namespace tilejit::tl::detail {

/// One kernel parameter as the tracer sees it.
struct TraceParam {
  enum class Kind { pointer, integer, floating, constexpr_int };
  std::string name;
  Kind kind = Kind::integer;
  DType dtype = DType::i32;  // pointee type for pointers; value type for scalars
  std::int64_t constexpr_value = 0;
  std::int64_t divisibility = 1;  // pointers: address alignment in bytes; integers: value
  bool equals_one = false;        // integers specialized on the value 1 trace as a constant
};

class Tracer {
 public:
  Tracer(std::string kernel_name, std::vector<TraceParam> params);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// The tracer of the calling thread; UserError at `loc` when no kernel is being traced.
  static Tracer& current(const std::source_location& loc);
  static Tracer* active();

  /// The traced function (call once, after the kernel function returned).
  ir::Function finish();

  /// Builder positioned at the innermost open region, stamping `loc` on new ops.
  ir::Builder& at(const std::source_location& loc);
  /// Where the latest DSL operation was called from (line 0 before the first).
  const ir::SourceLoc& latest_loc() const { return builder_.loc(); }
  const ir::Type& type(int value) const { return fn_.type(value); }
  const ir::Function& function() const { return fn_; }

  /// Reads the value a Tensor object names for use by an op at `loc` (making it
  /// loop-carried where needed; UserError when it escaped an ended loop).
  int read(const Tensor& t, const std::source_location& loc);
  /// The value a Tensor names, for copies and type queries: no use, so no visibility check.
  int peek(const Tensor& t);
  /// Rebinds a Tensor object to a new value.
  void write(Tensor& t, int value);
  /// A new Tensor object naming `value`.
  Tensor make(int value);
  void forget(const Tensor& t);
  void copy_into(Tensor& dst, const Tensor& src);

  Tensor param_tensor(int index);
  std::int64_t param_constexpr(int index) const;

  void trace_loop(const Operand& start, const Operand& end, const Operand& step, const LoopOptions& options,
                  const std::function<void(const Int&)>& body);

  std::uint32_t id() const { return id_; }
  int depth() const { return static_cast<int>(frames_.size()); }

 private:
  struct Carried {
    const Tensor* object;  // null once the object was destroyed
    int init;
    int arg;
    int last = -1;  // value at destruction
  };
  struct Frame {
    ir::SourceLoc loop;  // the for_range call, for errors with no better line
    ir::Region body;
    std::vector<Carried> carried;
    std::uint32_t serial;
  };

  void sync_value_frames();
  void capture(const Tensor& t);
  void check_visible(int value, const std::source_location& loc);

  ir::Function fn_;
  ir::Builder builder_;
  std::vector<TraceParam> params_;
  std::vector<int> param_values_;
  std::vector<std::unique_ptr<Frame>> frames_;  // open loop bodies, outermost first
  std::vector<std::uint32_t> value_frame_;      // frame serial that defined each value
  std::vector<std::uint32_t> active_serials_;   // root (0), then each open frame
  std::uint32_t next_serial_ = 1;
  std::uint32_t id_;
  Tracer* previous_;
};

}  // namespace tilejit::tl::detail
