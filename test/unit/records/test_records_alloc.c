/* test_records_alloc.c: running out of memory while reading a records file is an error,
 * never the end of the file. getline() returns -1 both at the end of the file and when
 * its realloc fails, so a failed allocation used to end the load early and silently drop
 * every record after it. realloc is wrapped (-Wl,--wrap=realloc, this test only) to fail
 * on demand for the calls lib/records makes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/records.h"

static size_t g_fail_from; /* reallocs of at least this many bytes fail; 0: none */

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size) {
  if (g_fail_from && size >= g_fail_from)
    return NULL;
  return __real_realloc(p, size);
}

static char *recordLine(int64_t tile, size_t pad) {
  PrunerRecord r;
  prunerRecordInit(&r);
  prunerWorkloadMatmul(&r.workload, 256, 256, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  r.has_workload = true;
  snprintf(r.workload_key, sizeof(r.workload_key), "%s", r.workload.key);
  snprintf(r.target_key, sizeof(r.target_key), "sm_90:h200:132sm");
  r.config.workgroup[0] = tile;
  r.config.workgroup[1] = 64;
  r.config.reduction[2] = 16;
  r.config.thread[0] = r.config.thread[1] = 4;
  r.config.vector_width = 4;
  r.status = PRUNER_RECORD_OK;
  r.median_us = 5.0;
  char *json = prunerRecordToJson(&r);
  /* JSON allows blanks between tokens: pad before the closing brace. */
  size_t n = strlen(json);
  char *line = malloc(n + pad + 1);
  memcpy(line, json, n - 1);
  memset(line + n - 1, ' ', pad);
  memcpy(line + n - 1 + pad, "}", 2);
  free(json);
  return line;
}

static void test_out_of_memory_is_an_error(void **state) {
  (void)state;
  char path[] = "/tmp/pruner-records-alloc-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  char *a = recordLine(64, 0), *b = recordLine(128, 20000), *c = recordLine(32, 0);
  fprintf(f, "%s\n%s\n%s\n", a, b, c); /* the middle line needs a bigger buffer */
  fclose(f);
  free(a);
  free(b);
  free(c);

  PrunerRecords records = NULL;
  assert_true(prunerRecordsCreateReadOnly(path, &records).ok);
  assert_int_equal(prunerRecordsCount(records), 3);
  prunerRecordsDestroy(records);

  g_fail_from = 16384;
  PrunerStatus s = prunerRecordsCreateReadOnly(path, &records);
  g_fail_from = 0;
  if (s.ok)
    fail_msg("loaded %zu of 3 records while memory ran out", prunerRecordsCount(records));
  assert_null(records);
  assert_non_null(strstr(s.message, "out of memory"));
  assert_non_null(strstr(s.message, path));
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_out_of_memory_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
