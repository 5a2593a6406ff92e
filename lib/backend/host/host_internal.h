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

/* ---- oneDNN's convolution, the conv library baseline (onednn.c; measuring child only) ---- */
typedef struct HostOnednn HostOnednn;         /* the loaded library, a CPU engine and stream */
typedef struct HostOnednnConv HostOnednnConv; /* one workload's primitive on fixed buffers */
/* Loads libdnnl.so.2, its kernels capped at `max_lanes` f32 SIMD lanes (16: AVX-512, 8:
 * AVX2, 4: SSE4.1; 0: the CPU's own); NULL with the reason in `why` (not installed, an
 * ASan build, a build without oneDNN's header). Close with hostOnednnClose. */
HostOnednn *hostOnednnOpen(int max_lanes, char *why, size_t size);
void hostOnednnClose(HostOnednn *d);
const char *hostOnednnVersion(const HostOnednn *d); /* "2.6.3" */
void hostOnednnSetThreads(HostOnednn *d, int threads);
/* The forward direct convolution of `w` (an f32 NHWC or NCHW 2-D conv) from `src` into `dst`
 * (the workload's own layouts) with `filter` reordered once into the layout the primitive
 * chooses; it adds into `dst` (a sum post-op), as linalg's conv does. NULL with the reason
 * otherwise. The buffers must outlive it. */
HostOnednnConv *hostOnednnConvCreate(HostOnednn *d, const PrunerWorkload *w, const float *src,
                                     const float *filter, float *dst, char *why, size_t size);
bool hostOnednnConvRun(HostOnednnConv *c);
const char *hostOnednnConvImpl(const HostOnednnConv *c); /* "brg:avx512_core", ... */
void hostOnednnConvDestroy(HostOnednnConv *c);

#endif
