/* The records log: a JSON-lines file plus an in-memory copy with hash indexes.
 *
 * Records live in fixed-size chunks so that pointers handed out by Get/Find/Best stay
 * valid while more records are appended. Two open-addressing tables (linear probing,
 * load factor <= 1/2) make resume lookups O(1): one keyed by (workload, target, config)
 * for Find, one keyed by (workload, target) holding the best ok record and the latest
 * baseline. */
#define _GNU_SOURCE /* getc_unlocked, fopen's "e" (close-on-exec) */
#include "pruner/records.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pruner/file.h"

#define CHUNK_RECORDS 256
#define MAX_WARNED_LINES 5 /* line numbers spelled out in the warning text */
#define WARNINGS_SIZE 2048
/* A record line is a few KB (the workload is the bulk); a longer line is corrupt and is
 * skipped without being held in memory. */
#define MAX_LINE_BYTES ((size_t)1 << 20)

typedef struct GroupEntry {
  uint64_t hash;
  size_t any;      /* some record of the group + 1 (for key comparison); 0 = empty slot */
  size_t best;     /* best ok non-baseline record + 1, or 0                             */
  size_t baseline; /* chosen baseline record + 1, or 0                                  */
} GroupEntry;

typedef struct HashTable {
  size_t capacity; /* power of two, or 0 */
  size_t used;
  uint64_t *hashes;
  size_t *slots; /* record index + 1 (config table) */
} HashTable;

struct PrunerRecordsImpl {
  FILE *file; /* NULL for in-memory logs */
  char path[1024];
  bool needs_newline; /* the file ends in a torn line without '\n' */
  bool read_only;     /* prunerRecordsCreateReadOnly: loaded, never written */
  bool created;       /* this log's open made the file (prunerRecordsDiscardIfNew) */
  PrunerRecord **chunks;
  size_t num_chunks;
  size_t count;
  size_t *lines; /* line number of each record in the file (0: not from the file) */
  size_t lines_capacity;
  size_t file_lines; /* lines the file holds (loaded + appended) */
  HashTable configs;
  size_t group_capacity;
  size_t group_used;
  GroupEntry *groups;
  size_t skipped;
  size_t torn; /* skipped lines that start like a record and break off (invalid JSON) */
  char warnings[WARNINGS_SIZE];
};

/* ---- hashing ------------------------------------------------------------------------ */

/* FNV-1a, 64-bit (offset basis and prime from the FNV reference, isthe.com/chongo/tech/
 * comp/fnv). */
static uint64_t fnvBytes(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static uint64_t fnvString(uint64_t h, const char *s) {
  return fnvBytes(h, s, strlen(s) + 1); /* the terminator separates the two keys */
}

static uint64_t groupHash(const char *workload_key, const char *target_key) {
  return fnvString(fnvString(14695981039346656037ull, workload_key), target_key);
}

static uint64_t configHash(uint64_t h, const PrunerConfig *c) {
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l) {
    int64_t v[3] = {c->workgroup[l], c->reduction[l], c->thread[l]};
    h = fnvBytes(h, v, sizeof(v));
  }
  h = fnvBytes(h, &c->promote_operands, sizeof(c->promote_operands));
  h = fnvBytes(h, &c->vector_width, sizeof(c->vector_width));
  int32_t threads = prunerConfigReductionThreads(c);
  if (threads > 1) /* hashes of configs without the knob are unchanged */
    h = fnvBytes(h, &threads, sizeof(threads));
  if (c->mma) /* likewise */
    h = fnvBytes(h, &c->mma, sizeof(c->mma));
  int32_t stages = prunerConfigStages(c);
  if (stages > 1) /* likewise */
    h = fnvBytes(h, &stages, sizeof(stages));
  int32_t split_k = prunerConfigSplitK(c);
  if (split_k > 1) /* likewise */
    h = fnvBytes(h, &split_k, sizeof(split_k));
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l)
    if (c->cache[l]) /* iree-cpu's cache tiles; likewise */
      h = fnvBytes(h, &c->cache[l], sizeof(c->cache[l]));
  return h;
}

/* Field-wise equality, consistent with configHash. */
static bool configSame(const PrunerConfig *a, const PrunerConfig *b) {
  for (int l = 0; l < PRUNER_MAX_LOOPS; ++l) {
    if (a->workgroup[l] != b->workgroup[l] || a->reduction[l] != b->reduction[l] ||
        a->thread[l] != b->thread[l] || a->cache[l] != b->cache[l])
      return false;
  }
  return a->promote_operands == b->promote_operands && a->vector_width == b->vector_width &&
         prunerConfigReductionThreads(a) == prunerConfigReductionThreads(b) && a->mma == b->mma &&
         prunerConfigStages(a) == prunerConfigStages(b) &&
         prunerConfigSplitK(a) == prunerConfigSplitK(b);
}

static PrunerRecord *recordAt(PrunerRecords r, size_t i) {
  return &r->chunks[i / CHUNK_RECORDS][i % CHUNK_RECORDS];
}

static bool sameGroup(const PrunerRecord *rec, const char *workload_key,
                      const char *target_key) {
  return strcmp(rec->workload_key, workload_key) == 0 &&
         strcmp(rec->target_key, target_key) == 0;
}

/* ---- the config table --------------------------------------------------------------- */

static bool configTableGrow(HashTable *t) {
  size_t capacity = t->capacity ? t->capacity * 2 : 1024;
  uint64_t *hashes = calloc(capacity, sizeof(*hashes));
  size_t *slots = calloc(capacity, sizeof(*slots));
  if (!hashes || !slots) {
    free(hashes);
    free(slots);
    return false;
  }
  for (size_t i = 0; i < t->capacity; ++i) {
    if (!t->slots[i])
      continue;
    size_t j = t->hashes[i] & (capacity - 1);
    while (slots[j])
      j = (j + 1) & (capacity - 1);
    hashes[j] = t->hashes[i];
    slots[j] = t->slots[i];
  }
  free(t->hashes);
  free(t->slots);
  t->hashes = hashes;
  t->slots = slots;
  t->capacity = capacity;
  return true;
}

/* The slot holding (workload, target, config), or the empty slot where it would go. */
static size_t configTableProbe(PrunerRecords r, uint64_t h, const char *workload_key,
                               const char *target_key, const PrunerConfig *config) {
  const HashTable *t = &r->configs;
  size_t j = h & (t->capacity - 1);
  while (t->slots[j]) {
    if (t->hashes[j] == h) {
      const PrunerRecord *rec = recordAt(r, t->slots[j] - 1);
      if (sameGroup(rec, workload_key, target_key) && configSame(&rec->config, config))
        return j;
    }
    j = (j + 1) & (t->capacity - 1);
  }
  return j;
}

/* ---- the group table ---------------------------------------------------------------- */

static bool groupTableGrow(PrunerRecords r) {
  size_t capacity = r->group_capacity ? r->group_capacity * 2 : 256;
  GroupEntry *groups = calloc(capacity, sizeof(*groups));
  if (!groups)
    return false;
  for (size_t i = 0; i < r->group_capacity; ++i) {
    if (!r->groups[i].any)
      continue;
    size_t j = r->groups[i].hash & (capacity - 1);
    while (groups[j].any)
      j = (j + 1) & (capacity - 1);
    groups[j] = r->groups[i];
  }
  free(r->groups);
  r->groups = groups;
  r->group_capacity = capacity;
  return true;
}

static GroupEntry *groupProbe(PrunerRecords r, uint64_t h, const char *workload_key,
                              const char *target_key) {
  if (!r->group_capacity)
    return NULL;
  size_t j = h & (r->group_capacity - 1);
  while (r->groups[j].any) {
    if (r->groups[j].hash == h &&
        sameGroup(recordAt(r, r->groups[j].any - 1), workload_key, target_key))
      return &r->groups[j];
    j = (j + 1) & (r->group_capacity - 1);
  }
  return &r->groups[j];
}

/* ---- storage ------------------------------------------------------------------------ */

static void indexRecord(PrunerRecords r, size_t index);

/* Copies `record` in and indexes it; false when memory runs out. */
static bool storeRecord(PrunerRecords r, const PrunerRecord *record, size_t line) {
  if (r->count == r->lines_capacity) {
    size_t capacity = r->lines_capacity ? r->lines_capacity * 2 : CHUNK_RECORDS;
    size_t *lines = realloc(r->lines, capacity * sizeof(*lines));
    if (!lines)
      return false;
    r->lines = lines;
    r->lines_capacity = capacity;
  }
  if (r->count == r->num_chunks * CHUNK_RECORDS) {
    PrunerRecord **chunks = realloc(r->chunks, (r->num_chunks + 1) * sizeof(*chunks));
    if (!chunks)
      return false;
    r->chunks = chunks;
    r->chunks[r->num_chunks] = malloc(CHUNK_RECORDS * sizeof(PrunerRecord));
    if (!r->chunks[r->num_chunks])
      return false;
    r->num_chunks++;
  }
  if ((r->configs.used + 1) * 2 > r->configs.capacity && !configTableGrow(&r->configs))
    return false;
  if ((r->group_used + 1) * 2 > r->group_capacity && !groupTableGrow(r))
    return false;

  size_t index = r->count++;
  *recordAt(r, index) = *record;
  r->lines[index] = line;
  indexRecord(r, index);
  return true;
}

/* Enters record `index` into the group and config tables (which have room). */
static void indexRecord(PrunerRecords r, size_t index) {
  PrunerRecord *rec = recordAt(r, index);
  uint64_t gh = groupHash(rec->workload_key, rec->target_key);
  GroupEntry *group = groupProbe(r, gh, rec->workload_key, rec->target_key);
  if (!group->any) {
    group->hash = gh;
    group->any = index + 1;
    r->group_used++;
  }
  if (rec->is_baseline) {
    /* The latest ok baseline wins (the runner re-measures it at the end, interleaved
     * with the winners); a failed one only stands in while there is no ok one. */
    const PrunerRecord *old = group->baseline ? recordAt(r, group->baseline - 1) : NULL;
    if (rec->status == PRUNER_RECORD_OK || !old || old->status != PRUNER_RECORD_OK)
      group->baseline = index + 1;
    return;
  }
  if (rec->status == PRUNER_RECORD_OK) {
    const PrunerRecord *best = group->best ? recordAt(r, group->best - 1) : NULL;
    if (!best || rec->median_us < best->median_us)
      group->best = index + 1;
  }
  /* Find returns the latest record of a config (a re-measurement supersedes). */
  uint64_t ch = configHash(gh, &rec->config);
  size_t slot = configTableProbe(r, ch, rec->workload_key, rec->target_key, &rec->config);
  if (!r->configs.slots[slot]) {
    r->configs.used++;
    r->configs.hashes[slot] = ch;
  }
  r->configs.slots[slot] = index + 1;
}

static void addWarning(PrunerRecords r, size_t line_number, const char *message) {
  r->skipped++;
  size_t len = strlen(r->warnings);
  if (r->skipped <= MAX_WARNED_LINES) {
    snprintf(r->warnings + len, sizeof(r->warnings) - len, "%s%s:%zu: skipped: %s",
             len ? "\n" : "", r->path, line_number, message);
  }
}

static void finishWarnings(PrunerRecords r) {
  if (r->skipped > MAX_WARNED_LINES) {
    size_t len = strlen(r->warnings);
    snprintf(r->warnings + len, sizeof(r->warnings) - len,
             "\n%s: %zu more corrupt lines skipped", r->path, r->skipped - MAX_WARNED_LINES);
  }
}

static bool onlyWhitespace(const char *s) {
  for (; *s; ++s) {
    if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
      return false;
  }
  return true;
}

/* One line (with its '\n', '\r\n' or lone '\r', if any) into *line, NUL-terminated;
 * *length excludes the NUL. A line longer than MAX_LINE_BYTES is read to its end but only
 * its start is kept (*too_long); *newline says whether it ended in a line end. *total
 * counts the bytes read so far. Returns 1 for a line, 0 at the end of
 * the file, -1 on a read error (errno set) and -2 when memory runs out: never the end of
 * the file, so a failed allocation cannot silently drop the rest of the records (getline
 * returns -1 for both). */
static int readLine(FILE *f, char **line, size_t *capacity, size_t *length, bool *too_long,
                    bool *newline, uint64_t *total) {
  size_t n = 0;
  *too_long = false;
  *newline = false;
  int c = EOF;
  while ((c = getc_unlocked(f)) != EOF) {
    ++*total;
    if (n + 2 > *capacity && n < MAX_LINE_BYTES) {
      size_t grown = *capacity ? *capacity * 2 : 4096;
      char *p = realloc(*line, grown);
      if (!p)
        return -2;
      *line = p;
      *capacity = grown;
    }
    if (n < MAX_LINE_BYTES)
      (*line)[n++] = (char)c;
    else
      *too_long = true;
    if (c == '\n') {
      *newline = true;
      break;
    }
    /* A lone CR ends a line too (a file saved with old Mac line ends would otherwise be
     * one line of several records, all lost); CRLF stays one line end. */
    if (c == '\r') {
      int next = getc_unlocked(f);
      if (next != '\n') {
        if (next != EOF)
          ungetc(next, f);
        *newline = true;
        break;
      }
      ungetc(next, f);
    }
    if (*total > PRUNER_READ_FILE_MAX)
      break;
  }
  if (c == EOF && ferror(f))
    return -1;
  if (n == 0 && !*too_long)
    return 0;
  (*line)[n] = '\0';
  *length = n;
  return 1;
}

/* Whether `line` is the start of a line this writer wrote: every record line begins with
 * {"version": (a torn one may stop anywhere in it). Other JSON-like lines (a dict per
 * line of another program) are not torn records. */
static bool tornRecordLine(const char *line) {
  static const char kStart[] = "{\"version\":";
  size_t n = strcspn(line, "\r\n");
  size_t k = sizeof kStart - 1;
  return n > 0 && strncmp(line, kStart, n < k ? n : k) == 0;
}

static PrunerStatus loadFile(PrunerRecords r) {
  char *line = NULL;
  size_t capacity = 0, length = 0;
  uint64_t total = 0;
  size_t line_number = 0;
  bool too_long = false, newline = false;
  int got;
  PrunerRecord *record = malloc(sizeof(*record));
  if (!record)
    return prunerStatusError("%s: out of memory", r->path);
  r->needs_newline = false;
  PrunerStatus status = prunerStatusOk();
  flockfile(r->file);
  while ((got = readLine(r->file, &line, &capacity, &length, &too_long, &newline, &total)) > 0) {
    ++line_number;
    if (total > PRUNER_READ_FILE_MAX) {
      char limit[32];
      prunerFormatBytes(PRUNER_READ_FILE_MAX, limit, sizeof limit);
      status = prunerStatusError("%s: larger than the %s limit for a records file", r->path, limit);
      break;
    }
    r->needs_newline = !newline;
    if (too_long) {
      addWarning(r, line_number, "line longer than 1 MiB (binary garbage)");
      continue;
    }
    /* A NUL byte would hide the rest of the line from the parser (a blank-looking or
     * half-read line): the line is corrupt, not blank. */
    if (memchr(line, '\0', length)) {
      addWarning(r, line_number, "NUL byte in the line (binary garbage)");
      continue;
    }
    if (onlyWhitespace(line))
      continue;
    PrunerStatus parsed = prunerRecordFromJson(line, record);
    if (!parsed.ok) {
      r->torn += tornRecordLine(line) && strncmp(parsed.message, "invalid JSON", 12) == 0;
      addWarning(r, line_number, parsed.message);
      continue;
    }
    if (!storeRecord(r, record, line_number)) {
      got = -2;
      break;
    }
  }
  funlockfile(r->file);
  int err = errno;
  r->file_lines = line_number;
  free(line);
  free(record);
  finishWarnings(r);
  if (!status.ok)
    return status;
  if (got == -2)
    return prunerStatusError("%s:%zu: out of memory reading the records", r->path, line_number);
  if (got == -1)
    return prunerStatusError("%s: read error: %s", r->path, strerror(err));
  return prunerStatusOk();
}

/* ---- public API --------------------------------------------------------------------- */

PrunerRecords prunerRecordsCreateInMemory(void) {
  PrunerRecords r = calloc(1, sizeof(*r));
  if (r)
    snprintf(r->path, sizeof(r->path), "<memory>");
  return r;
}

/* Only a regular file is a records file: appending to a device (/dev/null, /dev/full)
 * would lose every measurement or fail late, and /dev/zero would be read forever. */
static PrunerStatus checkRegular(PrunerRecords r) {
  struct stat st;
  if (fstat(fileno(r->file), &st) != 0)
    return prunerStatusError("%s: cannot stat records file: %s", r->path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return prunerStatusError("%s: not a regular file; a records file must be one "
                             "(docs/records.md)",
                             r->path);
  return prunerStatusOk();
}

/* The reason the first skipped line was skipped (its "path:line: skipped: " prefix cut),
 * at most 200 characters of its first line; "" when no line was skipped. */
static const char *firstSkipReason(PrunerRecords r, int *len) {
  const char *first = strstr(r->warnings, ": skipped: ");
  size_t n = first ? strcspn(first + 11, "\n") : 0;
  *len = (int)(n < 200 ? n : 200);
  return first ? first + 11 : "";
}

/* One writer per records file: two tuners appending to one log would measure the same
 * configs twice, each unaware of the other's lines. The lock (flock, exclusive) lives as
 * long as the file is open and goes away with the process, even after kill -9. */
static PrunerStatus lockForWriting(PrunerRecords r) {
  if (flock(fileno(r->file), LOCK_EX | LOCK_NB) == 0)
    return prunerStatusOk();
  r->created = false; /* never ours to remove: the holder of the lock writes to it */
  if (errno == EWOULDBLOCK)
    return prunerStatusError("%s: records file is in use by another process (locked for "
                             "writing); wait for it to finish or give another --records file",
                             r->path);
  return prunerStatusError("%s: cannot lock records file: %s", r->path, strerror(errno));
}

static PrunerStatus openFile(PrunerRecords r, const char *mode) {
  r->file = fopen(r->path, mode);
  if (!r->file)
    return prunerStatusError("%s: cannot open records file: %s", r->path, strerror(errno));
  return prunerStatusOk();
}

/* Whether the open file is still the one `path` names (not removed or replaced). */
static bool stillNamed(PrunerRecords r) {
  struct stat open_st, path_st;
  return fstat(fileno(r->file), &open_st) == 0 && stat(r->path, &path_st) == 0 &&
         open_st.st_dev == path_st.st_dev && open_st.st_ino == path_st.st_ino;
}

/* Opens for appending, creating the file if absent (and remembering that this open made
 * it: O_EXCL tells, where two tuners start together), and locks it. A new file another
 * process made and removed between our open and our lock (a tuner that failed to start,
 * prunerRecordsDiscardIfNew) is opened again: appends to it would be lost. */
static PrunerStatus openForAppending(PrunerRecords r) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    int fd = open(r->path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    r->created = fd >= 0;
    if (fd >= 0) {
      r->file = fdopen(fd, "a+");
      if (!r->file) { /* the empty file stays: it is removed only under its lock */
        int err = errno;
        close(fd);
        return prunerStatusError("%s: cannot open records file: %s", r->path, strerror(err));
      }
    } else if (errno != EEXIST) {
      return prunerStatusError("%s: cannot open records file: %s", r->path, strerror(errno));
    } else {
      PrunerStatus st = openFile(r, "a+e");
      if (!st.ok)
        return st;
    }
    PrunerStatus st = checkRegular(r);
    if (st.ok)
      st = lockForWriting(r);
    if (!st.ok || stillNamed(r))
      return st;
    fclose(r->file); /* removed or replaced before the lock was ours: open it again */
    r->file = NULL;
  }
  return prunerStatusError("%s: the records file kept being removed or replaced while it was "
                           "opened; is another process recreating it?",
                           r->path);
}

static PrunerStatus openWithMode(const char *path, bool read_only, PrunerRecords *out) {
  *out = NULL;
  PrunerRecords r = prunerRecordsCreateInMemory();
  if (!r)
    return prunerStatusError("%s: out of memory", path);
  snprintf(r->path, sizeof(r->path), "%s", path);
  r->read_only = read_only;
  /* "a+": created if absent, read from the start, every write appended; "r" for a
   * read-only load of an existing file. "e": close-on-exec, so that workers and runners
   * started by the tuner neither inherit the descriptor nor keep its lock alive. */
  PrunerStatus status = prunerStatusOk();
  /* Checked before the open too: opening a FIFO read-only blocks until a writer comes. */
  struct stat before;
  if (stat(path, &before) == 0 && !S_ISREG(before.st_mode)) {
    status = prunerStatusError("%s: not a regular file; a records file must be one "
                               "(docs/records.md)",
                               path);
    prunerRecordsDestroy(r);
    return status;
  }
  status = read_only ? openFile(r, "re") : openForAppending(r);
  if (status.ok)
    status = checkRegular(r);
  if (status.ok)
    status = loadFile(r);
  /* A file with content of which no line is a record is something else (a module or a
   * bundle manifest given as --records by mistake, or a newer format): never append to
   * it. The one exception is a file of torn lines only, each starting like a record and
   * breaking off: the first appends of runs that were killed (one run killed mid-line,
   * then the next one too, leaves two). */
  bool only_torn = r->skipped == r->torn;
  if (status.ok && !read_only && r->count == 0 && r->skipped > 0 && !only_torn) {
    int len;
    const char *first = firstSkipReason(r, &len);
    status = prunerStatusError("%s: not a records file (no line of it is a record; first: "
                               "%.*s; docs/records.md); refusing to append to it",
                               path, len, first);
  }
  if (!status.ok) {
    prunerRecordsDestroy(r);
    return status;
  }
  *out = r;
  return prunerStatusOk();
}

PrunerStatus prunerRecordsCreate(const char *path, PrunerRecords *out) {
  return openWithMode(path, false, out);
}

PrunerStatus prunerRecordsCreateReadOnly(const char *path, PrunerRecords *out) {
  return openWithMode(path, true, out);
}

bool prunerRecordsDiscardIfNew(PrunerRecords r) {
  if (!r || !r->file || r->read_only || !r->created || r->file_lines > 0)
    return false;
  struct stat st;
  /* Still locked by us, still empty and still the file the path names: no other process
   * can have written a line, and one that opened it meanwhile opens it again (above). */
  if (fstat(fileno(r->file), &st) != 0 || st.st_size != 0 || !stillNamed(r))
    return false;
  if (unlink(r->path) != 0)
    return false;
  r->created = false;
  return true;
}

void prunerRecordsDestroy(PrunerRecords r) {
  if (!r)
    return;
  if (r->file)
    fclose(r->file);
  for (size_t i = 0; i < r->num_chunks; ++i)
    free(r->chunks[i]);
  free(r->chunks);
  free(r->configs.hashes);
  free(r->configs.slots);
  free(r->groups);
  free(r->lines);
  free(r);
}

PrunerStatus prunerRecordsAppend(PrunerRecords r, const PrunerRecord *record) {
  if (r->read_only)
    return prunerStatusError("%s: opened read-only; records cannot be appended", r->path);
  if (!record->workload_key[0])
    return prunerStatusError("%s: record without a workload key", r->path);
  if (!record->target_key[0])
    return prunerStatusError("%s: record of workload '%s' without a target key", r->path,
                             record->workload_key);
  if (record->has_workload && strcmp(record->workload.key, record->workload_key) != 0)
    return prunerStatusError("%s: record's workload_key '%s' differs from its workload's "
                             "key '%s'",
                             r->path, record->workload_key, record->workload.key);
  if (r->file) {
    char *text = prunerRecordToJson(record);
    if (!text)
      return prunerStatusError("%s: out of memory", r->path);
    /* A torn last line is closed first so that this line starts on its own. */
    bool ok = !r->needs_newline || fputc('\n', r->file) != EOF;
    ok = ok && fputs(text, r->file) != EOF && fputc('\n', r->file) != EOF;
    ok = ok && fflush(r->file) == 0 && fsync(fileno(r->file)) == 0;
    int err = errno;
    free(text);
    if (!ok) {
      r->needs_newline = true; /* part of the line may have reached the file */
      ++r->file_lines;
      return prunerStatusError("%s: cannot append record of workload '%s': %s", r->path,
                               record->workload_key, strerror(err));
    }
    r->needs_newline = false;
  }
  size_t line = r->file ? ++r->file_lines : 0;
  if (!storeRecord(r, record, line))
    return prunerStatusError("%s: out of memory", r->path);
  return prunerStatusOk();
}

PrunerStatus prunerRecordsAppendAll(PrunerRecords to, PrunerRecords from) {
  for (size_t i = 0; i < from->count; ++i) {
    PrunerStatus st = prunerRecordsAppend(to, recordAt(from, i));
    if (!st.ok)
      return st;
  }
  return prunerStatusOk();
}

PrunerStatus prunerRecordCheckCodegen(const PrunerRecord *r, int version) {
  if (version <= 0 || r->is_baseline || r->codegen_version == 0 ||
      r->codegen_version == version)
    return prunerStatusOk();
  return prunerStatusError("measured with code-generator version %d; this build generates "
                           "version %d",
                           r->codegen_version, version);
}

typedef struct CodegenScope {
  const char *target_key;
  int version;
  const PrunerTargetDesc *target; /* per workload when set */
} CodegenScope;

static PrunerStatus codegenInScope(const PrunerRecord *r, void *user) {
  const CodegenScope *scope = user;
  if (strcmp(r->target_key, scope->target_key) != 0)
    return prunerStatusOk();
  return prunerRecordCheckCodegen(r, scope->target && r->has_workload
                                         ? prunerTargetCodegenVersionOf(scope->target,
                                                                        &r->workload)
                                         : scope->version);
}

size_t prunerRecordsFilterCodegen(PrunerRecords records, const char *target_key, int version) {
  CodegenScope scope = {target_key, version, NULL};
  return prunerRecordsFilter(records, codegenInScope, &scope);
}

size_t prunerRecordsFilterCodegenOf(PrunerRecords records, const char *target_key,
                                    const PrunerTargetDesc *target) {
  CodegenScope scope = {target_key, prunerTargetCodegenVersion(target), target};
  return prunerRecordsFilter(records, codegenInScope, &scope);
}

size_t prunerRecordsFilter(PrunerRecords r, PrunerRecordCheck check, void *user) {
  r->warnings[0] = '\0';
  size_t kept = 0, dropped = 0;
  for (size_t i = 0; i < r->count; ++i) {
    PrunerStatus why = check(recordAt(r, i), user);
    if (!why.ok) {
      ++dropped;
      if (dropped <= MAX_WARNED_LINES) {
        size_t len = strlen(r->warnings);
        if (r->lines[i])
          snprintf(r->warnings + len, sizeof(r->warnings) - len, "%s%s:%zu: skipped: %s",
                   len ? "\n" : "", r->path, r->lines[i], why.message);
        else
          snprintf(r->warnings + len, sizeof(r->warnings) - len, "%s%s: skipped: %s",
                   len ? "\n" : "", r->path, why.message);
      }
      continue;
    }
    if (kept != i) {
      *recordAt(r, kept) = *recordAt(r, i);
      r->lines[kept] = r->lines[i];
    }
    ++kept;
  }
  if (dropped > MAX_WARNED_LINES) {
    size_t len = strlen(r->warnings);
    snprintf(r->warnings + len, sizeof(r->warnings) - len, "\n%s: %zu more records skipped",
             r->path, dropped - MAX_WARNED_LINES);
  }
  if (dropped == 0)
    return 0;
  /* Rebuild both indexes over what is left (they have room: the count only shrank). */
  r->count = kept;
  r->skipped += dropped;
  if (r->configs.capacity) {
    memset(r->configs.hashes, 0, r->configs.capacity * sizeof(*r->configs.hashes));
    memset(r->configs.slots, 0, r->configs.capacity * sizeof(*r->configs.slots));
  }
  r->configs.used = 0;
  if (r->group_capacity)
    memset(r->groups, 0, r->group_capacity * sizeof(*r->groups));
  r->group_used = 0;
  for (size_t i = 0; i < kept; ++i)
    indexRecord(r, i);
  return dropped;
}

size_t prunerRecordsCount(PrunerRecords r) { return r->count; }

const PrunerRecord *prunerRecordsGet(PrunerRecords r, size_t i) {
  return i < r->count ? recordAt(r, i) : NULL;
}

const char *prunerRecordsWarnings(PrunerRecords r) { return r->warnings; }

void prunerRecordsPrintWarnings(PrunerRecords r, FILE *f, const char *prefix) {
  const char *text = prunerRecordsWarnings(r);
  while (text && *text) {
    size_t n = strcspn(text, "\n");
    fprintf(f, "%s%.*s\n", prefix, (int)n, text);
    text += n + (text[n] == '\n');
  }
}

size_t prunerRecordsSkippedLines(PrunerRecords r) { return r->skipped; }

const PrunerRecord *prunerRecordsFind(PrunerRecords r, const char *workload_key,
                                      const char *target_key, const PrunerConfig *config) {
  if (!r->configs.capacity)
    return NULL;
  uint64_t h = configHash(groupHash(workload_key, target_key), config);
  size_t slot = configTableProbe(r, h, workload_key, target_key, config);
  return r->configs.slots[slot] ? recordAt(r, r->configs.slots[slot] - 1) : NULL;
}

const PrunerRecord *prunerRecordsBest(PrunerRecords r, const char *workload_key,
                                      const char *target_key) {
  GroupEntry *g = groupProbe(r, groupHash(workload_key, target_key), workload_key, target_key);
  return g && g->best ? recordAt(r, g->best - 1) : NULL;
}

const PrunerRecord *prunerRecordsBaseline(PrunerRecords r, const char *workload_key,
                                          const char *target_key) {
  GroupEntry *g = groupProbe(r, groupHash(workload_key, target_key), workload_key, target_key);
  return g && g->baseline ? recordAt(r, g->baseline - 1) : NULL;
}

const char *prunerRecordsBusiestTarget(PrunerRecords records) {
  const char *best = NULL;
  size_t best_count = 0, n = prunerRecordsCount(records);
  for (size_t i = 0; i < n; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (r->status != PRUNER_RECORD_OK || !r->has_workload || r->is_baseline)
      continue;
    bool counted = false; /* a key seen before was counted there */
    for (size_t j = 0; j < i && !counted; ++j) {
      const PrunerRecord *q = prunerRecordsGet(records, j);
      counted = q->status == PRUNER_RECORD_OK && q->has_workload && !q->is_baseline &&
                strcmp(q->target_key, r->target_key) == 0;
    }
    if (counted)
      continue;
    size_t c = 0;
    for (size_t j = i; j < n; ++j) {
      const PrunerRecord *q = prunerRecordsGet(records, j);
      c += q->status == PRUNER_RECORD_OK && q->has_workload && !q->is_baseline &&
           strcmp(q->target_key, r->target_key) == 0;
    }
    if (c > best_count) {
      best = r->target_key;
      best_count = c;
    }
  }
  return best;
}

void prunerRecordsMeasuredMachine(PrunerRecords records, const char *target_key,
                                  PrunerMeasuredMachine *out) {
  memset(out, 0, sizeof *out);
  size_t n = prunerRecordsCount(records);
  for (size_t i = 0; i < n && (!out->l1d_bytes || !(out->clock_mhz > 0)); ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (strcmp(r->target_key, target_key) != 0)
      continue;
    if (!out->l1d_bytes && r->cache_bytes[0] > 0) {
      out->l1d_bytes = r->cache_bytes[0];
      out->l2_bytes = r->cache_bytes[1];
      out->l3_bytes = r->cache_bytes[2];
    }
    if (!(out->clock_mhz > 0) && r->sm_clock_mhz > 0 && isfinite(r->sm_clock_mhz))
      out->clock_mhz = r->sm_clock_mhz;
  }
}

int prunerRecordsKernelVersion(PrunerRecords records, const char *target_key) {
  int version = 0;
  size_t n = prunerRecordsCount(records);
  for (size_t i = 0; i < n; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (!r->is_baseline && r->codegen_version > version &&
        strcmp(r->target_key, target_key) == 0)
      version = r->codegen_version;
  }
  return version > 0 ? version : 1;
}

PrunerStatus prunerRecordsDatasetTarget(PrunerRecords records, const char *key,
                                        PrunerTargetDesc *out, char *what, size_t what_size) {
  if (key && strcmp(key, "records") == 0 && !(key = prunerRecordsBusiestTarget(records)))
    return prunerStatusError("--dataset-target=records: no ok record with a workload "
                             "description");
  PrunerMeasuredMachine measured;
  prunerRecordsMeasuredMachine(records, key ? key : "", &measured);
  PrunerStatus st = prunerTargetFromKey(key, &measured, out, what, what_size);
  if (st.ok)
    out->codegen_version = prunerRecordsKernelVersion(records, key);
  /* One version per key: 2-D conv records of kernels before and since version 4 (their
   * accumulators hoisted) would be modelled alike, as the newer; the line says so. */
  int conv_min = 0, conv_max = 0;
  for (size_t i = 0, n = prunerRecordsCount(records); st.ok && i < n; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    if (r->is_baseline || !r->has_workload || strcmp(r->target_key, key) != 0 ||
        (r->workload.kind != PRUNER_OP_CONV_2D_NHWC_HWCF &&
         r->workload.kind != PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC))
      continue;
    int v = r->codegen_version > 0 ? r->codegen_version : 1;
    conv_min = conv_min == 0 || v < conv_min ? v : conv_min;
    conv_max = v > conv_max ? v : conv_max;
  }
  size_t len0 = what ? strnlen(what, what_size) : 0;
  if (conv_min > 0 && conv_min < 4 && conv_max >= 4 && what && len0 + 1 < what_size)
    snprintf(what + len0, what_size - len0,
             "; warning: 2-D conv records of code-generator versions %d and %d: all modelled "
             "as version %d (keep one version per file and key)",
             conv_min, conv_max, out->codegen_version);
  /* One key, two machines (a Zen 3 and a Zen 4 are both amd-epyc): the first is modelled,
   * and the line says the file disagrees with itself. */
  size_t others = 0, n = prunerRecordsCount(records);
  for (size_t i = 0; st.ok && i < n; ++i) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    others += r->cache_bytes[0] > 0 && strcmp(r->target_key, key) == 0 &&
              (r->cache_bytes[0] != measured.l1d_bytes || r->cache_bytes[1] != measured.l2_bytes ||
               r->cache_bytes[2] != measured.l3_bytes);
  }
  size_t len = what ? strnlen(what, what_size) : 0;
  if (others && what && len + 1 < what_size)
    snprintf(what + len, what_size - len,
             "; warning: %zu records of this key carry other caches (measured on another "
             "machine): the first record's are modelled",
             others);
  return st;
}

PrunerStatus prunerRecordsRequireRecords(PrunerRecords r) {
  if (r->count > 0)
    return prunerStatusOk();
  if (r->skipped == 0)
    return prunerStatusError("%s holds no record (empty)", r->path);
  int len;
  const char *first = firstSkipReason(r, &len);
  return prunerStatusError("%s: not a records file (no line of it is a record; %zu line(s) "
                           "skipped, first: %.*s)",
                           r->path, r->skipped, len, first);
}
