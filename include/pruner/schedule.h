/* pruner/schedule.h: a config turned into a transform-dialect schedule, and a workload
 * turned back into payload IR.
 *
 * The schedule is the recipe that applies a config to one linalg op: tile to blocks,
 * tile the reduction loops, promote operands to shared memory, tile to threads, fuse the
 * producers and consumers that belong to the kernel (the accumulator's fill, a bias add),
 * vectorize, bufferize, lower vectors and map the loops to GPU blocks and threads. It is
 * produced as transform-dialect IR text (printable for debugging, parsed with the C API)
 * and applied with the transform interpreter. With `gpu_mapping` off the schedule stops
 * before the GPU mapping, so that the same tiled program can run on the host to check
 * its numerics against the untiled op. */
#ifndef PRUNER_SCHEDULE_H
#define PRUNER_SCHEDULE_H

#include <stdbool.h>

#include "pruner/space.h"
#include "pruner/status.h"
#include "pruner/target.h"
#include "pruner/text.h"
#include "pruner/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which linalg.fill initialises the op's accumulator (fused into the kernel). */
typedef enum PrunerScheduleFill {
  PRUNER_SCHEDULE_FILL_BY_KIND = 0, /* contractions and convolutions have one (the payloads
                                       of prunerSchedulePayload with_fill); others none  */
  PRUNER_SCHEDULE_FILL_NONE,        /* no fill feeds it                                  */
  PRUNER_SCHEDULE_FILL_TAGGED,      /* the fill tagged "<match_attr>.fill", any kind (a
                                       reduction's init too): pruner-apply-config        */
} PrunerScheduleFill;

typedef struct PrunerScheduleOptions {
  bool gpu_mapping;        /* false: keep scf.forall loops (host numerical checks) */
  const char *match_attr;  /* unit attribute naming the payload op to transform, e.g.
                              "pruner.apply_0"; NULL matches the op by its name    */
  bool fuse_consumer;      /* the elementwise linalg.generic tagged "<match_attr>.consumer"
                              (the op's only user) is tiled with the op's tiles and the
                              op and its fill are fused into it: one kernel. Contractions
                              without promotion only; needs match_attr.            */
  PrunerScheduleFill fill; /* default PRUNER_SCHEDULE_FILL_BY_KIND                  */
} PrunerScheduleOptions;

PrunerScheduleOptions prunerScheduleDefaultOptions(void);

/* Whether the schedule of `config` can fuse an elementwise consumer into the op's kernel
 * (fuse_consumer): the direct schedule of a contraction with one output only. Promoted
 * operands, tensor cores, a cross-thread reduction and split-K build kernels the
 * consumer's tiles do not fit; NULL when it can, else the kind that cannot, for messages
 * ("tensor cores", "split-K", ...). */
const char *prunerScheduleConsumerRefusal(const PrunerWorkload *w, const PrunerConfig *config);

/* Transform module text (a module with transform.with_named_sequence holding
 * @__transform_main) applying `config` to the workload's op; malloc'ed, caller frees.
 * Checks `config` first (prunerConfigCheck: its message on failure), and fails with a
 * message naming the key when the config cannot be scheduled. */
PrunerStatus prunerScheduleBuild(const PrunerWorkload *w, const PrunerConfig *config,
                                 const PrunerTargetDesc *t, const PrunerScheduleOptions *opts,
                                 char **text);

/* prunerScheduleBuild for a config that already passed prunerConfigCheck on the same
 * workload and target: the config is not checked again (one check per path: the compile
 * and pruner-apply-config check first, to report it their way). */
PrunerStatus prunerScheduleBuildChecked(const PrunerWorkload *w, const PrunerConfig *config,
                                        const PrunerScheduleOptions *opts, char **text);

/* Payload module text: func.func @<name>(inputs..., outputs...) -> results holding the
 * workload's op on tensors (a linalg.fill of zero feeding the accumulator for
 * contractions and convolutions when `with_fill`). malloc'ed, caller frees. */
PrunerStatus prunerSchedulePayload(const PrunerWorkload *w, const char *func_name,
                                   bool with_fill, char **text);

/* MLIR spelling of a dtype ("f32"), NULL if unknown; whether it is a float type. */
const char *prunerScheduleMlirType(PrunerDType dtype);
bool prunerScheduleIsFloat(PrunerDType dtype);
/* Appends operand `o`'s tensor type ("tensor<1x64x56x56xf32>") to `t`. */
void prunerScheduleAppendTensorType(PrunerText *t, const PrunerOperand *o);

/* The op name the payload uses for the workload ("linalg.matmul", "linalg.generic"): what
 * a schedule matches. */
const char *prunerSchedulePayloadOpName(const PrunerWorkload *w);

/* A ranked memref descriptor as MLIR's lowering lays it out (allocated, aligned, offset,
 * sizes[rank], strides[rank]): the argument the payload function takes per operand when
 * it runs on the host through the ExecutionEngine. Sized for PRUNER_MAX_RANK; a rank-r
 * operand uses the first 2r entries of sizes_strides. */
typedef struct PrunerMemrefDescriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes_strides[2 * PRUNER_MAX_RANK];
} PrunerMemrefDescriptor;

/* The descriptor of operand `o` stored contiguously (row-major) at `data`. */
void prunerScheduleMemrefDescriptor(PrunerMemrefDescriptor *d, void *data,
                                    const PrunerOperand *o);

/* Tuning specs (docs/tuning-spec.md): appends a `transform.match.structured` block on
 * the handle `op` that matches exactly the ops of `w`'s shape: loop count, operand counts,
 * every loop's bound and kind (parallel or reduction), every operand's element bitwidth
 * and, for contractions, the multiply-add body. `generic_body` writes the body and loop
 * checks in MLIR's generic form (IREE 3.13 reads those ops' properties only in that form).
 * Used by the project's spec and by the IREE backend's. */
void prunerScheduleAppendStructuredMatch(PrunerText *b, const char *op, const PrunerWorkload *w,
                                         bool generic_body);

/* The op names a workload's spec matcher accepts (at most 2, in `names`; returns the
 * count): its op's, and for a matmul or batch_matmul also linalg.contract, since a
 * contract with the named op's maps is that workload (one task, one entry for both). */
int prunerScheduleMatcherOpNames(const PrunerWorkload *w, const char *names[2]);

/* True when those matchers cannot tell `a` and `b` apart (an op name in common, same
 * bounds, operand counts and bitwidths, e.g. f16 vs bf16, or generics or contractions
 * with other maps, which the upstream match ops do not see): a foreach_match would give
 * both the first one's config. */
bool prunerScheduleMatchersAlike(const PrunerWorkload *a, const PrunerWorkload *b);

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_SCHEDULE_H */
