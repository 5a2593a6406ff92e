/* lib/tune/spec.c: the transform-dialect tuning spec (format: docs/tuning-spec.md).
 *
 * One matcher per tuned workload built from upstream match ops only (op name, loop count,
 * every loop bound, the element bitwidth of every operand, the contraction body), and an
 * action that annotates the matched op with its `pruner.config`. The entry point
 * @__kernel_config runs `transform.foreach_match` over the root (IREE's tuning-spec
 * convention); @__transform_main wraps it for the stock `--transform-interpreter`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/IR.h>

#include "pruner/ir.h"
#include "tune_internal.h"

static void tuneSpecAppend(MlirStringRef s, void *user) {
  prunerTextAppendBytes((PrunerText *)user, s.data, s.length);
}

static void tuneSpecParamEq(PrunerText *b, const char *value, long long want, int *counter) {
  int c = (*counter)++;
  prunerTextAppend(b,
                "      %%want%d = transform.param.constant %lld : i64 -> !transform.param<i64>\n"
                "      transform.match.param.cmpi eq %s, %%want%d : !transform.param<i64>\n",
                c, want, value, c);
}

static bool tuneIsFloat(PrunerDType t) {
  return t == PRUNER_DTYPE_F32 || t == PRUNER_DTYPE_F16 || t == PRUNER_DTYPE_BF16 ||
         t == PRUNER_DTYPE_F64;
}

static void tuneSpecMatcher(PrunerText *b, size_t index, const PrunerWorkload *w) {
  int counter = 0;
  prunerTextAppend(b,
                "  // %s\n"
                "  transform.named_sequence @pruner_match_%zu(%%op: !transform.any_op "
                "{transform.readonly}) -> !transform.any_op {\n"
                "    transform.match.operation_name %%op [\"%s\"] : !transform.any_op\n"
                "    transform.match.structured %%op : !transform.any_op {\n"
                "    ^bb0(%%s: !transform.any_op):\n"
                "      %%rank = transform.match.structured.rank %%s : (!transform.any_op) -> "
                "!transform.param<i64>\n",
                w->key, index, w->op_name);
  tuneSpecParamEq(b, "%rank", w->num_loops, &counter);
  /* The operand counts: without them a unary generic's matcher (a ReLU) also matches a
   * binary one of the same shape (a bias add), whose input 0 and init look the same. */
  prunerTextAppend(b,
                "      %%ninputs = transform.match.structured.num_inputs %%s : "
                "(!transform.any_op) -> !transform.param<i64>\n");
  tuneSpecParamEq(b, "%ninputs", w->num_inputs, &counter);
  prunerTextAppend(b,
                "      %%ninits = transform.match.structured.num_inits %%s : "
                "(!transform.any_op) -> !transform.param<i64>\n");
  tuneSpecParamEq(b, "%ninits", w->num_outputs, &counter);
  for (int l = 0; l < w->num_loops; ++l) {
    prunerTextAppend(b,
                  "      %%dim%d = transform.match.structured.dim %%s[%d] : "
                  "(!transform.any_op) -> !transform.param<i64>\n",
                  l, l);
    char name[16];
    snprintf(name, sizeof name, "%%dim%d", l);
    tuneSpecParamEq(b, name, (long long)w->bounds[l], &counter);
  }
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o) {
    bool init = o >= w->num_inputs;
    int pos = init ? o - w->num_inputs : o;
    prunerTextAppend(b,
                  "      %%operand%d = transform.match.structured.%s %%s[%d] : "
                  "(!transform.any_op) -> !transform.any_value\n"
                  "      %%bits%d = transform.match.structured.elemental_bitwidth %%operand%d : "
                  "(!transform.any_value) -> !transform.param<i64>\n",
                  o, init ? "init" : "input", pos, o, o);
    char name[16];
    snprintf(name, sizeof name, "%%bits%d", o);
    tuneSpecParamEq(b, name, 8LL * prunerDTypeBytes(w->operands[o].dtype), &counter);
  }
  /* Bitwidths cannot tell f32 from i32: for contractions the body can. */
  if (w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL ||
      w->kind == PRUNER_OP_CONTRACTION) {
    bool fp = tuneIsFloat(w->operands[w->num_inputs].dtype);
    prunerTextAppend(b,
                  "      transform.match.structured.body %%s {contraction = [\"%s\", \"%s\"]} "
                  ": !transform.any_op\n",
                  fp ? "arith.mulf" : "arith.muli", fp ? "arith.addf" : "arith.addi");
  }
  prunerTextAppend(b, "      transform.match.structured.yield\n"
                   "    }\n"
                   "    transform.yield %%op : !transform.any_op\n"
                   "  }\n");
}

static void tuneSpecAction(PrunerText *b, size_t index, MlirAttribute config) {
  prunerTextAppend(b,
                "  transform.named_sequence @pruner_apply_%zu(%%op: !transform.any_op "
                "{transform.readonly}) {\n"
                "    %%config = transform.param.constant ",
                index);
  mlirAttributePrint(config, tuneSpecAppend, b);
  prunerTextAppend(b, " -> !transform.any_param\n"
                   "    transform.annotate %%op \"" PRUNER_CONFIG_ATTR
                   "\" = %%config : !transform.any_op, !transform.any_param\n"
                   "    transform.yield\n"
                   "  }\n");
}

/* Two workloads the matchers cannot tell apart (same name, bounds and bitwidths, e.g.
 * f16 vs bf16, or generics with other maps): foreach_match would take the first. */
static bool tuneSpecAmbiguous(const PrunerWorkload *a, const PrunerWorkload *b) {
  if (strcmp(a->op_name, b->op_name) != 0 || a->num_loops != b->num_loops ||
      a->num_inputs != b->num_inputs || a->num_outputs != b->num_outputs)
    return false;
  for (int l = 0; l < a->num_loops; ++l)
    if (a->bounds[l] != b->bounds[l])
      return false;
  for (int o = 0; o < a->num_inputs + a->num_outputs; ++o)
    if (prunerDTypeBytes(a->operands[o].dtype) != prunerDTypeBytes(b->operands[o].dtype))
      return false;
  return true;
}

char *tuneSpecText(TuneEngine *e, MlirContext ctx, const TuneSpecConsumer *consumers,
                   size_t num_consumers) {
  PrunerText b = {0};
  prunerTextAppend(&b,
                "// pruner-mlir tuning spec for %s (docs/tuning-spec.md).\n"
                "// Apply: mlir-opt --transform-preload-library=transform-library-paths=THIS "
                "--transform-interpreter in.mlir\n"
                "module attributes {transform.with_named_sequence} {\n",
                e->target_key);
  /* Matcher indices in the spec: tasks 0..num_tasks-1, then consumer k at num_tasks + k. */
  size_t *tuned = malloc((e->num_tasks + num_consumers + 1) * sizeof *tuned);
  const PrunerWorkload **tuned_w = malloc((e->num_tasks + num_consumers + 1) * sizeof *tuned_w);
  size_t num_tuned = 0;
  if (!tuned || !tuned_w) {
    free(tuned);
    free(tuned_w);
    return NULL;
  }
  for (size_t i = 0; i < e->num_tasks; ++i) {
    PrunerTuneTaskInfo info;
    tuneEngineTaskInfo(e, i, &info);
    if (!info.has_best)
      continue;
    bool ambiguous = false;
    for (size_t j = 0; j < num_tuned; ++j)
      ambiguous |= tuneSpecAmbiguous(tuned_w[j], info.workload);
    if (ambiguous) {
      tuneNote(e, (int)i,
               "warning: tuning spec: %s cannot be told apart from an earlier workload by "
               "upstream matchers (same op, bounds and bitwidths); left out of the spec",
               info.workload->key);
      continue;
    }
    MlirAttribute config = prunerConfigToAttribute(ctx, info.workload, &info.best);
    if (mlirAttributeIsNull(config))
      continue;
    tuneSpecMatcher(&b, i, info.workload);
    tuneSpecAction(&b, i, config);
    tuned_w[num_tuned] = &e->tasks[i].w;
    tuned[num_tuned++] = i;
  }
  for (size_t k = 0; k < num_consumers; ++k) {
    const TuneSpecConsumer *c = &consumers[k];
    bool ambiguous = false, same = false;
    for (size_t j = 0; j < num_tuned; ++j) {
      ambiguous |= tuneSpecAmbiguous(tuned_w[j], c->w);
      same |= strcmp(tuned_w[j]->key, c->w->key) == 0;
    }
    if (!c->config) {
      /* Shares its contraction's kernel: it must match nothing. */
      if (ambiguous)
        tuneNote(e, -1,
                 "warning: tuning spec: the fused consumer %s looks like a tuned workload "
                 "to upstream matchers; applying the spec gives it a config (and a kernel "
                 "of its own)",
                 c->w->key);
      continue;
    }
    if (same) /* the same workload again: its entry is already there */
      continue;
    if (ambiguous) {
      tuneNote(e, -1,
               "warning: tuning spec: consumer %s cannot be told apart from an earlier "
               "workload by upstream matchers; left out of the spec",
               c->w->key);
      continue;
    }
    MlirAttribute config = prunerConfigToAttribute(ctx, c->w, c->config);
    if (mlirAttributeIsNull(config))
      continue;
    tuneSpecMatcher(&b, e->num_tasks + k, c->w);
    tuneSpecAction(&b, e->num_tasks + k, config);
    tuned_w[num_tuned] = c->w;
    tuned[num_tuned++] = e->num_tasks + k;
  }
  prunerTextAppend(&b, "  transform.named_sequence @__kernel_config(%%root: !transform.any_op "
                    "{transform.consumed}) -> !transform.any_op {\n");
  if (num_tuned == 0) {
    prunerTextAppend(&b, "    transform.yield %%root : !transform.any_op\n  }\n");
  } else {
    prunerTextAppend(&b, "    %%result = transform.foreach_match in %%root\n");
    for (size_t j = 0; j < num_tuned; ++j)
      prunerTextAppend(&b, "        %s@pruner_match_%zu -> @pruner_apply_%zu\n", j ? ", " : "",
                    tuned[j], tuned[j]);
    prunerTextAppend(&b, "      : (!transform.any_op) -> !transform.any_op\n"
                      "    transform.yield %%result : !transform.any_op\n  }\n");
  }
  prunerTextAppend(&b, "  transform.named_sequence @__transform_main(%%root: !transform.any_op "
                    "{transform.consumed}) {\n"
                    "    %%0 = transform.include @__kernel_config failures(propagate) "
                    "(%%root) : (!transform.any_op) -> !transform.any_op\n"
                    "    transform.yield\n  }\n}\n");
  free(tuned);
  free(tuned_w);
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  return b.data;
}
