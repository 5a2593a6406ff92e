/* lib/space/space_mma.h: tensor-core (mma.sync) configs, internal to pruner_space.
 *
 * A config with mma = PRUNER_MMA_M16N8K16 tiles a f16 x f16 -> f32 matmul or batch_matmul
 * per block (`workgroup`), per warp (`thread`: each warp's tile, M a multiple of 16 and N
 * of 8) and per K step (`reduction`, a multiple of 16). config.c calls the rules here for
 * such configs; space.c appends the candidates here after its FMA configs. */
#ifndef PRUNER_LIB_SPACE_SPACE_MMA_H
#define PRUNER_LIB_SPACE_SPACE_MMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pruner/space.h"

/* The mma rules of docs/config.md ("mma") after the rules every config obeys (entries in
 * the right loops, divisibility). status == NULL: silent boolean form. */
bool prunerMmaConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                          const PrunerSpaceOptions *opts, const PrunerConfig *c,
                          PrunerStatus *status);

/* promote_operands of a staged tensor-core config: A and B (operands 0 and 1) copied to
 * shared memory per K step (cp.async), fragments read with ldmatrix (docs/schedule.md,
 * "Tensor cores staged in shared memory"). */
#define PRUNER_MMA_STAGED_OPERANDS 3u

/* Shared-memory bytes a staged mma config allocates: its A and B tiles of one K step,
 * times its stages; a pipelined config's rows padded (prunerStagedRowElems). */
int64_t prunerMmaStagedBytes(const PrunerWorkload *w, const PrunerConfig *c);

/* Grid and block of an mma config (assumed valid): blocks as for FMA configs, threads
 * 32 x warps along x. */
void prunerMmaLaunchShape(const PrunerWorkload *w, const PrunerConfig *c, PrunerLaunchShape *out);

/* Whether the workload and target admit mma configs at all (f16 matmul / batch_matmul
 * in the canonical layout, sm_80 or later); the message says why not. */
bool prunerMmaWorkloadOk(const PrunerWorkload *w, const PrunerTargetDesc *t, PrunerStatus *status);

/* The valid mma configs of `w` on `t` under `opts`, in a fixed order; malloc'ed array in
 * *out (NULL when none), count returned; -1 when out of memory. */
long prunerMmaCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                         const PrunerSpaceOptions *opts, PrunerConfig **out);

#endif /* PRUNER_LIB_SPACE_SPACE_MMA_H */
