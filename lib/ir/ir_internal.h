/* lib/ir/ir_internal.h: helpers shared by the files of pruner_ir (not installed). */
#ifndef PRUNER_IR_INTERNAL_H
#define PRUNER_IR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <mlir-c/IR.h>

#include "pruner/workload.h"

/* Prints a type / attribute into buf (truncated, always NUL-terminated), for messages. */
void prunerIrTypeToString(MlirType type, char *buf, size_t size);
void prunerIrAttrToString(MlirAttribute attr, char *buf, size_t size);

/* Copies a MlirStringRef into buf (truncated, NUL-terminated). */
void prunerIrStringRefCopy(MlirStringRef ref, char *buf, size_t size);

/* The op's name ("linalg.matmul") into buf. */
void prunerIrOpName(MlirOperation op, char *buf, size_t size);

/* The element type `t` as a PrunerDType; false for types pruner does not model. */
bool prunerIrDTypeFromType(MlirType t, PrunerDType *out);

/* Longest list prunerIrI64Array writes (a knob has at most 4 * PRUNER_MAX_KNOB_VALUES). */
#define PRUNER_IR_MAX_ARRAY 256

/* An i64 IntegerAttr, an array of them (n <= PRUNER_IR_MAX_ARRAY), a string attribute. */
MlirAttribute prunerIrI64(MlirContext ctx, int64_t value);
MlirAttribute prunerIrI64Array(MlirContext ctx, const int64_t *values, int n);
MlirAttribute prunerIrString(MlirContext ctx, const char *s);
MlirNamedAttribute prunerIrNamed(MlirContext ctx, const char *name, MlirAttribute attr);

#endif /* PRUNER_IR_INTERNAL_H */
