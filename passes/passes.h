/* passes/passes.h: the C side of pruner's MLIR passes.
 *
 * The passes are written in C over the MLIR C API. PluginRegistration.cpp registers them
 * with MLIR under their pipeline names and carries their options across; they report on
 * ops with prunerEmitError and friends (pruner/ir.h). */
#ifndef PRUNER_PASSES_H
#define PRUNER_PASSES_H

#include <mlir-c/IR.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pruner-expose-space{target=...}: attaches `pruner.space` (lib/ir, docs/plugin.md) to
 * every tunable linalg op under `root`. Ops pruner cannot tune are left untouched with a
 * remark "pruner: not tunable: <reason>"; fills, copies, transposes and broadcasts are
 * skipped silently. Fails only for an unknown target (the message lists valid ones) or a
 * host ISA this CPU lacks (host:avx512 without AVX-512F). */
PrunerStatus prunerExposeSpaceRun(MlirOperation root, const char *target);

/* The target lookup of pruner-expose-space alone, so that the shim can reject a bad
 * `target=` once, when the pass is initialized, before any op is visited. */
PrunerStatus prunerExposeSpaceCheckTarget(const char *target);

/* pruner-strip: removes every discardable attribute named "pruner.*" from every op under
 * (and including) `root`. Returns how many attributes were removed. */
int prunerStripRun(MlirOperation root);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_PASSES_H */
