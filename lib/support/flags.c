/* Numbers from command-line flags (pruner/flags.h). */
#include "pruner/flags.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* strtoll/strtod skip leading blanks and accept an empty tail; a flag value must be the
 * number and nothing else. */
static bool startsLikeNumber(const char *text) {
  return text[0] != '\0' && !isspace((unsigned char)text[0]);
}

PrunerStatus prunerParseInt(const char *flag, const char *text, int64_t min, int64_t max,
                            int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long v = startsLikeNumber(text) ? strtoll(text, &end, 10) : 0;
  if (!startsLikeNumber(text) || end == text || *end != '\0')
    return prunerStatusError("%s: '%s' is not an integer", flag, text);
  if (errno == ERANGE || v < min || v > max)
    return prunerStatusError("%s: '%s' is out of range [%" PRId64 ", %" PRId64 "]", flag, text, min,
                             max);
  *out = v;
  return prunerStatusOk();
}

PrunerStatus prunerParseUint64(const char *flag, const char *text, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  /* strtoull accepts "-1" as 2^64 - 1: refuse any sign. */
  bool digits = startsLikeNumber(text) && isdigit((unsigned char)text[0]);
  unsigned long long v = digits ? strtoull(text, &end, 10) : 0;
  if (!digits || end == text || *end != '\0')
    return prunerStatusError("%s: '%s' is not a non-negative integer", flag, text);
  if (errno == ERANGE)
    return prunerStatusError("%s: '%s' is out of range [0, %" PRIu64 "]", flag, text, UINT64_MAX);
  *out = v;
  return prunerStatusOk();
}

static PrunerStatus parseFinite(const char *flag, const char *text, double *out) {
  char *end = NULL;
  double v = startsLikeNumber(text) ? strtod(text, &end) : 0;
  if (!startsLikeNumber(text) || end == text || *end != '\0')
    return prunerStatusError("%s: '%s' is not a number", flag, text);
  /* "nan", "inf" and overflowing literals ("1e999" -> HUGE_VAL) all land here. */
  if (!isfinite(v))
    return prunerStatusError("%s: '%s' is not a finite number", flag, text);
  *out = v;
  return prunerStatusOk();
}

PrunerStatus prunerParseDouble(const char *flag, const char *text, double min, double max,
                               double *out) {
  double v = 0;
  PrunerStatus st = parseFinite(flag, text, &v);
  if (!st.ok)
    return st;
  if (v < min || v > max)
    return prunerStatusError("%s: '%s' is out of range [%g, %g]", flag, text, min, max);
  *out = v;
  return prunerStatusOk();
}

PrunerStatus prunerParsePositiveDouble(const char *flag, const char *text, double max,
                                       double *out) {
  double v = 0;
  PrunerStatus st = parseFinite(flag, text, &v);
  if (!st.ok)
    return st;
  if (!(v > 0) || v > max)
    return prunerStatusError("%s: '%s' is out of range (0, %g]", flag, text, max);
  *out = v;
  return prunerStatusOk();
}

PrunerStatus prunerParseChoice(const char *flag, const char *text, const char *yes,
                               const char *no, bool *out) {
  if (strcmp(text, yes) != 0 && strcmp(text, no) != 0)
    return prunerStatusError("%s=%s: expected %s or %s", flag, text, yes, no);
  *out = strcmp(text, yes) == 0;
  return prunerStatusOk();
}
