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

#include <sys/stat.h>

#include "pruner/file.h"
#include "pruner/text.h"

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

static void writeFile(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* The tree goes, nested folders included; a symbolic link is removed, not followed. */
static void test_remove_tree(void **state) {
  (void)state;
  char outside[] = "/tmp/pruner-test-keep-XXXXXX";
  char dir[] = "/tmp/pruner-test-tree-XXXXXX";
  assert_non_null(mkdtemp(outside));
  assert_non_null(mkdtemp(dir));
  char path[256], keep[256];
  snprintf(keep, sizeof keep, "%s/keep.txt", outside);
  writeFile(keep, "stays");
  snprintf(path, sizeof path, "%s/a.cubin", dir);
  writeFile(path, "x");
  snprintf(path, sizeof path, "%s/sub", dir);
  assert_int_equal(mkdir(path, 0700), 0);
  snprintf(path, sizeof path, "%s/sub/b.json", dir);
  writeFile(path, "{}");
  snprintf(path, sizeof path, "%s/link", dir);
  assert_int_equal(symlink(outside, path), 0);
  prunerRemoveTree(dir);
  struct stat st;
  assert_int_not_equal(stat(dir, &st), 0);
  assert_int_equal(stat(keep, &st), 0);
  unlink(keep);
  rmdir(outside);
  prunerRemoveTree("/tmp/pruner-test-no-such-folder"); /* absent: nothing happens */
}

/* Bytes without a NUL, appended to formatted text; the result stays NUL-terminated. */
static void test_text_append_bytes(void **state) {
  (void)state;
  PrunerText t;
  prunerTextInit(&t);
  prunerTextAppend(&t, "%d:", 42);
  prunerTextAppendBytes(&t, "abcdef", 3);
  prunerTextAppendBytes(&t, "", 0);
  char *out = NULL;
  assert_true(prunerTextFinish(&t, "test", &out).ok);
  assert_string_equal(out, "42:abc");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reads_all_bytes),
      cmocka_unit_test(test_missing_file_names_path),
      cmocka_unit_test(test_remove_tree),
      cmocka_unit_test(test_text_append_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
