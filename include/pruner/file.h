/* pruner/file.h: reading a whole file into memory, the one way lib/ and tools/ do it, and
 * removing a temporary folder.
 *
 * Tools read payload MLIR and JSON, lib/measure reads bundles and cubins, lib/compile reads
 * what ptxas wrote: all need the whole file as one NUL-terminated buffer and an error that
 * names the file. */
#ifndef PRUNER_FILE_H
#define PRUNER_FILE_H

#include <stddef.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads all of `path` ("-" reads standard input) into a new buffer with a NUL byte after
 * the content, so text can be parsed in place; the caller frees *data. *size (may be NULL)
 * gets the byte count without the NUL. On failure *data is NULL and the message names the
 * path and the system's reason. */
PrunerStatus prunerReadFile(const char *path, char **data, size_t *size);

/* Removes `dir` and everything under it (depth first, symbolic links removed, never
 * followed); best effort: what cannot be removed stays. The one directory remover of
 * lib/ (compile workers' and per-round bundle folders). */
void prunerRemoveTree(const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_FILE_H */
