/* lib/tune/module_check.c: the whole-module check after tuning (PrunerBackend.checkModule;
 * docs/iree.md, "The module check"). The final check compares each op's winner with the
 * compiler's default one dispatch at a time; what the user runs is the whole module built
 * with the spec. So each function of it is built with and without the spec, run on the
 * same random inputs (results compared) and timed back to back: a spec that does not
 * build, run or agree fails the run, and the line says how much the module gained. */
#include <stdio.h>
#include <string.h>

#include "tune_internal.h"

/* The largest number of terms an op of the module accumulates into one result (the
 * product of its reduction loops' bounds): the comparison's tolerance grows with it. */
static int64_t tuneReductionPoints(const TuneEngine *e) {
  int64_t most = 1;
  for (size_t i = 0; i < e->num_tasks; ++i) {
    const PrunerWorkload *w = &e->tasks[i].w;
    int64_t points = 1;
    for (int l = 0; l < w->num_loops; ++l)
      if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION && points < INT64_MAX / w->bounds[l])
        points *= w->bounds[l];
    if (points > most)
      most = points;
  }
  return most;
}

PrunerStatus tuneCheckModule(TuneEngine *e, const char *module_path, const char *spec_path,
                             const PrunerFunctionSignature *fs, size_t n, PrunerText *report) {
  PrunerStatus st = tuneBackendState(e);
  if (!st.ok)
    return st;
  const char *base = e->backend->baseline_name;
  PrunerStatus failed = prunerStatusOk();
  const char *built_by = NULL; /* the function whose check made the shared builds */
  for (size_t i = 0; i < n && !tuneStopRequested(e); ++i) {
    PrunerBackendModuleCheck c;
    st = e->backend->checkModule(e->backend_state, module_path, spec_path, &fs[i],
                                 tuneReductionPoints(e), &c);
    /* Ctrl-C kills the compiler and runs in flight: what they left is not a verdict on
     * the spec (it read as "FAILED: compile_error" and failed the run). */
    if (tuneStopRequested(e))
      break;
    if (!st.ok) {
      prunerTextAppend(report, "module check @%s: not checked: %s\n", fs[i].name, st.message);
      continue; /* the default build's fault, not the spec's */
    }
    const char *shared_from = built_by;
    if (!c.builds_shared)
      built_by = fs[i].name;
    if (c.tuned.status != PRUNER_RECORD_OK) {
      prunerTextAppend(report, "module check @%s: FAILED: the build with the spec: %s: %s\n",
                       fs[i].name, prunerRecordStatusName(c.tuned.status), c.tuned.error);
      if (failed.ok)
        failed = prunerStatusError("module check @%s: the module built with the tuning spec "
                                   "%s (%s)",
                                   fs[i].name,
                                   c.tuned.status == PRUNER_RECORD_WRONG_RESULT
                                       ? "computes other results than the build without it"
                                       : "does not build or run",
                                   c.tuned.error);
      continue;
    }
    prunerTextAppend(report, "module check @%s: with the spec %.2f us [IQR %.2f-%.2f]",
                     fs[i].name, c.tuned.median_us, c.tuned.p25_us, c.tuned.p75_us);
    if (c.baseline.status == PRUNER_RECORD_OK && c.baseline.median_us > 0)
      prunerTextAppend(report, " vs %s %.2f us [IQR %.2f-%.2f] (%.2fx)", base,
                       c.baseline.median_us, c.baseline.p25_us, c.baseline.p75_us,
                       c.baseline.median_us / c.tuned.median_us);
    else
      prunerTextAppend(report, " (%s not timed: %s)", base, c.baseline.error);
    prunerTextAppend(report, ", %d rounds; results agree; %d of the spec's %d config(s) applied",
                     c.rounds, c.applied, c.spec_configs);
    if (c.builds_shared && shared_from)
      prunerTextAppend(report, "; the builds of @%s\n", shared_from);
    else
      prunerTextAppend(report, "; builds %.1f s\n", c.compile_seconds);
    /* Slower with the spec beyond both spreads: the final check's per-op verdicts do not
     * carry over to the module (a config on an op IREE formed otherwise, an op whose
     * neighbours it fuses differently); say so rather than print the table's claim alone. */
    if (c.baseline.status == PRUNER_RECORD_OK && c.baseline.median_us > 0 &&
        c.tuned.p25_us > c.baseline.p75_us)
      tuneNote(e, -1,
               "warning: module check @%s: the module built with the tuning spec is slower "
               "than %s (%.2f against %.2f us, the spreads apart): the ops' own gains did "
               "not carry over to the module; compare with --keep-default or without the "
               "spec before using it",
               fs[i].name, base, c.tuned.median_us, c.baseline.median_us);
    if (c.applied < c.spec_configs)
      tuneNote(e, -1,
               "warning: module check @%s: the compiler applied %d of the spec's %d configs "
               "to the module (a matcher missed its op, or the compiler dropped the config)",
               fs[i].name, c.applied, c.spec_configs);
  }
  if (tuneStopRequested(e))
    prunerTextAppend(report, "module check: interrupted; functions after the last line were not "
                             "checked\n");
  return failed;
}
