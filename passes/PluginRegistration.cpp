//===- PluginRegistration.cpp - pruner's MLIR pass plugin entry point ------===//
//
// The only C++ in pruner's passes: MLIR's plugin entry point, the pass names and
// options. Every pass body is C (passes/*.c, lib/apply).
//
//===----------------------------------------------------------------------===//

#include <string>

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include "passes.h"
#include "pruner/apply.h"
#include "pruner/ir.h"
#include "schedule_passes.h"

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

  // A bad target fails once, here, rather than once per op the pass is nested on.
  llvm::LogicalResult initialize(mlir::MLIRContext *ctx) override {
    PrunerStatus s = prunerExposeSpaceCheckTarget(target.getValue().c_str());
    if (s.ok)
      return llvm::success();
    mlir::emitError(mlir::UnknownLoc::get(ctx), s.message);
    return llvm::failure();
  }

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

// pruner-conv1x1-to-matmul: prunerIrConv1x1ToMatmul (pruner/ir.h).
struct Conv1x1ToMatmulPass
    : public mlir::PassWrapper<Conv1x1ToMatmulPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Conv1x1ToMatmulPass)

  llvm::StringRef getArgument() const final { return "pruner-conv1x1-to-matmul"; }
  llvm::StringRef getDescription() const final {
    return "Rewrite 1x1 stride-1 linalg.conv_2d_nhwc_hwcf ops as the linalg.matmul they are "
           "(reshapes, no copy), so they tile like GEMMs (tensor cores included)";
  }

  void runOnOperation() override {
    PrunerStatus s = prunerIrConv1x1ToMatmul(wrap(getOperation()), nullptr);
    if (!s.ok) {
      getOperation()->emitError(s.message);
      signalPassFailure();
    }
  }
};

// pruner-apply-config{target=... gpu-mapping=...}: prunerApplyConfig (pruner/apply.h).
// Declared on any op, not ModuleOp: nested in func.func a ModuleOp pass makes the pass
// manager abort mlir-opt ("Can't add pass ... restricted to 'builtin.module'"); this way the C side
// refuses with an error on the op instead.
struct ApplyConfigPass : public mlir::PassWrapper<ApplyConfigPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApplyConfigPass)

  ApplyConfigPass() = default;
  ApplyConfigPass(const ApplyConfigPass &other) : PassWrapper(other) {}
  ApplyConfigPass(const std::string &t, bool mapping) {
    target = t;
    gpuMapping = mapping;
  }

  llvm::StringRef getArgument() const final { return "pruner-apply-config"; }
  llvm::StringRef getDescription() const final {
    return "Apply each op's pruner.config: tile, fuse, vectorize, bufferize, map to GPU";
  }

  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU the configs are checked against"),
                             llvm::cl::init("sm_90")};
  Option<bool> gpuMapping{*this, "gpu-mapping",
                          llvm::cl::desc("Map to gpu.launch (false keeps scf.forall)"),
                          llvm::cl::init(true)};

  void runOnOperation() override {
    PrunerApplyOptions opts = prunerApplyDefaultOptions();
    opts.gpu_mapping = gpuMapping;
    PrunerStatus s = prunerApplyConfig(wrap(getOperation()), target.getValue().c_str(), &opts);
    if (!s.ok)
      signalPassFailure(); // the op at fault already carries the error
  }
};

struct GpuPipelineOptions : public mlir::PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("GPU architecture (sm_80, sm_90)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("gpu.binary contents: bin (cubin) or isa (PTX)"),
                             llvm::cl::init("bin")};
};

// Pipeline builders cannot fail: a bad option becomes a pass that reports it and fails.
struct PipelineErrorPass : public mlir::PassWrapper<PipelineErrorPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelineErrorPass)
  explicit PipelineErrorPass(std::string m) : message(std::move(m)) {}
  void runOnOperation() override {
    getOperation()->emitError(message);
    signalPassFailure();
  }
  std::string message;
};

// A pipeline's check of the whole module (prunerPipelineCheckNestedModules first,
// prunerPipelineCheckLowered last): the op at fault carries the error.
struct PipelineCheckPass : public mlir::PassWrapper<PipelineCheckPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelineCheckPass)
  using Check = PrunerStatus (*)(MlirOperation module, const char *pipeline);
  PipelineCheckPass(Check c, std::string p) : check(c), pipeline(std::move(p)) {}
  llvm::StringRef getArgument() const final { return "pruner-pipeline-check"; }
  void runOnOperation() override {
    if (!check(wrap(getOperation()), pipeline.c_str()).ok)
      signalPassFailure();
  }
  Check check;
  std::string pipeline;
};

// The pipelines hold module passes (module-wide bufferization, outlining into gpu.module,
// the LLVM lowering): adding them to a pass manager nested on another op aborts mlir-opt
// ("Can't add pass ... restricted to 'builtin.module'"), so such a nesting becomes a pass
// that says so. False when `pm` is nested elsewhere (the error pass added).
bool pipelineOnModule(mlir::OpPassManager &pm, const char *name, const char *why) {
  llvm::StringRef anchor = pm.getOpAnchorName();
  if (anchor == mlir::ModuleOp::getOperationName() ||
      anchor == mlir::OpPassManager::getAnyOpAnchorName())
    return true;
  pm.addPass(std::make_unique<PipelineErrorPass>(
      std::string(name) + " runs on builtin.module, not " + anchor.str() + ": " + why +
      "; use builtin.module(" + name + "{...})"));
  return false;
}

void buildGpuPipeline(mlir::OpPassManager &pm, const GpuPipelineOptions &options) {
  if (!pipelineOnModule(pm, "pruner-gpu-pipeline",
                        "it bufferizes the module's functions together and outlines kernels "
                        "into a gpu.module"))
    return;
  char text[4096];
  PrunerStatus s =
      prunerGpuPipelineText(options.chip.getValue().c_str(), options.format.getValue().c_str(),
                            text, sizeof text);
  if (!s.ok) {
    pm.addPass(std::make_unique<PipelineErrorPass>(s.message));
    return;
  }
  pm.addPass(std::make_unique<PipelineCheckPass>(prunerPipelineCheckNestedModules,
                                               "pruner-gpu-pipeline"));
  pm.addPass(std::make_unique<ApplyConfigPass>(options.chip.getValue(), true));
  // The lowering, with a check of the kernels right before gpu-module-to-binary (its
  // translation fails on a leftover op without a location).
  std::string lowering(text), toBinary;
  size_t cut = lowering.rfind(",gpu-module-to-binary");
  if (cut != std::string::npos) {
    toBinary = lowering.substr(cut + 1);
    lowering.resize(cut);
  }
  std::string err;
  llvm::raw_string_ostream os(err);
  if (mlir::failed(mlir::parsePassPipeline(lowering, pm, os))) {
    pm.addPass(std::make_unique<PipelineErrorPass>("pruner-gpu-pipeline: " + err));
    return;
  }
  if (!toBinary.empty()) {
    pm.addPass(std::make_unique<PipelineCheckPass>(prunerPipelineCheckGpuModulesLowered,
                                                   "pruner-gpu-pipeline"));
    if (mlir::failed(mlir::parsePassPipeline(toBinary, pm, os))) {
      pm.addPass(std::make_unique<PipelineErrorPass>("pruner-gpu-pipeline: " + err));
      return;
    }
  }
  pm.addPass(
      std::make_unique<PipelineCheckPass>(prunerPipelineCheckLowered, "pruner-gpu-pipeline"));
}

// The first pass of pruner-cpu-pipeline: see prunerCpuApplyConfigRun. Not registered on
// its own (pruner-apply-config{target=host} is the standalone form).
struct CpuApplyConfigPass
    : public mlir::PassWrapper<CpuApplyConfigPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CpuApplyConfigPass)
  CpuApplyConfigPass(std::string t, bool c) : target(std::move(t)), cInterface(c) {}
  llvm::StringRef getArgument() const final { return "pruner-cpu-apply-config"; }
  void runOnOperation() override {
    PrunerStatus s =
        prunerCpuApplyConfigRun(wrap(getOperation().getOperation()), target.c_str(), cInterface);
    if (!s.ok)
      signalPassFailure(); // the op at fault already carries the error
  }
  std::string target;
  bool cInterface;
};

// The last pass of pruner-cpu-pipeline: see prunerCpuTargetFeaturesRun.
struct CpuTargetFeaturesPass
    : public mlir::PassWrapper<CpuTargetFeaturesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CpuTargetFeaturesPass)
  explicit CpuTargetFeaturesPass(std::string t) : target(std::move(t)) {}
  llvm::StringRef getArgument() const final { return "pruner-cpu-target-features"; }
  void runOnOperation() override {
    if (!prunerCpuTargetFeaturesRun(wrap(getOperation().getOperation()), target.c_str()).ok)
      signalPassFailure(); // the module carries the error
  }
  std::string target;
};

struct CpuPipelineOptions : public mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Host target the configs were tuned for (host)"),
                             llvm::cl::init("host")};
  Option<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("Give public functions llvm.emit_c_interface (_mlir_ciface_<name>)"),
      llvm::cl::init(true)};
};

void buildCpuPipeline(mlir::OpPassManager &pm, const CpuPipelineOptions &options) {
  if (!pipelineOnModule(pm, "pruner-cpu-pipeline",
                        "it bufferizes the module's functions together and lowers the module "
                        "to the LLVM dialect"))
    return;
  PrunerTargetDesc target;
  PrunerStatus s = prunerCpuPipelineCheckTarget(options.target.getValue().c_str(), &target);
  char text[4096];
  if (s.ok)
    s = prunerCpuPipelineText(text, sizeof text);
  if (!s.ok) {
    pm.addPass(std::make_unique<PipelineErrorPass>(s.message));
    return;
  }
  pm.addPass(std::make_unique<PipelineCheckPass>(prunerPipelineCheckNestedModules,
                                               "pruner-cpu-pipeline"));
  pm.addPass(std::make_unique<CpuApplyConfigPass>(options.target.getValue(), options.cInterface));
  std::string err;
  llvm::raw_string_ostream os(err);
  if (mlir::failed(mlir::parsePassPipeline(text, pm, os))) {
    pm.addPass(std::make_unique<PipelineErrorPass>("pruner-cpu-pipeline: " + err));
    return;
  }
  pm.addPass(std::make_unique<CpuTargetFeaturesPass>(options.target.getValue()));
  pm.addPass(
      std::make_unique<PipelineCheckPass>(prunerPipelineCheckLoweredToLLVM, "pruner-cpu-pipeline"));
}

void registerPrunerPasses() {
  prunerIrRegisterPasses(); // passes the lowering pipelines name (pruner-approximate-math)
  mlir::PassRegistration<ExposeSpacePass>();
  mlir::PassRegistration<StripPass>();
  mlir::PassRegistration<Conv1x1ToMatmulPass>();

  // ---- Registrations owned by "schedule" (added by them; keep this block last) ----
  // pruner-apply-config and the pipeline pruner-gpu-pipeline{chip=... format=...}.
  mlir::PassRegistration<ApplyConfigPass>();
  mlir::PassPipelineRegistration<GpuPipelineOptions>(
      "pruner-gpu-pipeline",
      "pruner-apply-config, then the NVVM lowering to a gpu.binary (docs/schedule.md)",
      buildGpuPipeline);
  // ---- end of "schedule" registrations ----
  // pruner-cpu-pipeline{target=host c-interface=true}: host configs -> LLVM dialect.
  mlir::PassPipelineRegistration<CpuPipelineOptions>(
      "pruner-cpu-pipeline",
      "Apply host pruner.configs as the tuner measured them, bufferize, lower to the LLVM "
      "dialect with OpenMP (docs/host.md)",
      buildCpuPipeline);
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PrunerPlugin", LLVM_VERSION_STRING, registerPrunerPasses};
}
