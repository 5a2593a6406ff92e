/* test/fuzz/fuzz.h: what the fuzz harnesses share (docs/hardening.md, "Fuzzing").
 *
 * Each harness defines LLVMFuzzerTestOneInput for one input kind. It is linked either
 * with clang's libFuzzer (PRUNER_FUZZ=ON: coverage-guided) or with driver.c (every other
 * build: the seed corpus plus deterministic mutations of it), so the same harness code is
 * compiled and run by every ctest. A harness returns 0 for every input the library
 * handles, rejections included; a crash, a sanitizer report or a FUZZ_CHECK failure (a
 * broken invariant, e.g. a record that does not read back as it was written) is a
 * finding. */
#ifndef PRUNER_TEST_FUZZ_H
#define PRUNER_TEST_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: say which and abort (both drivers keep the input). */
#define FUZZ_CHECK(cond, ...)                                                                      \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz invariant broken (%s:%d): ", __FILE__, __LINE__);                      \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* The input as a NUL-terminated string (malloc'ed; an embedded NUL ends it early, as it
 * would for any C reader of the text). NULL only when out of memory. */
static inline char *fuzzText(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (s) {
    memcpy(s, data, size);
    s[size] = '\0';
  }
  return s;
}

/* Inputs that crash MLIR 22's own parser (the stock mlir-opt too), before any pruner code
 * runs: the harnesses skip them so that a campaign goes on past them. Whitespace and
 * comments are ignored when matching. Reproducers and upstream status in
 * docs/hardening.md ("Upstream MLIR crashes"):
 *  - a dense array of `index` (`array<index: 1>`): llvm-project issue 179045;
 *  - a linalg.generic whose iterator_types holds anything but strings
 *    (`iterator_types = [8]`) crashes linalg::GenericOp::parse. */
static inline bool fuzzKnownMlirCrash(const char *text) {
  size_t n = strlen(text), k = 0;
  char *s = malloc(n + 1);
  if (!s)
    return true;
  for (size_t i = 0; i < n; i++) {
    if (text[i] == '/' && text[i + 1] == '/') {
      /* MLIR's lexer ends a comment at '\r' as well as at '\n' (a libFuzzer run found
       * "///\rarray<index" crashing past a '\n'-only match). */
      while (i < n && text[i] != '\n' && text[i] != '\r')
        i++;
      continue;
    }
    if (!strchr(" \t\n\r\v\f", text[i]))
      s[k++] = text[i];
  }
  s[k] = '\0';
  bool crash = strstr(s, "array<index") != NULL;
  static const char *const kIterators[] = {"iterator_types=[", "\"iterator_types\"=["};
  for (int j = 0; j < 2 && !crash; j++) {
    for (const char *p = strstr(s, kIterators[j]); p && !crash; p = strstr(p + 1, kIterators[j])) {
      const char *q = p + strlen(kIterators[j]);
      while (*q && *q != ']') {
        if (*q != '"') {
          crash = true;
          break;
        }
        for (q++; *q && *q != '"'; q++)
          if (*q == '\\' && q[1])
            q++;
        if (*q)
          q++;
        if (*q == ',')
          q++;
        else
          break;
      }
    }
  }
  free(s);
  return crash;
}

/* A rejection must say why: an empty message would reach the user as "error: ". */
#define FUZZ_CHECK_STATUS(st)                                                                      \
  FUZZ_CHECK((st).ok || (st).message[0] != '\0', "an error status without a message")

#endif /* PRUNER_TEST_FUZZ_H */
