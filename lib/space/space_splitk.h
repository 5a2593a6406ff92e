/* lib/space/space_splitk.h: the split-K candidates, internal to pruner_space.
 *
 * Split-K over blocks (split_k > 1, docs/config.md) pays where the output alone cannot fill
 * the GPU: decode-time GEMVs and row reductions with few rows. space.c lists these
 * configs after its FMA configs (and the tensor-core ones) rather than giving split_k a
 * knob: a knob would multiply every space by the slice counts, almost all of them configs
 * whose grid already covers the SMs. */
#ifndef PRUNER_LIB_SPACE_SPACE_SPLITK_H
#define PRUNER_LIB_SPACE_SPACE_SPLITK_H

#include "pruner/space.h"

/* The split-K candidates of `w` on `t` (the project's GPU targets; none elsewhere), each
 * valid under `opts`, in a fixed order: every plain FMA tiling (no promotion, one thread
 * per output) whose grid has fewer blocks than `t` has SMs, with each power-of-two slice
 * count from 2 that keeps the grid within 4 blocks per SM. Only for outputs of at most
 * 1024 elements per SM (skinny shapes) and reductions of at least 1024 elements (shorter
 * ones a block's own threads split: reduction_threads). Malloc'ed array in *out (NULL when none),
 * count returned; -1 when out of memory. */
long prunerSplitKCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                            const PrunerSpaceOptions *opts, PrunerConfig **out);

#endif /* PRUNER_LIB_SPACE_SPACE_SPLITK_H */
