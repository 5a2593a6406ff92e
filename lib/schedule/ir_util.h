/* lib/schedule/ir_util.h: small MLIR C API helpers shared by pruner_schedule_ir's rewrites
 * (align.c, workspace.c). Internal. */
#ifndef PRUNER_LIB_SCHEDULE_IR_UTIL_H
#define PRUNER_LIB_SCHEDULE_IR_UTIL_H

#include <stdbool.h>
#include <string.h>

#include <mlir-c/IR.h>

/* Whether `op` is named `name` ("memref.alloc"). */
static inline bool prunerScheduleIrIsOp(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

#endif /* PRUNER_LIB_SCHEDULE_IR_UTIL_H */
