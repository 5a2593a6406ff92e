/* lib/ir/config_attr.c: the `pruner.config` dictionary <-> PrunerConfig.
 *
 * Key names follow IREE's lowering_config (docs/config.md, docs/plugin.md). Every key is
 * optional when reading: a missing array means "all 0", missing promote_operands means
 * none, a missing vector_width or reduction_threads means 1; prunerConfigCheck then says whether
 * the result is valid on a target. Written back with every key, arrays as [..] of i64. */
#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include "ir_internal.h"
#include "pruner/ir.h"

static const char *const kKeys =
    "workgroup, reduction, thread, promote_operands, vector_width, reduction_threads, cache, mma, "
    "stages, split_k";

/* The value of an integer attribute if it fits int64_t. Wider types (i128) would be cut
 * to their low word by mlirIntegerAttrGetValueInt, unsigned ones above 2^63 would turn
 * negative, and i1 (`true`) reads as -1: all silent wrong answers, so refused. */
static bool integerValue(MlirAttribute a, int64_t *out) {
  if (!mlirAttributeIsAInteger(a))
    return false;
  MlirType type = mlirAttributeGetType(a);
  if (mlirTypeIsAIndex(type)) {
    *out = mlirIntegerAttrGetValueInt(a);
    return true;
  }
  if (!mlirTypeIsAInteger(type))
    return false;
  unsigned width = mlirIntegerTypeGetWidth(type);
  if (width < 2 || width > 64)
    return false;
  if (mlirIntegerTypeIsUnsigned(type)) {
    uint64_t v = mlirIntegerAttrGetValueUInt(a);
    if (v > (uint64_t)INT64_MAX)
      return false;
    *out = (int64_t)v;
  } else if (mlirIntegerTypeIsSigned(type)) {
    *out = mlirIntegerAttrGetValueSInt(a);
  } else {
    *out = mlirIntegerAttrGetValueInt(a);
  }
  return true;
}

/* Reads an integer list written as [..] of IntegerAttrs or as array<i64/i32: ..>. */
static PrunerStatus readIntArray(const PrunerWorkload *w, const char *key, MlirAttribute a,
                                 int64_t *out, int cap, int *len) {
  char text[96];
  if (mlirAttributeIsADenseI64Array(a) || mlirAttributeIsADenseI32Array(a)) {
    int n = (int)mlirDenseArrayGetNumElements(a);
    if (n > cap)
      return prunerStatusError("pruner.config on %s: key '%s' has %d entries, at most %d",
                               w->op_name, key, n, cap);
    for (int i = 0; i < n; ++i)
      out[i] = mlirAttributeIsADenseI64Array(a) ? mlirDenseI64ArrayGetElement(a, i)
                                                : mlirDenseI32ArrayGetElement(a, i);
    *len = n;
    return prunerStatusOk();
  }
  if (!mlirAttributeIsAArray(a)) {
    prunerIrAttrToString(a, text, sizeof text);
    return prunerStatusError("pruner.config on %s: key '%s' must be a list of integers, got %s",
                             w->op_name, key, text);
  }
  int n = (int)mlirArrayAttrGetNumElements(a);
  if (n > cap)
    return prunerStatusError("pruner.config on %s: key '%s' has %d entries, at most %d", w->op_name,
                             key, n, cap);
  for (int i = 0; i < n; ++i) {
    MlirAttribute e = mlirArrayAttrGetElement(a, i);
    if (!integerValue(e, &out[i])) {
      prunerIrAttrToString(e, text, sizeof text);
      return prunerStatusError("pruner.config on %s: key '%s': entry %d is not an integer "
                               "of at most 64 bits: %s",
                               w->op_name, key, i, text);
    }
  }
  *len = n;
  return prunerStatusOk();
}

/* workgroup / reduction / thread: one non-negative entry per loop. */
static PrunerStatus readTileArray(const PrunerWorkload *w, const char *key, MlirAttribute a,
                                  int64_t *out) {
  int n = 0;
  PrunerStatus s = readIntArray(w, key, a, out, PRUNER_MAX_LOOPS, &n);
  if (!s.ok)
    return s;
  if (n != w->num_loops)
    return prunerStatusError("pruner.config on %s: key '%s' has %d entries, expected %d (one "
                             "per loop)",
                             w->op_name, key, n, w->num_loops);
  for (int i = 0; i < n; ++i)
    if (out[i] < 0)
      return prunerStatusError("pruner.config on %s: key '%s': entry %d is negative (%lld)",
                               w->op_name, key, i, (long long)out[i]);
  return prunerStatusOk();
}

static PrunerStatus readPromote(const PrunerWorkload *w, MlirAttribute a, uint32_t *mask) {
  int64_t idx[PRUNER_MAX_OPERANDS];
  int n = 0;
  PrunerStatus s = readIntArray(w, "promote_operands", a, idx, PRUNER_MAX_OPERANDS, &n);
  if (!s.ok)
    return s;
  int operands = w->num_inputs + w->num_outputs;
  *mask = 0;
  for (int i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= operands)
      return prunerStatusError("pruner.config on %s: key 'promote_operands': operand index "
                               "%lld out of range [0, %d)",
                               w->op_name, (long long)idx[i], operands);
    if (*mask & (1u << idx[i]))
      return prunerStatusError("pruner.config on %s: key 'promote_operands': operand %lld "
                               "listed twice",
                               w->op_name, (long long)idx[i]);
    *mask |= 1u << idx[i];
  }
  return prunerStatusOk();
}

/* An integer key in [1, max]: a clear message naming the key otherwise. */
static PrunerStatus readBoundedInt(const PrunerWorkload *w, MlirAttribute a, const char *key,
                                   int64_t max, int64_t *out) {
  char text[96];
  if (!integerValue(a, out)) {
    prunerIrAttrToString(a, text, sizeof text);
    return prunerStatusError("pruner.config on %s: key '%s' must be an integer, got %s",
                             w->op_name, key, text);
  }
  if (*out < 1 || *out > max)
    return prunerStatusError("pruner.config on %s: key '%s' = %lld out of range [1, %lld]",
                             w->op_name, key, (long long)*out, (long long)max);
  return prunerStatusOk();
}

static PrunerStatus readVectorWidth(const PrunerWorkload *w, MlirAttribute a, int32_t *out) {
  int64_t v = 0;
  PrunerStatus st = readBoundedInt(w, a, "vector_width", 64, &v);
  if (st.ok)
    *out = (int32_t)v;
  return st;
}

/* Optional; absent means 1. Whether the value fits the op and target is prunerConfigCheck's. */
static PrunerStatus readReductionThreads(const PrunerWorkload *w, MlirAttribute a, int32_t *out) {
  int64_t v = 0;
  PrunerStatus st = readBoundedInt(w, a, "reduction_threads", 1024, &v);
  if (st.ok)
    *out = v > 1 ? (int32_t)v : 0; /* 0: one thread per output, as the space decodes it */
  return st;
}

/* Optional; absent means 0 (FMA). 1 names mma.sync m16n8k16 (PRUNER_MMA_M16N8K16); 0 is
 * accepted too so that a written-out "no tensor cores" reads back. */
static PrunerStatus readMma(const PrunerWorkload *w, MlirAttribute a, int32_t *out) {
  int64_t v = 0;
  char text[96];
  if (!integerValue(a, &v) || v < 0 || v > PRUNER_MMA_M16N8K16) {
    prunerIrAttrToString(a, text, sizeof text);
    return prunerStatusError("pruner.config on %s: key 'mma' must be 0 (FMA) or %d (mma.sync "
                             "m16n8k16), got %s",
                             w->op_name, PRUNER_MMA_M16N8K16, text);
  }
  *out = (int32_t)v;
  return prunerStatusOk();
}

/* An optional count from 1 to `max` where 0 reads as 1 (stored as 0, as configs without
 * the key): `what` says what it counts, for the message. */
static PrunerStatus readCount(const PrunerWorkload *w, MlirAttribute a, const char *key,
                              int64_t max, const char *what, int32_t *out) {
  int64_t v = 0;
  char text[96];
  if (!integerValue(a, &v) || v < 0 || v > max) {
    prunerIrAttrToString(a, text, sizeof text);
    return prunerStatusError("pruner.config on %s: key '%s' must be 1 to %lld (%s), got %s",
                             w->op_name, key, (long long)max, what, text);
  }
  *out = v > 1 ? (int32_t)v : 0;
  return prunerStatusOk();
}

PrunerStatus prunerConfigFromAttribute(const PrunerWorkload *w, MlirAttribute attr,
                                       PrunerConfig *out) {
  memset(out, 0, sizeof *out);
  out->vector_width = 1;
  char text[128];
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsADictionary(attr)) {
    prunerIrAttrToString(attr, text, sizeof text);
    return prunerStatusError("pruner.config on %s: expected a dictionary attribute, got %s",
                             w->op_name, text);
  }
  intptr_t n = mlirDictionaryAttrGetNumElements(attr);
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute e = mlirDictionaryAttrGetElement(attr, i);
    char key[64];
    prunerIrStringRefCopy(mlirIdentifierStr(e.name), key, sizeof key);
    PrunerStatus s;
    if (strcmp(key, "workgroup") == 0)
      s = readTileArray(w, key, e.attribute, out->workgroup);
    else if (strcmp(key, "reduction") == 0)
      s = readTileArray(w, key, e.attribute, out->reduction);
    else if (strcmp(key, "thread") == 0)
      s = readTileArray(w, key, e.attribute, out->thread);
    else if (strcmp(key, "promote_operands") == 0)
      s = readPromote(w, e.attribute, &out->promote_operands);
    else if (strcmp(key, "vector_width") == 0)
      s = readVectorWidth(w, e.attribute, &out->vector_width);
    else if (strcmp(key, "reduction_threads") == 0)
      s = readReductionThreads(w, e.attribute, &out->reduction_threads);
    else if (strcmp(key, "cache") == 0) /* iree-cpu's cache tiles (PrunerConfig.cache) */
      s = readTileArray(w, key, e.attribute, out->cache);
    else if (strcmp(key, "mma") == 0)
      s = readMma(w, e.attribute, &out->mma);
    else if (strcmp(key, "stages") == 0)
      s = readCount(w, e.attribute, key, PRUNER_MAX_STAGES,
                    "shared buffers of a staged tensor-core config", &out->stages);
    else if (strcmp(key, "split_k") == 0)
      /* Whether it divides the reduction loop is prunerConfigCheck's. */
      s = readCount(w, e.attribute, key, PRUNER_MAX_SPLIT_K,
                    "slices of the reduction loop over blocks", &out->split_k);
    else
      s = prunerStatusError("pruner.config on %s: unknown key '%s' (expected %s)", w->op_name, key,
                            kKeys);
    if (!s.ok)
      return s;
  }
  /* An absent tile array is all zeros, which is right only where its level does not
   * apply (workgroup and thread without a parallel loop, reduction without a reduction
   * loop); elsewhere it failed later as "thread tile [0, 0, 0] is 0", which does not
   * say that the key is missing. */
  bool parallel = false, reduction = false;
  for (int l = 0; l < w->num_loops; ++l) {
    parallel = parallel || w->loop_kinds[l] == PRUNER_LOOP_PARALLEL;
    reduction = reduction || w->loop_kinds[l] == PRUNER_LOOP_REDUCTION;
  }
  const struct {
    const char *key;
    bool needed;
  } tiles[] = {{"workgroup", parallel}, {"thread", parallel}, {"reduction", reduction}};
  for (size_t k = 0; k < sizeof tiles / sizeof *tiles; ++k)
    if (tiles[k].needed && mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(
                               attr, mlirStringRefCreateFromCString(tiles[k].key))))
      return prunerStatusError("pruner.config on %s: key '%s' is missing (the op has %s "
                               "loops; docs/config.md)",
                               w->op_name, tiles[k].key,
                               k < 2 ? "parallel" : "reduction");
  return prunerStatusOk();
}

MlirAttribute prunerConfigToAttribute(MlirContext ctx, const PrunerWorkload *w,
                                      const PrunerConfig *config) {
  int64_t promote[PRUNER_MAX_OPERANDS];
  int np = 0;
  for (int i = 0; i < w->num_inputs + w->num_outputs; ++i)
    if (config->promote_operands & (1u << i))
      promote[np++] = i;
  /* DictionaryAttr keeps its entries sorted by name, whatever order they are given in. */
  MlirNamedAttribute entries[10] = {
      prunerIrNamed(ctx, "workgroup", prunerIrI64Array(ctx, config->workgroup, w->num_loops)),
      prunerIrNamed(ctx, "reduction", prunerIrI64Array(ctx, config->reduction, w->num_loops)),
      prunerIrNamed(ctx, "thread", prunerIrI64Array(ctx, config->thread, w->num_loops)),
      prunerIrNamed(ctx, "promote_operands", prunerIrI64Array(ctx, promote, np)),
      prunerIrNamed(ctx, "vector_width", prunerIrI64(ctx, config->vector_width)),
      prunerIrNamed(ctx, "reduction_threads", prunerIrI64(ctx, config->reduction_threads)),
      prunerIrNamed(ctx, "cache", prunerIrI64Array(ctx, config->cache, w->num_loops)),
      prunerIrNamed(ctx, "mma", prunerIrI64(ctx, config->mma)),
      prunerIrNamed(ctx, "stages", prunerIrI64(ctx, prunerConfigStages(config))),
      prunerIrNamed(ctx, "split_k", prunerIrI64(ctx, prunerConfigSplitK(config))),
  };
  /* reduction_threads, stages and split_k only when > 1, cache and mma only when set: every
   * other config is written as before those knobs. */
  int n = 5;
  if (prunerConfigReductionThreads(config) > 1)
    entries[n++] = entries[5];
  if (prunerConfigHasCache(config))
    entries[n++] = entries[6];
  if (config->mma)
    entries[n++] = entries[7];
  if (prunerConfigStages(config) > 1)
    entries[n++] = entries[8];
  if (prunerConfigSplitK(config) > 1)
    entries[n++] = entries[9];
  return mlirDictionaryAttrGet(ctx, n, entries);
}
