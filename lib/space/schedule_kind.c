/* Which schedule a config selects (pruner/space.h, PrunerScheduleKind): the names
 * pruner-tune --schedules takes. */
#include <stdio.h>
#include <string.h>

#include "space_igemm.h"

PrunerScheduleKind prunerConfigScheduleKind(const PrunerWorkload *w, const PrunerConfig *c) {
  if (c->mma)
    return c->promote_operands ? PRUNER_SCHEDULE_TENSOR_CORE_STAGED : PRUNER_SCHEDULE_TENSOR_CORE;
  if (prunerConfigReductionThreads(c) > 1)
    return PRUNER_SCHEDULE_CROSS_THREAD;
  if (prunerConfigSplitK(c) > 1)
    return PRUNER_SCHEDULE_SPLIT_K;
  if (prunerIgemmSelected(w, c))
    return PRUNER_SCHEDULE_IMPLICIT_GEMM;
  return c->promote_operands ? PRUNER_SCHEDULE_PROMOTED : PRUNER_SCHEDULE_DIRECT;
}

static const char *const kScheduleKindNames[PRUNER_SCHEDULE_KIND_COUNT] = {
    "direct",        "promoted",           "cross-thread", "tensor-core",
    "implicit-gemm", "tensor-core-staged", "split-k"};

const char *prunerScheduleKindName(PrunerScheduleKind kind) {
  return kind >= 0 && kind < PRUNER_SCHEDULE_KIND_COUNT ? kScheduleKindNames[kind] : "unknown";
}

bool prunerScheduleKindParse(const char *name, PrunerScheduleKind *out) {
  for (int k = 0; k < PRUNER_SCHEDULE_KIND_COUNT; ++k)
    if (strcmp(name, kScheduleKindNames[k]) == 0) {
      *out = (PrunerScheduleKind)k;
      return true;
    }
  return false;
}

PrunerStatus prunerScheduleKindsParse(const char *list, uint32_t *mask) {
  *mask = 0;
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char name[32];
    PrunerScheduleKind kind;
    if (len == 0 || len >= sizeof name)
      return prunerStatusError("schedule kinds '%s': empty or overlong entry; accepted: direct, "
                               "promoted, cross-thread, tensor-core, implicit-gemm, tensor-core-staged, "
                               "split-k",
                               list);
    memcpy(name, p, len);
    name[len] = '\0';
    if (!prunerScheduleKindParse(name, &kind))
      return prunerStatusError("schedule kinds '%s': unknown kind '%s'; accepted: direct, "
                               "promoted, cross-thread, tensor-core, implicit-gemm, tensor-core-staged, "
                               "split-k",
                               list, name);
    *mask |= 1u << kind;
    p += len;
    if (*p == ',')
      ++p;
  }
  if (!*mask)
    return prunerStatusError("schedule kinds '%s': none given", list);
  return prunerStatusOk();
}
