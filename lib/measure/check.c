/* lib/measure/check.c: the element rule of every result check (pruner/measure.h). */
#include "pruner/measure.h"

#include <math.h>

bool prunerMeasureAgrees(double got, double want, double tol, double *err) {
  double e;
  if (!isfinite(got) || !isfinite(want))
    e = got == want || (isnan(got) && isnan(want)) ? 0 : INFINITY;
  else
    e = fabs(got - want);
  if (err)
    *err = e;
  if (!isfinite(got) || !isfinite(want))
    return e == 0;
  return e <= tol;
}
