/* Whole-file reads (pruner/file.h). Reads in growing chunks rather than trusting the size
 * first, so pipes and standard input work the same as regular files; the cap bounds both. */
#define _GNU_SOURCE /* realpath, fchmod, nftw's FTW_DEPTH/FTW_PHYS */
#include "pruner/file.h"

#include <ftw.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void prunerFormatBytes(uint64_t bytes, char *buf, size_t size) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
    snprintf(buf, size, "%llu GiB", (unsigned long long)(bytes >> 30));
  else if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
    snprintf(buf, size, "%llu MiB", (unsigned long long)(bytes >> 20));
  else
    snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
}

static PrunerStatus tooLarge(const char *path, size_t max_bytes) {
  char limit[32];
  prunerFormatBytes(max_bytes, limit, sizeof limit);
  return prunerStatusError("cannot read '%s': larger than the %s limit for an input file", path,
                           limit);
}

PrunerStatus prunerReadFileCapped(const char *path, size_t max_bytes, char **data, size_t *size) {
  *data = NULL;
  if (size)
    *size = 0;
  bool in = strcmp(path, "-") == 0;
  FILE *f = in ? stdin : fopen(path, "rb");
  if (!f)
    return prunerStatusError("cannot read '%s': %s", path, strerror(errno));
  /* A regular file says its size: refuse a huge one before reading any of it. */
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes) {
    if (!in)
      fclose(f);
    return tooLarge(path, max_bytes);
  }
  size_t cap = (size_t)1 << 16, len = 0;
  if (cap > max_bytes + 1)
    cap = max_bytes + 1;
  char *buf = malloc(cap + 1);
  bool over = false;
  while (buf) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap)
      break;
    if (len > max_bytes) { /* one byte past the cap is enough to know */
      over = true;
      break;
    }
    cap = cap > max_bytes / 2 ? max_bytes + 1 : cap * 2;
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
    return prunerStatusError("cannot read '%s': out of memory", path);
  if (over || failed) {
    free(buf);
    return over ? tooLarge(path, max_bytes)
                : prunerStatusError("cannot read '%s': %s", path, strerror(err));
  }
  buf[len] = '\0';
  *data = buf;
  if (size)
    *size = len;
  return prunerStatusOk();
}

PrunerStatus prunerReadFile(const char *path, char **data, size_t *size) {
  return prunerReadFileCapped(path, PRUNER_READ_FILE_MAX, data, size);
}

/* ---- writing ------------------------------------------------------------------------ */

/* The file `path` names after following symbolic links, when it exists; else `path`. */
static void resolvePath(const char *path, char *out, size_t size) {
  char real[PATH_MAX];
  if (realpath(path, real))
    snprintf(out, size, "%s", real);
  else
    snprintf(out, size, "%s", path);
}

/* dirname/basename without modifying the argument. */
static void splitPath(const char *path, char *dir, size_t dir_size, const char **base) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, dir_size, ".");
    *base = path;
  } else if (slash == path) {
    snprintf(dir, dir_size, "/");
    *base = slash + 1;
  } else {
    snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
    *base = slash + 1;
  }
}

PrunerStatus prunerCheckOutputPath(const char *what, const char *path) {
  struct stat st;
  if (!path[0])
    return prunerStatusError("%s: empty path", what);
  bool exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return prunerStatusError("%s %s: not a regular file; an output must be a file (it is "
                             "written to a temporary file and renamed)",
                             what, path);
  if (!exists && errno != ENOENT)
    return prunerStatusError("%s %s: %s", what, path, strerror(errno));
  char real[PATH_MAX], dir[PATH_MAX], probe[PATH_MAX + 32];
  const char *base;
  resolvePath(path, real, sizeof real);
  splitPath(real, dir, sizeof dir, &base);
  if (!base[0])
    return prunerStatusError("%s %s: names a directory, not a file", what, path);
  if (!exists && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
    return prunerStatusError("%s %s: directory '%s' does not exist", what, path, dir);
  /* The write creates a temporary file beside `path`: try it now, so that a directory
   * the run cannot write in (read-only, /proc, /sys, another user's) is refused before
   * the run and not after it (permission bits do not tell: root passes them, and /sys
   * refuses root). */
  if ((size_t)snprintf(probe, sizeof probe, "%s/.%s.%ld.probe", dir, base, (long)getpid()) >=
      sizeof probe)
    return prunerStatusError("%s %s: path too long", what, path);
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EEXIST)
    return prunerStatusError("%s %s: cannot create a file in '%s': %s", what, path, dir,
                             strerror(errno));
  if (fd >= 0) {
    close(fd);
    unlink(probe);
  }
  return prunerStatusOk();
}

/* One output on its way: its temporary file, written, flushed and synced, not renamed. */
typedef struct StagedFile {
  char real[PATH_MAX];
  char tmp[PATH_MAX + 32];
  int slot; /* in g_staged (prunerRemoveStagedFiles); -1: none */
} StagedFile;

/* The temporary files being written, for a signal handler that ends the process before
 * they are renamed or removed (prunerRemoveStagedFiles). A slot is 0 free, 1 claimed, 2
 * holding a path; lock-free atomics, so the handler may read them. */
enum { STAGED_MAX = 8 };
static char g_staged_path[STAGED_MAX][PATH_MAX + 32];
static atomic_int g_staged[STAGED_MAX];

static int stagedAdd(const char *tmp) {
  for (int i = 0; i < STAGED_MAX; ++i) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&g_staged[i], &expected, 1)) {
      snprintf(g_staged_path[i], sizeof g_staged_path[i], "%s", tmp);
      atomic_store(&g_staged[i], 2);
      return i;
    }
  }
  return -1; /* more at once than slots: not removed by a signal, still by every error */
}

static void stagedDone(StagedFile *f) {
  if (f->slot >= 0)
    atomic_store(&g_staged[f->slot], 0);
  f->slot = -1;
}

void prunerRemoveStagedFiles(void) {
  for (int i = 0; i < STAGED_MAX; ++i)
    if (atomic_load(&g_staged[i]) == 2)
      unlink(g_staged_path[i]); /* async-signal-safe */
}

static PrunerStatus stageFile(const PrunerFileOutput *out, StagedFile *staged) {
  const char *path = out->path;
  PrunerStatus check = prunerCheckOutputPath("cannot write", path);
  if (!check.ok)
    return check;
  char dir[PATH_MAX];
  const char *base;
  resolvePath(path, staged->real, sizeof staged->real);
  splitPath(staged->real, dir, sizeof dir, &base);
  /* Same directory: rename is atomic only within one file system. O_EXCL with the
   * process id makes the name ours; a new file gets 0666 less the umask from open. */
  int fd = -1;
  staged->slot = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    if ((size_t)snprintf(staged->tmp, sizeof staged->tmp, "%s/.%s.%ld.%d.tmp", dir, base,
                         (long)getpid(), attempt) >= sizeof staged->tmp)
      return prunerStatusError("cannot write %s: path too long", path);
    fd = open(staged->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return prunerStatusError("cannot write %s: cannot create a temporary file in %s: %s", path, dir,
                             strerror(errno));
  staged->slot = stagedAdd(staged->tmp);
  struct stat st;
  bool existed = stat(staged->real, &st) == 0;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    int err = errno;
    close(fd);
    unlink(staged->tmp);
    stagedDone(staged);
    return prunerStatusError("cannot write %s: %s", path, strerror(err));
  }
  errno = 0;
  bool written = out->write(f, out->user);
  /* A writer that stopped on the stream's error (a full disk) failed to write, not to
   * produce its content: the message says which. */
  int write_err = ferror(f) ? (errno ? errno : EIO) : 0;
  /* Every step checked: fwrite's errors surface at the latest in fflush or fclose. */
  errno = 0;
  bool ok = written && fflush(f) == 0 && !ferror(f);
  ok = ok && (!existed || fchmod(fd, st.st_mode & 07777) == 0) && fsync(fd) == 0;
  int err = errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    unlink(staged->tmp);
    stagedDone(staged);
    if (!written && write_err)
      return prunerStatusError("cannot write %s: %s", path, strerror(write_err));
    if (!written)
      return prunerStatusError("cannot write %s: the content could not be produced", path);
    return prunerStatusError("cannot write %s: %s", path, strerror(err ? err : EIO));
  }
  return prunerStatusOk();
}

PrunerStatus prunerWriteFilesAtomic(const PrunerFileOutput *files, size_t n) {
  StagedFile *staged = calloc(n ? n : 1, sizeof *staged);
  if (!staged)
    return prunerStatusError("cannot write %s: out of memory", n ? files[0].path : "outputs");
  PrunerStatus st = prunerStatusOk();
  size_t done = 0;
  for (; done < n && st.ok; ++done) {
    st = stageFile(&files[done], &staged[done]);
    if (!st.ok)
      break;
  }
  /* All written or none: a failed one takes the others' temporary files with it. */
  if (!st.ok) {
    for (size_t i = 0; i < done; ++i) {
      unlink(staged[i].tmp);
      stagedDone(&staged[i]);
    }
    free(staged);
    return st;
  }
  for (size_t i = 0; i < n; ++i) {
    if (st.ok && rename(staged[i].tmp, staged[i].real) != 0)
      st = prunerStatusError("cannot write %s: %s", files[i].path, strerror(errno));
    if (!st.ok)
      unlink(staged[i].tmp);
    stagedDone(&staged[i]);
  }
  free(staged);
  return st;
}

PrunerStatus prunerWriteFileAtomic(const char *path, PrunerFileWriter write, void *user) {
  PrunerFileOutput out = {path, write, user};
  return prunerWriteFilesAtomic(&out, 1);
}

/* Where opening `path` with O_CREAT would create the file: symbolic links of the last
 * component followed (a dangling one names its target), the directory made canonical.
 * False when that cannot be told (a missing directory, a loop of links). */
static bool createdAt(const char *path, char *out, size_t size) {
  char cur[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
  const char *base;
  if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
    return false;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
      break;
    char target[PATH_MAX];
    ssize_t n = readlink(cur, target, sizeof target - 1);
    if (n < 0 || hops >= 40)
      return false;
    target[n] = '\0';
    if (target[0] == '/') {
      snprintf(cur, sizeof cur, "%s", target);
    } else {
      splitPath(cur, dir, sizeof dir, &base);
      if (snprintf(real, sizeof real, "%s/%s", dir, target) >= (int)sizeof real)
        return false;
      snprintf(cur, sizeof cur, "%s", real);
    }
  }
  splitPath(cur, dir, sizeof dir, &base);
  if (!realpath(dir, real))
    return false;
  return snprintf(out, size, "%s/%s", real, base) < (int)size;
}

bool prunerSameFile(const char *a, const char *b) {
  struct stat sa, sb;
  bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb)
    return false; /* one exists, the other does not */
  /* Neither exists yet: compare where they would be created, through dangling links
   * (--records=link -o target, link naming target: the records file would become the
   * output). */
  char ca[2 * PATH_MAX + 2], cb[2 * PATH_MAX + 2];
  if (!createdAt(a, ca, sizeof ca) || !createdAt(b, cb, sizeof cb))
    return strcmp(a, b) == 0;
  return strcmp(ca, cb) == 0;
}

static int removeEntry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void prunerRemoveTree(const char *dir) {
  nftw(dir, removeEntry, 8, FTW_DEPTH | FTW_PHYS);
}
