//===- math_approx.cpp - pruner-approximate-math: vector math for host kernels -===//
//
// x86 has no vector instruction for erf, exp, log or tanh, and LLVM without a vector
// math library splits a vector<16xf32> math op into 16 calls of the scalar libm
// function: a GELU (erf) ran at a fifth of its loads' speed. MLIR's polynomial
// approximations (math/Transforms) rewrite these ops into arith/vector code that stays
// vectorized, as IREE's CPU pipeline does (docs/host.md, "Math functions"). A pass
// needs C++ (the patterns have no C API), so this file is a thin shim: the op list and
// the registration are all it holds.
//
//===----------------------------------------------------------------------===//

#include <mutex>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include "pruner/ir.h"

namespace {

// The ops approximated: those LLVM would scalarize into libm calls and whose MLIR
// approximation stays within a few ulp of the C library over the f32 range
// (test/lit/cpu-pipeline/object-math.test; docs/host.md lists the errors measured over
// every f32 and the subnormal cases). atan (40 ulp), sin and cos (a short pi in the argument
// reduction) are left to libm.
bool isApproximated(llvm::StringRef name) {
  static const llvm::StringRef ops[] = {"math.erf", "math.exp",   "math.expm1", "math.log",
                                        "math.log2", "math.log1p", "math.tanh"};
  return llvm::is_contained(ops, name);
}

struct ApproximateMathPass
    : public mlir::PassWrapper<ApproximateMathPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMathPass)

  llvm::StringRef getArgument() const final { return "pruner-approximate-math"; }
  llvm::StringRef getDescription() const final {
    return "Rewrite f32 vector erf, exp, expm1, log, log2, log1p and tanh into MLIR's "
           "polynomial approximations, which stay vectors on the host";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::math::MathDialect,
                    mlir::vector::VectorDialect>();
  }

  // Vector ops, and scalar expm1: a scalar op (an untuned op's loop) stays a libm call,
  // which ran 2-8x faster than the scalar approximation, but convert-math-to-llvm
  // lowers expm1 itself as exp(x) - 1, which loses every digit near 0 (docs/host.md,
  // "Math functions").
  void runOnOperation() override {
    llvm::SmallVector<mlir::Operation *> ops;
    getOperation()->walk([&](mlir::Operation *op) {
      llvm::StringRef name = op->getName().getStringRef();
      if (op->getNumResults() == 1 && isApproximated(name) &&
          (mlir::isa<mlir::VectorType>(op->getResult(0).getType()) || name == "math.expm1"))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    mlir::RewritePatternSet patterns(&getContext());
    mlir::populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    // f16 / bf16 expm1 through f32 (the approximations match f32 only); f64 has no
    // approximation and stays convert-math-to-llvm's exp(x) - 1.
    mlir::populateMathF32ExpansionPatterns(
        patterns, [](llvm::StringRef name) { return name == "math.expm1"; });
    // The ops and what their rewrites create (log1p's approximation uses log), nothing
    // else of the module.
    mlir::GreedyRewriteConfig config;
    config.setStrictness(mlir::GreedyRewriteStrictness::ExistingAndNewOps);
    if (mlir::failed(mlir::applyOpPatternsGreedily(ops, std::move(patterns), config))) {
      getOperation()->emitError("pruner-approximate-math: the rewrite of the math ops did "
                                "not converge");
      signalPassFailure();
    }
  }
};

} // namespace

extern "C" void prunerIrRegisterPasses(void) {
  // The registry is process-wide and refuses a second registration of a name.
  static std::once_flag once;
  std::call_once(once, [] { mlir::PassRegistration<ApproximateMathPass>(); });
}
