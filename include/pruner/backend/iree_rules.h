/* pruner/backend/iree_rules.h: what the IREE backend tells the models, MLIR-free,
 * records-free and IREE-free (lib/backend/iree/rules_iree.c): the iree-cpu target, the
 * knobs and validity rules of its space, a config as IREE attribute text, and the tuning
 * spec IREE loads. lib/target and lib/space call these for PRUNER_TARGET_IREE_CPU; the
 * measuring half of the backend is pruner/backend/iree.h, where the meaning of a config
 * for IREE is described. */
#ifndef PRUNER_BACKEND_IREE_RULES_H
#define PRUNER_BACKEND_IREE_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/workload.h"

/* The version of what this backend gives IREE for a config (the lowering configuration
 * and the tuning spec), on its records as PrunerRecord.codegen_version; IREE's own
 * version is in the records' toolchain. Raise it with any change that alters what an
 * existing config compiles to (docs/records.md). */
#define PRUNER_IREE_CODEGEN_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rules (rules_iree.c; MLIR-free) ----------------------------------------------- */

/* The iree-cpu target: this machine's host description (pruner/backend/host_rules.h)
 * with kind PRUNER_TARGET_IREE_CPU and arch "iree-cpu". */
void prunerIreeCpuTargetDesc(PrunerTargetDesc *out);

/* Default limits of iree-cpu spaces (those of the host space). */
PrunerSpaceOptions prunerIreeCpuSpaceDefaultOptions(void);

/* The knobs of the iree-cpu space (space.c's order: parallel loops' tile pairs, reduction
 * loops' vector_reduction steps, promote_operands = {0}, vector_width); at most `cap`. */
PrunerStatus prunerIreeCpuSpaceKnobs(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                     const PrunerSpaceOptions *opts, PrunerKnob *knobs, int cap,
                                     int *num_knobs);

/* The validity rules of iree-cpu configs (docs/iree.md, "Validity"): the op kinds IREE's
 * CPU pipelines take here, entries in the right loops, distribution tiles dividing the
 * bounds, vector tiles dividing the distribution tiles, vector_reduction steps dividing
 * the bounds, the conv decomposition's unit loops, the vector loop a whole number of SIMD
 * vectors, and the register budget of the host rules. The message names the key, loop and
 * value at fault. NULL opts: defaults. */
PrunerStatus prunerIreeCpuConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                      const PrunerSpaceOptions *opts, const PrunerConfig *config);
bool prunerIreeCpuConfigIsValid(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                const PrunerSpaceOptions *opts, const PrunerConfig *config);

/* IREE's CPU pipeline for the op ("DoubleTilingExpert", "ConvTileAndDecomposeExpert"). */
const char *prunerIreeCpuPipeline(const PrunerWorkload *w);

/* `config` as IREE attributes: "#iree_cpu.lowering_config<...>" (keys in IREE's printed
 * order) and "#iree_codegen.compilation_info<lowering_config = ..., translation_info =
 * ...>". Return the length written (snprintf's). */
int prunerIreeCpuLoweringConfig(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                                size_t size);
int prunerIreeCpuCompilationInfo(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                                 size_t size);

/* A GPU config (pruner/space.h's GPU rules) as IREE's GPU compilation info for
 * iree-cuda (docs/iree.md, "CUDA"): "#iree_gpu.lowering_config<{promote_operands = [...],
 * reduction = [...], thread = [...], workgroup = [...]}>" and the TileAndFuse translation
 * with workgroup_size = the config's block and subgroup_size = the warp size; a
 * tensor-core config as IREE's mma_kind NV_MMA_SYNC_F32_16x8x16_F16 with subgroup tiles
 * and K step in intrinsics, A and B promoted, the block's threads in x and two prefetch
 * stages (docs/iree.md, "Tensor cores"). */
int prunerIreeGpuLoweringConfig(const PrunerWorkload *w, const PrunerConfig *config, char *buf,
                                size_t size);
int prunerIreeGpuCompilationInfo(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                 const PrunerConfig *config, char *buf, size_t size);

/* The --iree-cuda-target IREE 3.13 compiles `t`'s kernels for: its arch, and sm_89 for
 * sm_90 and later, which this release refuses (their PTX runs there; docs/iree.md). */
const char *prunerIreeCudaArch(const PrunerTargetDesc *t);

/* Whether IREE's GPU lowering_config can state `config`: not reduction_threads > 1, and
 * a tensor-core config (mma) only with warp tile and K step in whole m16n8k16 intrinsics
 * (the message says why). prunerConfigCheck runs it for iree-cuda targets. */
PrunerStatus prunerIreeGpuExpressible(const PrunerWorkload *w, const PrunerConfig *config);

/* prunerConfigCheck, and a config IREE's GPU lowering_config can express: not
 * reduction_threads > 1 (our cross-thread schedule; IREE's GPU configs have no such
 * field, so the compilation info would silently describe another kernel). */
PrunerStatus prunerIreeGpuConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                      const PrunerConfig *config);

/* The tuning spec IREE loads with --iree-codegen-tuning-spec-path: the module attributes
 * transform.with_named_sequence and iree_codegen.tuning_spec_with_default_entrypoint, one
 * matcher per workload (op name, loop count and bounds, operand counts and bitwidths, the
 * contraction body), annotating the op's "compilation_info", and the entry point
 * @__kernel_config (iree_codegen.tuning_spec_entrypoint) running foreach_match; for a GPU
 * target (kind PRUNER_TARGET_GPU or PRUNER_TARGET_IREE_CUDA) the GPU compilation info, for
 * iree-cpu (or NULL `t`)
 * the CPU one. Workloads
 * the matchers cannot tell apart from an earlier one are left out and counted in
 * *skipped (may be NULL). *text is malloc'ed; the caller frees it. */
PrunerStatus prunerIreeSpecText(const PrunerTargetDesc *t, const PrunerWorkload *const *workloads,
                                const PrunerConfig *configs, size_t n, char **text,
                                size_t *skipped);

/* The draft of an iree-cpu config: the host draft's terms (the same CPU) on the config
 * IREE runs. IREE walks the whole reduction inside a distribution tile, so the host's
 * reduction cache tile is the bound; vector_reduction only changes the inner vector
 * shape, which the host terms do not model (docs/iree.md, "Draft"). */
typedef struct PrunerDraftSymbols PrunerDraftSymbols; /* pruner/draft.h */
bool prunerIreeCpuDraftScore(const PrunerWorkload *w, const PrunerTargetDesc *t,
                             const PrunerConfig *config, PrunerDraftSymbols *out);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_BACKEND_IREE_RULES_H */
