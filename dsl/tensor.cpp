// Tensor objects: handles on traced values, with the bookkeeping loop-carried values need.
#include "dsl/semantics.h"
#include "dsl/tracer.h"
#include "tilejit/error.h"

namespace tilejit::tl {

using detail::Tracer;

Operand::Operand(const Tensor& t, std::source_location loc) : kind_(Kind::tensor), tensor_(&t), loc_(loc) {}

Tensor::Tensor(FromTrace, int value)
    : value_(value),
      birth_depth_(Tracer::current(std::source_location::current()).depth()),
      trace_id_(Tracer::current(std::source_location::current()).id()) {}

Tensor::Tensor(const Tensor& other) : value_(other.value_), birth_depth_(0), trace_id_(other.trace_id_) {
  if (Tracer* tr = Tracer::active(); tr && other.trace_id_ == tr->id()) {
    birth_depth_ = tr->depth();
    value_ = tr->peek(other);  // a copy is not a use: misuse is reported where the copy is used
  }
}

// Moves are copies: both objects must keep naming the value for loop-carried bookkeeping.
Tensor::Tensor(Tensor&& other) : Tensor(static_cast<const Tensor&>(other)) {}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  Tracer* tr = Tracer::active();
  if (!tr || other.trace_id_ != tr->id()) {
    value_ = other.value_;
    trace_id_ = other.trace_id_;
    return *this;
  }
  tr->copy_into(*this, other);
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) { return *this = static_cast<const Tensor&>(other); }

Tensor::~Tensor() {
  if (Tracer* tr = Tracer::active(); tr && trace_id_ == tr->id()) tr->forget(*this);
}

Shape Tensor::shape() const {
  auto& tr = Tracer::current(std::source_location::current());
  return tr.type(tr.peek(*this)).shape;
}

int Tensor::rank() const { return static_cast<int>(shape().size()); }

DType Tensor::dtype() const {
  auto& tr = Tracer::current(std::source_location::current());
  return tr.type(tr.peek(*this)).elem;
}

bool Tensor::is_pointer() const {
  auto& tr = Tracer::current(std::source_location::current());
  return tr.type(tr.peek(*this)).is_ptr;
}

Tensor Tensor::to(DType t, std::source_location loc) const { return cast(Operand(*this, loc), t); }

Tensor Tensor::operator()(All, NewAxis, std::source_location loc) const { return expand_dims(Operand(*this, loc), 1); }

Tensor Tensor::operator()(NewAxis, All, std::source_location loc) const { return expand_dims(Operand(*this, loc), 0); }

Tensor& Tensor::operator+=(const Operand& b) { return *this = Operand(*this, b.loc()) + b; }
Tensor& Tensor::operator-=(const Operand& b) { return *this = Operand(*this, b.loc()) - b; }
Tensor& Tensor::operator*=(const Operand& b) { return *this = Operand(*this, b.loc()) * b; }
Tensor& Tensor::operator/=(const Operand& b) { return *this = Operand(*this, b.loc()) / b; }

}  // namespace tilejit::tl
