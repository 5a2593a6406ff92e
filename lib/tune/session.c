/* lib/tune/session.c: the MLIR side of the driver: read the module, collect tunable ops,
 * write `pruner.config` / `pruner.tuning` back, and produce the summary table. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>

#include "pruner/draft.h"
#include "pruner/file.h"
#include "pruner/ir.h"
#include "pruner/ir_context.h"
#include "pruner/tune.h"
#include "tune_internal.h"

/* One tunable op: its task, or (task -1) a consumer fused into the contraction at
 * s->ops[fused_into] (prunerFusibleConsumer; backends with fuses_consumers), with its own
 * workload for the case that the contraction's winner cannot take it (its schedule fuses no
 * consumer: PrunerBackend.consumerRefusal). */
typedef struct TuneOpRef {
  MlirOperation op;
  int task;
  int fused_into;
  PrunerWorkload *own;
  MlirOperation consumer; /* of a task's op: prunerFusibleConsumer (fusing backends), or null */
} TuneOpRef;

struct PrunerTuneSessionImpl {
  TuneEngine engine;
  char *input_path;
  char *input_text;
  size_t input_size;
  MlirContext ctx;
  MlirModule module;
  bool owns_module; /* parsed here (Create); false: the caller's (CreateForModule) */
  int convs_rewritten; /* conv1x1_as_matmul's count: the module changed, never copy the
                          input out; the spec says so */
  TuneOpRef *ops;
  size_t num_ops;
  size_t cap_ops;
  char first_error[PRUNER_STATUS_MESSAGE_SIZE];
};

const char *prunerTuneStrategyName(PrunerTuneStrategy strategy) {
  switch (strategy) {
  case PRUNER_TUNE_DRAFT_VERIFIER: return "draft+verifier";
  case PRUNER_TUNE_DRAFT_ONLY: return "draft-only";
  case PRUNER_TUNE_VERIFIER_ONLY: return "verifier-only";
  case PRUNER_TUNE_MODEL_ONLY: return "model-only";
  case PRUNER_TUNE_RANDOM: return "random";
  case PRUNER_TUNE_AUTO: return "auto";
  default: return "?";
  }
}

const char *prunerTuneMeasureName(PrunerTuneMeasure measure) {
  switch (measure) {
  case PRUNER_TUNE_MEASURE_GPU: return "gpu";
  case PRUNER_TUNE_MEASURE_BUNDLE: return "bundle";
  case PRUNER_TUNE_MEASURE_REPLAY: return "replay";
  case PRUNER_TUNE_MEASURE_NONE: return "none";
  case PRUNER_TUNE_MEASURE_HOST: return "host";
  default: return "?";
  }
}

PrunerTuneOptions prunerTuneDefaultOptions(void) {
  PrunerTuneOptions o;
  memset(&o, 0, sizeof o);
  o.target = "sm_90";
  o.trials = 200;
  o.draft_size = 512; /* Pruner's draft size (ASPLOS'25, Sec. 6) */
  o.neighbours = PRUNER_TUNE_NEIGHBOURS;
  o.first_batch_tiles = PRUNER_TUNE_FIRST_BATCH_TILES;
  o.batch = 16;
  o.epsilon = 0.1;    /* Pruner measures 9 best + 1 random per round */
  o.gradient_scheduler = true;
  o.warmup_rounds = 1;
  /* Per op (prunerTuneStrategyFor): draft+verifier except on host matmuls and
   * batch_matmuls, chosen leave-one-dataset-out (docs/tune.md, "auto"). */
  o.strategy = PRUNER_TUNE_AUTO;
  o.measure = PRUNER_TUNE_MEASURE_GPU;
  o.seed = 1;
  o.final_candidates = 4; /* docs/measurement.md, "Host: the final check" */
  o.keep_faster_default = true;
  o.prior_momentum = -1;
  o.prior_floor = -1;
  o.prior_floor_unseen = -1;
  return o;
}

/* ---------------------------------------------------------------------------------- */
/* Reading                                                                             */

static void tuneAppendToString(MlirStringRef s, void *user) {
  prunerTextAppendBytes((PrunerText *)user, s.data, s.length);
}

static MlirLogicalResult tuneDiagnostic(MlirDiagnostic d, void *user) {
  PrunerTuneSession s = user;
  if (mlirDiagnosticGetSeverity(d) == MlirDiagnosticError && !s->first_error[0]) {
    PrunerText b = {0};
    MlirLocation loc = mlirDiagnosticGetLocation(d);
    if (mlirLocationIsAFileLineColRange(loc)) { /* the compiler style: file:line:col */
      MlirStringRef file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
      prunerTextAppendBytes(&b, file.data, file.length);
      prunerTextAppend(&b, ":%d:%d", mlirLocationFileLineColRangeGetStartLine(loc),
                    mlirLocationFileLineColRangeGetStartColumn(loc));
    } else {
      mlirLocationPrint(loc, tuneAppendToString, &b);
    }
    prunerTextAppendBytes(&b, ": ", 2);
    mlirDiagnosticPrint(d, tuneAppendToString, &b);
    snprintf(s->first_error, sizeof s->first_error, "%s", b.data ? b.data : "error");
    free(b.data);
  }
  return mlirLogicalResultSuccess();
}

/* The first op of a dialect the context does not load, for prunerTuneSessionCreate. */
static MlirWalkResult tuneFindUnregistered(MlirOperation op, void *user) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirContextIsRegisteredOperation(mlirOperationGetContext(op), name))
    return MlirWalkResultAdvance;
  *(MlirOperation *)user = op;
  return MlirWalkResultInterrupt;
}

typedef struct TuneWalk {
  PrunerTuneSession session;
  bool failed;
} TuneWalk;

static bool tuneGrowOps(PrunerTuneSession s) {
  if (s->num_ops < s->cap_ops)
    return true;
  size_t cap = s->cap_ops ? 2 * s->cap_ops : 16;
  TuneOpRef *ops = realloc(s->ops, cap * sizeof *ops);
  if (!ops)
    return false;
  s->ops = ops;
  s->cap_ops = cap;
  return true;
}

/* The index in s->ops of the tuned contraction whose fusible consumer `op` is, or -1.
 * The walk is pre-order, so a producer in the same block is always seen first. */
static int tuneFusedProducer(PrunerTuneSession s, MlirOperation op) {
  for (size_t i = 0; i < s->num_ops; ++i)
    if (!mlirOperationIsNull(s->ops[i].consumer) && mlirOperationEqual(s->ops[i].consumer, op))
      return (int)i;
  return -1;
}

static MlirWalkResult tuneVisit(MlirOperation op, const PrunerWorkload *w,
                                const PrunerStatus *why, void *user) {
  TuneWalk *walk = user;
  PrunerTuneSession s = walk->session;
  char where[256];
  if (!w) {
    /* Fills and copies (fused into a neighbour) never reach here; the rest get a remark. */
    prunerOperationLocationString(op, where, sizeof where);
    tuneNote(&s->engine, -1, "remark: not tuned: %s: %s", where, why->message);
    return MlirWalkResultAdvance;
  }
  /* The passes check every config with the same rules (prunerConfigCheck calls it), so
   * no config is written that pruner-apply-config cannot build. */
  PrunerStatus buildable = prunerWorkloadCheckSchedulable(w, &s->engine.target);
  if (buildable.ok && s->engine.backend->top_level_forall)
    buildable = prunerIrCheckGpuPlacement(op);
  if (!buildable.ok) {
    prunerOperationLocationString(op, where, sizeof where);
    tuneNote(&s->engine, -1, "remark: not tuned: %s: %s", where, buildable.message);
    return MlirWalkResultAdvance;
  }
  /* Sizes no kernel can index or the target cannot hold are left alone, not tuned. */
  PrunerStatus size = prunerWorkloadCheckSize(w, &s->engine.target);
  if (!size.ok) {
    char loc[256];
    prunerOperationLocationString(op, loc, sizeof loc);
    tuneNote(&s->engine, -1, "remark: %s: not tuned: %s", loc, size.message);
    return MlirWalkResultAdvance;
  }
  if (!tuneGrowOps(s)) {
    walk->failed = true;
    return MlirWalkResultInterrupt;
  }
  int producer = tuneFusedProducer(s, op);
  if (producer >= 0) {
    PrunerWorkload *own = malloc(sizeof *own);
    if (!own) {
      walk->failed = true;
      return MlirWalkResultInterrupt;
    }
    *own = *w;
    s->ops[s->num_ops++] = (TuneOpRef){op, -1, producer, own, {NULL}};
    return MlirWalkResultAdvance;
  }
  prunerOperationLocationString(op, where, sizeof where);
  int task = tuneEngineAddWorkload(&s->engine, w, where);
  if (task < 0) {
    walk->failed = true;
    return MlirWalkResultInterrupt;
  }
  MlirOperation consumer = {NULL};
  if (s->engine.backend->fuses_consumers)
    consumer = prunerFusibleConsumer(op, w);
  s->ops[s->num_ops++] = (TuneOpRef){op, task, -1, NULL, consumer};
  return MlirWalkResultAdvance;
}

/* What both Creates share once s->module is set: collect the tunable ops into tasks,
 * check the resumed records, ingest runner results, prepare the engine. `what` names the
 * module in messages. On failure the caller destroys the session. */
static PrunerStatus tuneSessionStart(PrunerTuneSession s, const PrunerTuneOptions *opts,
                                     const char *what) {
  TuneWalk walk = {s, false};
  prunerWalkTunableOps(mlirModuleGetOperation(s->module), tuneVisit, &walk);
  if (walk.failed)
    return prunerStatusError("out of memory collecting the ops of %s", what);
  if (s->engine.num_tasks == 0)
    tuneNote(&s->engine, -1, "remark: %s has no tunable linalg op; the output equals the input",
             what);
  tuneFilterRecords(&s->engine, s->engine.records); /* tasks known: check the resumed log */
  if (opts->ingest_path) {
    PrunerStatus st = tuneIngest(&s->engine, opts->ingest_path);
    if (!st.ok)
      return st;
  }
  return tuneEnginePrepare(&s->engine);
}

/* A session that fails to start leaves no records file it created (an empty log named by
 * --records was left behind by a module that did not parse): the engine removes it
 * (tuneEngineDestroy, prunerRecordsDiscardIfNew). */
static PrunerStatus tuneSessionCreateFailed(PrunerTuneSession s, PrunerStatus st) {
  prunerTuneSessionDestroy(s);
  return st;
}

PrunerStatus prunerTuneSessionCreate(const char *input_path, const PrunerTuneOptions *opts,
                                     PrunerTuneSession *out) {
  *out = NULL;
  PrunerTuneOptions defaults = prunerTuneDefaultOptions();
  if (!opts)
    opts = &defaults;
  PrunerTuneSession s = calloc(1, sizeof *s);
  if (!s)
    return prunerStatusError("out of memory");
  PrunerStatus st = tuneEngineInit(&s->engine, opts);
  if (st.ok)
    st = prunerReadFile(input_path, &s->input_text, &s->input_size);
  if (!st.ok)
    return tuneSessionCreateFailed(s, st);
  s->input_path = strdup(input_path);
  if (!opts || !opts->input_parse_checked)
    st = prunerIrCheckParseIsolated(s->input_text, s->input_size, input_path);
  if (!st.ok)
    return tuneSessionCreateFailed(s, st);
  s->ctx = prunerIrContextCreate();
  s->owns_module = true;
  mlirContextAttachDiagnosticHandler(s->ctx, tuneDiagnostic, s, NULL);
  /* A module pruner-tune wrote for IREE carries IREE's attributes (compilation_info), which
   * parse as opaque attributes only with unregistered dialects allowed; operations of such
   * dialects are refused after the parse, as the parser would have (docs/embedding.md). */
  mlirContextSetAllowUnregisteredDialects(s->ctx, true);
  /* Parsing from a regular file keeps its name in diagnostics' locations. Anything else
   * ("-", /dev/stdin, a pipe) was consumed by the read above: a second read would parse
   * an empty module and copy whatever text came in to -o as "tuned", so the text read is
   * what is parsed. */
  struct stat input_stat;
  if (stat(input_path, &input_stat) == 0 && S_ISREG(input_stat.st_mode))
    s->module = mlirModuleCreateParseFromFile(s->ctx, mlirStringRefCreateFromCString(input_path));
  else
    s->module = mlirModuleCreateParse(s->ctx, mlirStringRefCreate(s->input_text, s->input_size));
  mlirContextSetAllowUnregisteredDialects(s->ctx, false);
  MlirOperation unknown = {NULL};
  if (!mlirModuleIsNull(s->module))
    mlirOperationWalk(mlirModuleGetOperation(s->module), tuneFindUnregistered, &unknown,
                      MlirWalkPreOrder);
  if (!mlirOperationIsNull(unknown)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(unknown));
    char msg[300];
    snprintf(msg, sizeof msg, "'%.*s' is an operation of a dialect pruner-tune does not load",
             (int)name.length, name.data);
    mlirEmitError(mlirOperationGetLocation(unknown), msg);
  }
  if (mlirModuleIsNull(s->module) || !mlirOperationIsNull(unknown)) {
    st = prunerStatusError("%s: cannot parse the module: %s", input_path,
                           s->first_error[0] ? s->first_error : "unknown parse error");
    return tuneSessionCreateFailed(s, st);
  }
  if (!opts || !opts->conv1x1_as_matmul) {
    int convs = prunerIrCountConv1x1AsMatmul(mlirModuleGetOperation(s->module));
    if (convs > 0)
      tuneNote(&s->engine, -1,
               "remark: %d 1x1 stride-1 conv op(s) are GEMMs but are tuned "
               "here as convs: rewritten as linalg.matmul first (pruner-tune's default; "
               "prunerIrConv1x1ToMatmul) they get GEMM tiles, tensor cores for f16/bf16 on "
               "GPUs (docs/tune.md)",
               convs);
  } else {
    int rewritten = 0;
    st = prunerIrConv1x1ToMatmul(mlirModuleGetOperation(s->module), &rewritten);
    if (!st.ok)
      return tuneSessionCreateFailed(s, st);
    s->convs_rewritten = rewritten;
    if (rewritten > 0)
      tuneNote(&s->engine, -1,
               "remark: %d 1x1 stride-1 conv op(s) rewritten as "
               "linalg.matmul (conv1x1_as_matmul): tuned and written as GEMMs (docs/tune.md)",
               rewritten);
  }
  st = tuneSessionStart(s, opts, input_path);
  if (!st.ok)
    return tuneSessionCreateFailed(s, st);
  *out = s;
  return prunerStatusOk();
}

PrunerStatus prunerTuneSessionCreateForModule(MlirModule module, const PrunerTuneOptions *opts,
                                              PrunerTuneSession *out) {
  *out = NULL;
  if (mlirModuleIsNull(module))
    return prunerStatusError("no module to tune (a null MlirModule)");
  PrunerTuneOptions defaults = prunerTuneDefaultOptions();
  if (!opts) /* NULL: the defaults, as prunerApplyConfig takes NULL options */
    opts = &defaults;
  PrunerTuneSession s = calloc(1, sizeof *s);
  if (!s)
    return prunerStatusError("out of memory");
  PrunerStatus st = tuneEngineInit(&s->engine, opts);
  if (st.ok && opts && opts->conv1x1_as_matmul)
    st = prunerStatusError(
        "conv1x1_as_matmul rewrites the module, and a session leaves the caller's module "
        "unchanged until it annotates it: call prunerIrConv1x1ToMatmul (pruner/ir.h) on "
        "the module before creating the session");
  if (st.ok) {
    s->module = module; /* borrowed: never destroyed here, nor its context */
    s->ctx = mlirModuleGetContext(module);
    st = tuneSessionStart(s, opts, "the module");
  }
  if (!st.ok) {
    prunerTuneSessionDestroy(s);
    return st;
  }
  *out = s;
  return prunerStatusOk();
}

void prunerTuneSessionDestroy(PrunerTuneSession s) {
  if (!s)
    return;
  tuneEngineDestroy(&s->engine);
  if (s->owns_module && !mlirModuleIsNull(s->module))
    mlirModuleDestroy(s->module);
  if (s->owns_module && s->ctx.ptr)
    mlirContextDestroy(s->ctx);
  for (size_t i = 0; i < s->num_ops; ++i)
    free(s->ops[i].own);
  free(s->ops);
  free(s->input_text);
  free(s->input_path);
  free(s);
}

PrunerStatus prunerTuneSessionRun(PrunerTuneSession s) { return tuneEngineRun(&s->engine); }

bool prunerTuneSessionInterrupted(PrunerTuneSession s) { return s->engine.interrupted; }

const char *prunerTuneSessionMeasureDescription(PrunerTuneSession s) {
  return s->engine.measure_text;
}

size_t prunerTuneSessionNumTasks(PrunerTuneSession s) { return s->engine.num_tasks; }

void prunerTuneSessionGetTask(PrunerTuneSession s, size_t i, PrunerTuneTaskInfo *out) {
  if (i >= s->engine.num_tasks) { /* past the end: an empty task, not a read out of bounds */
    memset(out, 0, sizeof *out);
    return;
  }
  tuneEngineTaskInfo(&s->engine, i, out);
}

size_t prunerTuneSessionDraftTop(PrunerTuneSession s, size_t i, size_t n, PrunerConfig *out,
                                 double *predicted_us) {
  if (i >= s->engine.num_tasks)
    return 0;
  return tuneEngineDraftTop(&s->engine, i, n, out, predicted_us);
}

/* ---------------------------------------------------------------------------------- */
/* Writing                                                                             */

/* The `pruner.tuning` dictionary beside the config. */
static MlirAttribute tuneTuningAttr(PrunerTuneSession s, const PrunerTuneTaskInfo *info) {
  PrunerText b = {0};
  if (info->measured) {
    prunerTextAppend(&b, "{best_us = %.4f : f64, trials = %lld : i64, measured = true",
                  info->best_us, (long long)info->trials);
    if (info->baseline_us > 0)
      prunerTextAppend(&b, ", baseline_us = %.4f : f64, baseline = \"%s\"", info->baseline_us,
                    info->baseline_name);
    else
      prunerTextAppend(&b, ", baseline = \"none measured\"");
    /* best_us (and baseline_us) are then the final check's medians (docs/measurement.md). */
    if (info->final_checked) {
      prunerTextAppend(&b,
                    ", final_check = {candidates = %d : i64, rounds = %d : i64, "
                    "best_iqr_us = [%.4f : f64, %.4f : f64], tuning_us = %.4f : f64",
                    info->final_candidates, info->final_rounds, info->best_p25_us,
                    info->best_p75_us, info->tuning_best_us);
      if (info->baseline_p75_us > 0)
        prunerTextAppend(&b, ", baseline_iqr_us = [%.4f : f64, %.4f : f64]", info->baseline_p25_us,
                      info->baseline_p75_us);
      prunerTextAppend(&b, "}");
    }
    if (info->default_kept) /* best_us is then the config the op does not get */
      prunerTextAppend(&b, ", default_kept = true, note = \"%s measured faster than the "
                       "best config: the op keeps the compiler's default\"",
                       s->engine.backend->baseline_name);
  } else {
    prunerTextAppend(&b,
                  "{predicted_us = %.4f : f64, trials = 0 : i64, measured = false, "
                  "note = \"unmeasured: chosen by the draft and verifier models only\"",
                  info->best_us);
  }
  prunerTextAppend(&b, ", target = \"%s\"}", s->engine.target_key);
  MlirAttribute a = b.data ? mlirAttributeParseGet(s->ctx, mlirStringRefCreateFromCString(b.data))
                           : (MlirAttribute){NULL};
  free(b.data);
  return a;
}

static void tuneWriteToFile(MlirStringRef str, void *user) {
  fwrite(str.data, 1, str.length, (FILE *)user); /* errors: ferror, checked by the caller */
}

/* Writers for prunerWriteFileAtomic: the input unchanged, the module, a text. */
static bool tuneWriteInput(FILE *f, void *user) {
  PrunerTuneSession s = user;
  return fwrite(s->input_text, 1, s->input_size, f) == s->input_size;
}

static bool tuneWriteModule(FILE *f, void *user) {
  PrunerTuneSession s = user;
  mlirOperationPrint(mlirModuleGetOperation(s->module), tuneWriteToFile, f);
  return fputc('\n', f) != EOF;
}

static bool tuneWriteText(FILE *f, void *user) { return fputs((const char *)user, f) != EOF; }

/* What happens to the fused consumer s->ops[i]: true when it shares its contraction's
 * kernel (the contraction has a winner whose schedule fuses a consumer). Otherwise (`why`:
 * what the winner uses instead, NULL when there is no winner) it needs a
 * kernel of its own, and `own`/`predicted_us` get the draft's best config for it (it was
 * not tuned: which config the contraction wins is only known after tuning), or the
 * winner of the same workload where it is a task elsewhere in the module (`own_task`,
 * else -1). The same
 * holds when the contraction has no winner (it then stays unconfigured). */
static bool tuneFusedDecision(PrunerTuneSession s, size_t i, bool *has_own, PrunerConfig *own,
                              double *predicted_us, const char **why, int *own_task) {
  *has_own = false;
  *own_task = -1;
  PrunerTuneTaskInfo info;
  tuneEngineTaskInfo(&s->engine, (size_t)s->ops[s->ops[i].fused_into].task, &info);
  const PrunerBackend *backend = s->engine.backend;
  *why = NULL;
  if (info.has_best) {
    *why = backend->consumerRefusal ? backend->consumerRefusal(info.workload, &info.best) : NULL;
    if (!*why)
      return true;
  }
  /* The same workload elsewhere in the module was tuned: its winner is measured. */
  for (size_t t = 0; t < s->engine.num_tasks; ++t) {
    tuneEngineTaskInfo(&s->engine, t, &info);
    if (info.has_best && strcmp(info.workload->key, s->ops[i].own->key) == 0) {
      *has_own = true;
      *own = info.best;
      *predicted_us = info.best_us;
      *own_task = (int)t;
      return false;
    }
  }
  PrunerSpace space = NULL;
  PrunerDraft draft = NULL;
  PrunerDraftCandidate top;
  const PrunerBackend *b = s->engine.backend;
  if (b->spaceCreate(s->ops[i].own, &s->engine.target, &space).ok &&
      b->draftCreate(s->ops[i].own, &s->engine.target, &draft).ok &&
      prunerDraftTopN(draft, space, 1, &top) == 1) {
    *has_own = true;
    *own = top.config;
    *predicted_us = top.predicted_us;
  }
  prunerDraftDestroy(draft);
  prunerSpaceDestroy(space);
  return false;
}

/* The winner `config` of `w` on `op`: pruner.config, pruner.tuning, and the attribute
 * the backend's compiler reads (PrunerBackend.opAttribute: IREE's compilation_info). The
 * latter is of a dialect this context does not load: parsed as an opaque attribute. */
static PrunerStatus tuneSetWinner(PrunerTuneSession s, MlirOperation op, const PrunerWorkload *w,
                                  const PrunerConfig *config, MlirAttribute tuning) {
  MlirAttribute attr = prunerConfigToAttribute(s->ctx, w, config);
  if (mlirAttributeIsNull(attr) || mlirAttributeIsNull(tuning))
    return prunerStatusError("%s %s: cannot build the pruner.config attribute", w->op_name, w->key);
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR),
                                             attr);
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString("pruner.tuning"),
                                             tuning);
  const PrunerBackend *b = s->engine.backend;
  if (!b || !b->opAttribute)
    return prunerStatusOk();
  const char *name = NULL;
  char *text = b->opAttribute(&s->engine.target, w, config, &name);
  if (!text) { /* pruner.config stays; the compiler keeps its own choice for this op */
    tuneNote(&s->engine, -1,
             "warning: %s %s: the winner cannot be stated as the op's %s for %s; the op "
             "keeps pruner.config only",
             w->op_name, w->key, name ? name : "attribute", b->name);
    return prunerStatusOk();
  }
  bool allowed = mlirContextGetAllowUnregisteredDialects(s->ctx);
  mlirContextSetAllowUnregisteredDialects(s->ctx, true);
  MlirAttribute own = mlirAttributeParseGet(s->ctx, mlirStringRefCreateFromCString(text));
  mlirContextSetAllowUnregisteredDialects(s->ctx, allowed);
  free(text);
  if (mlirAttributeIsNull(own))
    return prunerStatusError("%s %s: cannot build the %s attribute", w->op_name, w->key, name);
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(name), own);
  return prunerStatusOk();
}

static PrunerStatus tuneWriteFused(PrunerTuneSession s, size_t i) {
  MlirOperation op = s->ops[i].op;
  const PrunerWorkload *w = s->ops[i].own;
  bool has_own;
  PrunerConfig own;
  double predicted_us = 0;
  const char *why;
  int own_task;
  bool fused = tuneFusedDecision(s, i, &has_own, &own, &predicted_us, &why, &own_task);
  /* A config from an earlier tuning would keep the consumer out of the fusion. */
  mlirOperationRemoveDiscardableAttributeByName(op, mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR));
  mlirOperationRemoveDiscardableAttributeByName(op, mlirStringRefCreateFromCString("pruner.tuning"));
  mlirOperationRemoveDiscardableAttributeByName(op, mlirStringRefCreateFromCString("pruner.fused"));
  if (fused) {
    mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString("pruner.fused"),
                                               mlirBoolAttrGet(s->ctx, 1));
    return prunerStatusOk();
  }
  if (!has_own)
    return prunerStatusOk();
  MlirAttribute tuning;
  if (own_task >= 0) { /* the winner of the same workload, tuned elsewhere */
    PrunerTuneTaskInfo info;
    tuneEngineTaskInfo(&s->engine, (size_t)own_task, &info);
    tuning = tuneTuningAttr(s, &info);
  } else {
    PrunerText b = {0};
    prunerTextAppend(&b,
                  "{predicted_us = %.4f : f64, trials = 0 : i64, measured = false, "
                  "note = \"own kernel: the contraction's %s%s, so this consumer is not "
                  "fused; chosen by the draft only\", target = \"%s\"}",
                  predicted_us, why ? "winner uses " : "tuning found no winner",
                  why ? why : "", s->engine.target_key);
    tuning = b.data ? mlirAttributeParseGet(s->ctx, mlirStringRefCreateFromCString(b.data))
                    : (MlirAttribute){NULL};
    free(b.data);
  }
  return tuneSetWinner(s, op, w, &own, tuning);
}

/* The name of the attribute the backend's compiler reads a config from on the op
 * (PrunerBackend.opAttribute: "compilation_info"), NULL when it has none. */
static const char *tuneCompilerAttributeName(PrunerTuneSession s) {
  const PrunerBackend *b = s->engine.backend;
  for (size_t i = 0; b->opAttribute && i < s->engine.num_tasks; ++i) {
    PrunerTuneTaskInfo info;
    tuneEngineTaskInfo(&s->engine, i, &info);
    if (!info.has_best)
      continue;
    const char *name = NULL;
    free(b->opAttribute(&s->engine.target, info.workload, &info.best, &name));
    return name;
  }
  return NULL;
}

static MlirWalkResult tuneRemoveAttribute(MlirOperation op, void *name) {
  mlirOperationRemoveDiscardableAttributeByName(op,
                                                mlirStringRefCreateFromCString((const char *)name));
  return MlirWalkResultAdvance;
}

/* An op whose compiler default won (default_kept): no config of ours or of the backend's
 * compiler (one from an earlier run would override the default), only pruner.tuning. */
static PrunerStatus tuneSetDefaultKept(PrunerTuneSession s, MlirOperation op,
                                       const PrunerTuneTaskInfo *info) {
  MlirAttribute tuning = tuneTuningAttr(s, info);
  if (mlirAttributeIsNull(tuning))
    return prunerStatusError("%s %s: cannot build the pruner.tuning attribute",
                             info->workload->op_name, info->workload->key);
  mlirOperationRemoveDiscardableAttributeByName(op,
                                                mlirStringRefCreateFromCString(PRUNER_CONFIG_ATTR));
  const char *name = tuneCompilerAttributeName(s);
  if (name)
    mlirOperationRemoveDiscardableAttributeByName(op, mlirStringRefCreateFromCString(name));
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString("pruner.tuning"),
                                             tuning);
  return prunerStatusOk();
}

PrunerStatus prunerTuneSessionAnnotateModule(PrunerTuneSession s) {
  for (size_t i = 0; i < s->num_ops; ++i) {
    if (s->ops[i].task < 0) {
      PrunerStatus st = tuneWriteFused(s, i);
      if (!st.ok)
        return st;
      continue;
    }
    PrunerTuneTaskInfo info;
    tuneEngineTaskInfo(&s->engine, (size_t)s->ops[i].task, &info);
    if (!info.has_best)
      continue;
    PrunerStatus st =
        info.default_kept
            ? tuneSetDefaultKept(s, s->ops[i].op, &info)
            : tuneSetWinner(s, s->ops[i].op, info.workload, &info.best, tuneTuningAttr(s, &info));
    if (!st.ok)
      return st;
  }
  return prunerStatusOk();
}

PrunerStatus prunerTuneSessionWriteOutputs(PrunerTuneSession s, const char *output,
                                           const char *spec) {
  PrunerFileOutput files[2];
  size_t n = 0;
  if (output) {
    /* A file with nothing to tune is copied byte for byte (comments and all). */
    if (s->engine.num_tasks == 0 && s->input_text && s->convs_rewritten == 0) {
      files[n++] = (PrunerFileOutput){output, tuneWriteInput, s};
    } else {
      PrunerStatus st = prunerTuneSessionAnnotateModule(s);
      if (!st.ok)
        return st;
      files[n++] = (PrunerFileOutput){output, tuneWriteModule, s};
    }
  }
  char *text = NULL;
  if (spec) {
    text = prunerTuneSessionSpecText(s);
    if (!text)
      return prunerStatusError("out of memory writing the tuning spec");
    files[n++] = (PrunerFileOutput){spec, tuneWriteText, text};
  }
  PrunerStatus st = prunerWriteFilesAtomic(files, n);
  free(text);
  return st;
}

PrunerStatus prunerTuneSessionWriteOutput(PrunerTuneSession s, const char *path) {
  return prunerTuneSessionWriteOutputs(s, path, NULL);
}

char *prunerTuneSessionSpecText(PrunerTuneSession s) {
  size_t n = 0;
  for (size_t i = 0; i < s->num_ops; ++i)
    n += s->ops[i].task < 0;
  TuneSpecConsumer *consumers = calloc(n + 1, sizeof *consumers);
  PrunerConfig *configs = calloc(n + 1, sizeof *configs);
  char *text = NULL;
  if (consumers && configs) {
    size_t k = 0;
    for (size_t i = 0; i < s->num_ops; ++i) {
      if (s->ops[i].task >= 0)
        continue;
      bool has_own;
      const char *why;
      double predicted_us;
      int own_task;
      tuneFusedDecision(s, i, &has_own, &configs[k], &predicted_us, &why, &own_task);
      consumers[k].w = s->ops[i].own;
      consumers[k].config = has_own ? &configs[k] : NULL;
      ++k;
    }
    text = tuneSpecText(&s->engine, s->ctx, consumers, n);
  }
  if (text && s->convs_rewritten > 0) {
    /* The spec matches the matmuls, not the convs of the input (docs/tuning-spec.md). */
    PrunerText b = {0};
    prunerTextAppend(&b,
                     "// %d 1x1 stride-1 conv op(s) of the input were tuned as "
                     "the linalg.matmul they are (pruner-conv1x1-to-matmul) and are matched "
                     "as such: run that pass on the original IR before this spec (IREE "
                     "rewrites such convs itself when the batch is 1).\n%s",
                     s->convs_rewritten, text);
    free(text);
    text = b.data;
  }
  free(consumers);
  free(configs);
  return text;
}

bool prunerTuneSessionCanCheckModule(PrunerTuneSession s) {
  TuneEngine *e = &s->engine;
  if (!e->backend->checkModule || e->opts.measure != e->backend->device_measure)
    return false;
  for (size_t i = 0; i < e->num_tasks; ++i) {
    PrunerTuneTaskInfo info;
    tuneEngineTaskInfo(e, i, &info);
    if (info.has_best && info.measured && !info.default_kept)
      return true;
  }
  return false;
}

/* `text` into a new temporary file named like `pattern` (its XXXXXX and `suffix_len`
 * characters after them); `path` gets the name. */
static PrunerStatus tuneTempFile(char *path, size_t size, const char *pattern, int suffix_len,
                                 const char *text, size_t len) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, size, "%s/%s", dir && *dir ? dir : "/tmp", pattern);
  int fd = mkstemps(path, suffix_len);
  if (fd < 0)
    return prunerStatusError("module check: cannot create %s: %s", path, strerror(errno));
  FILE *f = fdopen(fd, "w");
  bool ok = f && fwrite(text, 1, len, f) == len;
  ok = f && fclose(f) == 0 && ok;
  if (!f)
    close(fd);
  if (!ok) {
    unlink(path);
    return prunerStatusError("module check: cannot write %s", path);
  }
  return prunerStatusOk();
}

#define TUNE_CHECK_FUNCTIONS 8
PrunerStatus prunerTuneSessionCheckModule(PrunerTuneSession s, const char *spec_path,
                                          char **report) {
  *report = NULL;
  TuneEngine *e = &s->engine;
  if (!e->backend->checkModule)
    return prunerStatusError("module check: the %s backend has none", e->backend->name);
  PrunerFunctionSignature fs[TUNE_CHECK_FUNCTIONS];
  char skipped[300];
  size_t n = prunerIrTensorFunctions(s->module, fs, TUNE_CHECK_FUNCTIONS, skipped,
                                     sizeof skipped);
  PrunerText b = {0};
  if (skipped[0])
    prunerTextAppend(&b, "module check: left out %s\n", skipped);
  if (n > TUNE_CHECK_FUNCTIONS)
    prunerTextAppend(&b, "module check: %zu functions; the first %d are checked\n", n,
                     TUNE_CHECK_FUNCTIONS);
  if (n == 0) {
    prunerTextAppend(&b, "module check: no public function takes and returns static "
                         "tensors only: nothing to run\n");
    *report = b.data;
    return prunerStatusOk();
  }
  /* The module without the compiler's own config attribute (IREE's compilation_info):
   * annotated by this session, or left by an earlier tuning in the input, it would make
   * the build "without the spec" a tuned one. A copy: the module stays as it is. */
  char module_path[PATH_MAX], own_spec[PATH_MAX] = "";
  MlirOperation copy = {NULL};
  if (s->convs_rewritten > 0 && s->input_text) {
    /* The session rewrote 1x1 convs as matmuls; the user compiles the convs (IREE makes
     * its own matmul-shaped generic of them): the module as given is what is checked. */
    MlirModule given = mlirModuleCreateParse(
        s->ctx, mlirStringRefCreate(s->input_text, s->input_size));
    if (!mlirModuleIsNull(given))
      copy = mlirModuleGetOperation(given); /* destroyed with the copy below */
  }
  if (mlirOperationIsNull(copy))
    copy = mlirOperationClone(mlirModuleGetOperation(s->module));
  const char *attr = tuneCompilerAttributeName(s);
  if (attr)
    mlirOperationWalk(copy, tuneRemoveAttribute, (void *)attr, MlirWalkPreOrder);
  PrunerText printed = {0};
  mlirOperationPrint(copy, tuneAppendToString, &printed);
  mlirOperationDestroy(copy);
  PrunerStatus st = printed.data ? tuneTempFile(module_path, sizeof module_path,
                                                "pruner-check-XXXXXX.mlir", 5, printed.data,
                                                printed.len)
                                 : prunerStatusError("out of memory printing the module");
  free(printed.data);
  if (st.ok && !spec_path) {
    char *spec = prunerTuneSessionSpecText(s);
    st = spec ? tuneTempFile(own_spec, sizeof own_spec, "pruner-spec-XXXXXX.mlir", 5, spec,
                             strlen(spec))
              : prunerStatusError("out of memory");
    free(spec);
    spec_path = own_spec;
    if (!st.ok)
      unlink(module_path);
  }
  if (st.ok) {
    st = tuneCheckModule(e, module_path, spec_path, fs,
                         n < TUNE_CHECK_FUNCTIONS ? n : TUNE_CHECK_FUNCTIONS, &b);
    unlink(module_path);
    if (own_spec[0])
      unlink(own_spec);
  }
  if (b.failed) { /* a report cut short by a failed allocation is not the report */
    prunerTextRelease(&b);
    return prunerStatusError("out of memory writing the module check's report");
  }
  *report = b.data;
  return st;
}

PrunerStatus prunerTuneSessionWriteSpec(PrunerTuneSession s, const char *path) {
  return prunerTuneSessionWriteOutputs(s, NULL, path);
}

/* ---------------------------------------------------------------------------------- */
/* Summary                                                                             */

static void tuneShape(const PrunerWorkload *w, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int l = 0; l < w->num_loops && used < size; ++l)
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", l ? "x" : "",
                             (long long)w->bounds[l]);
  /* The inputs' element type ("f16" for f16 x f16 -> f32, as always), or every operand's
   * when the inputs differ ("f16,bf16->f32"): the first input's alone hid mixed inputs. */
  int n = w->num_inputs + w->num_outputs;
  bool mixed = false;
  for (int i = 1; i < w->num_inputs; ++i)
    mixed = mixed || w->operands[i].dtype != w->operands[0].dtype;
  for (int i = 0; i < (mixed ? n : 1) && used < size; ++i)
    used += (size_t)snprintf(buf + used, size - used, "%s%s",
                             i == 0               ? " "
                             : i == w->num_inputs ? "->"
                                                  : ",",
                             prunerDTypeName(w->operands[i].dtype));
}

/* Why task i has no best config, for the table's config column: no trials, or what its
 * trials ended in (the commonest failing status, with the last message of that kind). */
static void tuneNoBestReason(TuneEngine *e, size_t i, const PrunerTuneTaskInfo *info,
                             char *buf, size_t size) {
  const TuneTask *t = &e->tasks[i];
  if (t->no_space[0]) { /* the backend's own reason (an op kind it does not configure) */
    snprintf(buf, size, "not tuned: %.*s", (int)(size > 12 ? size - 12 : 0), t->no_space);
    return;
  }
  if (t->space_size == 0) {
    snprintf(buf, size, "not tuned: no valid config%s on %s",
             e->opts.schedule_kinds ? " of the --schedules kinds" : "", e->target.name);
    return;
  }
  if (info->trials == 0) {
    snprintf(buf, size, "not measured: %s",
             e->opts.measure == PRUNER_TUNE_MEASURE_BUNDLE ? "bundle written, no results yet"
             : e->interrupted      ? "the run was interrupted before its turn"
             : e->stopped_on_error ? "the run stopped on an error before its turn"
             : e->time_up          ? "the --time limit came before its turn"
                                   : "no trials left in the budget");
    return;
  }
  int count[PRUNER_RECORD_STATUS_COUNT] = {0};
  const PrunerRecord *last[PRUNER_RECORD_STATUS_COUNT] = {0};
  for (size_t r = 0; r < prunerRecordsCount(e->records); ++r) {
    const PrunerRecord *rec = prunerRecordsGet(e->records, r);
    if (rec->is_baseline || rec->status < 0 || rec->status >= PRUNER_RECORD_STATUS_COUNT ||
        strcmp(rec->workload_key, t->w.key) != 0 || strcmp(rec->target_key, e->target_key) != 0)
      continue;
    count[rec->status]++;
    last[rec->status] = rec;
  }
  int worst = -1;
  for (int st = 0; st < PRUNER_RECORD_STATUS_COUNT; ++st)
    if (count[st] > 0 && (worst < 0 || count[st] > count[worst]))
      worst = st;
  if (worst < 0) {
    snprintf(buf, size, "no valid measurement");
    return;
  }
  snprintf(buf, size, "no valid measurement: %d %s%s%.160s", count[worst],
           prunerRecordStatusName((PrunerRecordStatus)worst), last[worst]->error[0] ? ": " : "",
           last[worst]->error);
}

char *prunerTuneSessionSummary(PrunerTuneSession s) {
  PrunerText b = {0};
  TuneEngine *e = &s->engine;
  const char *baseline = e->backend->baseline_name; /* "cuBLAS", "OpenBLAS" */
  char baseline_column[32];
  size_t bl = 0;
  for (; baseline[bl] && bl + 4 < sizeof baseline_column; ++bl)
    baseline_column[bl] = (char)tolower((unsigned char)baseline[bl]);
  snprintf(baseline_column + bl, sizeof baseline_column - bl, "_us");
  /* Backends with a final check add its interquartile range of best_us
   * (docs/measurement.md). */
  bool final_column = e->backend->recheck != NULL;
  if (final_column)
    prunerTextAppend(&b, "%-25s %-22s %4s %11s %17s %9s %11s %8s %7s %8s  %s\n", "op", "shape",
                     "n", "best_us", "best_iqr_us", "GFLOP/s", baseline_column, "speedup",
                     "trials", "time_s", "config");
  else
    prunerTextAppend(&b, "%-25s %-22s %4s %11s %9s %11s %8s %7s %8s  %s\n", "op", "shape", "n",
                     "best_us", "GFLOP/s", baseline_column, "speedup", "trials", "time_s",
                     "config");
  double total_best = 0, total_base = 0;
  bool all_base = true, any_unmeasured = false;
  for (size_t i = 0; i < e->num_tasks; ++i) {
    PrunerTuneTaskInfo info;
    tuneEngineTaskInfo(e, i, &info);
    char shape[64], cfg[256] = "-", best[32] = "-", gflops[32] = "-", base[32] = "-",
                    speed[32] = "-";
    tuneShape(info.workload, shape, sizeof shape);
    if (!info.has_best)
      tuneNoBestReason(e, i, &info, cfg, sizeof cfg);
    if (info.has_best) {
      prunerConfigFormatShort(info.workload, &info.best, cfg, sizeof cfg);
      if (info.default_kept) { /* the row still reports the best config it measured */
        char kept[256];
        snprintf(kept, sizeof kept, "%s kept (faster); best config: %.200s", baseline, cfg);
        snprintf(cfg, sizeof cfg, "%s", kept);
      }
      snprintf(best, sizeof best, "%.2f%s", info.best_us, info.measured ? "" : "*");
      snprintf(gflops, sizeof gflops, "%.1f%s",
               prunerWorkloadFlops(info.workload) / info.best_us * 1e-3,
               info.measured ? "" : "*");
      /* The module runs the default where it was kept. */
      total_best += info.occurrences * (info.default_kept ? info.baseline_us : info.best_us);
      any_unmeasured |= !info.measured;
    }
    if (info.baseline_us > 0) {
      snprintf(base, sizeof base, "%.2f", info.baseline_us);
      total_base += info.occurrences * info.baseline_us;
      if (info.has_best && info.measured)
        snprintf(speed, sizeof speed, "%.2fx", info.baseline_us / info.best_us);
    } else {
      all_base = false;
    }
    if (final_column) {
      char iqr[40] = "-";
      if (info.final_checked)
        snprintf(iqr, sizeof iqr, "%.2f-%.2f", info.best_p25_us, info.best_p75_us);
      prunerTextAppend(&b, "%-25s %-22s %4d %11s %17s %9s %11s %8s %7lld %8.1f  %s\n",
                    info.workload->op_name, shape, info.occurrences, best, iqr, gflops, base, speed,
                    (long long)info.trials, info.seconds, cfg);
    } else {
      prunerTextAppend(&b, "%-25s %-22s %4d %11s %9s %11s %8s %7lld %8.1f  %s\n",
                    info.workload->op_name, shape, info.occurrences, best, gflops, base, speed,
                    (long long)info.trials, info.seconds, cfg);
    }
  }
  for (size_t i = 0; i < s->num_ops; ++i) {
    if (s->ops[i].task >= 0)
      continue;
    char shape[64], cfg[256];
    tuneShape(s->ops[i].own, shape, sizeof shape);
    bool has_own;
    PrunerConfig own;
    double predicted_us = 0;
    const char *why;
    int own_task;
    const PrunerWorkload *pw = &e->tasks[s->ops[s->ops[i].fused_into].task].w;
    if (tuneFusedDecision(s, i, &has_own, &own, &predicted_us, &why, &own_task)) {
      snprintf(cfg, sizeof cfg, "fused into %s", pw->op_name);
    } else if (has_own) {
      char c[200];
      prunerConfigFormatShort(s->ops[i].own, &own, c, sizeof c);
      snprintf(cfg, sizeof cfg, "own kernel (%.40s %s%.30s): %s %.140s", pw->op_name,
               why ? "uses " : "has no winner", why ? why : "",
               own_task >= 0 ? "its workload's winner" : "draft's", c);
    } else {
      snprintf(cfg, sizeof cfg, "not fused (%.40s %s%.30s), no config: no valid config of its own",
               pw->op_name, why ? "uses " : "has no winner", why ? why : "");
    }
    prunerTextAppend(&b, "%-25s %-22s %4d %11s %9s %11s %8s %7d %8.1f  %s\n",
                  s->ops[i].own->op_name, shape, 1, "-", "-", "-", "-", 0, 0.0, cfg);
  }
  if (total_best > 0) {
    prunerTextAppend(&b, "total (weighted by occurrences): %.2f us", total_best);
    if (all_base && total_base > 0 && !any_unmeasured)
      prunerTextAppend(&b, " vs %s %.2f us (%.2fx)", baseline, total_base, total_base / total_best);
    prunerTextAppend(&b, "\n");
  }
  if (any_unmeasured)
    prunerTextAppend(&b, "* unmeasured: draft/verifier prediction, nothing was run%s\n",
                     e->opts.measure == PRUNER_TUNE_MEASURE_NONE
                         ? " (--measure=none)"
                         : " for it (the device cannot measure it: see the warning)");
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  return b.data;
}
