/* pruner/backend/gpu.h: the NVIDIA GPU backend (lib/backend/gpu).
 *
 * Targets: the GPU table (pruner/target.h) and its architectures. Space rules and draft:
 * lib/space and lib/draft's GPU model. Candidates are built here, in the compile worker
 * pool (pruner/compile.h: MLIR -> NVVM -> PTX -> cubin with ptxas), and written into a
 * bundle (pruner/measure.h); a local GPU measures the bundle with pruner-run in a child
 * process (checked and timed, cuBLAS alongside as the baseline), or the bundle is
 * exported for a GPU host without MLIR (--measure=bundle:DIR, docs/bundle.md). */
#ifndef PRUNER_BACKEND_GPU_H
#define PRUNER_BACKEND_GPU_H

#include "pruner/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend's table entry (static storage; never freed). */
const PrunerBackend *prunerGpuBackend(void);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_BACKEND_GPU_H */
