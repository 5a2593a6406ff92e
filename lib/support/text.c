/* lib/support/text.c: growable text buffer (pruner/text.h). */
#include "pruner/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void prunerTextInit(PrunerText *t) {
  t->data = NULL;
  t->len = 0;
  t->cap = 0;
  t->failed = false;
}

void prunerTextRelease(PrunerText *t) {
  free(t->data);
  prunerTextInit(t);
}

static bool reserve(PrunerText *t, size_t extra) {
  if (t->failed)
    return false;
  if (t->len + extra + 1 <= t->cap)
    return true;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + extra + 1)
    cap *= 2;
  char *data = realloc(t->data, cap);
  if (!data) {
    t->failed = true;
    return false;
  }
  t->data = data;
  t->cap = cap;
  return true;
}

void prunerTextAppend(PrunerText *t, const char *format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (n < 0) {
    t->failed = true;
  } else if (reserve(t, (size_t)n)) {
    vsnprintf(t->data + t->len, t->cap - t->len, format, args);
    t->len += (size_t)n;
  }
  va_end(args);
}

void prunerTextAppendBytes(PrunerText *t, const char *s, size_t n) {
  if (!reserve(t, n))
    return;
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
}

void prunerTextAppendI64List(PrunerText *t, const int64_t *values, int n) {
  prunerTextAppend(t, "[");
  for (int i = 0; i < n; ++i)
    prunerTextAppend(t, "%s%lld", i ? ", " : "", (long long)values[i]);
  prunerTextAppend(t, "]");
}

PrunerStatus prunerTextFinish(PrunerText *t, const char *what, char **out) {
  if (t->failed || !reserve(t, 0)) {
    prunerTextRelease(t);
    return prunerStatusError("%s: out of memory while writing the text", what);
  }
  t->data[t->len] = '\0';
  *out = t->data;
  prunerTextInit(t);
  return prunerStatusOk();
}
