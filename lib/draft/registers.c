/* lib/draft/registers.c: the draft's register estimate against ptxas' counts over a set
 * of compiled candidates (pruner-compile --study-registers, scripts/register-study.sh,
 * docs/draft.md "Registers"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pruner/draft.h"

int prunerDraftEstimateRegisters(PrunerDraft draft, const PrunerConfig *config) {
  PrunerDraftSymbols s;
  if (!prunerDraftScore(draft, config, NULL, &s))
    return -1;
  return s.registers;
}

static int compareDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

PrunerStatus prunerDraftRegisterStudy(PrunerDraft draft, const PrunerConfig *configs,
                                      const PrunerKernelResources *resources, size_t n,
                                      int *estimates, PrunerRegisterStudy *out) {
  memset(out, 0, sizeof *out);
  double *err = malloc((n ? n : 1) * sizeof *err);
  if (!err)
    return prunerStatusError("register study: out of memory for %zu candidates", n);
  double sum = 0.0, sum_signed = 0.0, sum_ratio = 0.0;
  size_t within = 0;
  for (size_t i = 0; i < n; ++i) {
    int est = prunerDraftEstimateRegisters(draft, &configs[i]);
    if (estimates)
      estimates[i] = est;
    int got = resources[i].registers;
    if (est < 0 || got <= 0)
      continue;
    double e = (double)est - (double)got;
    err[out->n++] = fabs(e);
    sum += fabs(e);
    sum_signed += e;
    double ratio = (double)est / (double)got;
    sum_ratio += ratio;
    if (ratio > out->max_ratio)
      out->max_ratio = ratio;
    if (out->min_ratio == 0.0 || ratio < out->min_ratio)
      out->min_ratio = ratio;
    within += fabs(e) <= 0.25 * got;
  }
  if (out->n) {
    qsort(err, out->n, sizeof *err, compareDouble);
    double k = (double)out->n;
    out->mean_abs = sum / k;
    out->mean_signed = sum_signed / k;
    out->median_abs = out->n % 2 ? err[out->n / 2] : 0.5 * (err[out->n / 2 - 1] + err[out->n / 2]);
    out->max_abs = err[out->n - 1];
    out->mean_ratio = sum_ratio / k;
    out->within_25pct = (double)within / k;
  }
  free(err);
  return prunerStatusOk();
}
