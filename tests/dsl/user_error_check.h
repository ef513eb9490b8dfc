// Shared by the user-error tests: each offending call is wrapped in HERE(), which records its
// file and line, and expect_user_error checks that the UserError thrown names the problem and
// that location.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "tilejit/error.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit_test {

inline unsigned g_line = 0;           // line of the offending call, recorded just before it runs
inline std::string_view g_file = "";  // and its file

// HERE(stmt) records stmt's file and line, then runs it: the expected location of the error.
#define HERE(...)                    \
  ::tilejit_test::g_line = __LINE__; \
  ::tilejit_test::g_file = __FILE__; \
  __VA_ARGS__

inline const tilejit::Pointer kX{0x10000, tilejit::DType::f32};
inline const tilejit::Pointer kY{0x20000, tilejit::DType::f32};

// Runs `action`; it must throw a UserError mentioning `fragment`, located at the recorded file
// and `line` (read after the action ran, since the kernel records it).
template <class F>
void expect_user_error(F&& action, const std::string& fragment, const unsigned& line) {
  bool thrown = false;
  try {
    action();
  } catch (const tilejit::UserError& e) {
    thrown = true;
    INFO("what(): " << std::string(e.what()));
    CHECK(e.problem().find(fragment) != std::string::npos);
    const std::string_view file = g_file.substr(g_file.find_last_of('/') + 1);
    CHECK_FALSE(file.empty());
    CHECK(std::string_view(e.file()).ends_with(file));
    CHECK(line != 0);
    CHECK(e.line() == line);
    // what() leads with file:line so compilers' error parsers pick it up.
    CHECK(std::string(e.what()).find(std::string(file) + ":" + std::to_string(line) + ":") != std::string::npos);
  }
  CHECK_MESSAGE(thrown, "expected a tilejit::UserError mentioning '" << fragment << "'");
}

namespace tl = tilejit::tl;
using KernelFn = void (*)(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr);

// Compiles `fn` through the public API (tracing fails before NVRTC runs).
inline void compile(KernelFn fn) {
  g_line = 0;
  tilejit::Kernel k("user_error_kernel", fn, {"x", "y", "n", "BLOCK"});
  k.compile({kX, kY, 100, 16}, {.arch = "sm_90"});
}

}  // namespace tilejit_test
