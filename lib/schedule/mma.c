/* lib/schedule/mma.c: the tensor-core (mma.sync m16n8k16) schedule of a config with
 * mma = PRUNER_MMA_M16N8K16 (docs/schedule.md, "Tensor cores").
 *
 * @pruner_tile (on tensors): tile the op to blocks, fuse the fill into the block and give
 * it its own linear thread forall (the block's threads zero the C tile together; the
 * barrier the mapping puts after it orders that before any warp reads C), tile the op to
 * warps (#gpu.warp<linear_dim_*>: warp id = thread x / 32), tile K into an scf.for, tag
 * the K-step op.
 * @pruner_promote (after bufferization, per op): vectorize the tagged op into one
 * vector.contract per K step (f16 operands, f32 accumulator), unroll it to 16x8x16
 * pieces, and run convert-vector-to-gpu{use-nvgpu}: nvgpu.mma.sync, lane-indexed fragment
 * loads (ldmatrix where the layout allows) and stores. This has to wait for
 * bufferization: the module-wide vector lowering of @pruner_bufferize would otherwise
 * turn the contracts into FMAs, and the conversion reads memrefs. Without GPU mapping
 * (host checks) the contracts are lowered like every other schedule's instead.
 * @pruner_map and @pruner_cleanup are the shared ones.
 * Staged configs (promote_operands = [0, 1], docs/schedule.md "Tensor cores staged in
 * shared memory") keep the K loop at block level instead: @pruner_promote stages A and B
 * per step (16-byte copies over the block's threads) and tiles the step to warps; the
 * mma steps run after the thread mapping (prunerScheduleAppendMmaStagedPost), where the
 * copies become cp.async and the fragments ldmatrix. */
#include <stdio.h>
#include <string.h>

#include "pruner/schedule.h"
#include "schedule_internal.h"

#define ANY "!transform.any_op"

/* Divisor of n no larger than limit (>= 1). */
static int64_t divisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = limit < n ? limit : n; d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

static void appendMatchOp(PrunerText *t, const char *result, const char *op_name, const char *attr,
                          const char *suffix) {
  if (attr)
    prunerTextAppend(t, "    %s = transform.structured.match attributes{%s%s} in %%root", result,
                     attr, suffix);
  else
    prunerTextAppend(t, "    %s = transform.structured.match ops{[\"%s\"]} in %%root", result,
                     op_name);
  prunerTextAppend(t, " : (" ANY ") -> " ANY "\n");
}

/* `tile_sizes [..] (mapping = [..])`; entries with tile 0 are not tiled. `kind` is
 * "block" (dims x, y, z by dim[]), "warp" or "thread" (linear dims by dim[]). */
static void appendForall(PrunerText *t, const char *tiled, const char *forall, const char *target,
                         int n, const int64_t *tile, const int *dim, const char *kind) {
  int last = -1, count = 0;
  for (int l = 0; l < n; ++l)
    if (tile[l] > 0)
      last = l;
  prunerTextAppend(t, "    %s, %s = transform.structured.tile_using_forall %s tile_sizes [", tiled,
                   forall, target);
  for (int l = 0; l <= last; ++l)
    prunerTextAppend(t, "%s%lld", l ? ", " : "", (long long)tile[l]);
  prunerTextAppend(t, "] (mapping = [");
  for (int l = 0; l <= last; ++l) {
    if (tile[l] <= 0)
      continue;
    if (strcmp(kind, "block") == 0)
      prunerTextAppend(t, "%s#gpu.block<%c>", count++ ? ", " : "", "xyz"[dim[l]]);
    else
      prunerTextAppend(t, "%s#gpu.%s<linear_dim_%d>", count++ ? ", " : "", kind, dim[l]);
  }
  prunerTextAppend(t, "]) : (" ANY ") -> (" ANY ", " ANY ")\n");
}

void prunerScheduleAppendMmaTile(PrunerText *t, const PrunerWorkload *w, const PrunerConfig *c,
                                 const PrunerLaunchShape *ls, bool fill, const char *attr,
                                 const char *forall_tag, const char *mma_tag, bool gpu_mapping) {
  const int n = w->num_loops;
  int m = -1, nn = -1, k = -1;
  for (int l = 0; l < n; ++l) {
    if (w->loop_roles[l] == PRUNER_ROLE_M)
      m = l;
    else if (w->loop_roles[l] == PRUNER_ROLE_N)
      nn = l;
    else if (w->loop_roles[l] == PRUNER_ROLE_K)
      k = l;
  }
  appendMatchOp(t, "%op", prunerSchedulePayloadOpName(w), attr, "");
  if (fill)
    appendMatchOp(t, "%fill", "linalg.fill", attr, ".fill");

  /* Blocks: every split parallel loop on its grid dimension (launch shape order). */
  int64_t bt[PRUNER_MAX_LOOPS] = {0};
  int bd[PRUNER_MAX_LOOPS];
  bool any = false;
  for (int l = 0; l < n; ++l)
    bd[l] = -1;
  for (int d = 0; d < 3; ++d)
    if (ls->grid_loop[d] >= 0) {
      bt[ls->grid_loop[d]] = c->workgroup[ls->grid_loop[d]];
      bd[ls->grid_loop[d]] = d;
      any = true;
    }
  if (!any) { /* one block: still a mapped forall, one iteration over N */
    bt[nn] = c->workgroup[nn];
    bd[nn] = 0;
  }
  prunerTextAppend(t, "    // Blocks: grid [%lld, %lld, %lld], %lld warps each.\n",
                   (long long)ls->grid[0], (long long)ls->grid[1], (long long)ls->grid[2],
                   (long long)(ls->threads_per_block / 32));
  appendForall(t, "%tb", "%fb", "%op", n, bt, bd, "block");
  prunerTextAppend(t, "    transform.annotate %%fb \"%s\" : " ANY "\n", forall_tag);
  if (fill) {
    /* The block's threads zero its C tile, spread over N first (contiguous), then M. */
    int64_t ft[PRUNER_MAX_RANK] = {0};
    int fd[PRUNER_MAX_RANK];
    const PrunerOperand *out = &w->operands[w->num_inputs];
    int r = out->rank;
    for (int d = 0; d < r; ++d)
      fd[d] = -1;
    int64_t left = ls->threads_per_block;
    int64_t tn = divisorAtMost(c->workgroup[nn], left);
    left /= tn;
    int64_t tm = divisorAtMost(c->workgroup[m], left);
    ft[r - 1] = c->workgroup[nn] / tn;
    fd[r - 1] = 0;
    ft[r - 2] = c->workgroup[m] / tm;
    fd[r - 2] = 1;
    if (r == 3) { /* batch: one per block */
      ft[0] = 1;
      fd[0] = 2;
    }
    prunerTextAppend(t, "    %%fill1, %%fb1 = transform.structured.fuse_into_containing_op %%fill "
                        "into %%fb : (" ANY ", " ANY ") -> (" ANY ", " ANY ")\n");
    prunerTextAppend(
        t, "    // The fill: the block's threads zero C together (%lld x %lld of them).\n",
        (long long)tm, (long long)tn);
    appendForall(t, "%tf", "%ff", "%fill1", r, ft, fd, "thread");
  }
  if (c->promote_operands) {
    /* Staged: the K loop runs at block level; each step's A and B tiles are copied to
     * shared memory (@pruner_promote), then the warps take their tiles from there. */
    int64_t steps[PRUNER_MAX_LOOPS] = {0};
    steps[k] = c->reduction[k];
    prunerTextAppend(t, "    // K steps of %lld at block level, A and B staged in shared memory.\n",
                     (long long)c->reduction[k]);
    prunerTextAppend(t, "    %%tk, %%lk = transform.structured.tile_using_for %%tb tile_sizes ");
    prunerTextAppendI64List(t, steps, n);
    prunerTextAppend(t, " : (" ANY ") -> (" ANY ", " ANY ")\n");
    prunerTextAppend(t, "    transform.annotate %%tk \"%s\" : " ANY "\n", mma_tag);
    if (prunerConfigStages(c) > 1) {
      /* Pipelined: the step's A and B slices become tensors of their own (alloc_tensor +
       * materialize_in_destination), which bufferize to typed allocations that
       * memref.multibuffer can expand (structured.promote's i8 buffer + memref.view it
       * cannot). In the GPU dialect's workgroup space, as the one-stage tiles, so that
       * convert-vector-to-gpu reads the fragments with ldmatrix; after the schedule the
       * space becomes NVVM's number (prunerScheduleSharedSpaceAsNumber). */
      const char *space = gpu_mapping ? "to #gpu.address_space<workgroup> " : "";
      prunerTextAppend(t,
                       "    %%va = transform.get_operand %%tk[0] : (" ANY ") -> !transform.any_value\n"
                       "    %%vb = transform.get_operand %%tk[1] : (" ANY ") -> !transform.any_value\n"
                       "    %%pa = transform.structured.promote_tensor %s%%va : !transform.any_value\n"
                       "    %%pb = transform.structured.promote_tensor %s%%vb : !transform.any_value\n",
                       space, space);
    }
    prunerScheduleAppendTileCleanup(t);
    return;
  }
  /* Warps: N on linear dim 0, M on linear dim 1. */
  int64_t wt[PRUNER_MAX_LOOPS] = {0};
  int wd[PRUNER_MAX_LOOPS];
  for (int l = 0; l < n; ++l)
    wd[l] = -1;
  wt[m] = c->thread[m];
  wd[m] = 1;
  wt[nn] = c->thread[nn];
  wd[nn] = 0;
  prunerTextAppend(t, "    // Warps: a %lld x %lld tile each.\n", (long long)c->thread[m],
                   (long long)c->thread[nn]);
  appendForall(t, "%tw", "%fw", "%tb", n, wt, wd, "warp");
  /* prunerConfigCheck holds: at least two K steps, so there is a loop to outline. */
  {
    int64_t steps[PRUNER_MAX_LOOPS] = {0};
    steps[k] = c->reduction[k];
    prunerTextAppend(t, "    // K steps of %lld inside the warp.\n", (long long)c->reduction[k]);
    prunerTextAppend(t, "    %%tk, %%lk = transform.structured.tile_using_for %%tw tile_sizes ");
    prunerTextAppendI64List(t, steps, n);
    prunerTextAppend(t, " : (" ANY ") -> (" ANY ", " ANY ")\n");
  }
  prunerTextAppend(t, "    transform.annotate %%tk \"%s\" : " ANY "\n", mma_tag);
  prunerScheduleAppendTileCleanup(t);
}

/* The steps on the outlined K loop %kf shared by both tensor-core schedules: fold the
 * f16 -> f32 extensions into the contracts, unroll them to one per m16n8k16, keep each
 * 16x8 piece of C in registers across the loop (%kh), then convert-vector-to-gpu (%mma)
 * or, on the host, the vector lowering. */
static void appendMmaSteps(PrunerText *t, bool gpu_mapping) {
  prunerTextAppend(
      t,
      "    transform.apply_patterns to %%kf {\n"
      "      transform.apply_patterns.vector.fold_arith_extension\n"
      "      transform.apply_patterns.vector.cast_away_vector_leading_one_dim\n"
      "      transform.apply_patterns.canonicalization\n"
      "    } : " ANY "\n"
      "    // One contract per m16n8k16 mma.sync, C read and written in 16x8 pieces.\n"
      "    transform.apply_patterns to %%kf {\n"
      "      transform.apply_patterns.gpu.unroll_vectors_subgroup_mma [16, 8, 16]\n"
      "    } : " ANY "\n"
      "    transform.apply_patterns to %%kf { transform.apply_patterns.canonicalization } : " ANY
      "\n"
      "    transform.apply_cse to %%kf : " ANY "\n"
      "    // Each 16x8 piece of C becomes a loop-carried fragment (registers).\n"
      "    %%kh = transform.structured.hoist_redundant_vector_transfers %%kf : (" ANY ") -> " ANY
      "\n"
      "    transform.apply_patterns to %%kh { transform.apply_patterns.canonicalization } : " ANY
      "\n");
  if (gpu_mapping)
    prunerTextAppend(t,
                     "    %%mma = transform.apply_registered_pass \"convert-vector-to-gpu\" with "
                     "options = { \"use-nvgpu\" = true } to %%kh : (" ANY ") -> " ANY "\n");
  else
    prunerScheduleAppendVectorLowering(t, "%kh");
}

void prunerScheduleAppendMmaPost(PrunerText *t, const char *mma_tag, bool gpu_mapping) {
  prunerTextAppend(
      t, "    %%mm = transform.structured.match attributes{%s} in %%root : (" ANY ") -> " ANY "\n",
      mma_tag);
  /* The K loop is outlined into a function of its own: convert-vector-to-gpu runs on
   * isolated ops only, and on the whole function it would also claim every scalar f16 ->
   * f32 extension it finds (the body of another op not yet vectorized, an FMA op's scalar
   * loop) and fail on it. Inside that function C is an argument rather than a subview,
   * so the accumulator's reads and writes can be hoisted out of the K loop (on subviews
   * hoist_redundant_vector_transfers refuses). The call is inlined again by LLVM. */
  prunerTextAppend(t, "    %%kl = transform.get_parent_op %%mm {op_name = \"scf.for\"} : (" ANY
                      ") -> " ANY "\n");
  /* create_named_contraction: a vector.contract with the f16 operands as they are (the
   * generic vectorization broadcasts both to 3-D, which convert-vector-to-gpu rejects). */
  prunerTextAppend(
      t,
      "    transform.structured.vectorize %%mm {create_named_contraction} : " ANY "\n");
  prunerScheduleAppendOutline(t, NULL, NULL, "%kl", "pruner_mma_steps");
  appendMmaSteps(t, gpu_mapping);
}


void prunerScheduleAppendMmaStagedPromote(PrunerText *t, const PrunerWorkload *w,
                                          const PrunerConfig *c, const PrunerLaunchShape *ls,
                                          const char *forall_tag, const char *mma_tag,
                                          bool gpu_mapping) {
  const int n = w->num_loops;
  prunerTextAppend(
      t, "    %%mm = transform.structured.match attributes{%s} in %%root : (" ANY ") -> " ANY "\n"
         "    %%kl = transform.get_parent_op %%mm {op_name = \"scf.for\"} : (" ANY ") -> " ANY "\n"
         "    transform.annotate %%kl \"%s.kloop\" : " ANY "\n",
      mma_tag, mma_tag);
  const int stages = prunerConfigStages(c);
  /* The GPU dialect's workgroup address space, not the number 3: convert-vector-to-gpu
   * reads fragments with ldmatrix only from memrefs it knows are shared memory. (A
   * pipelined config promoted its tensors, in the same space, in @pruner_tile.) */
  if (stages == 1)
    prunerTextAppend(t,
                     "    %%p = transform.structured.promote %%mm { operands_to_promote = [0, 1], "
                     "%suse_alloca, alignment = 16 } : (" ANY ") -> " ANY "\n",
                     gpu_mapping ? "memory_space = #gpu.address_space<workgroup>, " : "");
  prunerTextAppend(
      t, "    transform.apply_patterns to %%opfa { transform.apply_patterns.canonicalization } : " ANY
         "\n"
         "    transform.apply_cse to %%opfa : " ANY "\n"
         "    %%fa = transform.structured.match ops{[\"scf.forall\"]} attributes{%s} in %%root : (" ANY
         ") -> " ANY "\n",
      forall_tag);
  if (stages > 1)
    /* One buffer per stage: the step's allocations leave the K loop (no deallocation to
     * keep: promote_tensor makes none) and grow a leading dim of `stages`, indexed by
     * the step. skip_analysis: each step's copy overwrites its whole buffer before the
     * warps read it, which the analysis cannot see through the copies. */
    prunerTextAppend(t,
                     "    %%sf = transform.get_parent_op %%fa {op_name = \"func.func\"} : (" ANY
                     ") -> " ANY "\n"
                     "    transform.bufferization.buffer_loop_hoisting %%sf : " ANY "\n"
                     "    %%allocs = transform.structured.match ops{[\"memref.alloc\"]} in %%fa : (" ANY
                     ") -> !transform.op<\"memref.alloc\">\n"
                     "    %%a0, %%a1 = transform.split_handle %%allocs : (!transform.op<\"memref.alloc\">) "
                     "-> (!transform.op<\"memref.alloc\">, !transform.op<\"memref.alloc\">)\n"
                     "    %%m0 = transform.memref.multibuffer %%a0 {factor = %d, skip_analysis} : "
                     "(!transform.op<\"memref.alloc\">) -> " ANY "\n"
                     "    %%m1 = transform.memref.multibuffer %%a1 {factor = %d, skip_analysis} : "
                     "(!transform.op<\"memref.alloc\">) -> " ANY "\n"
                     "    transform.apply_patterns to %%sf { transform.apply_patterns.canonicalization } : " ANY
                     "\n",
                     stages, stages);
  prunerTextAppend(t,
                   "    %%copies = transform.structured.match ops{[\"linalg.copy\"]} in %%fa : (" ANY
                   ") -> " ANY "\n"
                   "    %%c0, %%c1 = transform.split_handle %%copies : (" ANY ") -> (" ANY ", " ANY ")\n");
  /* 16-byte copies (8 f16) spread over the block's threads; each becomes one cp.async. */
  for (int i = 0; i < 2; ++i) {
    int64_t tile[PRUNER_MAX_RANK];
    int dim[PRUNER_MAX_RANK];
    prunerConfigCopySpread(w, c, ls->threads_per_block, i, 8, tile, dim);
    char tiled[8], forall[8], source[8];
    snprintf(tiled, sizeof tiled, "%%tc%d", i);
    snprintf(forall, sizeof forall, "%%fc%d", i);
    snprintf(source, sizeof source, "%%c%d", i);
    prunerTextAppend(t, "    // Cooperative copy of operand %d.\n", i);
    appendForall(t, tiled, forall, source, w->operands[i].rank, tile, dim, "thread");
    prunerTextAppend(t,
                     "    transform.structured.vectorize %s : " ANY "\n"
                     "    transform.apply_patterns to %s {\n"
                     "      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 "
                     "full_unroll = true\n"
                     "      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1\n"
                     "    } : " ANY "\n",
                     tiled, forall);
  }
  /* Warps: N on linear dim 0, M on linear dim 1, inside the K loop. */
  int64_t wt[PRUNER_MAX_LOOPS] = {0};
  int wd[PRUNER_MAX_LOOPS];
  int m = -1, nn = -1;
  for (int l = 0; l < n; ++l) {
    wd[l] = -1;
    if (w->loop_roles[l] == PRUNER_ROLE_M)
      m = l;
    else if (w->loop_roles[l] == PRUNER_ROLE_N)
      nn = l;
  }
  wt[m] = c->thread[m];
  wd[m] = 1;
  wt[nn] = c->thread[nn];
  wd[nn] = 0;
  prunerTextAppend(t, "    %%mm2 = transform.structured.match attributes{%s} in %%fa : (" ANY
                      ") -> " ANY "\n", mma_tag);
  prunerTextAppend(t, "    // Warps: a %lld x %lld tile each, read from the staged tiles.\n",
                   (long long)c->thread[m], (long long)c->thread[nn]);
  appendForall(t, "%tw", "%fw", "%mm2", n, wt, wd, "warp");
  prunerTextAppend(t, "    transform.structured.vectorize %%tw {create_named_contraction} : " ANY
                      "\n");
  if (stages > 1)
    /* The stage buffers as module globals (.shared): allocations to allocas, then globals.
     * Their views depend on the step, so the later hoist cannot take fragment reads out
     * of the K loop (see prunerScheduleAppendMmaStagedPost). */
    prunerTextAppend(t,
                     "    %%f2 = transform.apply_registered_pass \"promote-buffers-to-stack\" with "
                     "options = { \"max-alloc-size-in-bytes\" = %lld : i64, "
                     "\"max-rank-of-allocated-memref\" = 4 : i64 } to %%sf : (" ANY ") -> " ANY "\n"
                     "    %%allocas = transform.structured.match ops{[\"memref.alloca\"]} in %%f2 : (" ANY
                     ") -> !transform.op<\"memref.alloca\">\n"
                     "    %%get, %%global = transform.memref.alloca_to_global %%allocas : "
                     "(!transform.op<\"memref.alloca\">) -> (" ANY ", " ANY ")\n",
                     (long long)ls->smem_bytes + 1);
}

void prunerScheduleAppendMmaStagedPost(PrunerText *t, const PrunerConfig *c, const char *mma_tag,
                                       bool gpu_mapping) {
  const int stages = prunerConfigStages(c);
  /* After the thread mapping the K loop holds the copies, the barriers and each warp's
   * contracts. LICM takes the warp's C view out of the loop, so that outlining makes it
   * an argument and its 16x8 pieces can become loop-carried registers. The staged tiles'
   * allocas stay inside the loop until then: their views are not loop-invariant, so the
   * fragment reads (which read what this step's copies wrote) cannot be hoisted. */
  prunerScheduleAppendOutline(t, "%root", mma_tag, NULL, "pruner_mma_steps");
  appendMmaSteps(t, gpu_mapping);
  const char *f = gpu_mapping ? "%ag" : "%kh";
  if (gpu_mapping)
    /* The mapping's barrier after each copy forall splits them into two groups, each
     * waited on before its barrier (eliminate_barriers keeps that barrier). */
    prunerTextAppend(t, "    // The staged copies become cp.async (16 bytes, L1 bypassed), a group per "
                        "operand.\n"
                        "    %%ag = transform.nvgpu.create_async_groups %%mma {bypass_l1} : (" ANY
                        ") -> " ANY "\n");
  if (stages > 1) {
    /* nvgpu's software pipeliner: the prologue issues the copies of the first steps, each
     * step then waits only for its own groups (cp.async.wait_group N), computes, and
     * issues the copies `stages` steps ahead into the buffer it just freed; the epilogue
     * is peeled (no predication). The stage buffers became globals in @pruner_promote. */
    if (gpu_mapping)
      /* The outlined function holds the K loop and no other (outlining drops its tag).
       * Canonicalization first: the conversion leaves the fragments' dead
       * vector.transfer_reads of the workgroup buffers behind, and the pipeliner reads
       * every transfer_read's memory space as an integer (getMemorySpaceAsInt), which
       * crashed mlir-opt on the attribute. */
      prunerTextAppend(t,
                       "    transform.apply_patterns to %%ag { "
                       "transform.apply_patterns.canonicalization } : " ANY "\n"
                       "    %%loop = transform.structured.match ops{[\"scf.for\"]} in %%ag : (" ANY
                       ") -> " ANY "\n"
                       "    %%piped = transform.nvgpu.pipeline_shared_memory_copies failures(propagate) "
                       "%%loop { depth = %d, peel_epilogue } : (" ANY ") -> " ANY "\n",
                       stages);
    return;
  }
  prunerTextAppend(t,
                   "    %%allocas = transform.structured.match ops{[\"memref.alloca\"]} in %s : (" ANY
                   ") -> !transform.op<\"memref.alloca\">\n"
                   "    %%get, %%global = transform.memref.alloca_to_global %%allocas : "
                   "(!transform.op<\"memref.alloca\">) -> (" ANY ", " ANY ")\n",
                   f);
}
