/* lib/apply/apply_host.c: prunerApplyConfig for host targets (pruner-apply-config
 * {target=host} and the first pass of pruner-cpu-pipeline), in C over the MLIR C API
 * (docs/plugin.md, docs/host.md "From a tuned module to an object").
 *
 * The tuner times each host config on a function holding the op alone (lib/backend/host). To
 * give the object file that very kernel, every op with a `pruner.config` is outlined
 * into a private function of its own (the op, its operands as arguments, the constants
 * its body captures cloned in) and the call replaces it. Each kernel function is then
 * copied into a module of its own and bufferized + scheduled there by
 * prunerHostScheduleModuleChecked, the code the tuner's JIT path runs; the user's module is
 * bufferized with the same options (identity layouts at function boundaries, results
 * equal to an argument dropped), so each kernel's bufferized signature is the same in
 * both places, and the scheduled body replaces the plain one. Ops without a config are
 * bufferized with the rest and become loops in the lowering (convert-linalg-to-loops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "apply_internal.h"
#include "pruner/backend/host_ir.h"
#include "pruner/backend/host_rules.h"
#include "pruner/ir.h"
#include "pruner/schedule.h"
#include "pruner/space.h"
#include "pruner/target.h"

#define KERNEL_PREFIX "__pruner_host_kernel_"

typedef struct Kernel {
  MlirOperation op; /* the configured op; gone once outlined */
  MlirLocation loc;
  PrunerWorkload w;
  PrunerConfig config;
  char name[64];        /* the outlined function */
  MlirModule scheduled; /* holds the scheduled copy of that function */
} Kernel;

typedef struct KernelList {
  MlirOperation root;
  Kernel *items;
  int count, capacity;
  bool oom;
} KernelList;

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool nameIs(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

static MlirWalkResult collect(MlirOperation op, void *user) {
  KernelList *list = user;
  if (prunerApplySkipNested(op, list->root))
    return MlirWalkResultSkip;
  if (!prunerIsLinalgOp(op) ||
      mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(op, str(PRUNER_CONFIG_ATTR))))
    return MlirWalkResultAdvance;
  if (list->count == list->capacity) {
    int cap = list->capacity ? 2 * list->capacity : 8;
    Kernel *items = realloc(list->items, (size_t)cap * sizeof *items);
    if (!items) {
      list->oom = true;
      return MlirWalkResultInterrupt;
    }
    list->items = items;
    list->capacity = cap;
  }
  Kernel *k = &list->items[list->count++];
  memset(k, 0, sizeof *k);
  k->op = op;
  k->loc = mlirOperationGetLocation(op);
  return MlirWalkResultSkip; /* a configured op's regions hold no other linalg op */
}

static PrunerStatus failOn(MlirOperation op, PrunerStatus s) {
  char name[64];
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(name, sizeof name, "%.*s", (int)n.length, n.data);
  PrunerStatus e =
      strncmp(s.message, PRUNER_CONFIG_ATTR " on ", strlen(PRUNER_CONFIG_ATTR) + 4) == 0
          ? s
          : prunerStatusError("pruner.config on %s: %s", name, s.message);
  prunerEmitError(op, e.message);
  return e;
}

static PrunerStatus failAt(MlirLocation loc, PrunerStatus s) {
  mlirEmitError(loc, s.message);
  return s;
}

/* Workload (linalg on tensors only: the kernel is bufferized with its caller), config
 * and the host rules. Every problem is an error on the op. */
static PrunerStatus check(Kernel *k, const PrunerTargetDesc *target) {
  if (mlirOperationIsNull(prunerApplyEnclosingFunc(k->op)))
    return failOn(k->op, prunerStatusError("not inside a func.func: the host's apply outlines "
                                           "the linalg ops of func.func functions"));
  PrunerStatus s = prunerWorkloadFromOperation(k->op, &k->w);
  if (!s.ok)
    return failOn(k->op, s);
  s = prunerConfigFromAttribute(
      &k->w, mlirOperationGetDiscardableAttributeByName(k->op, str(PRUNER_CONFIG_ATTR)),
      &k->config);
  if (!s.ok)
    return failOn(k->op, s);
  s = prunerHostConfigCheck(&k->w, target, NULL, &k->config);
  if (!s.ok)
    return failOn(k->op, s);
  return prunerStatusOk();
}

/* ---- outlining ------------------------------------------------------------------------ */

typedef struct Captures {
  MlirOperation root;
  MlirValue values[64];
  int count;
  bool overflow;
} Captures;

/* True when `v` is defined outside `root` (its owner is not nested in it). */
static bool definedOutside(MlirValue v, MlirOperation root) {
  MlirOperation owner = mlirValueIsAOpResult(v)
                            ? mlirOpResultGetOwner(v)
                            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  for (; !mlirOperationIsNull(owner); owner = mlirOperationGetParentOperation(owner))
    if (mlirOperationEqual(owner, root))
      return false;
  return true;
}

static int captureIndex(const Captures *c, MlirValue v) {
  for (int i = 0; i < c->count; ++i)
    if (mlirValueEqual(c->values[i], v))
      return i;
  return -1;
}

/* Values used inside the op's regions but defined outside it (a body's constants). */
static MlirWalkResult findCaptures(MlirOperation op, void *user) {
  Captures *c = user;
  if (mlirOperationEqual(op, c->root))
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!definedOutside(v, c->root) || captureIndex(c, v) >= 0)
      continue;
    if (c->count == (int)(sizeof c->values / sizeof c->values[0])) {
      c->overflow = true;
      return MlirWalkResultInterrupt;
    }
    c->values[c->count++] = v;
  }
  return MlirWalkResultAdvance;
}

typedef struct Remap {
  MlirOperation root;
  const Captures *from;
  MlirValue to[64];
} Remap;

static MlirWalkResult remapCaptures(MlirOperation op, void *user) {
  Remap *r = user;
  if (mlirOperationEqual(op, r->root))
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    int j = captureIndex(r->from, mlirOperationGetOperand(op, i));
    if (j >= 0)
      mlirOperationSetOperand(op, i, r->to[j]);
  }
  return MlirWalkResultAdvance;
}

static bool isConstant(MlirValue v) {
  return mlirValueIsAOpResult(v) && nameIs(mlirOpResultGetOwner(v), "arith.constant");
}

/* @name in the module's symbol table (null when absent); MLIR's lookup, not sym_name
 * matching (prunerIrLookupSymbol lives in pruner_ir_context, which the plugin must not
 * link: docs/plugin.md). */
static MlirOperation findSymbol(MlirOperation module, const char *name) {
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  MlirOperation op = mlirSymbolTableLookup(table, str(name));
  mlirSymbolTableDestroy(table);
  return op;
}

static bool symbolExists(MlirOperation module, const char *name) {
  return !mlirOperationIsNull(findSymbol(module, name));
}

/* The op's ancestor that sits directly in the module's body. */
static MlirOperation topLevelAncestor(MlirOperation op, MlirOperation module) {
  MlirOperation parent = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(parent) && !mlirOperationEqual(parent, module)) {
    op = parent;
    parent = mlirOperationGetParentOperation(op);
  }
  return op;
}

static bool runPipeline(MlirOperation module, const char *pipeline);

/* Replaces k->op by `func.call @name(operands..., captured non-constants...)` and puts
 * `func.func private @name` holding a copy of the op before the op's enclosing function;
 * the copy, in a module of its own, is written in the form the tuner measured. */
static PrunerStatus outline(Kernel *k, MlirOperation module, int index) {
  MlirContext ctx = mlirOperationGetContext(k->op);
  MlirOperation op = k->op;
  Captures caps = {.root = op};
  mlirOperationWalk(op, findCaptures, &caps, MlirWalkPreOrder);
  if (caps.overflow)
    return failOn(op, prunerStatusError("the op's body uses more than 64 values defined "
                                        "outside it"));
  for (int n = 0;; ++n) {
    snprintf(k->name, sizeof k->name, n ? KERNEL_PREFIX "%d_%d" : KERNEL_PREFIX "%d", index, n);
    if (!symbolExists(module, k->name))
      break;
  }
  /* Arguments: the op's operands, then the captured values that are not constants. */
  intptr_t nops = mlirOperationGetNumOperands(op);
  intptr_t nres = mlirOperationGetNumResults(op);
  MlirValue args[PRUNER_MAX_OPERANDS + 64];
  MlirType arg_types[PRUNER_MAX_OPERANDS + 64], res_types[PRUNER_MAX_OPERANDS];
  MlirLocation arg_locs[PRUNER_MAX_OPERANDS + 64];
  if (nops > PRUNER_MAX_OPERANDS || nres > PRUNER_MAX_OPERANDS)
    return failOn(op, prunerStatusError("too many operands or results to outline"));
  int nargs = 0;
  for (intptr_t i = 0; i < nops; ++i)
    args[nargs++] = mlirOperationGetOperand(op, i);
  for (int i = 0; i < caps.count; ++i)
    if (!isConstant(caps.values[i]))
      args[nargs++] = caps.values[i];
  for (int i = 0; i < nargs; ++i) {
    arg_types[i] = mlirValueGetType(args[i]);
    arg_locs[i] = k->loc;
  }
  for (intptr_t i = 0; i < nres; ++i)
    res_types[i] = mlirValueGetType(mlirOperationGetResult(op, i));

  /* The body: captured constants, the op's copy, the return. */
  MlirBlock body = mlirBlockCreate(nargs, arg_types, arg_locs);
  Remap remap = {.from = &caps};
  for (int i = 0, a = (int)nops; i < caps.count; ++i) {
    if (isConstant(caps.values[i])) {
      MlirOperation cst = mlirOperationClone(mlirOpResultGetOwner(caps.values[i]));
      mlirBlockAppendOwnedOperation(body, cst);
      remap.to[i] = mlirOperationGetResult(cst, 0);
    } else {
      remap.to[i] = mlirBlockGetArgument(body, a++);
    }
  }
  MlirOperation copy = mlirOperationClone(op);
  for (intptr_t i = 0; i < nops; ++i)
    mlirOperationSetOperand(copy, i, mlirBlockGetArgument(body, i));
  remap.root = copy;
  mlirOperationWalk(copy, remapCaptures, &remap, MlirWalkPreOrder);
  mlirBlockAppendOwnedOperation(body, copy);
  MlirValue results[PRUNER_MAX_OPERANDS];
  for (intptr_t i = 0; i < nres; ++i)
    results[i] = mlirOperationGetResult(copy, i);
  MlirOperationState ret = mlirOperationStateGet(str("func.return"), k->loc);
  mlirOperationStateAddOperands(&ret, nres, results);
  mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&ret));

  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirType fn_type = mlirFunctionTypeGet(ctx, nargs, arg_types, nres, res_types);
  MlirNamedAttribute fattrs[3] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_name")),
                            mlirStringAttrGet(ctx, str(k->name))),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("function_type")), mlirTypeAttrGet(fn_type)),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_visibility")),
                            mlirStringAttrGet(ctx, str("private")))};
  MlirOperationState fs = mlirOperationStateGet(str("func.func"), k->loc);
  mlirOperationStateAddAttributes(&fs, 3, fattrs);
  mlirOperationStateAddOwnedRegions(&fs, 1, &region);
  MlirOperation func = mlirOperationCreate(&fs);
  MlirOperation anchor = topLevelAncestor(op, module);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor), anchor, func);

  /* The call replaces the op. */
  MlirNamedAttribute callee = mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("callee")),
                                                    mlirFlatSymbolRefAttrGet(ctx, str(k->name)));
  MlirOperationState cs = mlirOperationStateGet(str("func.call"), k->loc);
  mlirOperationStateAddOperands(&cs, nargs, args);
  mlirOperationStateAddResults(&cs, nres, res_types);
  mlirOperationStateAddAttributes(&cs, 1, &callee);
  MlirOperation call = mlirOperationCreate(&cs);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, call);
  for (intptr_t i = 0; i < nres; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i), mlirOperationGetResult(call, i));
  mlirOperationDestroy(op);
  k->op = (MlirOperation){NULL};

  /* The scheduled copy, in a module of its own as when the tuner measured it. */
  k->scheduled = mlirModuleCreateEmpty(k->loc);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(k->scheduled), mlirOperationClone(func));
  /* The tuner measured the op in its payload's form (pruner/schedule.h), and the schedule
   * matches that: a named op with indexing maps of its own (a transposed linalg.matmul,
   * linalg.contract) is a contraction there, written as a linalg.generic; a
   * linalg.contract with a matmul's maps is a linalg.matmul (batch_matmul). The kernel
   * holds that one op, so generalizing (and specializing) its named ops rewrites it
   * alone. */
  const char *payload = prunerSchedulePayloadOpName(&k->w);
  if (!nameIs(copy, payload)) {
    bool generic = !strcmp(payload, "linalg.generic");
    bool ok = runPipeline(mlirModuleGetOperation(k->scheduled),
                          generic ? "builtin.module(func.func(linalg-generalize-named-ops))"
                                  : "builtin.module(func.func(linalg-generalize-named-ops,"
                                    "linalg-specialize-generic-ops))");
    MlirOperation kernel = mlirBlockGetFirstOperation(mlirModuleGetBody(k->scheduled));
    if (!ok || prunerIrOpsNamed(kernel, payload, NULL, 0) != 1)
      return failAt(k->loc, prunerStatusError("pruner-cpu-pipeline: %s could not be written as "
                                              "the %s the tuner measured",
                                              k->w.op_name, payload));
  }
  return prunerStatusOk();
}

/* ---- the pass ------------------------------------------------------------------------- */

static bool runPipeline(MlirOperation module, const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(mlirOperationGetContext(module));
  MlirLogicalResult r = prunerIrParsePipeline(mlirPassManagerGetAsOpPassManager(pm), pipeline,
                                              mlirOperationGetLocation(module));
  if (mlirLogicalResultIsSuccess(r))
    r = mlirPassManagerRunOnOp(pm, module);
  mlirPassManagerDestroy(pm);
  return mlirLogicalResultIsSuccess(r);
}

/* Sets (private) or clears (NULL) sym_visibility on the public functions with a body;
 * `publics` holds them (at most `cap`), `*n` their count. */
static void setPublicVisibility(MlirOperation module, MlirOperation *publics, int cap, int *n,
                                bool hide) {
  MlirContext ctx = mlirOperationGetContext(module);
  if (!hide) {
    for (int i = 0; i < *n; ++i)
      mlirOperationRemoveAttributeByName(publics[i], str("sym_visibility"));
    return;
  }
  *n = 0;
  MlirOperation op =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)));
  for (; !mlirOperationIsNull(op) && *n < cap; op = mlirOperationGetNextInBlock(op)) {
    if (!nameIs(op, "func.func") ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))) ||
        !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("sym_visibility"))))
      continue;
    mlirOperationSetAttributeByName(op, str("sym_visibility"),
                                    mlirStringAttrGet(ctx, str("private")));
    publics[(*n)++] = op;
  }
}

/* The kernels' own bufferization on the whole module. Public functions are private
 * meanwhile, so that their results equal to an argument are dropped too: the C entry
 * point writes its outputs into the caller's buffers (docs/host.md, "ABI"). Then
 * deallocations for the buffers the module allocates itself (one-shot bufferization
 * inserts none), lowered to memref.dealloc / copies. */
static PrunerStatus bufferizeModule(MlirOperation module) {
  MlirOperation publics[256];
  int n = 0;
  setPublicVisibility(module, publics, 256, &n, true);
  bool ok = runPipeline(module, prunerHostBufferizePipeline());
  setPublicVisibility(module, publics, 256, &n, false);
  ok = ok && runPipeline(module, "builtin.module(buffer-deallocation-pipeline,"
                                 "convert-bufferization-to-memref,canonicalize)");
  if (ok)
    return prunerStatusOk();
  PrunerStatus s =
      prunerStatusError("pruner-cpu-pipeline: bufferization failed (see the errors above)");
  prunerEmitError(module, s.message);
  return s;
}

/* The scheduled kernel's ops keep no pruner.config: the config is applied, and a linalg
 * op the schedule leaves (a scalar tile, on memrefs) would otherwise read as configured
 * to a later pass ("operand 0 is a memref: buffer semantics are not tuned"). */
static MlirWalkResult dropConfig(MlirOperation op, void *user) {
  (void)user;
  mlirOperationRemoveDiscardableAttributeByName(op, str(PRUNER_CONFIG_ATTR));
  return MlirWalkResultAdvance;
}

/* Swaps the bufferized plain kernel of `k` for its scheduled copy. */
static PrunerStatus swapIn(Kernel *k, MlirOperation module) {
  MlirOperation plain = findSymbol(module, k->name);
  MlirOperation sched = mlirBlockGetFirstOperation(mlirModuleGetBody(k->scheduled));
  if (mlirOperationIsNull(plain) || mlirOperationIsNull(sched))
    return failAt(k->loc, prunerStatusError("pruner-cpu-pipeline: kernel @%s vanished during "
                                            "bufferization",
                                            k->name));
  MlirAttribute a = mlirOperationGetAttributeByName(plain, str("function_type"));
  MlirAttribute b = mlirOperationGetAttributeByName(sched, str("function_type"));
  if (!mlirAttributeEqual(a, b))
    return failAt(k->loc, prunerStatusError("pruner-cpu-pipeline: kernel @%s of %s: the "
                                            "scheduled signature differs from the module's "
                                            "bufferized one",
                                            k->name, k->w.key));
  MlirOperation copy = mlirOperationClone(sched);
  /* Internal linkage: objects made from two modules link together without clashing
   * kernel names (convert-func-to-llvm reads llvm.linkage). */
  MlirAttribute internal =
      mlirAttributeParseGet(mlirOperationGetContext(module), str("#llvm.linkage<internal>"));
  if (!mlirAttributeIsNull(internal))
    mlirOperationSetDiscardableAttributeByName(copy, str("llvm.linkage"), internal);
  mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(plain), plain, copy);
  mlirOperationDestroy(plain);
  return prunerStatusOk();
}

/* `llvm.emit_c_interface` on every public function with a body: convert-func-to-llvm
 * then adds `_mlir_ciface_<name>`, which takes memref descriptors by pointer. */
static void emitCInterface(MlirOperation module) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirOperation op =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)));
  for (; !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!nameIs(op, "func.func") || mlirRegionIsNull(mlirOperationGetRegion(op, 0)) ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    MlirAttribute vis = mlirOperationGetAttributeByName(op, str("sym_visibility"));
    if (!mlirAttributeIsNull(vis))
      continue; /* private or nested */
    mlirOperationSetDiscardableAttributeByName(op, str("llvm.emit_c_interface"),
                                               mlirUnitAttrGet(ctx));
  }
}

PrunerStatus prunerApplyHost(MlirOperation module, const PrunerTargetDesc *target,
                             bool c_interface) {
  PrunerStatus s = prunerStatusOk();
  KernelList list = {module, NULL, 0, 0, false};
  mlirOperationWalk(module, collect, &list, MlirWalkPreOrder);
  if (list.oom) {
    free(list.items);
    s = prunerStatusError("pruner-cpu-pipeline: out of memory");
    prunerEmitError(module, s.message);
    return s;
  }
  /* Every config is checked before anything changes: a bad one leaves the module as it
   * was, with an error on each bad op. */
  for (int i = 0; i < list.count; ++i) {
    PrunerStatus c = check(&list.items[i], target);
    if (!c.ok && s.ok)
      s = c;
  }
  int outlined = 0;
  for (; outlined < list.count && s.ok; ++outlined)
    s = outline(&list.items[outlined], module, outlined);
  for (int i = 0; i < outlined && s.ok; ++i) {
    Kernel *k = &list.items[i];
    s = prunerHostScheduleModuleChecked(k->scheduled, &k->w, &k->config, target);
    if (s.ok)
      mlirOperationWalk(mlirModuleGetOperation(k->scheduled), dropConfig, NULL,
                        MlirWalkPreOrder);
    if (!s.ok)
      failAt(k->loc,
             prunerStatusError("pruner-cpu-pipeline: %s (see the errors above)", s.message));
  }
  if (s.ok)
    s = bufferizeModule(module);
  for (int i = 0; i < outlined && s.ok; ++i)
    s = swapIn(&list.items[i], module);
  if (s.ok && c_interface)
    emitCInterface(module);
  for (int i = 0; i < outlined; ++i)
    if (!mlirModuleIsNull(list.items[i].scheduled))
      mlirModuleDestroy(list.items[i].scheduled);
  free(list.items);
  return s;
}
