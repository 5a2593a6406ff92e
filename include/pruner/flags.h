/* pruner/flags.h: numbers from command-line flags, the one way every tool parses them.
 *
 * A flag value is accepted only when all of it is a number of the asked kind inside the
 * asked range: no trailing text, no leading blanks, no NaN or infinity, no value that
 * overflows the type (strtod/strtoll's ERANGE), so `--epsilon=nan` or `--top=1e99` is an
 * error that names the flag, the text and the range instead of slipping past a
 * comparison (every comparison with NaN is false). */
#ifndef PRUNER_FLAGS_H
#define PRUNER_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A decimal integer in [min, max]. `flag` names the flag in the message
 * ("--trials: '-3' is out of range [0, 1000000000]"). */
PrunerStatus prunerParseInt(const char *flag, const char *text, int64_t min, int64_t max,
                            int64_t *out);

/* A decimal unsigned 64-bit integer (seeds): any value up to 2^64 - 1, no sign. */
PrunerStatus prunerParseUint64(const char *flag, const char *text, uint64_t *out);

/* A finite number in [min, max]. */
PrunerStatus prunerParseDouble(const char *flag, const char *text, double min, double max,
                               double *out);

/* A finite number in (0, max]: durations and timeouts. */
PrunerStatus prunerParsePositiveDouble(const char *flag, const char *text, double max, double *out);

/* One of two words: *out = true for `yes` ("on"), false for `no` ("off"); anything else is
 * an error naming both ("--module-check=maybe: expected on or off"). */
PrunerStatus prunerParseChoice(const char *flag, const char *text, const char *yes,
                               const char *no, bool *out);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_FLAGS_H */
