/* test/fuzz/fuzz_bundle.c: the bundle manifest reader on hostile text.
 *
 * The input becomes manifest.json in a scratch bundle folder that also holds non-empty
 * cubin files c000000.cubin .. c000003.cubin (the names the tuner writes), so manifests
 * that name them get past the file checks into the rest of the reader. Whatever
 * prunerBundleRead accepts must be consistent: every candidate's workload index in range
 * and its key equal to that workload's, its binary loadable. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "pruner/measure.h"
#include "pruner/space.h"
#include "pruner/workload.h"

static char g_dir[512];
static char g_manifest[600];

static void removeScratch(void) {
  char path[600];
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/c%06d.cubin", g_dir, i);
    unlink(path);
  }
  unlink(g_manifest);
  rmdir(g_dir);
}

/* In memory when the machine has /dev/shm: a disk shared with builds made each case wait
 * milliseconds for its two file writes. */
static void makeScratch(void) {
  const char *tmp = getenv("TMPDIR");
  if (access("/dev/shm", W_OK) == 0)
    tmp = "/dev/shm";
  snprintf(g_dir, sizeof g_dir, "%s/pruner-fuzz-bundle-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  FUZZ_CHECK(mkdtemp(g_dir) != NULL, "cannot create a scratch folder under %s", g_dir);
  snprintf(g_manifest, sizeof g_manifest, "%s/manifest.json", g_dir);
  for (int i = 0; i < 4; i++) {
    char path[600];
    snprintf(path, sizeof path, "%s/c%06d.cubin", g_dir, i);
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL, "cannot write %s", path);
    fputs("not a real cubin", f);
    fclose(f);
  }
  atexit(removeScratch);
}

static void writeManifest(const uint8_t *data, size_t size) {
  int fd = open(g_manifest, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  FUZZ_CHECK(fd >= 0, "cannot write %s", g_manifest);
  FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "short write to %s", g_manifest);
  close(fd);
}

static void useBundle(PrunerBundle b) {
  (void)prunerBundleDir(b), (void)prunerBundleSeed(b), (void)prunerBundleTargetName(b);
  (void)prunerBundleTargetArch(b), (void)prunerBundleTargetKey(b);
  size_t nw = prunerBundleNumWorkloads(b), nc = prunerBundleNumCandidates(b);
  for (size_t i = 0; i < nw; i++) {
    const PrunerWorkload *w = prunerBundleGetWorkload(b, i);
    FUZZ_CHECK(w && prunerWorkloadVerify(w).ok, "workload %zu accepted but not valid", i);
    (void)prunerWorkloadFlops(w);
    (void)prunerWorkloadBytes(w);
  }
  for (size_t i = 0; i < nc; i++) {
    const PrunerBundleCandidate *c = prunerBundleGetCandidate(b, i);
    FUZZ_CHECK(c && c->workload >= 0 && (size_t)c->workload < nw,
               "candidate %zu refers to workload %d of %zu", i, c ? c->workload : -1, nw);
    const PrunerWorkload *w = prunerBundleGetWorkload(b, (size_t)c->workload);
    FUZZ_CHECK(strcmp(c->workload_key, w->key) == 0, "candidate %zu: key '%s' vs '%s'", i,
               c->workload_key, w->key);
    char text[1024];
    prunerConfigFormat(w, &c->config, text, sizeof text);
    unsigned char *binary = NULL;
    size_t size = 0;
    PrunerStatus st = prunerBundleLoadBinary(b, i, &binary, &size);
    FUZZ_CHECK(st.ok && size > 0, "candidate %zu accepted but its cubin does not load: %s", i,
               st.message);
    free(binary);
  }
  FUZZ_CHECK(prunerBundleGetWorkload(b, nw) == NULL && prunerBundleGetCandidate(b, nc) == NULL,
             "getters past the end");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_dir[0])
    makeScratch();
  writeManifest(data, size);
  PrunerBundle b;
  PrunerStatus st = prunerBundleRead(g_dir, &b);
  FUZZ_CHECK_STATUS(st);
  if (st.ok) {
    useBundle(b);
    prunerBundleDestroy(b);
  }
  return 0;
}
