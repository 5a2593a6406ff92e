/* lib/space/space_igemm.h: implicit-GEMM convolutions, internal to pruner_space.
 *
 * A conv_2d_nhwc_hwcf config with promote_operands (operand 0, optionally 1) on a GPU
 * target is an implicit GEMM: the schedule converts the conv to im2col + GEMM
 * (transform.structured.convert_conv2d_to_img2col), builds each block's im2col tile of
 * the input cooperatively in shared memory per K step and stages the filter's tile there
 * too when operand 1 is promoted. The config keeps the conv's loops; config.c checks the
 * rules here and then every contraction rule on the GEMM it denotes (docs/config.md,
 * rule 12). space.c lists the candidates here after its FMA configs. */
#ifndef PRUNER_LIB_SPACE_SPACE_IGEMM_H
#define PRUNER_LIB_SPACE_SPACE_IGEMM_H

#include <stdbool.h>

#include "pruner/space.h"

/* Whether `c` asks for the implicit-GEMM schedule of `w`: a conv_2d_nhwc_hwcf with
 * promoted operands and no tensor cores. Other convs with promote_operands are refused
 * by prunerIgemmConfigCheck. */
bool prunerIgemmSelected(const PrunerWorkload *w, const PrunerConfig *c);

/* The implicit-GEMM rules that refer to the conv's own loops (docs/config.md, rule 12).
 * status == NULL: silent boolean form. */
bool prunerIgemmConfigCheck(const PrunerWorkload *w, const PrunerTargetDesc *t,
                            const PrunerConfig *c, PrunerStatus *status);

/* The candidates of `w` on `t` (GPU targets), each valid under `opts`, in a fixed order;
 * malloc'ed array in *out (NULL when none), count returned; -1 when out of memory. */
long prunerIgemmCandidates(const PrunerWorkload *w, const PrunerTargetDesc *t,
                           const PrunerSpaceOptions *opts, PrunerConfig **out);

#endif /* PRUNER_LIB_SPACE_SPACE_IGEMM_H */
