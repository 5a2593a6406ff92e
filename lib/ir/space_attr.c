/* lib/ir/space_attr.c: the `pruner.space` dictionary that pruner-expose-space attaches.
 *
 * Layout (stable; docs/plugin.md is the reference, the lit tests check it):
 *   {knobs = {promote_operands = [[..operand indices..], ..], reduction = [[..], ..],
 *             thread = [[..], ..], tile_pairs = [..], vector_width = [..],
 *             workgroup = [[..], ..]},
 *    raw_size = R : i64,
 *    target = {arch = "sm_90", max_threads_per_block = .., name = "..", ..},
 *    valid_configs = N : i64,
 *    workload = {bounds = [..], dtypes = [..], flops = F : i64, iterators = [..],
 *                key = "..", kind = "..", loops = [..role names..], op = "linalg.."}}
 * workgroup / thread / reduction hold one list per loop (empty for loops the knob does
 * not touch): the distinct candidate values, ascending. A TILE knob's candidates are
 * (workgroup, thread) pairs; tile_pairs[l] says how many pairs loop l has. */
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include "ir_internal.h"
#include "pruner/checked.h"
#include "pruner/ir.h"

/* Inserts v into the ascending, duplicate-free list vals[0..*n). */
static void insertSorted(int64_t *vals, int *n, int64_t v) {
  int i = 0;
  while (i < *n && vals[i] < v)
    ++i;
  if (i < *n && vals[i] == v)
    return;
  memmove(vals + i + 1, vals + i, (size_t)(*n - i) * sizeof *vals);
  vals[i] = v;
  ++*n;
}

typedef struct LoopLists {
  int64_t vals[PRUNER_MAX_LOOPS][PRUNER_IR_MAX_ARRAY];
  int n[PRUNER_MAX_LOOPS];
} LoopLists;

static MlirAttribute loopListsAttr(MlirContext ctx, const LoopLists *lists, int num_loops) {
  MlirAttribute per_loop[PRUNER_MAX_LOOPS];
  for (int l = 0; l < num_loops; ++l)
    per_loop[l] = prunerIrI64Array(ctx, lists->vals[l], lists->n[l]);
  return mlirArrayAttrGet(ctx, num_loops, per_loop);
}

static MlirAttribute knobsAttr(MlirContext ctx, PrunerSpace space) {
  const PrunerWorkload *w = prunerSpaceGetWorkload(space);
  /* Three per-loop tables; heap-allocated since each is ~16 KiB. */
  LoopLists *lists = calloc(3, sizeof *lists);
  if (!lists)
    return mlirAttributeGetNull();
  LoopLists *wg = &lists[0], *th = &lists[1], *red = &lists[2];
  int64_t pairs[PRUNER_MAX_LOOPS] = {0};
  MlirAttribute promote[PRUNER_MAX_KNOB_VALUES * 4];
  int num_promote = 0;
  int64_t widths[PRUNER_MAX_KNOB_VALUES * 4];
  int num_widths = 0;
  int64_t xthreads[PRUNER_MAX_KNOB_VALUES * 4];
  int num_xthreads = 0;
  for (int i = 0; i < prunerSpaceNumKnobs(space); ++i) {
    const PrunerKnob *k = prunerSpaceGetKnob(space, i);
    for (int j = 0; j < k->num_values; ++j) {
      switch (k->kind) {
      case PRUNER_KNOB_TILE:
        insertSorted(wg->vals[k->loop], &wg->n[k->loop], k->values[j]);
        insertSorted(th->vals[k->loop], &th->n[k->loop], k->thread_values[j]);
        pairs[k->loop]++;
        break;
      case PRUNER_KNOB_REDUCTION:
        insertSorted(red->vals[k->loop], &red->n[k->loop], k->values[j]);
        break;
      case PRUNER_KNOB_PROMOTE: {
        int64_t idx[32];
        int n = 0;
        for (int b = 0; b < 32; ++b)
          if ((uint64_t)k->values[j] & (1ull << b))
            idx[n++] = b;
        promote[num_promote++] = prunerIrI64Array(ctx, idx, n);
        break;
      }
      case PRUNER_KNOB_VECTOR_WIDTH:
        widths[num_widths++] = k->values[j];
        break;
      case PRUNER_KNOB_REDUCTION_THREADS:
        xthreads[num_xthreads++] = k->values[j];
        break;
      case PRUNER_KNOB_CACHE_SPLIT: /* iree-cpu; shown by docs/iree.md, not this dump */
        break;
      }
    }
  }
  MlirNamedAttribute entries[7] = {
      prunerIrNamed(ctx, "workgroup", loopListsAttr(ctx, wg, w->num_loops)),
      prunerIrNamed(ctx, "thread", loopListsAttr(ctx, th, w->num_loops)),
      prunerIrNamed(ctx, "tile_pairs", prunerIrI64Array(ctx, pairs, w->num_loops)),
      prunerIrNamed(ctx, "reduction", loopListsAttr(ctx, red, w->num_loops)),
      prunerIrNamed(ctx, "promote_operands", mlirArrayAttrGet(ctx, num_promote, promote)),
      prunerIrNamed(ctx, "vector_width", prunerIrI64Array(ctx, widths, num_widths)),
      prunerIrNamed(ctx, "reduction_threads", prunerIrI64Array(ctx, xthreads, num_xthreads)),
  };
  free(lists);
  /* reduction_threads only in the spaces that have the knob (reductions). */
  return mlirDictionaryAttrGet(ctx, num_xthreads ? 7 : 6, entries);
}

static MlirAttribute stringArray(MlirContext ctx, const char *const *names, int n) {
  MlirAttribute elems[PRUNER_MAX_OPERANDS + PRUNER_MAX_LOOPS];
  for (int i = 0; i < n; ++i)
    elems[i] = prunerIrString(ctx, names[i]);
  return mlirArrayAttrGet(ctx, n, elems);
}

/* FLOPs as i64 when they fit; past 2^63 (the conversion would be undefined behaviour and
 * wrote INT64_MIN) as f64. */
static MlirAttribute flopsAttr(MlirContext ctx, const PrunerWorkload *w) {
  double flops = prunerWorkloadFlops(w);
  int64_t exact;
  if (prunerDoubleToInt64(flops, &exact))
    return prunerIrI64(ctx, exact);
  return mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), flops);
}

static MlirAttribute workloadAttr(MlirContext ctx, const PrunerWorkload *w) {
  const char *roles[PRUNER_MAX_LOOPS], *iterators[PRUNER_MAX_LOOPS];
  const char *dtypes[PRUNER_MAX_OPERANDS];
  for (int l = 0; l < w->num_loops; ++l) {
    roles[l] = prunerLoopRoleName(w->loop_roles[l]);
    iterators[l] = w->loop_kinds[l] == PRUNER_LOOP_REDUCTION ? "reduction" : "parallel";
  }
  int operands = w->num_inputs + w->num_outputs;
  for (int i = 0; i < operands; ++i)
    dtypes[i] = prunerDTypeName(w->operands[i].dtype);
  MlirNamedAttribute entries[10];
  int n = 0;
  entries[n++] = prunerIrNamed(ctx, "kind", prunerIrString(ctx, prunerOpKindName(w->kind)));
  entries[n++] = prunerIrNamed(ctx, "op", prunerIrString(ctx, w->op_name));
  entries[n++] = prunerIrNamed(ctx, "key", prunerIrString(ctx, w->key));
  entries[n++] = prunerIrNamed(ctx, "bounds", prunerIrI64Array(ctx, w->bounds, w->num_loops));
  entries[n++] = prunerIrNamed(ctx, "loops", stringArray(ctx, roles, w->num_loops));
  entries[n++] = prunerIrNamed(ctx, "iterators", stringArray(ctx, iterators, w->num_loops));
  entries[n++] = prunerIrNamed(ctx, "dtypes", stringArray(ctx, dtypes, operands));
  entries[n++] = prunerIrNamed(ctx, "flops", flopsAttr(ctx, w));
  if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
      w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC) {
    entries[n++] = prunerIrNamed(ctx, "strides", prunerIrI64Array(ctx, w->strides, 2));
    entries[n++] = prunerIrNamed(ctx, "dilations", prunerIrI64Array(ctx, w->dilations, 2));
  }
  return mlirDictionaryAttrGet(ctx, n, entries);
}

/* The target limits that constrain the knobs (threads, shared memory, registers). */
static MlirAttribute targetAttr(MlirContext ctx, const PrunerTargetDesc *t) {
  MlirNamedAttribute entries[] = {
      prunerIrNamed(ctx, "name", prunerIrString(ctx, t->name)),
      prunerIrNamed(ctx, "arch", prunerIrString(ctx, t->arch)),
      prunerIrNamed(ctx, "sm_count", prunerIrI64(ctx, t->sm_count)),
      prunerIrNamed(ctx, "warp_size", prunerIrI64(ctx, t->warp_size)),
      prunerIrNamed(ctx, "max_threads_per_block", prunerIrI64(ctx, t->max_threads_per_block)),
      prunerIrNamed(ctx, "smem_per_block", prunerIrI64(ctx, t->smem_per_block)),
      prunerIrNamed(ctx, "regs_per_block", prunerIrI64(ctx, t->regs_per_block)),
      prunerIrNamed(ctx, "max_regs_per_thread", prunerIrI64(ctx, t->max_regs_per_thread)),
  };
  return mlirDictionaryAttrGet(ctx, sizeof entries / sizeof entries[0], entries);
}

MlirAttribute prunerSpaceToAttribute(MlirContext ctx, PrunerSpace space) {
  MlirAttribute knobs = knobsAttr(ctx, space);
  if (mlirAttributeIsNull(knobs))
    return knobs;
  MlirNamedAttribute entries[] = {
      prunerIrNamed(ctx, "workload", workloadAttr(ctx, prunerSpaceGetWorkload(space))),
      prunerIrNamed(ctx, "knobs", knobs),
      prunerIrNamed(ctx, "target", targetAttr(ctx, prunerSpaceGetTarget(space))),
      prunerIrNamed(ctx, "raw_size", prunerIrI64(ctx, (int64_t)prunerSpaceRawSize(space))),
      prunerIrNamed(ctx, "valid_configs", prunerIrI64(ctx, (int64_t)prunerSpaceCount(space))),
  };
  return mlirDictionaryAttrGet(ctx, sizeof entries / sizeof entries[0], entries);
}
