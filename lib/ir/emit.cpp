//===- emit.cpp - diagnostics on an op, which the MLIR C API lacks ---------===//
//
// The C API can emit only an error at a location (mlirEmitError). Remarks and warnings,
// and errors attached to an op (so that handlers see the op, as for a pass's own
// diagnostics), need Operation's emit functions: these four wrappers are the only C++
// in lib/ (pruner/ir.h).
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include "pruner/ir.h"

extern "C" void prunerEmitRemark(MlirOperation op, const char *message) {
  unwrap(op)->emitRemark(message);
}

extern "C" void prunerEmitWarning(MlirOperation op, const char *message) {
  unwrap(op)->emitWarning(message);
}

extern "C" void prunerEmitError(MlirOperation op, const char *message) {
  unwrap(op)->emitError(message);
}

extern "C" void prunerEmitRemarkAt(MlirLocation loc, const char *message) {
  mlir::emitRemark(unwrap(loc), message);
}
