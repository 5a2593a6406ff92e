/* lib/tune/record_check.c: records are checked like every other input before the search
 * trusts them (docs/records.md, "Validation"). lib/records checks what a line can say on
 * its own (types, signs, lengths, finite numbers); whether a config fits its workload on
 * the target needs both, so it is checked here, where records meet tasks, with the same
 * predicate the space enumerates by (prunerConfigCheck). */
#include <stdio.h>
#include <string.h>

#include "tune_internal.h"

/* A record of this target whose config does not fit its workload cannot have been
 * measured as written (a hand-edited line, another tool's bug): resuming from it would
 * write a config the passes cannot build, with the record's latency as "measured". */
static PrunerStatus tuneRecordFits(const PrunerRecord *r, void *user) {
  TuneEngine *e = user;
  /* Other targets' records are never used as measurements here; baselines have no
   * config; an "invalid" record says that the config does not fit, which is true. */
  if (r->is_baseline || r->status == PRUNER_RECORD_INVALID ||
      strcmp(r->target_key, e->target_key) != 0)
    return prunerStatusOk();
  const PrunerWorkload *w = r->has_workload ? &r->workload : NULL;
  for (size_t i = 0; i < e->num_tasks; ++i)
    if (strcmp(e->tasks[i].w.key, r->workload_key) == 0)
      w = &e->tasks[i].w; /* the workload it will be matched to */
  /* A replay reads measurements, whatever built them; the device measures this build's. */
  if (e->opts.measure != PRUNER_TUNE_MEASURE_REPLAY) {
    PrunerStatus same = prunerRecordCheckCodegen(
        r, w ? tuneCodegenVersionOf(e, w) : e->backend->codegen_version);
    if (!same.ok)
      return same;
  }
  if (!w)
    return prunerStatusOk(); /* no description and no task: never looked up here */
  PrunerStatus fit = prunerConfigCheck(w, &e->target, &r->config);
  if (fit.ok)
    return fit;
  char why[PRUNER_STATUS_MESSAGE_SIZE];
  snprintf(why, sizeof why, "%s", fit.message);
  return prunerStatusError("config does not fit %s on %s: %s", r->workload_key, e->target.name,
                           why);
}

int tuneCodegenVersionOf(const TuneEngine *e, const PrunerWorkload *w) {
  return e->backend->codegenVersionOf ? e->backend->codegenVersionOf(w)
                                      : e->backend->codegen_version;
}

size_t tuneFilterRecords(TuneEngine *e, PrunerRecords records) {
  size_t dropped = prunerRecordsFilter(records, tuneRecordFits, e);
  if (dropped > 0)
    tuneNoteRecordWarnings(e, records);
  return dropped;
}
