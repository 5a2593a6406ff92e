/* Whole-file reads (pruner/file.h). Reads in growing chunks rather than asking for the size
 * first, so pipes and standard input work the same as regular files. */
#define _GNU_SOURCE /* nftw's FTW_DEPTH/FTW_PHYS */
#include "pruner/file.h"

#include <ftw.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PrunerStatus prunerReadFile(const char *path, char **data, size_t *size) {
  *data = NULL;
  if (size)
    *size = 0;
  bool in = strcmp(path, "-") == 0;
  FILE *f = in ? stdin : fopen(path, "rb");
  if (!f)
    return prunerStatusError("cannot read '%s': %s", path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap)
      break;
    cap *= 2;
    char *grown = realloc(buf, cap + 1);
    if (!grown)
      free(buf);
    buf = grown;
  }
  int failed = ferror(f);
  int err = errno;
  if (!in)
    fclose(f);
  if (!buf)
    return prunerStatusError("out of memory reading '%s'", path);
  if (failed) {
    free(buf);
    return prunerStatusError("cannot read '%s': %s", path, strerror(err));
  }
  buf[len] = '\0';
  *data = buf;
  if (size)
    *size = len;
  return prunerStatusOk();
}

static int removeEntry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void prunerRemoveTree(const char *dir) {
  nftw(dir, removeEntry, 8, FTW_DEPTH | FTW_PHYS);
}
