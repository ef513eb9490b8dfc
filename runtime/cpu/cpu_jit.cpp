#include "runtime/cpu/cpu_jit.h"

#include <fmt/format.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include <atomic>
#include <chrono>
#include <mutex>

#include "runtime/cpu/access_checks.h"
#include "runtime/cpu/cluster.h"
#include "runtime/cpu/jit_instance.h"
#include "tilejit/error.h"

#if defined(__x86_64__)
extern "C" float tilejit_extendhfsf2(_Float16 h);
extern "C" _Float16 tilejit_truncsfhf2(float f);
#endif

namespace tilejit::rt::cpu {
namespace {

// LLVM calls this instead of aborting; the exception unwinds out of LLVM into the compile call.
[[noreturn]] void throw_fatal(void*, const char* reason, bool) {
  throw CompileError(fmt::format("LLVM fatal error: {}", reason), reason, "", "");
}

JitInstance* create_instance() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();
  llvm::install_fatal_error_handler(throw_fatal, nullptr);
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host) throw CompileError("LLVM cannot generate code for this host", error_message(host.takeError()), "", "");
  host->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*host).create();
  if (!jit) throw CompileError("LLVM could not create its JIT", error_message(jit.takeError()), "", "");
  auto* inst = new JitInstance{std::move(*jit), std::make_unique<llvm::orc::JITTargetMachineBuilder>(*host)};
  // Cluster reductions call back into the runtime (cluster.h).
  llvm::orc::SymbolMap cluster_symbols;
  for (const ClusterHelper& h : cluster_helpers())
    cluster_symbols[inst->lljit->mangleAndIntern(h.name)] = {llvm::orc::ExecutorAddr::fromPtr(h.address),
                                                             llvm::JITSymbolFlags::Exported};
  // Loads and stores report elements outside their buffers (access_checks.h).
  cluster_symbols[inst->lljit->mangleAndIntern(kAccessFaultHelper)] = {
      llvm::orc::ExecutorAddr::fromPtr(access_fault_helper()), llvm::JITSymbolFlags::Exported};
  if (auto e = inst->lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(cluster_symbols))))
    throw CompileError("LLVM could not define the cluster and access-check helpers", error_message(std::move(e)), "",
                       "");
#if defined(__x86_64__)
  // half <-> float helpers for hosts without F16C, whether or not the process has them.
  llvm::orc::SymbolMap helpers;
  helpers[inst->lljit->mangleAndIntern("__extendhfsf2")] = {llvm::orc::ExecutorAddr::fromPtr(&tilejit_extendhfsf2),
                                                            llvm::JITSymbolFlags::Exported};
  helpers[inst->lljit->mangleAndIntern("__truncsfhf2")] = {llvm::orc::ExecutorAddr::fromPtr(&tilejit_truncsfhf2),
                                                           llvm::JITSymbolFlags::Exported};
  if (auto e = inst->lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(helpers))))
    throw CompileError("LLVM could not define the f16 helpers", error_message(std::move(e)), "", "");
#endif
  return inst;
}

std::string options_of(const llvm::orc::JITTargetMachineBuilder& host) {
  return fmt::format("-O3 -mtriple={} -mcpu={} -mattr={}", host.getTargetTriple().str(), host.getCPU(),
                     host.getFeatures().getString());
}

std::unique_ptr<llvm::TargetMachine> target_machine(const std::string& ir, const std::string& options) {
  auto tm = jit_instance().host->createTargetMachine();
  if (!tm) throw CompileError("LLVM could not create a target machine", error_message(tm.takeError()), ir, options);
  return std::move(*tm);
}

std::unique_ptr<llvm::Module> parse(const std::string& ir, llvm::LLVMContext& ctx, llvm::TargetMachine& tm,
                                    const std::string& options) {
  llvm::SMDiagnostic diag;
  auto m = llvm::parseAssemblyString(ir, diag, ctx);
  if (!m) {
    std::string log;
    llvm::raw_string_ostream os(log);
    diag.print("tilejit", os);
    throw CompileError("LLVM could not parse the generated module", os.str(), ir, options);
  }
  m->setTargetTriple(tm.getTargetTriple().str());
  m->setDataLayout(tm.createDataLayout());
  std::string problems;
  llvm::raw_string_ostream es(problems);
  if (llvm::verifyModule(*m, &es)) throw CompileError("LLVM rejected the generated module", es.str(), ir, options);
  return m;
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm) {
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", tm.getTargetCPU());
    f.addFnAttr("target-features", tm.getTargetFeatureString());
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

std::string print(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return os.str();
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

std::string error_message(llvm::Error e) { return llvm::toString(std::move(e)); }

JitInstance& jit_instance() {
  static JitInstance* inst = create_instance();  // a failure throws, and the next call retries
  return *inst;
}

CpuCompileOutput compile_llvm_ir(const std::string& ir, const std::string& entry_name, std::int64_t scratch_bytes) {
  auto t0 = std::chrono::steady_clock::now();
  JitInstance& j = jit_instance();
  std::string options = options_of(*j.host);
  auto tm = target_machine(ir, options);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = parse(ir, *ctx, *tm, options);
  if (!m->getFunction(entry_name))
    throw CompileError(fmt::format("the generated module does not define {}", entry_name), "", ir, options);
  optimize(*m, *tm);
  CpuCompileOutput out;
  out.optimized_ir = print(*m);
  out.options = options;

  static std::atomic<std::uint64_t> counter{0};
  auto jd = j.lljit->createJITDylib(fmt::format("{}#{}", entry_name, counter++));
  if (!jd) throw CompileError("LLVM could not create a JIT dylib", error_message(jd.takeError()), ir, options);
  auto remove = [&] { llvm::consumeError(j.lljit->getExecutionSession().removeJITDylib(*jd)); };
  // The runtime helpers (cluster reductions, f16 conversions) are defined in the main dylib.
  jd->addToLinkOrder(j.lljit->getMainJITDylib());
  if (auto e = j.lljit->addIRModule(*jd, llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)))) {
    remove();
    throw CompileError("LLVM could not add the module to the JIT", error_message(std::move(e)), ir, options);
  }
  auto sym = j.lljit->lookup(*jd, entry_name);
  if (!sym) {
    std::string log = error_message(sym.takeError());
    remove();
    throw CompileError(fmt::format("LLVM could not compile {}", entry_name), log, out.optimized_ir, options);
  }
  auto impl = std::make_unique<CpuKernel::Impl>();
  impl->entry = sym->toPtr<CpuKernel::Entry>();
  impl->scratch_bytes = scratch_bytes;
  impl->dylib = &*jd;
  out.kernel = std::make_unique<CpuKernel>(std::move(impl));
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string emit_assembly(const std::string& ir) {
  std::string options = options_of(*jit_instance().host);
  auto tm = target_machine(ir, options);
  llvm::LLVMContext ctx;
  auto m = parse(ir, ctx, *tm, options);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw CompileError("LLVM cannot emit assembly for this host", "", ir, options);
  pm.run(*m);
  return std::string(buffer.begin(), buffer.end());
}

std::string host_target() {
  static const std::string target = [] {  // part of every CPU launch's cache key: computed once
    const auto& host = *jit_instance().host;
    return fmt::format("{} {} {:016x}", host.getTargetTriple().str(), host.getCPU(),
                       fnv1a(host.getFeatures().getString()));
  }();
  return target;
}

std::string llvm_version() { return LLVM_VERSION_STRING; }

}  // namespace tilejit::rt::cpu
