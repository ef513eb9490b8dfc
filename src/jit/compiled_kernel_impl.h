// What a CompiledKernel holds: the stages, the metadata and, once launched, the module.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "jit/specialization.h"
#include "runtime/module.h"
#include "tilejit/kernel.h"

namespace tilejit {

struct CompiledKernel::Impl {
  KernelMetadata metadata;
  jit::KernelSignature signature;
  std::vector<jit::BoundParam> params;
  std::map<std::string, std::string, std::less<>> stages;
  std::vector<char> cubin;

  mutable std::once_flag load_once;
  mutable std::unique_ptr<rt::LoadedKernel> loaded;

  const rt::LoadedKernel& module() const;
};

}  // namespace tilejit
