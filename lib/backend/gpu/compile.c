/* prunerCompileOne: one (workload, config, target) to a cubin (or PTX) and a launch
 * description, in the calling process. The config is checked against the space's rules
 * first, the payload and schedule come from lib/schedule, the MLIR half runs in
 * mlir_compile.c and ptxas in ptxas.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile_internal.h"
#include "pruner/schedule.h"

PrunerCompileOptions prunerCompileDefaultOptions(void) {
  /* 60 s and 6000 MB: the worked schedules compile in about 1 s and under 1 GB here;
   * runaway pattern sets were seen growing to 24 GB (docs/schedule.md, G2), which the
   * limit turns into a failed candidate instead of an out-of-memory machine. */
  return (PrunerCompileOptions){.format = PRUNER_BINARY_CUBIN,
                                .timeout_seconds = 60.0,
                                .memory_limit_mb = 6000,
                                .jobs = 0,
                                .ptxas_path = NULL};
}

void prunerCompileResultRelease(PrunerCompileResult *result) {
  if (!result)
    return;
  free(result->binary);
  result->binary = NULL;
  result->binary_size = 0;
}

/* Bytes of the `.shared` arrays a PTX module declares with a size, one declaration a
 * line (`.shared .align 16 .b8 name[4096];`, the form the NVPTX back end writes);
 * `.extern .shared` arrays (dynamic) and instructions (`st.shared`) do not start so. */
static int ptxStaticSharedBytes(const char *ptx) {
  long long total = 0;
  for (const char *line = ptx; line && *line;) {
    const char *next = strchr(line, '\n');
    line += strspn(line, " \t");
    if (strncmp(line, ".shared ", 8) == 0) {
      const char *open = strchr(line, '[');
      int width = 0;
      /* The element type is the last ".<b|f|s|u><bits>" token before the name. */
      for (const char *q = strstr(line, " ."); q && (!open || q < open); q = strstr(q + 1, " .")) {
        int bits = 0;
        char kind = 0;
        if (sscanf(q, " .%c%d", &kind, &bits) == 2 && strchr("bfsu", kind) && bits >= 8 &&
            bits % 8 == 0)
          width = bits / 8;
      }
      long long count = open && (!next || open < next) ? atoll(open + 1) : 1;
      if (width > 0 && count > 0)
        total += (long long)width * count;
    }
    line = next ? next + 1 : NULL;
  }
  return total > 0x7fffffff ? 0x7fffffff : (int)total;
}

PrunerCompileResult prunerCompileOne(const PrunerWorkload *w, const PrunerConfig *config,
                                     const PrunerTargetDesc *t, const PrunerCompileOptions *opts) {
  return prunerCompileOneInContext((MlirContext){NULL}, w, config, t, opts);
}

PrunerCompileResult prunerCompileOneInContext(MlirContext ctx, const PrunerWorkload *w,
                                              const PrunerConfig *config, const PrunerTargetDesc *t,
                                              const PrunerCompileOptions *opts) {
  PrunerCompileOptions defaults = prunerCompileDefaultOptions();
  if (!opts)
    opts = &defaults;
  PrunerCompileResult r;
  memset(&r, 0, sizeof(r));
  double start = prunerNowSeconds();

  if (t->kind != PRUNER_TARGET_GPU) {
    r.status = prunerStatusError("target '%s' is not a GPU: the GPU compile emits NVVM/PTX only "
                                 "(host targets are compiled by lib/backend/host)",
                                 t->name);
    return r;
  }
  r.status = prunerConfigCheck(w, t, config);
  if (!r.status.ok) {
    PrunerStatus why = r.status;
    r.status = prunerStatusError("invalid config for %s: %s", w->op_name, why.message);
    return r;
  }
  char funcName[64];
  snprintf(funcName, sizeof(funcName), "pruner_%s", prunerOpKindName(w->kind));
  char *payload = NULL, *schedule = NULL, *ptx = NULL;
  r.status = prunerSchedulePayload(w, funcName, /*with_fill=*/true, &payload);
  if (r.status.ok) {
    PrunerScheduleOptions sopts = prunerScheduleDefaultOptions();
    sopts.gpu_mapping = true;
    r.status = prunerScheduleBuildChecked(w, config, &sopts, &schedule); /* checked above */
  }
  if (r.status.ok)
    /* The default schedule options tag the K-step op "pruner.promote". */
    r.status = prunerCompileMlirToPtx(ctx, payload, schedule, w->num_inputs + w->num_outputs, t,
                                      prunerConfigIsPipelinedMma(config) ? "pruner.promote" : NULL,
                                      &r, &ptx);
  free(payload);
  free(schedule);
  if (r.status.ok && opts->format == PRUNER_BINARY_PTX) {
    /* No ptxas to report it: the static shared memory the PTX declares. */
    r.launch.resources.shared_bytes = ptxStaticSharedBytes(ptx);
    r.binary = (unsigned char *)ptx;
    r.binary_size = strlen(ptx) + 1; /* keeps the NUL: loaders take PTX as a C string */
    ptx = NULL;
  } else if (r.status.ok) {
    double left = opts->timeout_seconds - (prunerNowSeconds() - start);
    if (left <= 0)
      r.status = prunerStatusError("timeout after %gs", opts->timeout_seconds);
    else
      r.status = prunerCompileRunPtxas(ptx, t, opts, left, true, &r);
    /* ptxas got what was left of the candidate's budget; report the budget itself, as
     * the pool does when it kills a worker. */
    if (!r.status.ok && strncmp(r.status.message, "timeout after", 13) == 0)
      r.status = prunerStatusError("timeout after %gs (in ptxas)", opts->timeout_seconds);
  }
  free(ptx);
  if (!r.status.ok)
    prunerCompileResultRelease(&r);
  return r;
}
