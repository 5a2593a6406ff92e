/* passes/apply_config.c: pruner-apply-config, in C over the MLIR C API.
 *
 * Every linalg op with a `pruner.config` gets the schedule lib/schedule builds for it.
 * A schedule module has named sequences per phase (docs/schedule.md); this pass runs the
 * per-op tiling phase of every configured op, then the module-wide bufferization once
 * (running one op's whole schedule would bufferize the module and leave the next op on
 * memrefs, where it can no longer be tiled), then every op's GPU mapping, then the
 * module cleanups. Each op is found by a unit attribute `pruner.apply_<i>` put on it (and
 * `pruner.apply_<i>.fill` on the fill feeding its accumulator); the tags are removed at
 * the end. Ops without a config are left alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Dialect/Transform/Interpreter.h>
#include <mlir-c/IR.h>

#include "passes.h"
#include "pruner/ir.h"
#include "pruner/schedule.h"
#include "pruner/schedule_ir.h"
#include "pruner/space.h"
#include "pruner/target.h"
#include "schedule_passes.h"

#define TAG_PREFIX "pruner.apply_"

typedef struct OpList {
  MlirOperation *ops;
  int count;
  int capacity;
  bool oom;
} OpList;

static MlirWalkResult collect(MlirOperation op, void *user) {
  OpList *list = user;
  if (!prunerIsLinalgOp(op) ||
      mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
          op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR))))
    return MlirWalkResultAdvance;
  if (list->count == list->capacity) {
    int cap = list->capacity ? 2 * list->capacity : 8;
    MlirOperation *ops = realloc(list->ops, (size_t)cap * sizeof *ops);
    if (!ops) {
      list->oom = true;
      return MlirWalkResultInterrupt;
    }
    list->ops = ops;
    list->capacity = cap;
  }
  list->ops[list->count++] = op;
  return MlirWalkResultSkip; /* a configured op's regions hold no other linalg op */
}

static void opName(MlirOperation op, char *buf, size_t size) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, size, "%.*s", (int)name.length, name.data);
}

static PrunerStatus failOn(MlirOperation op, PrunerStatus s) {
  char name[64];
  opName(op, name, sizeof name);
  /* lib/ir's messages already start with "pruner.config on <op>". */
  PrunerStatus e = strncmp(s.message, PRUNER_CONFIG_ATTR " on ", strlen(PRUNER_CONFIG_ATTR) + 4) == 0
                       ? s
                       : prunerStatusError("pruner.config on %s: %s", name, s.message);
  prunerEmitError(op, e.message);
  return e;
}

static void setUnit(MlirOperation op, const char *name) {
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(name),
                                             mlirUnitAttrGet(mlirOperationGetContext(op)));
}

/* The linalg.fill that initialises the accumulator (operand num_inputs), if any. */
static void tagFill(MlirOperation op, const PrunerWorkload *w, const char *tag) {
  if (w->num_outputs != 1 || mlirOperationGetNumOperands(op) <= w->num_inputs)
    return;
  MlirValue init = mlirOperationGetOperand(op, w->num_inputs);
  if (!mlirValueIsAOpResult(init))
    return;
  MlirOperation owner = mlirOpResultGetOwner(init);
  char name[64];
  opName(owner, name, sizeof name);
  if (strcmp(name, "linalg.fill") != 0)
    return;
  char fill_tag[96];
  snprintf(fill_tag, sizeof fill_tag, "%s.fill", tag);
  setUnit(owner, fill_tag);
}

/* Tags "<tag>.consumer" on the op's fusible consumer (prunerFusibleConsumer: its only
 * user, an elementwise generic of the same shape) when the config does not promote and
 * the consumer carries no pruner.config of its own: that consumer is then fused into the
 * op's kernel (docs/schedule.md). */
static bool tagConsumer(MlirOperation op, const PrunerWorkload *w, const PrunerConfig *c,
                        const char *tag) {
  if (c->promote_operands)
    return false;
  MlirOperation user = prunerFusibleConsumer(op, w);
  if (mlirOperationIsNull(user) ||
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
          user, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR))))
    return false;
  char consumer_tag[96];
  snprintf(consumer_tag, sizeof consumer_tag, "%s.consumer", tag);
  setUnit(user, consumer_tag);
  return true;
}

static MlirOperation findSequence(MlirModule module, const char *symbol) {
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  while (!mlirOperationIsNull(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)) {
      MlirStringRef s = mlirStringAttrGetValue(sym);
      if (s.length == strlen(symbol) && memcmp(s.data, symbol, s.length) == 0)
        return op;
    }
    op = mlirOperationGetNextInBlock(op);
  }
  return op;
}

static PrunerStatus applySequence(MlirOperation payload, MlirModule schedule, const char *symbol,
                                  MlirTransformOptions options, MlirOperation at) {
  MlirOperation seq = findSequence(schedule, symbol);
  if (mlirOperationIsNull(seq))
    return failOn(at, prunerStatusError("schedule has no @%s", symbol));
  if (mlirLogicalResultIsFailure(
          mlirTransformApplyNamedSequence(payload, seq, mlirModuleGetOperation(schedule), options)))
    return failOn(at, prunerStatusError("transform sequence @%s failed (see the errors above)", symbol));
  return prunerStatusOk();
}

static MlirWalkResult removeTags(MlirOperation op, void *user) {
  (void)user;
  for (intptr_t i = mlirOperationGetNumDiscardableAttributes(op) - 1; i >= 0; --i) {
    MlirNamedAttribute a = mlirOperationGetDiscardableAttribute(op, i);
    MlirStringRef name = mlirIdentifierStr(a.name);
    if (name.length >= strlen(TAG_PREFIX) && memcmp(name.data, TAG_PREFIX, strlen(TAG_PREFIX)) == 0)
      mlirOperationRemoveDiscardableAttributeByName(op, name);
  }
  return MlirWalkResultAdvance;
}

/* Prepares op i: workload, config, check, tags, schedule module. */
static PrunerStatus prepare(MlirOperation op, int i, const PrunerTargetDesc *target,
                            bool gpu_mapping, MlirModule *out) {
  PrunerWorkload w;
  PrunerStatus s = prunerWorkloadFromOperation(op, &w);
  if (!s.ok)
    return failOn(op, s);
  PrunerConfig config;
  s = prunerConfigFromAttribute(&w, mlirOperationGetDiscardableAttributeByName(
                                        op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR)),
                                &config);
  if (!s.ok)
    return failOn(op, s);
  s = prunerConfigCheck(&w, target, &config);
  if (!s.ok)
    return failOn(op, s);
  char tag[64];
  snprintf(tag, sizeof tag, TAG_PREFIX "%d", i);
  setUnit(op, tag);
  tagFill(op, &w, tag);
  PrunerScheduleOptions opts = prunerScheduleDefaultOptions();
  opts.match_attr = tag;
  opts.gpu_mapping = gpu_mapping;
  opts.fuse_consumer = tagConsumer(op, &w, &config, tag);
  char *text = NULL;
  s = prunerScheduleBuild(&w, &config, target, &opts, &text);
  if (!s.ok)
    return failOn(op, s);
  *out = mlirModuleCreateParse(mlirOperationGetContext(op), mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(*out))
    return failOn(op, prunerStatusError("the generated schedule does not parse (see above)"));
  return prunerStatusOk();
}

PrunerStatus prunerApplyConfigRun(MlirOperation module, const char *target_name,
                                  bool gpu_mapping) {
  PrunerTargetDesc target;
  PrunerStatus s = prunerTargetLookup(target_name, &target);
  if (!s.ok) {
    s = prunerStatusError("pruner-apply-config: target: %s", s.message);
    prunerEmitError(module, s.message);
    return s;
  }
  /* Host configs get the host schedule, op by op as the tuner measured them. */
  if (target.kind == PRUNER_TARGET_HOST)
    return prunerCpuApplyConfigRun(module, target_name, false);
  OpList list = {NULL, 0, 0, false};
  mlirOperationWalk(module, collect, &list, MlirWalkPreOrder);
  if (list.oom) {
    free(list.ops);
    s = prunerStatusError("pruner-apply-config: out of memory");
    prunerEmitError(module, s.message);
    return s;
  }
  if (list.count == 0) {
    free(list.ops);
    return prunerStatusOk();
  }
  MlirModule *schedules = calloc((size_t)list.count, sizeof *schedules);
  if (!schedules) {
    free(list.ops);
    s = prunerStatusError("pruner-apply-config: out of memory");
    prunerEmitError(module, s.message);
    return s;
  }
  int built = 0;
  for (; built < list.count && s.ok; ++built)
    s = prepare(list.ops[built], built, &target, gpu_mapping, &schedules[built]);
  if (!s.ok)
    --built; /* the failed one has no module */

  MlirTransformOptions options = mlirTransformOptionsCreate();
  /* Tile every op before bufferizing: the op handles are gone after bufferization. */
  for (int i = 0; i < list.count && s.ok; ++i)
    s = applySequence(module, schedules[i], "pruner_tile", options, list.ops[i]);
  /* The op handles are invalid from here on: report at the module. */
  if (s.ok)
    s = applySequence(module, schedules[0], "pruner_bufferize", options, module);
  for (int i = 0; i < list.count && s.ok; ++i)
    s = applySequence(module, schedules[i], "pruner_promote", options, module);
  for (int i = 0; i < list.count && s.ok; ++i)
    s = applySequence(module, schedules[i], "pruner_map", options, module);
  if (s.ok)
    s = applySequence(module, schedules[0], "pruner_cleanup", options, module);
  /* Vector loads/stores default to element alignment (32-bit PTX accesses); give them
   * what their addresses provably have (schedule_ir.h). */
  if (s.ok && gpu_mapping) {
    s = prunerScheduleAlignVectorAccesses(module, PRUNER_ARG_ALIGNMENT, NULL);
    if (!s.ok)
      prunerEmitError(module, s.message);
  }
  mlirTransformOptionsDestroy(options);

  for (int i = 0; i < built; ++i)
    mlirModuleDestroy(schedules[i]);
  free(schedules);
  free(list.ops);
  mlirOperationWalk(module, removeTags, NULL, MlirWalkPostOrder);
  return s;
}
