/* Lookup, listing, keys and driver overrides over the built-in table (table.c). */
#include "target_table.h"

#include "pruner/backend/host_rules.h"
#include "pruner/backend/iree_rules.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t prunerTargetTableSize(void) { return prunerTargetTableCount; }

const PrunerTargetDesc *prunerTargetTableEntry(size_t i) {
  return i < prunerTargetTableCount ? &prunerTargetTable[i].desc : NULL;
}

/* Case-insensitive equality that also treats '-', '_' and ' ' alike, so "H100 SXM",
 * "h100-sxm" and "h100_sxm" all name the same entry. */
static int sameName(const char *a, const char *b) {
  for (;; ++a, ++b) {
    int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
    if (ca == '-' || ca == '_') ca = ' ';
    if (cb == '-' || cb == '_') cb = ' ';
    if (ca != cb) return 0;
    if (ca == '\0') return 1;
  }
}

/* "host", "cpu" (isa NULL) or "host:<isa>", "cpu:<isa>" (isa after the colon). */
static bool hostName(const char *name, const char **isa) {
  *isa = NULL;
  const char *colon = strchr(name, ':');
  size_t n = colon ? (size_t)(colon - name) : strlen(name);
  if (!((n == 4 && strncasecmp(name, "host", 4) == 0) ||
        (n == 3 && strncasecmp(name, "cpu", 3) == 0)))
    return false;
  if (colon)
    *isa = colon + 1;
  return true;
}

static const PrunerTargetEntry *findByName(const char *name) {
  for (size_t i = 0; i < prunerTargetTableCount; ++i) {
    const PrunerTargetEntry *e = &prunerTargetTable[i];
    if (sameName(name, e->desc.name) || sameName(name, e->desc.device)) return e;
    for (int a = 0; a < PRUNER_TARGET_MAX_ALIASES && e->aliases[a]; ++a)
      if (sameName(name, e->aliases[a])) return e;
  }
  return NULL;
}

static const PrunerTargetEntry *findByArch(const char *arch) {
  for (size_t i = 0; i < prunerTargetArchDefaultCount; ++i)
    if (sameName(arch, prunerTargetArchDefaults[i].arch))
      return findByName(prunerTargetArchDefaults[i].name);
  return NULL;
}

PrunerStatus prunerTargetLookup(const char *name, PrunerTargetDesc *out) {
  if (!name || !*name) {
    char names[512];
    prunerTargetListNames(names, sizeof(names));
    return prunerStatusError("empty target name; accepted: %s", names);
  }
  /* The host CPU is described from the machine, not the table (lib/backend/host/target_host.c):
   * "host" at the ISA PRUNER_HOST_ISA names (else the CPU's widest), "host:<isa>" at
   * that ISA, so that one can tune and test for a narrower CPU (docs/host.md). */
  const char *isa;
  if (hostName(name, &isa)) {
    const char *env = isa ? NULL : getenv("PRUNER_HOST_ISA");
    PrunerHostInfo info;
    PrunerStatus st = prunerHostDescribeIsa(isa ? isa : env, &info);
    if (!st.ok)
      return prunerStatusError("target '%.64s'%s: %s", name,
                               env && *env ? " (PRUNER_HOST_ISA)" : "", st.message);
    if (out) prunerHostTargetDesc(&info, out);
    return prunerStatusOk();
  }
  /* IREE's CPU backend on this machine (lib/backend/iree/rules_iree.c). */
  if (sameName(name, "iree-cpu")) {
    if (out) prunerIreeCpuTargetDesc(out);
    return prunerStatusOk();
  }
  const PrunerTargetEntry *e = findByName(name);
  if (!e) e = findByArch(name);
  if (!e) {
    char names[400];
    prunerTargetListNames(names, sizeof(names));
    return prunerStatusError("unknown target '%.64s'; accepted: %s", name, names);
  }
  if (out) *out = e->desc;
  return prunerStatusOk();
}

/* Appends `s` to buf (length *len), separated by ", "; never overflows. */
static void appendName(char *buf, size_t size, size_t *len, const char *s) {
  if (*len >= size) return;
  int n = snprintf(buf + *len, size - *len, "%s%s", *len ? ", " : "", s);
  if (n > 0) *len += (size_t)n;
  if (*len >= size) *len = size - 1;
}

void prunerTargetListNames(char *buf, size_t size) {
  if (!buf || size == 0) return;
  buf[0] = '\0';
  size_t len = 0;
  for (size_t i = 0; i < prunerTargetTableCount; ++i)
    appendName(buf, size, &len, prunerTargetTable[i].desc.name);
  for (size_t i = 0; i < prunerTargetArchDefaultCount; ++i)
    appendName(buf, size, &len, prunerTargetArchDefaults[i].arch);
  for (size_t i = 0; i < prunerTargetTableCount; ++i)
    appendName(buf, size, &len, prunerTargetTable[i].desc.device);
  appendName(buf, size, &len, "host");
  appendName(buf, size, &len, "host:avx512");
  appendName(buf, size, &len, "host:avx2");
  appendName(buf, size, &len, "host:sse");
  appendName(buf, size, &len, "iree-cpu");
}

void prunerTargetOverride(PrunerTargetDesc *desc, const PrunerTargetDesc *measured) {
  if (!desc || !measured) return;
  const PrunerTargetDesc *m = measured;
  if (m->kind) desc->kind = m->kind;
  if (m->name[0]) snprintf(desc->name, sizeof(desc->name), "%s", m->name);
  if (m->arch[0]) snprintf(desc->arch, sizeof(desc->arch), "%s", m->arch);
  if (m->device[0]) snprintf(desc->device, sizeof(desc->device), "%s", m->device);
#define OVERRIDE(field)                                                                        \
  if (m->field) desc->field = m->field
  OVERRIDE(compute_capability);
  OVERRIDE(sm_count);
  OVERRIDE(boost_clock_mhz);
  OVERRIDE(peak_fp32_gflops);
  OVERRIDE(peak_tensor_gflops);
  OVERRIDE(dram_gbps);
  OVERRIDE(l2_bytes);
  OVERRIDE(dram_bytes);
  OVERRIDE(smem_per_sm);
  OVERRIDE(smem_per_block);
  OVERRIDE(smem_per_block_static);
  OVERRIDE(smem_reserved_per_block);
  OVERRIDE(regs_per_sm);
  OVERRIDE(regs_per_block);
  OVERRIDE(max_regs_per_thread);
  OVERRIDE(reg_alloc_unit);
  OVERRIDE(max_threads_per_block);
  OVERRIDE(max_threads_per_sm);
  OVERRIDE(max_blocks_per_sm);
  OVERRIDE(warp_size);
  OVERRIDE(smem_banks);
  OVERRIDE(l1_line_bytes);
  OVERRIDE(dram_sector_bytes);
#undef OVERRIDE
}

void prunerTargetKey(const PrunerTargetDesc *desc, char *buf, size_t size) {
  if (!buf || size == 0) return;
  if (!desc) {
    buf[0] = '\0';
    return;
  }
  if (desc->kind == PRUNER_TARGET_HOST)
    snprintf(buf, size, "host:%s", desc->name);
  else if (desc->kind == PRUNER_TARGET_IREE_CPU)
    snprintf(buf, size, "iree-cpu:%s", desc->name);
  else
    snprintf(buf, size, "%s:%s:%dsm", desc->arch, desc->name, desc->sm_count);
}
