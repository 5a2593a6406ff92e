/* test_file.c: pruner/file.h (whole-file reads: contents, sizes past the first chunk,
 * embedded NULs, the error naming the path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/file.h"

static void writeBytes(const char *path, const char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, size, f), size);
  assert_int_equal(fclose(f), 0);
}

/* Larger than the 64 KiB first chunk, so the buffer must grow; a NUL inside counts. */
static void test_reads_all_bytes(void **state) {
  (void)state;
  char path[] = "/tmp/pruner-test-file-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  size_t size = 200000;
  char *data = malloc(size);
  for (size_t i = 0; i < size; ++i)
    data[i] = (char)('a' + i % 26);
  data[70000] = '\0';
  writeBytes(path, data, size);
  char *got = NULL;
  size_t got_size = 0;
  PrunerStatus st = prunerReadFile(path, &got, &got_size);
  assert_true(st.ok);
  assert_int_equal(got_size, size);
  assert_memory_equal(got, data, size);
  assert_int_equal(got[size], '\0');
  free(got);
  free(data);

  writeBytes(path, "", 0);
  st = prunerReadFile(path, &got, NULL);
  assert_true(st.ok);
  assert_string_equal(got, "");
  free(got);
  unlink(path);
}

static void test_missing_file_names_path(void **state) {
  (void)state;
  char *got = (char *)1;
  size_t size = 7;
  PrunerStatus st = prunerReadFile("/nonexistent/pruner-missing.mlir", &got, &size);
  assert_false(st.ok);
  assert_null(got);
  assert_int_equal(size, 0);
  assert_non_null(strstr(st.message, "'/nonexistent/pruner-missing.mlir'"));
  assert_non_null(strstr(st.message, "No such file"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_all_bytes),
      cmocka_unit_test(test_missing_file_names_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
