/* pruner/text.h: a growable text buffer for emitting MLIR and transform IR (lib/support;
 * used by lib/schedule and the backends' schedules). An allocation failure is remembered
 * and reported once at the end (prunerTextFinish), so emitters need not check every
 * append. */
#ifndef PRUNER_TEXT_H
#define PRUNER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PrunerText {
  char *data;
  size_t len;
  size_t cap;
  bool failed;
} PrunerText;

void prunerTextInit(PrunerText *t);
void prunerTextRelease(PrunerText *t);
void prunerTextAppend(PrunerText *t, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends `n` bytes of `s` (not necessarily NUL-terminated). */
void prunerTextAppendBytes(PrunerText *t, const char *s, size_t n);
/* Writes "[a, b, c]" for n values. */
void prunerTextAppendI64List(PrunerText *t, const int64_t *values, int n);
/* Hands the buffer to *out (caller frees) or fails if an allocation failed. */
PrunerStatus prunerTextFinish(PrunerText *t, const char *what, char **out);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_TEXT_H */
