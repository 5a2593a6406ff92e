/* test/fuzz/fuzz_records.c: the records reader on hostile text.
 *
 * The input is read two ways: as one line by prunerRecordFromJson, and as a whole
 * records file (any number of lines, NUL bytes, torn tails) by prunerRecordsCreateReadOnly,
 * through a memory file. A record the reader accepts must print and read back to the
 * same line (the resume logic matches records by their printed form), and the values
 * derived from it for the tables (FLOPs, bytes, the config text) must be computable. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "pruner/records.h"
#include "pruner/space.h"
#include "pruner/workload.h"

static void useRecord(const PrunerRecord *r) {
  char text[1024];
  if (r->has_workload && prunerWorkloadVerify(&r->workload).ok) {
    (void)prunerWorkloadFlops(&r->workload);
    (void)prunerWorkloadBytes(&r->workload);
    if (!r->is_baseline) {
      prunerConfigFormat(&r->workload, &r->config, text, sizeof text);
      prunerConfigFormatShort(&r->workload, &r->config, text, sizeof text);
    }
  }
}

static void roundTrip(const PrunerRecord *r) {
  char *json = prunerRecordToJson(r);
  FUZZ_CHECK(json != NULL, "an accepted record does not print");
  PrunerRecord again;
  PrunerStatus st = prunerRecordFromJson(json, &again);
  FUZZ_CHECK(st.ok, "an accepted record does not read back: %s\n%s", st.message, json);
  char *json2 = prunerRecordToJson(&again);
  FUZZ_CHECK(json2 != NULL && strcmp(json, json2) == 0,
             "a record changes when printed and read back:\n%s\n%s", json, json2);
  free(json);
  free(json2);
}

static void readAsFile(const uint8_t *data, size_t size) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("pruner-fuzz-records", 0);
    FUZZ_CHECK(fd >= 0, "memfd_create failed");
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  FUZZ_CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size,
             "cannot write the memory file");
  PrunerRecords records;
  PrunerStatus st = prunerRecordsCreateReadOnly(path, &records);
  FUZZ_CHECK_STATUS(st);
  if (!st.ok)
    return;
  size_t n = prunerRecordsCount(records);
  for (size_t i = 0; i < n; i++) {
    const PrunerRecord *r = prunerRecordsGet(records, i);
    FUZZ_CHECK(r != NULL, "record %zu of %zu missing", i, n);
    useRecord(r);
    if (r->status == PRUNER_RECORD_OK)
      (void)prunerRecordsBest(records, r->workload_key, r->target_key);
    (void)prunerRecordsFind(records, r->workload_key, r->target_key, &r->config);
  }
  (void)prunerRecordsWarnings(records);
  prunerRecordsDestroy(records);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *line = fuzzText(data, size);
  if (!line)
    return 0;
  PrunerRecord r;
  PrunerStatus st = prunerRecordFromJson(line, &r);
  FUZZ_CHECK_STATUS(st);
  if (st.ok) {
    useRecord(&r);
    roundTrip(&r);
  }
  free(line);
  readAsFile(data, size);
  return 0;
}
