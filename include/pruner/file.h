/* pruner/file.h: reading a whole file into memory, the one way lib/ and tools/ do it, and
 * removing a temporary folder.
 *
 * Tools read payload MLIR and JSON, lib/measure reads bundles and cubins, lib/backend/gpu reads
 * what ptxas wrote: all need the whole file as one NUL-terminated buffer and an error that
 * names the file. */
#ifndef PRUNER_FILE_H
#define PRUNER_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most prunerReadFile reads: 1 GiB. Modules, manifests, cubins and models are far
 * smaller; the cap keeps a wrong path (/dev/zero, a disk image) from eating the machine's
 * memory before anyone parses it (docs/hardening.md, "File sizes"). */
#define PRUNER_READ_FILE_MAX ((size_t)1 << 30)

/* Reads all of `path` ("-" reads standard input) into a new buffer with a NUL byte after
 * the content, so text can be parsed in place; the caller frees *data. *size (may be NULL)
 * gets the byte count without the NUL. On failure *data is NULL and the message names the
 * path and the system's reason. A file larger than PRUNER_READ_FILE_MAX is an error (a
 * regular file's size is checked before reading; a stream is read up to the cap), and
 * so is running out of memory. */
PrunerStatus prunerReadFile(const char *path, char **data, size_t *size);

/* The same with a cap of `max_bytes` instead of PRUNER_READ_FILE_MAX (*data malloc'ed,
 * caller frees). */
PrunerStatus prunerReadFileCapped(const char *path, size_t max_bytes, char **data, size_t *size);

/* Writes the content of one output file into `f`; false to abandon the write (the caller
 * has its own reason, e.g. out of memory). */
typedef bool (*PrunerFileWriter)(FILE *f, void *user);

/* Writes `path` atomically: `write` fills a temporary file in the same directory, which
 * is then flushed, synced and renamed over `path`, so `path` holds the old content or the
 * new, never a part (a full disk, a crash, Ctrl-C). Every write and the close are
 * checked; a failure removes the temporary file, leaves `path` as it was and names the
 * path and the system's reason. When `path` is a symbolic link, the file it points to is
 * replaced (the link stays). `path` must be absent or a regular file: a device
 * (/dev/full, /dev/null) or a directory is refused. An existing file keeps its
 * permissions; a new one gets 0666 less the umask. */
PrunerStatus prunerWriteFileAtomic(const char *path, PrunerFileWriter write, void *user);

/* One output file of prunerWriteFilesAtomic. */
typedef struct PrunerFileOutput {
  const char *path;
  PrunerFileWriter write;
  void *user;
} PrunerFileOutput;

/* Writes all `n` files or none, each as prunerWriteFileAtomic does: every temporary file
 * is written and synced first; a failure removes them all and leaves every path as it
 * was; only then are they renamed over their paths, in order. (A rename within one
 * directory needs no space; one failing after another succeeded is the only way to a
 * partial result, and the message names its file.) */
PrunerStatus prunerWriteFilesAtomic(const PrunerFileOutput *files, size_t n);

/* Removes the temporary files of writes in progress (prunerWriteFilesAtomic), for a
 * signal handler about to end the process with _exit: async-signal-safe (unlink over
 * lock-free atomics). The paths themselves are left as they were. */
void prunerRemoveStagedFiles(void);

/* Checks before a long run that `path` can be written by prunerWriteFileAtomic: absent
 * or a regular file, in an existing directory where a file can be created (tried: a
 * probe file is made and removed). `what` names the flag in the message
 * ("--spec /dev/full: not a regular file ..."). */
PrunerStatus prunerCheckOutputPath(const char *what, const char *path);

/* True when `a` and `b` name the same file: the same device and inode when both exist,
 * else the same canonical path (the real path of the directory plus the file name), so
 * "out.mlir", "./out.mlir" and a hard or symbolic link to it are all one file. */
bool prunerSameFile(const char *a, const char *b);

/* "1.0 GiB", "512 MiB", "4096 bytes": a size for messages. */
void prunerFormatBytes(uint64_t bytes, char *buf, size_t size);

/* Removes `dir` and everything under it (depth first, symbolic links removed, never
 * followed); best effort: what cannot be removed stays. The one directory remover of
 * lib/ (compile workers' and per-round bundle folders). */
void prunerRemoveTree(const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_FILE_H */
