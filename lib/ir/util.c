/* lib/ir/util.c: small MLIR C API helpers shared by pruner_ir's files. */
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include "ir_internal.h"
#include "pruner/ir.h"

typedef struct PrintBuffer {
  char *buf;
  size_t size;
  size_t len;
} PrintBuffer;

/* MlirStringCallback that appends to a fixed buffer, dropping what does not fit. */
static void appendChunk(MlirStringRef chunk, void *user) {
  PrintBuffer *out = user;
  if (out->len + 1 >= out->size)
    return;
  size_t room = out->size - 1 - out->len;
  size_t n = chunk.length < room ? chunk.length : room;
  memcpy(out->buf + out->len, chunk.data, n);
  out->len += n;
  out->buf[out->len] = '\0';
}

void prunerIrTypeToString(MlirType type, char *buf, size_t size) {
  if (size == 0)
    return;
  buf[0] = '\0';
  PrintBuffer out = {buf, size, 0};
  mlirTypePrint(type, appendChunk, &out);
}

void prunerIrAttrToString(MlirAttribute attr, char *buf, size_t size) {
  if (size == 0)
    return;
  buf[0] = '\0';
  if (mlirAttributeIsNull(attr)) {
    strncpy(buf, "<null>", size - 1);
    buf[size - 1] = '\0';
    return;
  }
  PrintBuffer out = {buf, size, 0};
  mlirAttributePrint(attr, appendChunk, &out);
}

void prunerOperationLocationString(MlirOperation op, char *buf, size_t size) {
  if (size == 0)
    return;
  buf[0] = '\0';
  PrintBuffer out = {buf, size, 0};
  mlirLocationPrint(mlirOperationGetLocation(op), appendChunk, &out);
}

void prunerIrStringRefCopy(MlirStringRef ref, char *buf, size_t size) {
  if (size == 0)
    return;
  size_t n = ref.length < size - 1 ? ref.length : size - 1;
  memcpy(buf, ref.data, n);
  buf[n] = '\0';
}

void prunerIrOpName(MlirOperation op, char *buf, size_t size) {
  prunerIrStringRefCopy(mlirIdentifierStr(mlirOperationGetName(op)), buf, size);
}

MlirAttribute prunerIrI64(MlirContext ctx, int64_t value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value);
}

MlirAttribute prunerIrI64Array(MlirContext ctx, const int64_t *values, int n) {
  MlirAttribute elems[PRUNER_IR_MAX_ARRAY];
  if (n > PRUNER_IR_MAX_ARRAY)
    n = PRUNER_IR_MAX_ARRAY;
  for (int i = 0; i < n; ++i)
    elems[i] = prunerIrI64(ctx, values[i]);
  return mlirArrayAttrGet(ctx, n, elems);
}

MlirAttribute prunerIrString(MlirContext ctx, const char *s) {
  return mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(s));
}

MlirNamedAttribute prunerIrNamed(MlirContext ctx, const char *name, MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)), attr);
}

typedef struct TagSearch {
  MlirStringRef tag;
  MlirOperation found;
  int count;
} TagSearch;

static MlirWalkResult findTag(MlirOperation op, void *user) {
  TagSearch *t = user;
  if (!mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(op, t->tag))) {
    t->found = op;
    t->count++;
  }
  return MlirWalkResultAdvance;
}

int prunerIrCountTagged(MlirOperation root, const char *tag, MlirOperation *found) {
  TagSearch t = {mlirStringRefCreateFromCString(tag), {NULL}, 0};
  mlirOperationWalk(root, findTag, &t, MlirWalkPreOrder);
  if (found)
    *found = t.found;
  return t.count;
}

typedef struct NameSearch {
  MlirStringRef name;
  MlirOperation *out;
  int cap, count;
} NameSearch;

static MlirWalkResult findNamed(MlirOperation op, void *user) {
  NameSearch *s = user;
  if (mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), s->name)) {
    if (s->count < s->cap)
      s->out[s->count] = op;
    s->count++;
  }
  return MlirWalkResultAdvance;
}

int prunerIrOpsNamed(MlirOperation root, const char *name, MlirOperation *out, int cap) {
  NameSearch s = {mlirStringRefCreateFromCString(name), out, out ? cap : 0, 0};
  mlirOperationWalk(root, findNamed, &s, MlirWalkPreOrder);
  return s.count;
}
