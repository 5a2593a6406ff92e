/* test/fuzz/driver.c: the plain driver for the fuzz harnesses, for builds without
 * libFuzzer (docs/hardening.md, "Fuzzing").
 *
 *   fuzz_<kind> [-mutations=N] [-seed=S] [-timeout=SECONDS] [-max_len=BYTES]
 *               [-artifact_prefix=PREFIX] [-only=CASE] PATH...
 *
 * Runs every file named (directories: their files, sorted by name) through
 * LLVMFuzzerTestOneInput, then N mutated inputs: each takes a seed file and applies one to
 * four edits drawn from a fixed pseudo-random sequence (bit flips, interesting bytes,
 * deletions, insertions of syntax tokens, duplicated ranges, numbers replaced by boundary
 * values, truncations, splices with another seed). The same flags give the same cases,
 * so a finding reproduces with -only=CASE or with the input file the driver writes when a
 * case crashes (PREFIX crash-CASE) or hangs (PREFIX timeout-CASE). Cases 0..seeds-1 are
 * the files themselves. The flag syntax is libFuzzer's, so a reproducer runs the same way
 * under either driver. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* Present when a sanitizer runtime is linked: it calls back before it ends the process. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

typedef struct Buffer {
  uint8_t *data;
  size_t size;
} Buffer;

static Buffer *g_seeds;
static size_t g_num_seeds;
static size_t g_max_len = 65536;

/* The case in flight, for the crash and timeout handlers (async-signal-safe writes). */
static const uint8_t *g_current;
static size_t g_current_size;
static char g_crash_path[4096];
static char g_timeout_path[4096];
static char g_message[512];

static void writeArtifact(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    size_t done = 0;
    while (done < g_current_size) {
      ssize_t n = write(fd, g_current + done, g_current_size - done);
      if (n <= 0)
        break;
      done += (size_t)n;
    }
    close(fd);
  }
  (void)!write(2, g_message, strlen(g_message));
  (void)!write(2, path, strlen(path));
  (void)!write(2, "\n", 1);
}

static void onDeath(void) {
  if (g_current)
    writeArtifact(g_crash_path);
}

static void onSignal(int sig) {
  onDeath();
  g_current = NULL;
  signal(sig, SIG_DFL);
  raise(sig);
}

static void onAlarm(int sig) {
  (void)sig;
  if (g_current)
    writeArtifact(g_timeout_path);
  _exit(70);
}

/* Under GCC, UBSan is a runtime of its own whose reports do not call ASan's death
 * callback: it aborts instead, which the SIGABRT handler sees. UBSAN_OPTIONS overrides. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "abort_on_error=1:print_stacktrace=1"; }

/* ---- the corpus ---------------------------------------------------------------------- */

static bool readInput(const char *path, Buffer *out) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  out->data = malloc(g_max_len ? g_max_len : 1);
  out->size = out->data ? fread(out->data, 1, g_max_len, f) : 0;
  fclose(f);
  return out->data != NULL;
}

static int compareNames(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void addSeed(const char *path) {
  Buffer b;
  if (!readInput(path, &b)) {
    fprintf(stderr, "driver: cannot read '%s'\n", path);
    exit(2);
  }
  g_seeds = realloc(g_seeds, (g_num_seeds + 1) * sizeof(Buffer));
  if (!g_seeds)
    exit(2);
  g_seeds[g_num_seeds++] = b;
}

static void addPath(const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    fprintf(stderr, "driver: no such file or folder '%s'\n", path);
    exit(2);
  }
  if (!S_ISDIR(sb.st_mode)) {
    addSeed(path);
    return;
  }
  DIR *dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "driver: cannot list '%s'\n", path);
    exit(2);
  }
  char **names = NULL;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    if (e->d_name[0] == '.')
      continue;
    names = realloc(names, (n + 1) * sizeof(char *));
    if (!names || asprintf(&names[n], "%s/%s", path, e->d_name) < 0)
      exit(2);
    n++;
  }
  closedir(dir);
  qsort(names, n, sizeof(char *), compareNames);
  for (size_t i = 0; i < n; i++) {
    if (stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode))
      addSeed(names[i]);
    free(names[i]);
  }
  free(names);
}

/* ---- mutations ----------------------------------------------------------------------- */

static uint64_t next(uint64_t *state) { /* splitmix64 */
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static size_t below(uint64_t *rng, size_t n) { return n ? (size_t)(next(rng) % n) : 0; }

/* Values at the edges of every integer and float conversion the readers make. */
static const char *const kNumbers[] = {"0",
                                       "-1",
                                       "1",
                                       "2",
                                       "3",
                                       "7",
                                       "64",
                                       "-0",
                                       "65536",
                                       "2147483647",
                                       "2147483648",
                                       "-2147483649",
                                       "4294967296",
                                       "9007199254740993",
                                       "9223372036854775807",
                                       "9223372036854775808",
                                       "-9223372036854775808",
                                       "18446744073709551616",
                                       "1099511627776",
                                       "4611686018427387904",
                                       "1e308",
                                       "1e309",
                                       "-1e309",
                                       "1e-320",
                                       "1.5",
                                       "nan",
                                       "NaN",
                                       "inf",
                                       "-inf",
                                       "0x7fffffffffffffff"};
/* Syntax of the three text formats (JSON, MLIR attributes, MLIR modules). */
static const char *const kTokens[] = {"\"",
                                      "{",
                                      "}",
                                      "[",
                                      "]",
                                      ",",
                                      ":",
                                      "null",
                                      "true",
                                      "false",
                                      "[]",
                                      "{}",
                                      "\\u0000",
                                      "\\",
                                      "-",
                                      "e",
                                      ".",
                                      "i1",
                                      ": i128",
                                      ": ui64",
                                      ": index",
                                      "array<i64: ",
                                      "array<i32: ",
                                      ">",
                                      "<",
                                      "?x",
                                      "0x",
                                      "tensor<",
                                      "memref<",
                                      "f16",
                                      "bf16",
                                      "i8",
                                      "x",
                                      "%",
                                      "#",
                                      "^",
                                      "affine_map<(d0, d1) -> (d0)>",
                                      "linalg.",
                                      "\n",
                                      " ",
                                      "(",
                                      ")",
                                      "=",
                                      "dense<"};

static bool isNumberChar(uint8_t c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Replaces [at, at + len) of b with `with` (with_len bytes), within the length cap. */
static void replaceRange(Buffer *b, size_t at, size_t len, const uint8_t *with, size_t with_len) {
  if (at > b->size)
    at = b->size;
  if (len > b->size - at)
    len = b->size - at;
  if (b->size - len + with_len > g_max_len)
    return;
  uint8_t *d = malloc(b->size - len + with_len + 1);
  if (!d)
    return;
  memcpy(d, b->data, at);
  if (with_len) /* `with` may be NULL then, and memcpy's arguments must not be */
    memcpy(d + at, with, with_len);
  memcpy(d + at + with_len, b->data + at + len, b->size - at - len);
  free(b->data);
  b->size = b->size - len + with_len;
  b->data = d;
}

static void mutateOnce(Buffer *b, uint64_t *rng) {
  size_t at = below(rng, b->size + 1);
  switch (below(rng, 10)) {
  case 0: /* flip a bit */
    if (b->size)
      b->data[below(rng, b->size)] ^= (uint8_t)(1u << below(rng, 8));
    break;
  case 1: { /* an interesting byte */
    static const uint8_t bytes[] = {0, 0xff, 0x7f, 0x80, '0', '9', '-', '"', '\\', '\n'};
    if (b->size)
      b->data[below(rng, b->size)] = bytes[below(rng, sizeof bytes)];
    break;
  }
  case 2: /* delete a range */
    replaceRange(b, at, 1 + below(rng, 16), NULL, 0);
    break;
  case 3:
  case 4: { /* insert a token */
    const char *t = kTokens[below(rng, sizeof kTokens / sizeof *kTokens)];
    replaceRange(b, at, 0, (const uint8_t *)t, strlen(t));
    break;
  }
  case 5: { /* duplicate a range */
    if (!b->size)
      break;
    size_t from = below(rng, b->size), len = 1 + below(rng, 64);
    if (len > b->size - from)
      len = b->size - from;
    uint8_t *copy = malloc(len);
    if (copy) {
      memcpy(copy, b->data + from, len);
      replaceRange(b, at, 0, copy, len);
      free(copy);
    }
    break;
  }
  case 6:
  case 7: { /* a number replaced by a boundary value: the number nearest after `at` */
    size_t i = at;
    while (i < b->size && !(b->data[i] >= '0' && b->data[i] <= '9'))
      i++;
    if (i >= b->size)
      break;
    size_t start = i, end = i;
    while (start > 0 && isNumberChar(b->data[start - 1]))
      start--;
    while (end < b->size && isNumberChar(b->data[end]))
      end++;
    const char *n = kNumbers[below(rng, sizeof kNumbers / sizeof *kNumbers)];
    replaceRange(b, start, end - start, (const uint8_t *)n, strlen(n));
    break;
  }
  case 8: /* truncate */
    b->size = at;
    break;
  case 9: { /* splice: our head, another seed's tail */
    const Buffer *o = &g_seeds[below(rng, g_num_seeds)];
    size_t from = below(rng, o->size + 1);
    replaceRange(b, at, b->size - at, o->data + from, o->size - from);
    break;
  }
  }
}

/* Case k >= seeds: a copy of one seed with 1-4 edits, from the k-th point of the sequence. */
static Buffer makeCase(size_t k, uint64_t seed) {
  Buffer b = {NULL, 0};
  if (k < g_num_seeds) {
    b.size = g_seeds[k].size;
    b.data = malloc(b.size + 1);
    if (b.data)
      memcpy(b.data, g_seeds[k].data, b.size);
    return b;
  }
  uint64_t rng = seed ^ (0x5851f42d4c957f2dull * (uint64_t)(k + 1));
  const Buffer *s = &g_seeds[below(&rng, g_num_seeds)];
  b.size = s->size;
  b.data = malloc(b.size + 1);
  if (!b.data)
    return b;
  memcpy(b.data, s->data, b.size);
  for (size_t edits = 1 + below(&rng, 4); edits > 0; edits--)
    mutateOnce(&b, &rng);
  return b;
}

static void runCase(size_t k, uint64_t seed, unsigned timeout, const char *prefix,
                    const char *name) {
  Buffer b = makeCase(k, seed);
  if (!b.data) {
    fprintf(stderr, "driver: out of memory\n");
    exit(2);
  }
  snprintf(g_crash_path, sizeof g_crash_path, "%scrash-%zu", prefix, k);
  snprintf(g_timeout_path, sizeof g_timeout_path, "%stimeout-%zu", prefix, k);
  snprintf(g_message, sizeof g_message,
           "%s: case %zu (-seed=%llu) failed; rerun with `%s -seed=%llu -only=%zu <same "
           "corpus>` or `%s FILE`; input written to ",
           name, k, (unsigned long long)seed, name, (unsigned long long)seed, k, name);
  g_current = b.data;
  g_current_size = b.size;
  alarm(timeout);
  LLVMFuzzerTestOneInput(b.data, b.size);
  alarm(0);
  g_current = NULL;
  free(b.data);
}

static bool flag(const char *arg, const char *name, const char **value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=')
    return false;
  *value = arg + n + 1;
  return true;
}

int main(int argc, char **argv) {
  unsigned long long mutations = 0, seed = 1, only = 0;
  bool have_only = false;
  unsigned timeout = 30;
  const char *prefix = "./", *v;
  const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  for (int i = 1; i < argc; i++) {
    if (flag(argv[i], "-mutations", &v) || flag(argv[i], "-runs", &v))
      mutations = strtoull(v, NULL, 10);
    else if (flag(argv[i], "-seed", &v))
      seed = strtoull(v, NULL, 10);
    else if (flag(argv[i], "-timeout", &v))
      timeout = (unsigned)strtoul(v, NULL, 10);
    else if (flag(argv[i], "-max_len", &v))
      g_max_len = (size_t)strtoull(v, NULL, 10);
    else if (flag(argv[i], "-artifact_prefix", &v))
      prefix = v;
    else if (flag(argv[i], "-only", &v))
      only = strtoull(v, NULL, 10), have_only = true;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "driver: unknown flag '%s'\n", argv[i]);
      return 2;
    } else
      addPath(argv[i]);
  }
  if (g_num_seeds == 0) {
    fprintf(stderr,
            "usage: %s [-mutations=N] [-seed=S] [-timeout=S] [-max_len=B] "
            "[-artifact_prefix=P] [-only=CASE] FILE-OR-FOLDER...\n",
            name);
    return 2;
  }
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(onDeath);
  else {
    signal(SIGSEGV, onSignal);
    signal(SIGBUS, onSignal);
    signal(SIGFPE, onSignal);
    signal(SIGILL, onSignal);
  }
  signal(SIGABRT, onSignal); /* FUZZ_CHECK; sanitizers leave SIGABRT alone by default */
  signal(SIGALRM, onAlarm);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  size_t total = g_num_seeds + (size_t)mutations;
  if (have_only) {
    runCase((size_t)only, seed, timeout, prefix, name);
    total = 1;
  } else {
    for (size_t k = 0; k < total; k++)
      runCase(k, seed, timeout, prefix, name);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("%s: %zu case(s) (%zu corpus file(s), %llu mutation(s), -seed=%llu) handled in "
         "%.1f s\n",
         name, total, g_num_seeds, have_only ? 0ull : mutations, seed, s);
  for (size_t i = 0; i < g_num_seeds; i++)
    free(g_seeds[i].data);
  free(g_seeds);
  return 0;
}
