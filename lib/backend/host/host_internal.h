/* lib/backend/host/host_internal.h: pieces of the host backend shared between its files. */
#ifndef PRUNER_HOST_INTERNAL_H
#define PRUNER_HOST_INTERNAL_H

#include <mlir-c/ExecutionEngine.h>
#include <mlir-c/IR.h>

#include "pruner/backend/host.h"

#ifndef PRUNER_HOST_LIBOMP
#define PRUNER_HOST_LIBOMP "/usr/lib/llvm-22/lib/libomp.so"
#endif
#ifndef PRUNER_HOST_RUNNER_UTILS
#define PRUNER_HOST_RUNNER_UTILS "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so"
#endif

typedef enum HostStage {
  HOST_STAGE_BUFFERIZED = 0, /* payload on memrefs               */
  HOST_STAGE_SCHEDULED,      /* after the transform schedule     */
  HOST_STAGE_LLVM,           /* after the lowering pipeline      */
} HostStage;

typedef struct HostKernel {
  MlirExecutionEngine jit;
  int num_results; /* memref results of @kernel (0 when written in place) */
} HostKernel;

/* True when the schedule of `w` starts on tensors and bufferizes itself (2-D convs). */
bool hostScheduleOnTensors(const PrunerWorkload *w);

/* prunerHostScheduleBuild for a config that already passed prunerHostConfigCheck on the
 * same workload and target (or NULL: untiled); it does not check again. */
PrunerStatus hostScheduleBuildChecked(const PrunerWorkload *w, const PrunerConfig *config,
                                      char **text);

/* A context with every dialect, pass and LLVM translation registered. */
MlirContext hostContextCreate(void);

/* Builds the payload and runs it up to `stop`; the module is the caller's. A failure
 * names the phase, the workload and the config, with MLIR's first error. `checked`: the
 * caller ran prunerHostConfigCheck on `c` for `t` already (the parent of the measuring
 * child does, to record an invalid config without starting it), so it is not checked
 * again (one check per path); otherwise it is checked here. */
PrunerStatus hostLowerModule(MlirContext ctx, const PrunerWorkload *w, const PrunerConfig *c,
                             const PrunerTargetDesc *t, bool checked, HostStage stop,
                             MlirModule *out, int *num_results);

PrunerStatus hostJit(MlirContext ctx, const PrunerWorkload *w, const PrunerConfig *c,
                     const PrunerTargetDesc *t, bool checked, int opt_level, HostKernel *out);
bool hostKernelInvoke(HostKernel *k, void **descriptors, int n);
void hostKernelDestroy(HostKernel *k);

#endif
