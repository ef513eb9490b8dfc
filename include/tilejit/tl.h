// tilejit's kernel language: block-level kernels written as plain C++ functions.
//
// A kernel is a function over DSL values. tilejit calls it once per specialization while
// tracing: every operation below records IR instead of computing, so C++ control flow runs
// at trace time (it unrolls or specializes) and data-dependent control flow is written with
// tl::where and tl::for_range.
//
//   void add_kernel(tl::Ptr x, tl::Ptr y, tl::Ptr out, tl::Int n, tl::Constexpr BLOCK) {
//     auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
//     auto mask = offs < n;
//     tl::store(out + offs, tl::load(x + offs, mask) + tl::load(y + offs, mask), mask);
//   }
//
// Every misuse throws tilejit::UserError naming the problem and the kernel's source line.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <source_location>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilejit/dtype.h"
#include "tilejit/eviction.h"

namespace tilejit::tl {

using Shape = std::vector<std::int64_t>;

/// Floating-point infinity, e.g. `tl::load(p, mask, -tl::inf)`.
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// A compile-time integer kernel parameter (BLOCK_SIZE, num_stages...). Each distinct value
/// is its own specialization; it converts to a plain integer for C++ arithmetic.
struct Constexpr {
  std::int64_t value = 0;
  constexpr operator std::int64_t() const { return value; }  // NOLINT: implicit by design
};

/// Index markers for `x(tl::all, tl::newaxis)`, the `x[:, None]` idiom.
struct All {};
struct NewAxis {};
inline constexpr All all{};
inline constexpr NewAxis newaxis{};

class Tensor;

/// Any operand of a DSL operation: a traced value or a C++ number. It also records the
/// user's source line, so errors point at the kernel code that caused them.
class Operand {
 public:
  Operand(const Tensor& t, std::source_location loc = std::source_location::current());  // NOLINT
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  Operand(I v, std::source_location loc = std::source_location::current())  // NOLINT
      : kind_(Kind::int_literal), int_(static_cast<std::int64_t>(v)), loc_(loc) {}
  template <class F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
  Operand(F v, std::source_location loc = std::source_location::current())  // NOLINT
      : kind_(Kind::float_literal), float_(static_cast<double>(v)), loc_(loc) {}
  Operand(Constexpr c, std::source_location loc = std::source_location::current())  // NOLINT
      : kind_(Kind::int_literal), int_(c.value), loc_(loc) {}

  enum class Kind { tensor, int_literal, float_literal };
  Kind kind() const { return kind_; }
  const Tensor& tensor() const { return *tensor_; }
  std::int64_t int_value() const { return int_; }
  double float_value() const { return float_; }
  const std::source_location& loc() const { return loc_; }

 private:
  Kind kind_;
  const Tensor* tensor_ = nullptr;
  std::int64_t int_ = 0;
  double float_ = 0.0;
  std::source_location loc_;
};

namespace detail {
class Tracer;
}

/// A traced value: a scalar or a block (rank 1 or 2, power-of-two extents) of numbers,
/// booleans or pointers. Copies refer to the same value; assigning to a Tensor declared
/// outside a for_range body inside that body makes it a loop-carried value.
class Tensor {
 public:
  Tensor(const Tensor& other);
  Tensor(Tensor&& other);  // NOLINT: moves copy (see tensor.cpp)
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other);  // NOLINT
  ~Tensor();

  Shape shape() const;
  int rank() const;
  /// Element type; for pointers, the pointee type.
  DType dtype() const;
  bool is_pointer() const;

  /// Element-type conversion (`x.to(DType::f32)`).
  Tensor to(DType t, std::source_location loc = std::source_location::current()) const;
  /// `x(tl::all, tl::newaxis)` is x[:, None]; `x(tl::newaxis, tl::all)` is x[None, :].
  Tensor operator()(All, NewAxis, std::source_location loc = std::source_location::current()) const;
  Tensor operator()(NewAxis, All, std::source_location loc = std::source_location::current()) const;

  Tensor& operator+=(const Operand& b);
  Tensor& operator-=(const Operand& b);
  Tensor& operator*=(const Operand& b);
  Tensor& operator/=(const Operand& b);

  /// A traced value has no value while the kernel is traced, so C++ `if`, `while`, `!`, `&&`, `||`
  /// and `?:` cannot branch on it. Used that way, this makes the compiler say so and what to write
  /// instead. (Explicit, so arithmetic never converts through it.)
  template <bool traced = true>
  explicit operator bool() const {
    static_assert(!traced,
                  "tilejit: a traced value cannot be tested by C++ if / while / ! / && / || / ?: (it has no value "
                  "while the kernel is traced); select with tl::where(cond, a, b), combine masks with & | ~, guard "
                  "with a load/store mask, or loop with tl::for_range");
    return false;
  }

 protected:
  struct FromTrace {};
  Tensor(FromTrace, int value);

 private:
  friend class detail::Tracer;
  mutable int value_;       // IR value this object currently names
  int birth_depth_;         // loop depth at which the object was created
  std::uint32_t trace_id_;  // which trace the value belongs to
};

/// Kernel parameter: a pointer whose element type comes from the launch argument.
class Ptr : public Tensor {
 public:
  explicit Ptr(const Tensor& t) : Tensor(t) {}
};

/// Kernel parameter or loop index: an integer scalar (i32, or i64 when a launch value
/// needs it).
class Int : public Tensor {
 public:
  explicit Int(const Tensor& t) : Tensor(t) {}
};

/// Kernel parameter: an f32 scalar.
class Float : public Tensor {
 public:
  explicit Float(const Tensor& t) : Tensor(t) {}
};

// ---- arithmetic, comparison and logic (numpy/Triton broadcasting and promotion) ----
// Integer / and % truncate toward zero as in C++.
Tensor operator+(const Operand& a, const Operand& b);
Tensor operator-(const Operand& a, const Operand& b);
Tensor operator*(const Operand& a, const Operand& b);
Tensor operator/(const Operand& a, const Operand& b);
Tensor operator%(const Operand& a, const Operand& b);
Tensor operator<(const Operand& a, const Operand& b);
Tensor operator<=(const Operand& a, const Operand& b);
Tensor operator>(const Operand& a, const Operand& b);
Tensor operator>=(const Operand& a, const Operand& b);
Tensor operator==(const Operand& a, const Operand& b);
Tensor operator!=(const Operand& a, const Operand& b);
Tensor operator&(const Operand& a, const Operand& b);
Tensor operator|(const Operand& a, const Operand& b);
Tensor operator^(const Operand& a, const Operand& b);
// Shifts of integers: << fills with zeros, >> with the sign (arithmetic, as C++20 and Triton on
// signed types). The amount counts as unsigned: from the type's width on (or negative), << gives 0
// and >> gives 0 or -1, the same on every backend (C++ leaves those shifts undefined).
Tensor operator<<(const Operand& a, const Operand& b);
Tensor operator>>(const Operand& a, const Operand& b);
Tensor operator-(const Operand& a);
Tensor operator~(const Operand& a);

// ---- program ----
Tensor program_id(int axis = 0, std::source_location loc = std::source_location::current());
Tensor num_programs(int axis = 0, std::source_location loc = std::source_location::current());

// ---- creation ----
/// Integers start, ..., end-1 (i32); end - start must be a power of two.
Tensor arange(std::int64_t start, std::int64_t end, std::source_location loc = std::source_location::current());
Tensor full(const Shape& shape, const Operand& value, DType dtype);
Tensor zeros(const Shape& shape, DType dtype, std::source_location loc = std::source_location::current());
/// ceil(a / b) for integers.
Tensor cdiv(const Operand& a, const Operand& b);

// ---- elementwise ----
Tensor where(const Operand& cond, const Operand& a, const Operand& b);
Tensor maximum(const Operand& a, const Operand& b);  // NaN-propagating, like torch.maximum
Tensor minimum(const Operand& a, const Operand& b);
Tensor exp(const Operand& x);
Tensor exp2(const Operand& x);
/// 2^x where results below 2^-126 may flush to zero: on the GPU one ex2.approx.ftz instruction
/// instead of four. 16-bit inputs are computed in f32.
Tensor exp2_fast(const Operand& x);
/// e^x computed as exp2(x * log2(e)): on the GPU a multiply and ex2.approx, against expf's
/// eight-instruction sequence. Rounding x * log2(e) adds a relative error of about |x| * 2^-24
/// (1e-6 at |x| = 16), so it suits arguments of moderate size such as softmax's x - max, where
/// large |x| only gives values too small to matter beside the row's largest. On the GPU results
/// below 2^-126 (x < -87.3) may flush to zero: 2^y is then one instruction instead of four.
Tensor exp_fast(const Operand& x);
Tensor log(const Operand& x);
Tensor log2(const Operand& x);
Tensor sqrt(const Operand& x);
Tensor rsqrt(const Operand& x);
/// sin and cos: within 2 ulp for every f32 argument (large ones reduced exactly, not approximated).
Tensor sin(const Operand& x);
Tensor cos(const Operand& x);
Tensor tanh(const Operand& x);
/// The error function, as in GELU: x * 0.5 * (1 + erf(x / sqrt(2))).
Tensor erf(const Operand& x);
/// 1 / (1 + e^-x), computed in f32 (f64 for f64 input) and rounded once to x's type.
Tensor sigmoid(const Operand& x);
/// Round toward -inf and +inf; results keep x's floating-point type (convert for an integer).
Tensor floor(const Operand& x);
Tensor ceil(const Operand& x);
Tensor abs(const Operand& x);
/// a * b + c rounded once (fma.rn on the GPU, llvm.fma on the CPU), for f32 or f64 operands
/// (literals adapt; 16-bit values must be converted first). Neither compiler splits it or folds
/// it into other arithmetic: fma(m, k, 0.0) is m * k rounded once, which a later subtraction
/// cannot absorb the way it may fuse a plain m * k.
Tensor fma(const Operand& a, const Operand& b, const Operand& c);
Tensor cast(const Operand& x, DType to);

// ---- shape ----
Tensor expand_dims(const Operand& x, int axis);
Tensor broadcast_to(const Operand& x, const Shape& shape);

// ---- memory ----
/// Loads the elements `ptrs` point at. Where `mask` is false nothing is read and the
/// result is `other` (which requires a mask).
Tensor load(const Operand& ptrs);
Tensor load(const Operand& ptrs, const Operand& mask);
Tensor load(const Operand& ptrs, const Operand& mask, const Operand& other);
/// With an L2 eviction hint (tilejit::Eviction): Eviction::last for data read again soon,
/// Eviction::first for data read for the last time.
Tensor load(const Operand& ptrs, const Operand& mask, const Operand& other, Eviction eviction);
/// Stores `value` (converted to the pointee type) where `mask` is true. Value and mask broadcast
/// to the pointers' shape; one wider than the pointers is an error (an address written twice).
void store(const Operand& ptrs, const Operand& value);
void store(const Operand& ptrs, const Operand& value, const Operand& mask);
/// With an L2 eviction hint: Eviction::first for outputs nothing reads back soon.
void store(const Operand& ptrs, const Operand& value, const Operand& mask, Eviction eviction);

// ---- atomics ----
/// Atomic read-modify-write of each element `ptrs` points at, where `mask` is set; returns what
/// memory held before (0 where the mask is off). `value` and `mask` broadcast to the pointers'
/// shape; `value` converts to their element type: i32, i64, f32 or f64 (and/or/xor: integers).
/// Ordering as Triton's default: acquire-release at device scope, so a program that sees
/// another's update also sees the stores that program made before it. f32/f64 max and min
/// compare as numbers (-0 below +0); which of a NaN and a number wins is unspecified.
Tensor atomic_add(const Operand& ptrs, const Operand& value);
Tensor atomic_add(const Operand& ptrs, const Operand& value, const Operand& mask);
Tensor atomic_max(const Operand& ptrs, const Operand& value);
Tensor atomic_max(const Operand& ptrs, const Operand& value, const Operand& mask);
Tensor atomic_min(const Operand& ptrs, const Operand& value);
Tensor atomic_min(const Operand& ptrs, const Operand& value, const Operand& mask);
Tensor atomic_and(const Operand& ptrs, const Operand& value);
Tensor atomic_and(const Operand& ptrs, const Operand& value, const Operand& mask);
Tensor atomic_or(const Operand& ptrs, const Operand& value);
Tensor atomic_or(const Operand& ptrs, const Operand& value, const Operand& mask);
Tensor atomic_xor(const Operand& ptrs, const Operand& value);
Tensor atomic_xor(const Operand& ptrs, const Operand& value, const Operand& mask);
/// Exchange: writes `value`, returns the old values.
Tensor atomic_xchg(const Operand& ptrs, const Operand& value);
Tensor atomic_xchg(const Operand& ptrs, const Operand& value, const Operand& mask);
/// Compare-and-swap: where memory holds `expected` (floats: the same bits) it becomes `value`;
/// returns the old values, so the swap happened where they equal `expected`.
Tensor atomic_cas(const Operand& ptrs, const Operand& expected, const Operand& value);

// ---- blocks kept on chip ----
/// `slots` blocks of `shape` elements of `dtype` in shared memory, private to each program (a
/// thread block on the GPU; the CPU backend keeps them beside the program's other values). A
/// program puts a block into a slot and gets it back later: a slice of a row kept on chip
/// between two passes, instead of read from memory twice. get returns what the program last put
/// in that slot (a slot it never wrote reads unspecified values); a slot outside [0, slots) is not
/// written and reads as zeros. A kernel's stashes together hold at most kMaxStashBytes; a
/// device with less shared memory per block refuses the launch, naming both sizes.
class Stash {
 public:
  /// Writes `value`, broadcast to the stash's shape and converted to its type.
  void put(const Operand& slot, const Operand& value) const;
  Tensor get(const Operand& slot) const;
  /// Starts copying the block `ptrs` point at into slot `slot`, zeros where `mask` is false,
  /// without passing it through registers (cp.async on sm_80 and newer; the pointee type must be
  /// the stash's). The copy lands by a later tl::wait_copies: until then the slot reads
  /// unspecified values. Nothing is read or written for a slot outside the stash.
  void copy_async(const Operand& slot, const Operand& ptrs, const Operand& mask) const;
  std::int64_t slots() const { return slots_; }

 private:
  friend Stash stash(const Shape&, DType, std::int64_t, std::source_location);
  Stash(int id, std::uint32_t trace_id, std::int64_t slots) : id_(id), trace_id_(trace_id), slots_(slots) {}
  int id_;
  std::uint32_t trace_id_;
  std::int64_t slots_;
};
inline constexpr std::int64_t kMaxStashBytes = 227 * 1024;  // the opt-in limit of sm_90 blocks
/// Waits until at most `pending` of the program's Stash::copy_async copies are still in flight:
/// copies complete in the order they started, so every copy but the `pending` latest has landed.
void wait_copies(std::int64_t pending, std::source_location loc = std::source_location::current());
Stash stash(const Shape& shape, DType dtype, std::int64_t slots,
            std::source_location loc = std::source_location::current());

// ---- reductions over one axis (the result drops that axis), or over all of them (a scalar) ----
Tensor max(const Operand& x, int axis);
Tensor min(const Operand& x, int axis);
Tensor sum(const Operand& x, int axis);
Tensor max(const Operand& x);
Tensor min(const Operand& x);
Tensor sum(const Operand& x);
/// The index (i32) of the max or min along `axis`, the first where several are equal; where the
/// axis holds a NaN, the first NaN's, for both (as torch.argmax and torch.argmin).
Tensor argmax(const Operand& x, int axis);
Tensor argmin(const Operand& x, int axis);

// ---- reductions across a thread-block cluster (sm_90 and newer on the GPU) ----
// Programs are grouped into clusters of `cluster_size` consecutive program ids along axis 0
// (cluster k holds programs k * cluster_size ... k * cluster_size + cluster_size - 1; the grid's
// axis 0 must be a multiple of it). cluster_max(x, C) returns, in every program of the cluster,
// the max of scalar x over those C programs, exchanged through distributed shared memory; every
// program gets the same bits. Every program of a cluster must reach the same cluster reductions
// in the same order, as with a barrier: a program that skipped one would leave the others
// waiting. So a loop holding one must have the same bounds in all of them — built from
// parameters, constants, program_id(0) / C, num_programs, the program ids along axes 1 and 2 and
// cluster reductions' results; compiling refuses (UserError at the loop) bounds that may depend on
// the program's place in its cluster. One kernel uses one cluster size.
Tensor cluster_max(const Operand& x, std::int64_t cluster_size);
Tensor cluster_min(const Operand& x, std::int64_t cluster_size);
Tensor cluster_sum(const Operand& x, std::int64_t cluster_size);

// ---- reductions across a group of programs, through global memory ----
// As the cluster reductions, over groups of `group_size` consecutive program ids along axis 0
// (grid axis 0 a multiple of it), but any size up to 4096 and on any GPU: each program's value
// goes through `workspace`, a pointer parameter to tilejit::group_workspace_bytes(grid.x,
// group_size) bytes of global memory, zeroed before its first use. Its barriers are back at rest
// when a launch ends, so later launches with the same group size reuse it as it is (zero it again
// before one with another size); launches that share one must not overlap (use one stream). The exchange waits for
// every program of the group, so the launch runs cooperatively: all its programs must be resident at once (the launch
// is refused otherwise; tilejit::persistent_grid sizes such a grid). The same loop rules as for clusters apply, with
// program_id(0) / group_size the group's index. One kernel uses one group size, and not both clusters and groups.
Tensor group_max(const Operand& x, std::int64_t group_size, const Operand& workspace);
Tensor group_min(const Operand& x, std::int64_t group_size, const Operand& workspace);
Tensor group_sum(const Operand& x, std::int64_t group_size, const Operand& workspace);

// ---- online-softmax statistics across a cluster or a group, in one exchange ----
// Each program passes the max m of its part of a row and the sum s of exp(x - m) over that part
// (an empty or all -inf part: m = -inf, s = 0); every program gets {M, S}: M the max of the m's
// and S the sum of s * exp(m - M) over the programs in rank order — the row's max and sum of
// exp(x - M), as cluster_max then cluster_sum would give, with one barrier instead of two. An
// all -inf row gives S = NaN, as torch's softmax does. Computed in f32. The rules of
// cluster_max (and of group_max, with its workspace) apply.
std::pair<Tensor, Tensor> cluster_softmax_stats(const Operand& max, const Operand& sum, std::int64_t cluster_size);
std::pair<Tensor, Tensor> group_softmax_stats(const Operand& max, const Operand& sum, std::int64_t group_size,
                                              const Operand& workspace);

// ---- group_softmax_stats in two steps, so work runs while the group arrives ----
// start publishes this program's (max, sum) and arrives at the group's barrier without waiting;
// finish waits for the rest of the group and returns {M, S} as group_softmax_stats does. Between
// the two, the program can walk another row (one thread per program waits at finish, and the
// barrier is usually passed by then). Every program of a group starts and finishes the same
// exchanges in the same order, and at most two are started and not yet finished at any time
// (the workspace holds four slot sets; a third open exchange could overwrite slots another
// program has yet to read). A ticket declared outside a loop and reassigned in it is carried.
struct GroupTicket {
  Tensor value;  // which slot set and barrier the exchange uses (an i32)
};
GroupTicket group_softmax_stats_start(const Operand& max, const Operand& sum, std::int64_t group_size,
                                      const Operand& workspace);
std::pair<Tensor, Tensor> group_softmax_stats_finish(const GroupTicket& ticket, std::int64_t group_size,
                                                     const Operand& workspace);

// ---- loops ----
struct LoopOptions {
  /// Software pipelining on the GPU: with num_stages = s, the loads of the next s - 1 iterations
  /// are in flight while the current one is consumed (as in Triton). Loads qualify when their
  /// addresses, mask and `other` depend only on the induction variable and values from before
  /// the loop; the depth stops early where the copies in flight would pass 64 elements per
  /// thread, and blocks of more than 32 per thread are not pipelined. 1 (the default): the
  /// launch's num_stages applies. The CPU backend ignores it.
  std::int64_t num_stages = 1;
};

namespace detail {
void trace_for_range(const Operand& start, const Operand& end, const Operand& step, const LoopOptions& options,
                     const std::function<void(const Int&)>& body);
}

/// `for (i = start; i < end; i += step) body(i)` on the device, for a positive step (a literal
/// step of zero or less is an error; a traced one must be positive when the kernel runs, or
/// the loop never ends, as in Triton). The body is traced once;
/// Tensors declared outside it and reassigned inside it carry their values across
/// iterations and hold the final value after the loop.
template <class Body>
void for_range(const Operand& start, const Operand& end, const Operand& step, const LoopOptions& options, Body&& body) {
  detail::trace_for_range(start, end, step, options, [&](const Int& i) { body(i); });
}
template <class Body>
void for_range(const Operand& start, const Operand& end, const Operand& step, Body&& body) {
  for_range(start, end, step, LoopOptions{}, std::forward<Body>(body));
}
template <class Body>
void for_range(const Operand& start, const Operand& end, Body&& body) {
  for_range(start, end, Operand(1, start.loc()), LoopOptions{}, std::forward<Body>(body));
}

}  // namespace tilejit::tl
