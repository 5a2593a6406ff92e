/* pruner/farm.h: building and measuring candidates farmed out over MPI ranks.
 *
 * Under `mpirun -n N pruner-tune ...` rank 0 runs the search exactly as a plain run does
 * and alone writes records and outputs; ranks 1..N-1 serve it: they receive batches of
 * candidates (workload + configs), build them (a compile rank) or build and measure them
 * (a measure rank) with the same backend, and send the results back. Rank 0 hands the
 * results to the tuner in candidate order, so the records file of a farmed run has the
 * same lines in the same order as a plain run with the same seed (docs/distributed.md).
 *
 * A rank says what it can do when it starts (its role: compile, measure or both); rank 0
 * sends measure work (PrunerBackend.measure) to measuring ranks and export work
 * (--measure=bundle, PrunerBackend.exportBuild) to compiling ranks, and takes a share
 * itself when its own role allows. When some rank only compiles and the backend has
 * measureBuilt, measure batches are pipelined: compile-only ranks build chunks
 * (exportBuild) that measuring ranks then measure (measureBuilt). Every rank sends a
 * heartbeat each second from a thread; a rank silent for the rank timeout is lost: its
 * unfinished candidates go to another rank or back to rank 0, and the run ends with a
 * message naming it. A worker rank whose rank 0 falls silent ends by itself.
 *
 * Built with MPI when CMake finds it (PRUNER_WITH_MPI, default ON); without it every
 * function still exists and a farm always has one rank (prunerFarmBuiltWithMpi says
 * which). Messages carry the project's structs as bytes: every rank must run the same
 * build (checked at the first contact, a mismatching rank is refused). */
#ifndef PRUNER_FARM_H
#define PRUNER_FARM_H

#include <stdbool.h>
#include <stddef.h>

#include "pruner/backend.h"
#include "pruner/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum PrunerFarmRole {
  PRUNER_FARM_ROLE_AUTO = 0, /* what this rank can do: measure too if its backend can
                                measure here (a GPU, IREE's tools, the host)          */
  PRUNER_FARM_ROLE_COMPILE = 1,
  PRUNER_FARM_ROLE_MEASURE = 2,
  PRUNER_FARM_ROLE_BOTH = 3,
} PrunerFarmRole;

/* "compile", "measure", "both", "auto"; Parse returns false for anything else. */
const char *prunerFarmRoleName(PrunerFarmRole role);
bool prunerFarmRoleParse(const char *name, PrunerFarmRole *out);

typedef struct PrunerFarmOptions {
  PrunerFarmRole role;   /* this rank's role; AUTO by default                         */
  double rank_timeout_s; /* a rank silent this long is lost; default 30               */
} PrunerFarmOptions;

PrunerFarmOptions prunerFarmDefaultOptions(void);

/* Whether this build has MPI, and whether this process was started by an MPI launcher
 * (mpirun, srun with PMI/PMIx): the environment says so before MPI starts. */
bool prunerFarmBuiltWithMpi(void);
bool prunerFarmLaunched(void);
/* This process's rank as the launcher's environment gives it before MPI starts
 * (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK); -1 when it does not say. */
int prunerFarmLauncherRank(void);

typedef struct PrunerFarmImpl *PrunerFarm;

/* Starts MPI (MPI_Init_thread, unless the program has started it: then with
 * MPI_THREAD_MULTIPLE, since the farm's heartbeat thread calls MPI beside the program's
 * threads) and the heartbeat thread; the farm talks on its own duplicate
 * of MPI_COMM_WORLD. Under a launcher in a build without MPI it fails, saying so.
 * *out is NULL on failure. Destroy with prunerFarmDestroy. */
PrunerStatus prunerFarmCreate(int *argc, char ***argv, const PrunerFarmOptions *opts,
                              PrunerFarm *out);
/* Rank 0 tells the worker ranks to end; the farm's communicator is released, then
 * MPI_Finalize when prunerFarmCreate started MPI (a program that started it finalizes it
 * itself). While those run a watchdog ends the process with `exit_status` should they
 * not return within 10 s (an MPI may wait for a lost rank); once they return the process
 * goes on. NULL: no-op. */
void prunerFarmDestroy(PrunerFarm farm, int exit_status);

/* Under an MPI launcher, for a rank that fails before its farm exists (a command-line
 * error, an input that does not parse): starts MPI if needed and aborts the whole job
 * with `exit_status`, so that the other ranks do not wait in MPI's start-up for this one
 * (with Open MPI's recovery settings they waited forever). Returns only when not
 * launched, in a build without MPI, or when MPI cannot start. */
void prunerFarmAbortLaunch(int exit_status);

int prunerFarmRank(PrunerFarm farm); /* 0 for NULL */
int prunerFarmSize(PrunerFarm farm); /* 1 for NULL */

/* The role this rank takes for `backend` on `target` (AUTO resolved: measure when the
 * backend can measure on this machine). */
PrunerFarmRole prunerFarmResolveRole(PrunerFarmRole role, const PrunerBackend *backend,
                                     const PrunerTargetDesc *target);

/* Rank 0: the target key its --target describes (before a device adopted another) and
 * its backend's code-generator version; a worker whose hello names others is lost at
 * once, its candidates never given to it (records of another CPU or build would be
 * written under rank 0's key). No-op on workers and for NULL. */
void prunerFarmExpectTarget(PrunerFarm farm, const char *target_key, int codegen_version);

/* A worker rank (rank > 0): serves rank 0 until it says stop or falls silent. `opts` are
 * the backend options of this rank (its own --jobs, --timeout, stop flag). Returns an
 * error for a lost rank 0 or a refused rank. */
PrunerStatus prunerFarmServe(PrunerFarm farm, const PrunerBackend *backend,
                             const PrunerTargetDesc *target, const PrunerBackendOptions *opts);

/* Rank 0: what backend->measure(local, batch, sink) does, with the batch split among the
 * measuring ranks (rank 0's share through `local`, which may be NULL when rank 0 does
 * not measure). Records reach sink->candidate in candidate order, the baseline after
 * them, as in a plain run; sink->nextSeed is drawn once per batch exactly when the
 * backend draws one (PrunerBackend.measure_draws_seed). */
PrunerStatus prunerFarmMeasure(PrunerFarm farm, const PrunerBackend *backend,
                               PrunerBackendState local, const PrunerBackendBatch *batch,
                               const PrunerBackendSink *sink);

/* Rank 0: what backend->exportAdd(local, batch, sink) does, with the building split
 * among the compiling ranks (backend->exportBuild there, exportAddBuilt here, in
 * candidate order). A backend without exportBuild builds on rank 0 alone. */
PrunerStatus prunerFarmExportAdd(PrunerFarm farm, const PrunerBackend *backend,
                                 PrunerBackendState local, const PrunerBackendBatch *batch,
                                 const PrunerBackendSink *sink);

/* Rank 0: one line per rank (role, candidates done, lost or not), malloc'ed; NULL for a
 * farm of one rank. */
char *prunerFarmSummary(PrunerFarm farm);
/* Rank 0: how many ranks were lost so far. */
int prunerFarmLostRanks(PrunerFarm farm);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_FARM_H */
