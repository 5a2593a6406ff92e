/* pruner-run internals: the request/reply protocol between the orchestrating parent (no
 * CUDA) and the worker child (CUDA), and the parent loop with an injectable handler so
 * that tests can drive it with fake workers that hang or crash. */
#ifndef PRUNER_RUN_RUNNER_H
#define PRUNER_RUN_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pruner/measure.h"
#include "pruner/records.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RUN_FINAL_TOP 3 /* winners re-measured interleaved with cuBLAS per workload */

typedef enum RunRequestKind {
  RUN_HELLO = 0,  /* probe the device, report its properties                */
  RUN_PREPARE,    /* allocate buffers of `workload`, random inputs, reference */
  RUN_CANDIDATE,  /* check and time `candidate`                              */
  RUN_BASELINE,   /* check and time cuBLAS on `workload`                      */
  RUN_FINAL,      /* interleave `final_ids` (and cuBLAS) for `rounds` samples */
} RunRequestKind;

typedef struct RunRequest {
  RunRequestKind kind;
  int workload;
  int candidate; /* index into the bundle's candidates */
  int samples;   /* minimum samples                    */
  double budget_seconds; /* timing stops adding samples after this */
  uint64_t seed;
  int num_final;
  int final_ids[RUN_FINAL_TOP];
  bool final_baseline;
  int rounds;
} RunRequest;

typedef struct RunDeviceInfo {
  char name[96];
  int cc_major, cc_minor;
  int sm_count;
  double clock_mhz;
  int64_t l2_bytes;
  int64_t dram_bytes;
  int smem_per_block;        /* opt-in maximum */
  int smem_per_block_static;
  int smem_per_sm;
  int regs_per_sm, regs_per_block;
  int max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
  char driver_version[32];
  char runtime_version[32];
} RunDeviceInfo;

typedef struct RunReply {
  bool ok;          /* HELLO/PREPARE/FINAL: succeeded; else see error */
  bool no_device;   /* HELLO: no CUDA device (error holds the reason) */
  bool has_baseline;/* PREPARE: cuBLAS covers this workload           */
  PrunerRecordStatus status;
  char error[256];
  RunDeviceInfo device;
  int num_samples;
  double samples_us[PRUNER_MAX_SAMPLES];
  double median_us, spread_us, max_abs_error, sm_clock_mhz;
  /* RUN_FINAL: per entry (final_ids..., then cuBLAS) */
  double final_median_us[RUN_FINAL_TOP + 1];
  double final_spread_us[RUN_FINAL_TOP + 1];
} RunReply;

typedef struct RunnerOptions {
  const char *records_path;
  double timeout_seconds;
  double prepare_timeout_seconds; /* buffers + reference; default 300 */
  int samples;
  uint64_t seed;                  /* 0: the bundle's */
  bool only_baseline;
  bool final_remeasure;
  FILE *log;                      /* progress and the summary table */
} RunnerOptions;

/* Runs the whole protocol over `bundle` with `handler` (the CUDA worker in pruner-run, a
 * fake in tests) executing in a child process. Returns a PRUNER_RUN_EXIT_* code. */
int runnerExecute(PrunerBundle bundle, const RunnerOptions *opts, PrunerWorkerHandler handler,
                  void *handler_context);

/* The CUDA worker (gpu.c). Its context (from runnerGpuContextCreate) holds the bundle
 * and the child's CUDA state; create it before the first call (the child inherits it). */
bool runnerGpuHandler(void *context, const void *request, void *reply);
void *runnerGpuContextCreate(PrunerBundle bundle);
void runnerGpuContextDestroy(void *context);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_RUN_RUNNER_H */
