/* pruner/worker.h: an isolated worker process with a watchdog.
 *
 * Compiling a candidate can hang or blow up (ptxas, runaway pattern sets), a kernel that
 * faults poisons its CUDA context and one that hangs never returns, a JIT'ed host kernel
 * can crash: every such step runs in a forked child. PrunerWorker is that mechanism, the
 * one implementation shared by lib/backend/gpu's pool, lib/backend/host and tools/pruner-run: the
 * parent sends fixed-size requests, the child runs an injected handler and answers with a
 * fixed-size reply and an optional variable-size tail (e.g. a cubin); a child that
 * crashes or overruns its timeout is killed with its whole process group (tools it
 * spawned die with it), the call reports it, and the next request starts a fresh child.
 * Several workers can be driven at once (prunerWorkerSend, prunerWorkerWaitAny,
 * prunerWorkerReceive). MLIR-free and CUDA-free (POSIX only), so it sits in
 * lib/support below every stage that needs it. Format and choices: docs/worker.md. */
#ifndef PRUNER_WORKER_H
#define PRUNER_WORKER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs in the child for each request. Fills `reply` (reply_size bytes, zeroed before the
 * call). Returns false to make the child exit after answering (e.g. its CUDA context is
 * poisoned); the next call then starts a fresh child. */
typedef bool (*PrunerWorkerHandler)(void *context, const void *request, void *reply);

/* Like PrunerWorkerHandler, and may also answer with a tail: *tail (malloc'ed by the
 * handler, freed by the worker after sending) of *tail_size bytes, both 0 on entry. */
typedef bool (*PrunerWorkerTailHandler)(void *context, const void *request, void *reply,
                                        void **tail, size_t *tail_size);

typedef struct PrunerWorkerSpec {
  PrunerWorkerHandler handler; /* one of handler and tail_handler               */
  void *context;               /* passed to the handlers in the child (copied by fork:
                                  the child may keep state in it across requests) */
  size_t request_size;         /* fixed sizes of one request and one reply       */
  size_t reply_size;
  /* Optional fields (zero: unused). */
  PrunerWorkerTailHandler tail_handler;
  void (*child_init)(void *context); /* once in each new child, before any request   */
  int64_t memory_limit_mb;           /* the child's address-space limit (RLIMIT_AS;
                                        none in an ASan build)                      */
  /* Set by the caller's signal handler (Ctrl-C): a wait notices it within
   * PRUNER_WORKER_STOP_POLL_MS, kills the child and returns PRUNER_WORKER_INTERRUPTED. */
  const volatile sig_atomic_t *stop;
  /* In the parent, after each child is reaped (it exited, crashed or was killed):
   * removes what the child could not remove itself (files named by its pid). */
  void (*child_reaped)(void *context, int pid);
} PrunerWorkerSpec;

/* How often a waiting call looks at PrunerWorkerSpec.stop. */
#define PRUNER_WORKER_STOP_POLL_MS 50

typedef enum PrunerWorkerOutcome {
  PRUNER_WORKER_DONE = 0, /* the reply is filled                                */
  PRUNER_WORKER_TIMEOUT,  /* no answer within the timeout; the child was killed  */
  PRUNER_WORKER_CRASHED,  /* the child died (signal or exit) before answering    */
  PRUNER_WORKER_FAILED,   /* could not start a child, or a bad argument          */
  PRUNER_WORKER_PENDING,  /* prunerWorkerReceive without waiting: not yet        */
  /* *spec.stop was set while waiting; the child was killed. Not a result of the
   * request: do not record it. */
  PRUNER_WORKER_INTERRUPTED,
} PrunerWorkerOutcome;

typedef struct PrunerWorkerImpl *PrunerWorker;

/* No child runs until the first request. */
PrunerStatus prunerWorkerCreate(const PrunerWorkerSpec *spec, PrunerWorker *out);
/* Ends the child's input (it exits on EOF), waits up to 2 s for it, then kills it. */
void prunerWorkerDestroy(PrunerWorker worker);

/* Sends one request and waits up to `timeout_seconds` for the reply (a tail, if any, is
 * dropped). On anything but DONE, `why` (may be NULL) receives a one-line reason
 * ("worker killed by signal 11 (Segmentation fault)", "no reply within 2.0 s; worker
 * killed"). */
PrunerWorkerOutcome prunerWorkerCall(PrunerWorker worker, const void *request, void *reply,
                                     double timeout_seconds, char *why, size_t why_size);

/* The two halves of prunerWorkerCall, for driving several workers at once. Send starts
 * the child if needed and returns DONE once the request is on its way (the timeout counts
 * from now), FAILED or CRASHED (the idle child had died) otherwise. A worker takes one
 * request at a time. */
PrunerWorkerOutcome prunerWorkerSend(PrunerWorker worker, const void *request,
                                     double timeout_seconds, char *why, size_t why_size);
/* Collects the reply of the request in flight: DONE (reply filled; *tail, if tail is not
 * NULL, gets the malloc'ed tail or NULL, caller frees), TIMEOUT, CRASHED, or, when `wait`
 * is false and the reply is not complete yet, PENDING. */
PrunerWorkerOutcome prunerWorkerReceive(PrunerWorker worker, void *reply, void **tail,
                                        size_t *tail_size, bool wait, char *why, size_t why_size);
/* True while a request is in flight (sent, reply not yet received). */
bool prunerWorkerBusy(PrunerWorker worker);
/* Blocks until one of the busy workers in `workers` has reply data or its deadline has
 * passed (or, for a worker with a stop flag, until the next look at the flag); returns at
 * once if none is busy. */
void prunerWorkerWaitAny(PrunerWorker *workers, size_t n);

/* Limits the calling process's address space (RLIMIT_AS) to `mb` MiB; mb <= 0 sets none.
 * Returns false, setting nothing, in an AddressSanitizer build: ASan maps 16+ TB of virtual
 * address space for its shadow memory at startup, so no limit a machine could honour
 * leaves room for a single later mapping (docs/hardening.md). Workers call it in
 * each new child with their memory_limit_mb. */
bool prunerLimitAddressSpace(int64_t mb);
/* Whether prunerLimitAddressSpace can take effect in this build (false under ASan). */
bool prunerAddressSpaceLimitSupported(void);
/* Whether this build runs under AddressSanitizer (what it refuses: address-space limits,
 * dlopen with RTLD_DEEPBIND). */
bool prunerBuiltWithAddressSanitizer(void);

/* Counts children started so far; it changes when a call lands on a fresh child, so a
 * caller can tell that per-child state (buffers, references) must be set up again. */
int prunerWorkerGeneration(PrunerWorker worker);
/* Starts the child now if none runs (so that a caller can prepare it before timing). */
PrunerStatus prunerWorkerEnsureStarted(PrunerWorker worker);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_WORKER_H */
