/* lib/backend/backends.c: the backend table (pruner/backend.h). Adding a backend is one
 * folder under lib/backend and one line here (docs/architecture.md). */
#include <stdarg.h>
#include <stdio.h>

#include "pruner/backend.h"
#include "pruner/backend/gpu.h"
#include "pruner/backend/host.h"
#include "pruner/backend/iree.h"

static const PrunerBackend *(*const backendTable[])(void) = {
    prunerHostBackend, /* --target=host: this CPU, JIT + OpenBLAS (lib/backend/host) */
    prunerGpuBackend,  /* the GPU table: cubins + pruner-run + cuBLAS (lib/backend/gpu) */
    prunerIreeBackend, /* --target=iree-cpu: iree-compile + iree-benchmark-module (lib/backend/iree) */
    prunerIreeCudaBackend, /* --target=iree-cuda:<gpu>: the same tools, CUDA (lib/backend/iree) */
};

size_t prunerBackendCount(void) { return sizeof backendTable / sizeof backendTable[0]; }

const PrunerBackend *prunerBackendGet(size_t i) {
  return i < prunerBackendCount() ? backendTable[i]() : NULL;
}

PrunerStatus prunerBackendLookup(const char *name, const PrunerBackend **backend,
                                 PrunerTargetDesc *target) {
  *backend = NULL;
  /* The names every backend knows, with the list of accepted ones on a miss. */
  PrunerStatus st = prunerTargetLookup(name, target);
  if (!st.ok)
    return st;
  for (size_t i = 0; i < prunerBackendCount(); ++i) {
    const PrunerBackend *b = prunerBackendGet(i);
    if (b->describeTarget(name, target).ok) {
      *backend = b;
      return prunerStatusOk();
    }
  }
  return prunerStatusError("target '%s': this build has no backend for it", name);
}

const PrunerBackend *prunerBackendForTarget(const PrunerTargetDesc *target) {
  for (size_t i = 0; i < prunerBackendCount(); ++i)
    if (prunerBackendGet(i)->kind == target->kind)
      return prunerBackendGet(i);
  return NULL;
}

void prunerBackendNote(const PrunerBackendSink *sink, bool session, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  sink->note(sink->user, session, text);
}
