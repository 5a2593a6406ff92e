/* pruner/ir_context.h: the one way pruner's own programs make an MLIR context.
 *
 * Every dialect, every pass and every LLVM translation registered, threading off (pruner
 * parallelizes with processes: lib/backend/gpu's pool, the measuring children). Used by the
 * tools, lib/tune's session, lib/backend/gpu and lib/backend/host. It lives in its own library,
 * pruner_ir_context, apart from pruner_ir: the plugin links pruner_ir and must not bring
 * RegisterEverything into mlir-opt, whose context mlir-opt itself sets up. */
#ifndef PRUNER_IR_CONTEXT_H
#define PRUNER_IR_CONTEXT_H

#include <stddef.h>

#include <mlir-c/IR.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A new context; the caller destroys it with mlirContextDestroy. MLIR's pass registry is
 * process-wide and registering a pipeline name twice is fatal, so passes are registered
 * once per process, on the first call (thread-safe). Dialects load lazily, on first use,
 * unless the caller loads them (mlirContextLoadAllAvailableDialects). */
MlirContext prunerIrContextCreate(void);

/* Parses `text` (`size` bytes; `name` for messages) once in a forked child and fails,
 * naming the signal, when MLIR's parser crashes on it. MLIR 22's parser has crashes on
 * malformed input (docs/hardening.md, "MLIR parser crashes"); the tools parse user input
 * only after this check, so such input is an error message, not a dead tuner. A clean
 * parse error passes (the caller's own parse reports it with MLIR's diagnostic). Call it
 * before the process starts threads: the child only parses and exits. Costs one extra
 * parse. When fork fails, the check is skipped and passes. */
PrunerStatus prunerIrCheckParseIsolated(const char *text, size_t size, const char *name);

/* The operation named @`name` in `module`'s symbol table (a func.func, a transform
 * named sequence), or a null operation when there is none. Goes through MLIR's symbol
 * table (mlirSymbolTableLookup) rather than matching sym_name attributes by hand. */
MlirOperation prunerIrLookupSymbol(MlirModule module, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_IR_CONTEXT_H */
