//===- PluginRegistration.cpp - pruner's MLIR pass plugin entry point ------===//
//
// The only C++ in pruner's passes: MLIR's plugin entry point, the pass names and
// options, and the diagnostic hooks the C API lacks. Every pass body is C (passes/*.c).
//
//===----------------------------------------------------------------------===//

#include <string>

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include "passes.h"

extern "C" void prunerEmitRemark(MlirOperation op, const char *message) {
  unwrap(op)->emitRemark(message);
}

extern "C" void prunerEmitError(MlirOperation op, const char *message) {
  unwrap(op)->emitError(message);
}

namespace {

// pruner-expose-space{target=...}: see prunerExposeSpaceRun in passes.h.
struct ExposeSpacePass
    : public mlir::PassWrapper<ExposeSpacePass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExposeSpacePass)

  ExposeSpacePass() = default;
  ExposeSpacePass(const ExposeSpacePass &other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const final { return "pruner-expose-space"; }
  llvm::StringRef getDescription() const final {
    return "Attach pruner.space (workload, knobs, target limits, valid count) to every "
           "tunable linalg op";
  }

  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU to tune for: a table name (h200), an arch (sm_90) or a device"),
      llvm::cl::init("sm_90")};

  void runOnOperation() override {
    PrunerStatus s = prunerExposeSpaceRun(wrap(getOperation()), target.getValue().c_str());
    if (!s.ok) {
      getOperation()->emitError(s.message);
      signalPassFailure();
    }
  }
};

// pruner-strip: see prunerStripRun in passes.h.
struct StripPass : public mlir::PassWrapper<StripPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StripPass)

  llvm::StringRef getArgument() const final { return "pruner-strip"; }
  llvm::StringRef getDescription() const final {
    return "Remove every pruner.* attribute";
  }

  void runOnOperation() override { prunerStripRun(wrap(getOperation())); }
};

void registerPrunerPasses() {
  mlir::PassRegistration<ExposeSpacePass>();
  mlir::PassRegistration<StripPass>();

  // ---- Registrations owned by "schedule" (added by them; keep this block last) ----
  // pruner-apply-config and the pipeline pruner-gpu-pipeline{chip=... format=...}.
  // ---- end of "schedule" registrations ----
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PrunerPlugin", LLVM_VERSION_STRING, registerPrunerPasses};
}
