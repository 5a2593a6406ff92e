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
#include "pruner/schedule.h"
#include "tune_internal.h"

static void tuneSpecAppend(MlirStringRef s, void *user) {
  prunerTextAppendBytes((PrunerText *)user, s.data, s.length);
}

static void tuneSpecMatcher(PrunerText *b, size_t index, const PrunerWorkload *w) {
  const char *names[2];
  int n = prunerScheduleMatcherOpNames(w, names);
  prunerTextAppend(b,
                   "  // %s\n"
                   "  transform.named_sequence @pruner_match_%zu(%%op: !transform.any_op "
                   "{transform.readonly}) -> !transform.any_op {\n"
                   "    transform.match.operation_name %%op [\"%s\"",
                   w->key, index, names[0]);
  for (int i = 1; i < n; ++i)
    prunerTextAppend(b, ", \"%s\"", names[i]);
  prunerTextAppend(b, "] : !transform.any_op\n");
  prunerScheduleAppendStructuredMatch(b, "%op", w, false);
  prunerTextAppend(b, "    transform.yield %%op : !transform.any_op\n"
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

/* The spec in the backend's own format (IREE's): every tuned workload and every fused
 * consumer with a config of its own, in the order of the project's spec. */
static char *tuneBackendSpecText(TuneEngine *e, const TuneSpecConsumer *consumers,
                                 size_t num_consumers) {
  size_t cap = e->num_tasks + num_consumers + 1, n = 0;
  const PrunerWorkload **w = malloc(cap * sizeof *w);
  PrunerConfig *configs = malloc(cap * sizeof *configs);
  char *text = NULL;
  if (w && configs) {
    for (size_t i = 0; i < e->num_tasks; ++i) {
      PrunerTuneTaskInfo info;
      tuneEngineTaskInfo(e, i, &info);
      if (!info.has_best || info.default_kept)
        continue;
      w[n] = &e->tasks[i].w;
      configs[n++] = info.best;
    }
    for (size_t k = 0; k < num_consumers; ++k) {
      if (!consumers[k].config)
        continue; /* shares its contraction's kernel */
      w[n] = consumers[k].w;
      configs[n++] = *consumers[k].config;
    }
    size_t skipped = 0;
    text = e->backend->specText(&e->target, w, configs, n, &skipped);
    if (text && skipped)
      tuneNote(e, -1,
               "warning: tuning spec: %zu workload(s) cannot be told apart from an earlier "
               "one by the matchers (same op, bounds and bitwidths); left out of the spec",
               skipped);
  }
  free(w);
  free(configs);
  return text;
}

char *tuneSpecText(TuneEngine *e, MlirContext ctx, const TuneSpecConsumer *consumers,
                   size_t num_consumers) {
  if (e->backend && e->backend->specText)
    return tuneBackendSpecText(e, consumers, num_consumers);
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
    prunerTextRelease(&b);
    return NULL;
  }
  for (size_t i = 0; i < e->num_tasks; ++i) {
    PrunerTuneTaskInfo info;
    tuneEngineTaskInfo(e, i, &info);
    if (!info.has_best || info.default_kept)
      continue;
    const PrunerWorkload *alike = NULL;
    for (size_t j = 0; j < num_tuned && !alike; ++j)
      if (prunerScheduleMatchersAlike(tuned_w[j], info.workload))
        alike = tuned_w[j];
    if (alike) {
      tuneNote(e, (int)i,
               "warning: tuning spec: %s cannot be told apart from %s by upstream matchers "
               "(same op, bounds and bitwidths; they do not see indexing maps); left out of "
               "the spec, which gives its ops %s's config (the annotated module -o has "
               "their own)",
               info.workload->key, alike->key, alike->key);
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
      ambiguous |= prunerScheduleMatchersAlike(tuned_w[j], c->w);
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
    /* A consumed root must be consumed in the body (the stock interpreter warns of one
     * that is not), and IREE's entry point is a foreach_match and a yield: a pair whose
     * matcher matches no op. */
    prunerTextAppend(&b, "    %%result = transform.foreach_match in %%root\n"
                         "        @pruner_match_none -> @pruner_apply_none\n"
                         "      : (!transform.any_op) -> !transform.any_op\n"
                         "    transform.yield %%result : !transform.any_op\n  }\n"
                         "  // No tuned op: this matcher matches none.\n"
                         "  transform.named_sequence @pruner_match_none(%%op: !transform.any_op "
                         "{transform.readonly}) -> !transform.any_op {\n"
                         "    transform.match.operation_name %%op [\"pruner.no_tuned_op\"] : "
                         "!transform.any_op\n"
                         "    transform.yield %%op : !transform.any_op\n  }\n"
                         "  transform.named_sequence @pruner_apply_none(%%op: !transform.any_op "
                         "{transform.readonly}) {\n    transform.yield\n  }\n");
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
