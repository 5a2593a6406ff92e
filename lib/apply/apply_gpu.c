/* lib/apply/apply_gpu.c: prunerApplyConfig for GPU targets (pruner-apply-config), in C
 * over the MLIR C API.
 *
 * Every linalg op with a `pruner.config` in the module the pass runs on gets the schedule
 * lib/schedule builds for it. A schedule module has named sequences per phase
 * (docs/schedule.md); this pass runs the per-op tiling phase of every configured op, then
 * the module-wide bufferization once (running one op's whole schedule would bufferize the
 * module and leave the next op on memrefs, where it can no longer be tiled), then every
 * op's GPU mapping, then the module cleanups. All configs are checked before anything is
 * transformed. Each op is found by a unit attribute `pruner.apply_<i>` put on it (and
 * `pruner.apply_<i>.fill` on the fill feeding its output, `.consumer` on a fused
 * consumer); no op handle is kept across a transform, and diagnostics after the first
 * one go to locations captured before it. The tags are removed at the end. Ops without
 * a config, and ops of nested modules, are left alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/Transform/Interpreter.h>
#include <mlir-c/IR.h>

#include "apply_internal.h"
#include "pruner/ir.h"
#include "pruner/schedule.h"
#include "pruner/schedule_ir.h"
#include "pruner/space.h"
#include "pruner/target.h"

#define TAG_PREFIX "pruner.apply_"

/* One configured op. `op` is valid only until the first transform runs: a sequence may
 * erase or replace any op of the module (tiling replaces the op itself, and the pattern
 * cleanups of one op's sequence may fold another configured op, e.g. an identity copy).
 * So diagnostics after that point go to the location and name captured here, and the op
 * is found again by its tag before each of its steps. */
typedef struct Configured {
  MlirOperation op;
  MlirLocation loc;
  char name[64];
  char tag[32];
  bool alive;
  PrunerWorkload w;
  PrunerConfig config;
  bool consumer; /* "<tag>.consumer" was put on a fusible consumer */
} Configured;

typedef struct OpList {
  MlirOperation root;
  Configured *ops;
  int count;
  int capacity;
  bool oom;
} OpList;

static void opName(MlirOperation op, char *buf, size_t size) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, size, "%.*s", (int)name.length, name.data);
}

static bool hasConfig(MlirOperation op) {
  return !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR)));
}

static MlirWalkResult collect(MlirOperation op, void *user) {
  OpList *list = user;
  if (prunerApplySkipNested(op, list->root))
    return MlirWalkResultSkip;
  if (!prunerIsLinalgOp(op) || !hasConfig(op))
    return MlirWalkResultAdvance;
  if (list->count == list->capacity) {
    int cap = list->capacity ? 2 * list->capacity : 8;
    Configured *ops = realloc(list->ops, (size_t)cap * sizeof *ops);
    if (!ops) {
      list->oom = true;
      return MlirWalkResultInterrupt;
    }
    list->ops = ops;
    list->capacity = cap;
  }
  Configured *c = &list->ops[list->count];
  memset(c, 0, sizeof *c);
  c->op = op;
  c->loc = mlirOperationGetLocation(op);
  opName(op, c->name, sizeof c->name);
  snprintf(c->tag, sizeof c->tag, TAG_PREFIX "%d", list->count);
  c->alive = true;
  list->count++;
  return MlirWalkResultSkip; /* a configured op's regions hold no other linalg op */
}

/* The error for configured op `c`, at its captured location (the op may be gone). */
static PrunerStatus failOn(const Configured *c, PrunerStatus s) {
  /* lib/ir's messages already start with "pruner.config on <op>". */
  PrunerStatus e =
      strncmp(s.message, PRUNER_CONFIG_ATTR " on ", strlen(PRUNER_CONFIG_ATTR) + 4) == 0
          ? s
          : prunerStatusError("pruner.config on %s: %s", c->name, s.message);
  mlirEmitError(c->loc, e.message);
  return e;
}

/* Errors that belong to no single op (target, memory) go on the module, which the pass
 * runs on and no transform erases. */
static PrunerStatus failOnModule(MlirOperation module, PrunerStatus s) {
  prunerEmitError(module, s.message);
  return s;
}

static void setUnit(MlirOperation op, const char *name) {
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(name),
                                             mlirUnitAttrGet(mlirOperationGetContext(op)));
}

/* The linalg.fill that initialises the accumulator (operand num_inputs), if any. A fill
 * that initialises other ops too (two matmuls into one zero tensor, as CSE leaves them)
 * is first copied for this op: fuse_into_containing_op clones a producer with other users
 * into the kernel with its attributes, so the next op's tag then matched two fills, one
 * inside another kernel, and its fusion failed ("could not find next producer to fuse
 * into container"). */
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
  MlirOpOperand first = mlirValueGetFirstUse(init);
  if (!mlirOpOperandIsNull(first) && !mlirOpOperandIsNull(mlirOpOperandGetNextUse(first))) {
    MlirOperation copy = mlirOperationClone(owner);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, copy);
    mlirOperationSetOperand(op, w->num_inputs,
                            mlirOperationGetResult(copy, mlirOpResultGetResultNumber(init)));
    owner = copy;
  }
  char fill_tag[96];
  snprintf(fill_tag, sizeof fill_tag, "%s.fill", tag);
  setUnit(owner, fill_tag);
}

/* Tags "<tag>.consumer" on the op's fusible consumer (prunerFusibleConsumer: its only
 * user, an elementwise generic of the same shape) when the consumer carries no
 * pruner.config of its own and the op's schedule can fuse it
 * (prunerScheduleConsumerRefusal): that consumer is then fused into the op's kernel
 * (docs/schedule.md). When the schedule cannot, the consumer gets a remark and is left
 * as it is, like any op without a config. */
static bool tagConsumer(MlirOperation op, const PrunerWorkload *w, const PrunerConfig *c,
                        const char *tag) {
  MlirOperation user = prunerFusibleConsumer(op, w);
  if (mlirOperationIsNull(user) ||
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
          user, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR))))
    return false;
  const char *refusal = prunerScheduleConsumerRefusal(w, c);
  if (refusal) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "elementwise consumer of %s not fused into its kernel: the config uses %s, "
             "whose schedule fuses no consumer; give it a pruner.config of its own",
             w->op_name, refusal);
    prunerEmitRemarkAt(mlirOperationGetLocation(user), msg);
    return false;
  }
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
                                  MlirTransformOptions options, const Configured *c) {
  MlirOperation seq = findSequence(schedule, symbol);
  if (mlirOperationIsNull(seq))
    return failOn(c, prunerStatusError("schedule has no @%s", symbol));
  if (mlirLogicalResultIsFailure(
          mlirTransformApplyNamedSequence(payload, seq, mlirModuleGetOperation(schedule), options)))
    return failOn(
        c, prunerStatusError("transform sequence @%s failed (see the errors above)", symbol));
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

/* Before any transform: op c's workload, config and check (an invalid config is an
 * error on the op, and nothing is transformed), then its tags. */
static PrunerStatus check(Configured *c, const PrunerTargetDesc *target) {
  /* Each op's schedule cleans up the function that holds it (lib/schedule). */
  if (mlirOperationIsNull(prunerApplyEnclosingFunc(c->op)))
    return failOn(c, prunerStatusError("not inside a func.func: pruner-apply-config schedules "
                                       "the linalg ops of func.func functions"));
  PrunerStatus s = prunerIrCheckGpuPlacement(c->op);
  if (!s.ok)
    return failOn(c, s);
  s = prunerWorkloadFromOperation(c->op, &c->w);
  if (!s.ok)
    return failOn(c, s);
  s = prunerConfigFromAttribute(&c->w,
                                mlirOperationGetDiscardableAttributeByName(
                                    c->op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR)),
                                &c->config);
  if (!s.ok)
    return failOn(c, s);
  s = prunerConfigCheck(&c->w, target, &c->config);
  if (!s.ok)
    return failOn(c, s);
  return prunerStatusOk();
}

static void tag(Configured *c) {
  setUnit(c->op, c->tag);
  tagFill(c->op, &c->w, c->tag);
  c->consumer = tagConsumer(c->op, &c->w, &c->config, c->tag);
}

/* Erases a dead op (prunerIrResultsDead) after its users, which are dead linalg ops too;
 * a configured one among them is then "folded away" when its turn comes. */
static void eraseDead(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i) {
    MlirValue r = mlirOperationGetResult(op, i);
    for (MlirOpOperand u = mlirValueGetFirstUse(r); !mlirOpOperandIsNull(u);
         u = mlirValueGetFirstUse(r))
      eraseDead(mlirOpOperandGetOwner(u));
  }
  mlirOperationDestroy(op);
}

/* Right before op c is tiled: find it again by its tag (an earlier op's sequence may have
 * folded it away: then it has nothing left to schedule, and gets a remark) and build its
 * schedule from what is there now (its fill and consumer may have been folded too). The
 * config passed check() already. */
static PrunerStatus build(MlirOperation module, Configured *c, bool gpu_mapping, MlirModule *out) {
  *out = (MlirModule){NULL};
  int n = prunerIrCountTagged(module, c->tag, NULL);
  if (n == 0) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "pruner.config on %s: not applied: the op was folded away (canonicalization) "
             "before its schedule ran",
             c->name);
    prunerEmitRemarkAt(c->loc, msg);
    c->alive = false;
    return prunerStatusOk();
  }
  if (n > 1)
    return failOn(
        c, prunerStatusError("%d ops carry its tag %s after the earlier schedules", n, c->tag));
  /* Dead code: tiling it leaves loops that canonicalization erases under the schedule's
   * feet ("requires exactly one target handle"). Erased here, with its dead users, as
   * canonicalization would. */
  MlirOperation op;
  prunerIrCountTagged(module, c->tag, &op);
  if (prunerIrResultsDead(op)) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "pruner.config on %s: not applied: its results are unused (dead code, erased)",
             c->name);
    prunerEmitRemarkAt(c->loc, msg);
    eraseDead(op);
    c->alive = false;
    return prunerStatusOk();
  }
  char sub[64];
  PrunerScheduleOptions opts = prunerScheduleDefaultOptions();
  opts.match_attr = c->tag;
  opts.gpu_mapping = gpu_mapping;
  snprintf(sub, sizeof sub, "%s.fill", c->tag);
  opts.fill = prunerIrCountTagged(module, sub, NULL) > 0 ? PRUNER_SCHEDULE_FILL_TAGGED
                                                         : PRUNER_SCHEDULE_FILL_NONE;
  snprintf(sub, sizeof sub, "%s.consumer", c->tag);
  opts.fuse_consumer = c->consumer && prunerIrCountTagged(module, sub, NULL) == 1;
  char *text = NULL;
  PrunerStatus s = prunerScheduleBuildChecked(&c->w, &c->config, &opts, &text); /* check() */
  if (!s.ok)
    return failOn(c, s);
  *out =
      mlirModuleCreateParse(mlirOperationGetContext(module), mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(*out))
    return failOn(c, prunerStatusError("the generated schedule does not parse (see above)"));
  return prunerStatusOk();
}

/* The module's functions that hold no configured op. Each op's schedule canonicalizes
 * only its own function (lib/schedule: doing every function for every op was quadratic);
 * these get one canonicalization, so an untuned op that folds away (an identity
 * linalg.generic) does not become a kernel of its own. */
#define REST_TAG TAG_PREFIX "rest"

static const char kRestSchedule[] =
    "module attributes {transform.with_named_sequence} {\n"
    "  transform.named_sequence @pruner_rest(%root: !transform.any_op {transform.readonly}) {\n"
    "    %f = transform.structured.match ops{[\"func.func\"]} attributes{" REST_TAG "} in %root"
    " : (!transform.any_op) -> !transform.any_op\n"
    "    transform.apply_patterns to %f { transform.apply_patterns.canonicalization } "
    ": !transform.any_op\n"
    "    transform.yield\n"
    "  }\n"
    "}\n";

static PrunerStatus canonicalizeRest(MlirOperation module, const OpList *list,
                                     MlirTransformOptions options) {
  int rest = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(
           mlirOperationGetRegion(module, 0)));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (prunerApplyIsFunc(op)) {
      setUnit(op, REST_TAG);
      ++rest;
    }
  for (int i = 0; i < list->count; ++i) {
    MlirOperation f = prunerApplyEnclosingFunc(list->ops[i].op);
    if (!mlirOperationIsNull(f) &&
        mlirOperationRemoveDiscardableAttributeByName(f, mlirStringRefCreateFromCString(REST_TAG)))
      --rest;
  }
  if (rest == 0)
    return prunerStatusOk();
  MlirModule schedule = mlirModuleCreateParse(mlirOperationGetContext(module),
                                              mlirStringRefCreateFromCString(kRestSchedule));
  if (mlirModuleIsNull(schedule))
    return failOnModule(module, prunerStatusError("pruner-apply-config: internal schedule does not parse"));
  PrunerStatus s = prunerStatusOk();
  MlirOperation seq = findSequence(schedule, "pruner_rest");
  if (mlirOperationIsNull(seq) ||
      mlirLogicalResultIsFailure(mlirTransformApplyNamedSequence(
          module, seq, mlirModuleGetOperation(schedule), options)))
    s = failOnModule(module, prunerStatusError("pruner-apply-config: canonicalizing the functions "
                                               "without configs failed (see the errors above)"));
  mlirModuleDestroy(schedule);
  return s;
}

PrunerStatus prunerApplyGpu(MlirOperation module, const PrunerTargetDesc *target,
                            bool gpu_mapping) {
  PrunerStatus s = prunerStatusOk();
  OpList list = {module, NULL, 0, 0, false};
  mlirOperationWalk(module, collect, &list, MlirWalkPreOrder);
  if (list.oom) {
    free(list.ops);
    return failOnModule(module, prunerStatusError("pruner-apply-config: out of memory"));
  }
  /* Every config is checked before anything changes, so an invalid one leaves the module
   * as it was and every invalid op is reported. */
  PrunerStatus first = prunerStatusOk();
  for (int i = 0; i < list.count; ++i) {
    s = check(&list.ops[i], target);
    if (!s.ok && first.ok)
      first = s;
  }
  if (!first.ok || list.count == 0) {
    free(list.ops);
    return first;
  }
  for (int i = 0; i < list.count; ++i) {
    /* A promoted schedule tiles to threads on buffers: its inputs must stay static and
     * be views through bufferization (cast_inputs.c). Direct schedules tile on tensors
     * and are left as they were. */
    if (list.ops[i].config.promote_operands) {
      prunerIrSliceDynamicCastInputs(list.ops[i].op);
      prunerIrMaterializeSplatInputs(list.ops[i].op, list.ops[i].config.promote_operands);
    }
    tag(&list.ops[i]);
    /* Scalar multiply-adds become FMAs, as the draft counts them (schedule_ir.h). */
    s = prunerScheduleContractMulAdd(list.ops[i].op, NULL);
    if (!s.ok) {
      free(list.ops);
      mlirOperationWalk(module, removeTags, NULL, MlirWalkPostOrder);
      return failOnModule(module, s);
    }
  }
  MlirModule *schedules = calloc((size_t)list.count, sizeof *schedules);
  if (!schedules) {
    free(list.ops);
    mlirOperationWalk(module, removeTags, NULL, MlirWalkPostOrder);
    return failOnModule(module, prunerStatusError("pruner-apply-config: out of memory"));
  }

  MlirTransformOptions options = mlirTransformOptionsCreate();
  s = canonicalizeRest(module, &list, options);
  /* Tile every op before bufferizing: the op handles are gone after bufferization. */
  const Configured *any = NULL; /* an op whose schedule holds the module-wide sequences */
  MlirModule shared = {NULL};
  for (int i = 0; i < list.count && s.ok; ++i) {
    s = build(module, &list.ops[i], gpu_mapping, &schedules[i]);
    if (s.ok && list.ops[i].alive) {
      s = applySequence(module, schedules[i], "pruner_tile", options, &list.ops[i]);
      any = &list.ops[i];
      shared = schedules[i];
    }
  }
  if (s.ok && any)
    s = applySequence(module, shared, "pruner_bufferize", options, any);
  /* The pipelined tiles' rows padded against ldmatrix bank conflicts (schedule_ir.h),
   * before @pruner_promote multi-buffers them. */
  for (int i = 0; i < list.count && s.ok && any; ++i) {
    if (!list.ops[i].alive || !prunerConfigIsPipelinedMma(&list.ops[i].config))
      continue;
    char step_tag[sizeof list.ops[i].tag + 16];
    snprintf(step_tag, sizeof step_tag, "%s.promote", list.ops[i].tag);
    s = prunerSchedulePadStagedRows(module, step_tag, NULL);
    if (!s.ok)
      s = failOn(&list.ops[i], s);
  }
  for (int i = 0; i < list.count && s.ok && any; ++i)
    if (list.ops[i].alive)
      s = applySequence(module, schedules[i], "pruner_promote", options, &list.ops[i]);
  for (int i = 0; i < list.count && s.ok && any; ++i)
    if (list.ops[i].alive)
      s = applySequence(module, schedules[i], "pruner_map", options, &list.ops[i]);
  if (s.ok && any)
    s = applySequence(module, shared, "pruner_cleanup", options, any);
  /* The rewrites the transform dialect cannot express (schedule_ir.h): vector alignment,
   * split-K's device workspaces, pipelined waits, the shared space as a number. */
  if (s.ok && any && gpu_mapping) {
    s = prunerScheduleFinishGpuModule(module);
    if (!s.ok)
      failOnModule(module, s);
  }
  mlirTransformOptionsDestroy(options);

  for (int i = 0; i < list.count; ++i)
    if (!mlirModuleIsNull(schedules[i]))
      mlirModuleDestroy(schedules[i]);
  free(schedules);
  free(list.ops);
  mlirOperationWalk(module, removeTags, NULL, MlirWalkPostOrder);
  return s;
}
