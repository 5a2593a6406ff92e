/* pruner/records.h: the tuning log, one JSON object per measured candidate.
 *
 * Records are JSON lines (format in docs/records.md), appended and flushed one line at a
 * time so that a crash or Ctrl-C loses nothing already measured. Each line is
 * self-contained: workload key and description, target key, config, status, samples and
 * their median, clock, and the draft/verifier scores the candidate had when it was chosen.
 * A reader skips a torn or corrupt line with a warning (counted, with its line number)
 * and loses nothing else. Tuning resumes from the file and never re-measures a config it
 * already has for the same workload and target; records of another target are kept
 * apart and never count as measurements of this one. MLIR-free (its JSON library, cJSON,
 * stays inside lib/records), so the runner uses it too. */
#ifndef PRUNER_RECORDS_H
#define PRUNER_RECORDS_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRUNER_RECORDS_VERSION 1
#define PRUNER_MAX_SAMPLES 64
#define PRUNER_MAX_PASSES 16
/* The longest time a record may hold, in µs: one day, the longest per-candidate watchdog
 * (--timeout) of every tool. A longer latency was not measured by them; the reader
 * refuses it (1e300 µs would be printed as a 300-digit number and tuned towards). */
#define PRUNER_RECORD_MAX_US 86400e6
#define PRUNER_MAX_CODEGEN_VERSION 1000000

typedef enum PrunerRecordStatus {
  PRUNER_RECORD_OK = 0,
  PRUNER_RECORD_COMPILE_ERROR,
  PRUNER_RECORD_LAUNCH_ERROR,
  PRUNER_RECORD_TIMEOUT,
  PRUNER_RECORD_WRONG_RESULT,
  PRUNER_RECORD_INVALID,
  PRUNER_RECORD_STATUS_COUNT
} PrunerRecordStatus;

typedef struct PrunerRecord {
  int version;
  char workload_key[PRUNER_WORKLOAD_KEY_SIZE];
  PrunerWorkload workload;   /* full description (kind, bounds, operands)        */
  bool has_workload;         /* false if the line only carried the key          */
  char target_key[96];       /* prunerTargetKey(): arch, device, SM count       */
  char device_name[96];
  char driver_version[32];
  char toolchain_version[32];
  /* The version of the code generator that built the measured kernel from its config
   * (PrunerBackend.codegen_version; JSON: the target's "codegen"), so that a log written
   * before a change to the generated kernels is not reused as if it measured today's
   * (docs/records.md, "Code-generator version"). 0: not recorded (records written before
   * 2026-12-05, baselines). */
  int codegen_version;
  /* Host records: the measuring machine's caches, L1d and L2 per core and L3 in all
   * (bytes; 0: not recorded), so that a study elsewhere models them (the clock is
   * sm_clock_mhz). JSON: the target's "caches", three numbers or absent. */
  int64_t cache_bytes[3];
  bool is_baseline;          /* a cuBLAS / OpenBLAS measurement, no config      */
  char baseline_name[32];    /* "cublas", "openblas"                            */
  PrunerConfig config;
  PrunerRecordStatus status;
  char error[256];           /* compiler/launch/check message when not ok       */
  int num_samples;
  double samples_us[PRUNER_MAX_SAMPLES];
  double median_us;
  double spread_us;          /* max - min of the samples                        */
  double max_abs_error;      /* against the reference                           */
  double sm_clock_mhz;       /* 0 if unknown                                    */
  double draft_score_us;     /* predicted latency when chosen, 0 if none        */
  double verifier_score;     /* verifier output when chosen, 0 if none          */
  int registers;             /* ptxas, -1 if unknown                            */
  int spill_bytes;
  int shared_bytes;
  double timestamp;          /* seconds since the epoch                         */
  /* What the candidate cost the tuner, for wall-clock tuning time (the study; 0 when
   * unknown, and not written then): compile_s its compile (host: the JIT), measure_s
   * the whole measurement as the tuner waited for it (compile, check, warm-up, samples). */
  double compile_s;
  double measure_s;
  /* A dataset's record merged from several passes over the space (pruner-host-tool
   * --merge-faster keeps the fastest): each ok pass's median, in pass order, so that the
   * pass-to-pass spread of this config is known (0 passes: one measurement; not written). */
  int num_passes;
  double passes_us[PRUNER_MAX_PASSES];
} PrunerRecord;

const char *prunerRecordStatusName(PrunerRecordStatus status);
bool prunerRecordStatusParse(const char *name, PrunerRecordStatus *out);

/* A record with every field at its "unknown" value. */
void prunerRecordInit(PrunerRecord *record);

/* One JSON line (no trailing newline) for `record`; returns a malloc'ed string. */
char *prunerRecordToJson(const PrunerRecord *record);
/* Parses one line; the message says what is wrong with a bad line. */
PrunerStatus prunerRecordFromJson(const char *line, PrunerRecord *out);

/* A records log: a file open for appending (or read-only, or none) plus everything it
 * already held. Every Create has its prunerRecordsDestroy, which closes the file and
 * releases the lock; the records and strings the getters below return live in the log
 * and die with it. */
typedef struct PrunerRecordsImpl *PrunerRecords;

/* Opens (creating if absent) and loads `path` for appending. Corrupt lines are skipped;
 * their count and the first few line numbers are available through
 * prunerRecordsWarnings. Refused with a message: a path that is not a regular file (a
 * device, a directory), a file with content of which no line is a record (a module
 * given by mistake; a single torn line, the first append of a killed run, is fine), a file larger
 * than PRUNER_READ_FILE_MAX (pruner/file.h), and a file another process holds open for appending:
 * the file stays locked (flock, exclusive) until prunerRecordsDestroy, so two tuners never share
 * one log. Running out of memory while reading is an error, never the end of the file. */
PrunerStatus prunerRecordsCreate(const char *path, PrunerRecords *out);
/* Loads an existing file read-only (evaluation tools, --ingest, replay): a missing or
 * unreadable file is an error naming it, never created; Append on the result fails. Takes
 * no lock (a reader skips a writer's torn last line). */
PrunerStatus prunerRecordsCreateReadOnly(const char *path, PrunerRecords *out);
/* An in-memory log with no file (for replay and tests); NULL when out of memory. */
PrunerRecords prunerRecordsCreateInMemory(void);
/* Closes the file, releases its lock and frees the log; NULL is a no-op. */
void prunerRecordsDestroy(PrunerRecords records);
/* Removes the file of a log opened by prunerRecordsCreate when that open created it and
 * nothing was ever written to it (a tuner that failed to start or stopped before its
 * first measurement leaves no empty file behind). Done while the log still holds its
 * lock; a file that existed before, holds a line, or is another process's (two tuners
 * started on one new path: only the one holding the lock may remove it) is left. True
 * when the file was removed; the log stays usable in memory. Call before Destroy. */
bool prunerRecordsDiscardIfNew(PrunerRecords records);

/* Appends, writes the line and flushes (fflush + fsync) before returning. */
PrunerStatus prunerRecordsAppend(PrunerRecords records, const PrunerRecord *record);

/* Decides whether a loaded record is kept: ok, or the reason it is not (lib/tune checks
 * that a record's config fits its workload on the target, which this MLIR- and
 * target-free library cannot). */
typedef PrunerStatus (*PrunerRecordCheck)(const PrunerRecord *record, void *user);
/* Drops the records `check` refuses from the log in memory (the file is not rewritten):
 * they are counted in prunerRecordsSkippedLines, and prunerRecordsWarnings then describes
 * the first few as "path:line: skipped: reason" (only this call's, "" if none was
 * dropped). Returns how many were dropped. Pointers returned earlier by
 * Get/Find/Best/Baseline are invalid afterwards. */
size_t prunerRecordsFilter(PrunerRecords records, PrunerRecordCheck check, void *user);

/* The check of a record's code-generator version against the kernels a build makes
 * (`version`; 0: none known, no check). Ok for a baseline and for a record that carries
 * no version (written before the field existed: kept as it was), else only when equal;
 * the message says which version measured it. The callers (the tuner, pruner-run) apply
 * it to their own target's records through prunerRecordsFilter, so that an older
 * kernel's time is measured again instead of reused. */
PrunerStatus prunerRecordCheckCodegen(const PrunerRecord *record, int version);
/* prunerRecordsFilter with that check on the records of `target_key` (others are kept):
 * returns how many were dropped; prunerRecordsWarnings names them. */
size_t prunerRecordsFilterCodegen(PrunerRecords records, const char *target_key, int version);
/* The same with the version each record's own workload must carry on `target`
 * (prunerTargetCodegenVersionOf: a backend may change some workloads' kernels only;
 * prunerTargetCodegenVersion for a record without its workload). */
size_t prunerRecordsFilterCodegenOf(PrunerRecords records, const char *target_key,
                                    const PrunerTargetDesc *target);

/* Appends every record of `from` to `to` (in `from`'s order): several files read as
 * one log, e.g. in memory for training. */
PrunerStatus prunerRecordsAppendAll(PrunerRecords to, PrunerRecords from);

size_t prunerRecordsCount(PrunerRecords records);
const PrunerRecord *prunerRecordsGet(PrunerRecords records, size_t i);
/* Skipped-line report of the last load ("" if none): one line per skipped line (at most
 * a few, then a count), without a final newline. */
const char *prunerRecordsWarnings(PrunerRecords records);
/* Prints each line of prunerRecordsWarnings to `f` behind `prefix` ("pruner-eval:
 * warning: "), so that every line says which tool wrote it; nothing when there is none. */
void prunerRecordsPrintWarnings(PrunerRecords records, FILE *f, const char *prefix);

/* Ok when `records` holds a record; else an error naming the file: "PATH holds no record
 * (empty)" or "PATH: not a records file (no line of it is a record; N line(s) skipped,
 * first: REASON)". For files a run reads records from (a replay file, --ingest, a
 * training set): given a module or a bundle manifest it would find nothing to read. */
PrunerStatus prunerRecordsRequireRecords(PrunerRecords records);
size_t prunerRecordsSkippedLines(PrunerRecords records);

/* The record measuring `config` of `workload_key` on `target_key`, or NULL. */
const PrunerRecord *prunerRecordsFind(PrunerRecords records, const char *workload_key,
                                      const char *target_key, const PrunerConfig *config);
/* Best ok record (lowest median) for the workload on the target, or NULL. */
const PrunerRecord *prunerRecordsBest(PrunerRecords records, const char *workload_key,
                                      const char *target_key);
/* The target key with the most ok records that carry a workload description (a
 * dataset's own target; ties: the first in the file), or NULL when there is none. The
 * string lives in `records`. */
const char *prunerRecordsBusiestTarget(PrunerRecords records);
/* The machine the records of `target_key` were measured on, as far as they say: the
 * caches of the first such record that carries them and the clock (sm_clock_mhz) of the
 * first with one; fields 0 where none does. */
void prunerRecordsMeasuredMachine(PrunerRecords records, const char *target_key,
                                  PrunerMeasuredMachine *out);
/* The code-generator version of the kernels the records of `target_key` timed: the
 * highest PrunerRecord.codegen_version among them, 1 when none carries one (lines
 * written before versions existed timed version 1's kernels). A dataset's draft models
 * those kernels (PrunerTargetDesc.codegen_version). */
int prunerRecordsKernelVersion(PrunerRecords records, const char *target_key);
/* The dataset target of `records` (pruner-tune --study, pruner-eval, pruner-draft --eval
 * with --dataset-target=KEY): KEY ("records": prunerRecordsBusiestTarget) described by
 * prunerTargetFromKey with the machine prunerRecordsMeasuredMachine finds and the kernels
 * prunerRecordsKernelVersion finds; `what` gets its line. Fails, naming the file's problem
 * or the key's, when there is no such key. */
PrunerStatus prunerRecordsDatasetTarget(PrunerRecords records, const char *key,
                                        PrunerTargetDesc *out, char *what, size_t what_size);
/* Baseline record (cuBLAS/OpenBLAS) for the workload on the target, or NULL. */
const PrunerRecord *prunerRecordsBaseline(PrunerRecords records, const char *workload_key,
                                          const char *target_key);

/* The JSON forms of a workload and a config that records and the runner's bundle manifest
 * share (one implementation; docs/records.md), as text so that the JSON library stays
 * inside lib/records. The ...ToJsonText functions return one compact JSON object,
 * malloc'ed: the caller frees it; NULL only when out of memory. The ...FromJsonText
 * functions parse exactly one object and name the offending key in their message. */
/* The whole workload: kind, op name, loops (bounds, kinds, roles), operands (shape, dtype,
 * output flag, index coefficients), strides, dilations, body program, key. A parsed
 * workload is verified (prunerWorkloadVerify). */
char *prunerWorkloadToJsonText(const PrunerWorkload *w);
PrunerStatus prunerWorkloadFromJsonText(const char *text, PrunerWorkload *out);
/* A config in the docs/config.md form: {"workgroup": [..], "reduction": [..],
 * "thread": [..], "promote_operands": [0, 1], "vector_width": 4}; arrays have
 * `num_loops` entries. */
char *prunerConfigToJsonText(const PrunerConfig *config, int num_loops);
PrunerStatus prunerConfigFromJsonText(const char *text, PrunerConfig *out);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_RECORDS_H */
