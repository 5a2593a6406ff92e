/* test_file.c: pruner/file.h (whole-file reads: contents, sizes past the first chunk,
 * embedded NULs, the error naming the path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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


/* Past the cap is an error naming the file: a regular file by its size, before reading;
 * a stream (/dev/zero never ends) after reading one byte more than the cap. */
static void test_read_cap(void **state) {
  (void)state;
  char path[] = "/tmp/pruner-test-file-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  writeBytes(path, "0123456789", 10);
  char *got = NULL;
  size_t size = 0;
  assert_true(prunerReadFileCapped(path, 10, &got, &size).ok);
  assert_int_equal(size, 10);
  free(got);
  PrunerStatus st = prunerReadFileCapped(path, 9, &got, &size);
  assert_false(st.ok);
  assert_null(got);
  assert_non_null(strstr(st.message, path));
  assert_non_null(strstr(st.message, "larger than the 9 bytes limit"));
  unlink(path);

  st = prunerReadFileCapped("/dev/zero", (size_t)1 << 20, &got, &size);
  assert_false(st.ok);
  assert_null(got);
  assert_non_null(strstr(st.message, "larger than the 1 MiB limit"));
  st = prunerReadFileCapped("/dev/null", 0, &got, &size);
  assert_true(st.ok);
  assert_int_equal(size, 0);
  free(got);
}

static bool writeHello(FILE *f, void *user) {
  (void)user;
  return fputs("hello\n", f) != EOF;
}

static bool writeNothing(FILE *f, void *user) {
  fputs("half", f);
  (void)user;
  return false; /* the producer failed midway */
}

static int countEntries(const char *dir) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
  FILE *p = popen(cmd, "r");
  int n = -1;
  assert_int_equal(fscanf(p, "%d", &n), 1);
  pclose(p);
  return n;
}

/* The output is replaced whole or not at all; no temporary file stays behind; devices
 * and missing directories are refused; a symbolic link keeps pointing at its file. */
static void test_atomic_write(void **state) {
  (void)state;
  char dir[] = "/tmp/pruner-test-dir-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128], link_path[128];
  snprintf(path, sizeof path, "%s/out.mlir", dir);
  snprintf(link_path, sizeof link_path, "%s/link.mlir", dir);
  assert_true(prunerWriteFileAtomic(path, writeHello, NULL).ok);
  char *got = NULL;
  assert_true(prunerReadFile(path, &got, NULL).ok);
  assert_string_equal(got, "hello\n");
  free(got);
  assert_int_equal(chmod(path, 0640), 0);

  writeBytes(path, "old\n", 4);
  PrunerStatus st = prunerWriteFileAtomic(path, writeNothing, NULL);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, path));
  assert_true(prunerReadFile(path, &got, NULL).ok);
  assert_string_equal(got, "old\n"); /* untouched */
  free(got);
  assert_int_equal(countEntries(dir), 1);

  assert_true(prunerWriteFileAtomic(path, writeHello, NULL).ok);
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0640); /* permissions kept */

  assert_int_equal(symlink(path, link_path), 0);
  writeBytes(path, "old\n", 4);
  assert_true(prunerWriteFileAtomic(link_path, writeHello, NULL).ok);
  assert_int_equal(lstat(link_path, &sb), 0);
  assert_true(S_ISLNK(sb.st_mode));
  assert_true(prunerReadFile(path, &got, NULL).ok);
  assert_string_equal(got, "hello\n");
  free(got);
  assert_int_equal(countEntries(dir), 2);

  st = prunerWriteFileAtomic("/dev/full", writeHello, NULL);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "/dev/full: not a regular file"));
  st = prunerWriteFileAtomic(dir, writeHello, NULL);
  assert_false(st.ok);
  char missing[160];
  snprintf(missing, sizeof missing, "%s/no/such.mlir", dir);
  st = prunerCheckOutputPath("-o", missing);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "does not exist"));
  assert_true(prunerCheckOutputPath("-o", path).ok);

  unlink(link_path);
  unlink(path);
  rmdir(dir);
}

/* Several outputs: all or none. The second producer failing leaves the first file as it
 * was (absent, or its old content), with no temporary file behind; both written when
 * both succeed. A directory where no file can be created (/proc) is refused by the
 * check, before anything runs; permission bits would not tell (root passes them). */
static void test_atomic_write_several(void **state) {
  (void)state;
  char dir[] = "/tmp/pruner-test-dir-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char a[128], b[128];
  snprintf(a, sizeof a, "%s/out.mlir", dir);
  snprintf(b, sizeof b, "%s/spec.mlir", dir);
  PrunerFileOutput failing[2] = {{a, writeHello, NULL}, {b, writeNothing, NULL}};
  PrunerStatus st = prunerWriteFilesAtomic(failing, 2);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, b));
  assert_int_equal(countEntries(dir), 0); /* neither file, no temporary */
  writeBytes(a, "old\n", 4);
  st = prunerWriteFilesAtomic(failing, 2);
  assert_false(st.ok);
  char *got = NULL;
  assert_true(prunerReadFile(a, &got, NULL).ok);
  assert_string_equal(got, "old\n");
  free(got);
  assert_int_equal(countEntries(dir), 1);
  PrunerFileOutput both[2] = {{a, writeHello, NULL}, {b, writeHello, NULL}};
  assert_true(prunerWriteFilesAtomic(both, 2).ok);
  for (int i = 0; i < 2; ++i) {
    assert_true(prunerReadFile(i ? b : a, &got, NULL).ok);
    assert_string_equal(got, "hello\n");
    free(got);
  }
  assert_int_equal(countEntries(dir), 2);
  st = prunerCheckOutputPath("-o", "/proc/pruner-no-such-output.mlir");
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "cannot create a file in '/proc'"));
  unlink(a);
  unlink(b);
  rmdir(dir);
}

static void test_same_file(void **state) {
  (void)state;
  char dir[] = "/tmp/pruner-test-dir-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char a[128], a2[160], b[128], hard[128], soft[128], new1[128], new2[160];
  snprintf(a, sizeof a, "%s/a.mlir", dir);
  snprintf(a2, sizeof a2, "%s/./a.mlir", dir);
  snprintf(b, sizeof b, "%s/b.mlir", dir);
  snprintf(hard, sizeof hard, "%s/hard.mlir", dir);
  snprintf(soft, sizeof soft, "%s/soft.mlir", dir);
  snprintf(new1, sizeof new1, "%s/new.mlir", dir);
  snprintf(new2, sizeof new2, "%s/../%s/new.mlir", dir, strrchr(dir, '/') + 1);
  writeBytes(a, "x", 1);
  writeBytes(b, "x", 1);
  assert_int_equal(link(a, hard), 0);
  assert_int_equal(symlink(a, soft), 0);
  assert_true(prunerSameFile(a, a2));
  assert_true(prunerSameFile(a, hard));
  assert_true(prunerSameFile(soft, a));
  assert_false(prunerSameFile(a, b));
  assert_false(prunerSameFile(a, new1));
  assert_true(prunerSameFile(new1, new2)); /* neither exists yet */
  assert_false(prunerSameFile(new1, b));
  /* A dangling link names the file it would create: --records=link -o target. */
  char dangling[128], relative[128], loop[128];
  snprintf(dangling, sizeof dangling, "%s/dangling.jsonl", dir);
  snprintf(relative, sizeof relative, "%s/relative.jsonl", dir);
  snprintf(loop, sizeof loop, "%s/loop.jsonl", dir);
  assert_int_equal(symlink(new1, dangling), 0);
  assert_int_equal(symlink("new.mlir", relative), 0);
  assert_int_equal(symlink("loop.jsonl", loop), 0);
  assert_true(prunerSameFile(dangling, new1));
  assert_true(prunerSameFile(new2, relative));
  assert_true(prunerSameFile(dangling, relative));
  assert_false(prunerSameFile(dangling, b));
  assert_false(prunerSameFile(loop, new1)); /* a loop of links names no file */
  unlink(dangling);
  unlink(relative);
  unlink(loop);
  unlink(a);
  unlink(b);
  unlink(hard);
  unlink(soft);
  rmdir(dir);
}

static bool writeMuch(FILE *f, void *user) {
  (void)user;
  static char line[1024];
  memset(line, 'x', sizeof line - 2);
  line[sizeof line - 2] = '\n';
  for (int i = 0; i < 256; ++i)
    if (fputs(line, f) == EOF)
      return false;
  return true;
}

/* A writer stopped by the stream's error (a full disk; here the file size limit) is
 * reported with that error, not as content that could not be produced; nothing stays. */
static void test_atomic_write_stream_error(void **state) {
  (void)state;
  char dir[] = "/tmp/pruner-test-dir-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/out.mlir", dir);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG instead */
    struct rlimit lim = {16384, 16384};
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
      _exit(5);
    PrunerStatus st = prunerWriteFileAtomic(path, writeMuch, NULL);
    _exit(st.ok ? 1 : strstr(st.message, strerror(EFBIG)) == NULL ? 2 : 0);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_int_equal(countEntries(dir), 0);
  rmdir(dir);
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
      cmocka_unit_test(test_read_cap),
      cmocka_unit_test(test_atomic_write),
      cmocka_unit_test(test_atomic_write_several),
      cmocka_unit_test(test_same_file),
      cmocka_unit_test(test_atomic_write_stream_error),
      cmocka_unit_test(test_remove_tree),
      cmocka_unit_test(test_text_append_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
