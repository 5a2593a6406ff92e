/* lib/schedule/ir_util.h: small MLIR C API helpers shared by pruner_schedule_ir's rewrites
 * (align.c, workspace.c, shared_space.c). Internal. */
#ifndef PRUNER_LIB_SCHEDULE_IR_UTIL_H
#define PRUNER_LIB_SCHEDULE_IR_UTIL_H

#include <stdbool.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

/* Whether `op` is named `name` ("memref.alloc"). */
static inline bool prunerScheduleIrIsOp(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

typedef struct PrunerIrPrintBuf {
  char text[64];
  size_t len;
  bool overflow;
} PrunerIrPrintBuf;

static inline void prunerScheduleIrAppendPrinted(MlirStringRef s, void *user) {
  PrunerIrPrintBuf *b = user;
  if (b->len + s.length >= sizeof b->text) {
    b->overflow = true;
    return;
  }
  memcpy(b->text + b->len, s.data, s.length);
  b->len += s.length;
  b->text[b->len] = '\0';
}

/* Whether `space` is the GPU dialect's workgroup address space. The MLIR C API has no
 * accessor for that attribute, so it is compared in its printed form. */
static inline bool prunerScheduleIrIsWorkgroupSpace(MlirAttribute space) {
  if (mlirAttributeIsNull(space) || mlirAttributeIsAInteger(space))
    return false;
  PrunerIrPrintBuf b = {{0}, 0, false};
  mlirAttributePrint(space, prunerScheduleIrAppendPrinted, &b);
  return !b.overflow && strcmp(b.text, "#gpu.address_space<workgroup>") == 0;
}

#endif /* PRUNER_LIB_SCHEDULE_IR_UTIL_H */
