// The instruction stream of one PTX kernel: virtual registers (ptxas allocates the real ones),
// labels, source locations, and a prologue for values that depend only on the thread's id.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tilejit::codegen::ptx {

/// PTX register classes, each with its own name prefix: %p, %h, %r, %f, %rd, %fd.
enum class RegClass { pred, b16, b32, f32, b64, f64 };

/// The type suffix a `mov` or `selp` of this class uses ("pred", "b16", "f32"...).
const char* mov_type(RegClass c);

/// The registers of one vector access as PTX writes them: "{a, b, c, d}", or "a" for one.
std::string vector_operand(const std::vector<std::string>& words);
/// The access's vector suffix: ".v2", ".v4", or "" for one word.
std::string vector_suffix(std::size_t words);

class Code {
 public:
  /// A fresh virtual register.
  std::string reg(RegClass c);
  /// A fresh label name (placed later with place()).
  std::string label();
  void place(const std::string& label);

  /// Appends one instruction (without the ';') to the body, or to the prologue while a
  /// Prologue guard is alive.
  void ins(const std::string& text);
  /// Loads an immediate into a new register of class `c`.
  std::string imm(RegClass c, const std::string& value);

  /// Source line of the instructions that follow (0: unknown). File names become `.file`
  /// entries.
  void set_loc(const std::string& file, unsigned line);

  /// Instructions emitted while a Prologue is alive go to the start of the kernel: values
  /// computed from %tid alone, so they dominate every use wherever it is.
  class Prologue {
   public:
    explicit Prologue(Code& c) : c_(c), was_(c.in_prologue_) { c_.in_prologue_ = true; }
    ~Prologue() { c_.in_prologue_ = was_; }
    Prologue(const Prologue&) = delete;
    Prologue& operator=(const Prologue&) = delete;

   private:
    Code& c_;
    bool was_;
  };

  /// `.reg` declarations for every register used.
  std::string declarations() const;
  /// `.file` directives for the files named by set_loc.
  std::string file_directives() const;
  const std::string& prologue() const { return prologue_; }
  const std::string& body() const { return body_; }

 private:
  std::map<RegClass, int> counts_;
  std::map<std::string, int> files_;
  std::string body_, prologue_;
  std::string pending_loc_, last_loc_;
  bool in_prologue_ = false;
  int labels_ = 0;
};

}  // namespace tilejit::codegen::ptx
