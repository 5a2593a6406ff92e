/* lib/backend/host/channels_last.c: an NCHW convolution's channels-last twin (docs/host.md,
 * "NCHW convolutions run channels-last").
 *
 * The host kernel of a conv_2d_nchw_fchw transposes its input to NHWC, its filter to HWCF
 * and its output to NHWC, runs the conv_2d_nhwc_hwcf the config schedules, and transposes
 * the result back (schedule_module.c rewrites the op; schedule_host.c tiles the
 * transposes). The space, the rules, the draft and the schedule therefore see the NHWC
 * twin of the workload; configs stay in the NCHW op's loop order (records, the
 * `pruner.config` attribute) and are mapped loop by loop, by role. */
#include <string.h>

#include "pruner/backend/host_rules.h"

/* A dataset of an earlier host version timed the scalar NCHW kernels (version 2): its
 * study keeps their rules and draft (PrunerTargetDesc.codegen_version). */
bool prunerHostRunsChannelsLast(const PrunerWorkload *w, const PrunerTargetDesc *t) {
  return w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW && w->num_loops == 7 && w->num_inputs == 2 &&
         w->num_outputs == 1 &&
         (t == NULL || (t->kind == PRUNER_TARGET_HOST &&
                        (t->codegen_version == 0 || t->codegen_version >= 5)));
}

/* The twin's loop order, conv_2d_nhwc_hwcf's: (n, oh, ow, f, kh, kw, c). */
static const PrunerLoopRole kTwinRoles[7] = {
    PRUNER_ROLE_IMAGE,    PRUNER_ROLE_OUT_H,    PRUNER_ROLE_OUT_W,     PRUNER_ROLE_OUT_CHANNEL,
    PRUNER_ROLE_FILTER_H, PRUNER_ROLE_FILTER_W, PRUNER_ROLE_IN_CHANNEL};

/* Operand dims of the twin from the NCHW op's: input NCHW -> NHWC, filter FCHW -> HWCF,
 * output NCHW -> NHWC (twin dim d is the op's dim kDims[operand][d]). */
static const int kDims[3][4] = {{0, 2, 3, 1}, {2, 3, 1, 0}, {0, 2, 3, 1}};

bool prunerHostChannelsLastWorkload(const PrunerWorkload *w, PrunerWorkload *twin,
                                    int *twin_loop) {
  if (!prunerHostRunsChannelsLast(w, NULL))
    return false;
  bool taken[7] = {false};
  for (int l = 0; l < 7; ++l) {
    twin_loop[l] = -1;
    for (int j = 0; j < 7; ++j)
      if (kTwinRoles[j] == w->loop_roles[l])
        twin_loop[l] = j;
    if (twin_loop[l] < 0 || taken[twin_loop[l]])
      return false; /* not the seven roles of a 2-D conv, once each */
    taken[twin_loop[l]] = true;
  }
  /* Body, strides, dilations, key and op_name stay the op's: messages name the op the
   * user wrote; the host schedule matches ops by kind (prunerSchedulePayloadOpName). */
  *twin = *w;
  twin->kind = PRUNER_OP_CONV_2D_NHWC_HWCF;
  for (int l = 0; l < 7; ++l) {
    twin->bounds[twin_loop[l]] = w->bounds[l];
    twin->loop_kinds[twin_loop[l]] = w->loop_kinds[l];
    twin->loop_roles[twin_loop[l]] = w->loop_roles[l];
  }
  for (int o = 0; o < 3; ++o) {
    const PrunerOperand *src = &w->operands[o];
    PrunerOperand *dst = &twin->operands[o];
    if (src->rank != 4)
      return false;
    memset(dst->shape, 0, sizeof dst->shape);
    memset(dst->index_coeff, 0, sizeof dst->index_coeff);
    for (int d = 0; d < 4; ++d) {
      dst->shape[d] = src->shape[kDims[o][d]];
      for (int l = 0; l < 7; ++l)
        dst->index_coeff[d][twin_loop[l]] = src->index_coeff[kDims[o][d]][l];
    }
  }
  return true;
}

void prunerHostConfigToTwin(const PrunerConfig *c, const int *twin_loop, int n,
                            PrunerConfig *out) {
  *out = *c;
  for (int l = 0; l < n; ++l) {
    out->workgroup[twin_loop[l]] = c->workgroup[l];
    out->reduction[twin_loop[l]] = c->reduction[l];
    out->thread[twin_loop[l]] = c->thread[l];
    out->cache[twin_loop[l]] = c->cache[l];
  }
}

void prunerHostConfigFromTwin(const PrunerConfig *twin_config, const int *twin_loop, int n,
                              PrunerConfig *out) {
  *out = *twin_config;
  for (int l = 0; l < n; ++l) {
    out->workgroup[l] = twin_config->workgroup[twin_loop[l]];
    out->reduction[l] = twin_config->reduction[twin_loop[l]];
    out->thread[l] = twin_config->thread[twin_loop[l]];
    out->cache[l] = twin_config->cache[twin_loop[l]];
  }
}
