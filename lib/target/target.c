/* Lookup, listing, keys and driver overrides over the built-in table (table.c). */
#include "target_table.h"

#include "pruner/backend/host_rules.h"
#include "pruner/backend/iree_rules.h"
#include "pruner/kernel.h"

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
  /* IREE's CUDA backend on a GPU of the table: that GPU's description (the draft and the
   * space are the GPU's), built by IREE (lib/backend/iree, docs/iree.md "CUDA"). */
  if (strncasecmp(name, "iree-cuda:", 10) == 0) {
    PrunerTargetDesc gpu;
    PrunerStatus st = prunerTargetLookup(name + 10, &gpu);
    if (st.ok && gpu.kind != PRUNER_TARGET_GPU)
      st = prunerStatusError("'%.64s' is not a GPU", name + 10);
    if (!st.ok)
      return prunerStatusError("target '%.64s': iree-cuda:<gpu> takes a GPU of the table "
                               "(a100-40gb, sm_80, l40s, h200, ...): %s",
                               name, st.message);
    gpu.kind = PRUNER_TARGET_IREE_CUDA;
    if (out) *out = gpu;
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
  appendName(buf, size, &len, "iree-cuda:<any GPU name above>");
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

int prunerTargetCodegenVersion(const PrunerTargetDesc *desc) {
  switch (desc->kind) {
  case PRUNER_TARGET_GPU:
    return PRUNER_GPU_CODEGEN_VERSION;
  case PRUNER_TARGET_HOST:
    return PRUNER_HOST_CODEGEN_VERSION;
  case PRUNER_TARGET_IREE_CPU:
  case PRUNER_TARGET_IREE_CUDA:
    return PRUNER_IREE_CODEGEN_VERSION;
  }
  return 0;
}

int prunerTargetCodegenVersionOf(const PrunerTargetDesc *desc, const struct PrunerWorkload *w) {
  return desc->kind == PRUNER_TARGET_HOST ? prunerHostCodegenVersionOf(w)
                                          : prunerTargetCodegenVersion(desc);
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
  else if (desc->kind == PRUNER_TARGET_IREE_CUDA)
    snprintf(buf, size, "iree-cuda:%s:%s:%dsm", desc->arch, desc->name, desc->sm_count);
  else
    snprintf(buf, size, "%s:%s:%dsm", desc->arch, desc->name, desc->sm_count);
}

/* "<cpu>-<N>c-<isa>" (prunerHostTargetDesc's name) -> N and isa; false if not that form. */
static bool parseHostName(const char *name, int *cores, char *isa, size_t isa_size) {
  const char *dash = strrchr(name, '-');
  if (!dash || dash == name || !dash[1])
    return false;
  snprintf(isa, isa_size, "%s", dash + 1);
  const char *p = dash - 1; /* the 'c' of "-<N>c" */
  if (*p != 'c')
    return false;
  const char *digits_end = p;
  while (p > name && isdigit((unsigned char)p[-1]))
    --p;
  if (p == digits_end || p == name || p[-1] != '-')
    return false;
  *cores = atoi(p);
  return *cores > 0;
}

PrunerTargetKind prunerTargetKeyKind(const char *key) {
  if (strncmp(key, "host:", 5) == 0)
    return PRUNER_TARGET_HOST;
  if (strncmp(key, "iree-cpu:", 9) == 0)
    return PRUNER_TARGET_IREE_CPU;
  if (strncmp(key, "iree-cuda:", 10) == 0)
    return PRUNER_TARGET_IREE_CUDA;
  return PRUNER_TARGET_GPU;
}

PrunerStatus prunerTargetFromKey(const char *key, const PrunerMeasuredMachine *measured,
                                 PrunerTargetDesc *out, char *what, size_t what_size) {
  if (what && what_size)
    what[0] = '\0';
  if (!key || !*key)
    return prunerStatusError("empty dataset target key");
  /* IREE's CPU backend keys its records like the host (the same machine description)
   * under its own arch: "iree-cpu:<cpu>-<N>c-<isa>". */
  PrunerTargetKind kind = prunerTargetKeyKind(key);
  bool iree = kind == PRUNER_TARGET_IREE_CPU;
  if (kind == PRUNER_TARGET_HOST || iree) {
    const char *name = key + (iree ? 9 : 5);
    int cores = 0;
    char isa[16];
    if (strlen(name) >= sizeof out->name || !parseHostName(name, &cores, isa, sizeof isa))
      return prunerStatusError("dataset target '%.96s': a host key is host:<cpu>-<N>c-<isa> "
                               "(iree-cpu:<cpu>-<N>c-<isa> for IREE's CPU backend)",
                               key);
    PrunerHostInfo here;
    prunerHostDescribe(&here);
    PrunerHostInfo info = here;
    bool amd = strncmp(name, "amd-", 4) == 0;
    PrunerStatus st = prunerHostInfoAssume(&info, cores, isa, amd, measured);
    if (!st.ok)
      return prunerStatusError("dataset target '%.96s': %s", key, st.message);
    prunerHostTargetDesc(&info, out);
    snprintf(out->name, sizeof out->name, "%s", name);
    if (iree) { /* as prunerIreeCpuTargetDesc marks this machine */
      out->kind = PRUNER_TARGET_IREE_CPU;
      snprintf(out->arch, sizeof out->arch, "iree-cpu");
    }
    if (what && what_size) {
      PrunerTargetDesc native; /* this machine as "host" names it (PRUNER_HOST_ISA too) */
      if (!prunerTargetLookup("host", &native).ok)
        prunerHostTargetDesc(&here, &native);
      char here_key[96];
      prunerTargetKey(&native, here_key, sizeof here_key);
      bool caches = measured && measured->l1d_bytes > 0 && measured->l2_bytes > 0 &&
                    measured->l3_bytes > 0;
      bool clock = measured && measured->clock_mhz > 0;
      char here[192];
      snprintf(here, sizeof here, " (this machine's, %s: the records do not carry theirs)",
               here_key);
      snprintf(what, what_size,
               "dataset target %s: modelled as %d core(s), %s, %d FMA pipe(s)%s; caches "
               "L1d %lld KiB, L2 %lld KiB, L3 %lld MiB%s; clock %.0f MHz%s",
               key, cores, isa, info.fma_pipes, amd ? " (AMD)" : "",
               (long long)(info.l1d_bytes >> 10), (long long)(info.l2_bytes >> 10),
               (long long)(info.l3_bytes >> 20), caches ? " (the records')" : here,
               info.clock_mhz, clock ? " (the records')" : here);
    }
    return prunerStatusOk();
  }
  /* GPU: "arch:name:NNsm", the table entry with the measured SM count; IREE's CUDA
   * backend prefixes it with "iree-cuda:". */
  bool iree_cuda = kind == PRUNER_TARGET_IREE_CUDA;
  const char *gpu_key = iree_cuda ? key + 10 : key;
  char name[96];
  const char *first = strchr(gpu_key, ':');
  const char *second = first ? strchr(first + 1, ':') : NULL;
  if (first && second && (size_t)(second - first - 1) < sizeof name) {
    memcpy(name, first + 1, (size_t)(second - first - 1));
    name[second - first - 1] = '\0';
    PrunerTargetDesc desc;
    if (prunerTargetLookup(name, &desc).ok && desc.kind == PRUNER_TARGET_GPU) {
      int sms = atoi(second + 1);
      int table_sms = desc.sm_count;
      if (sms > 0)
        desc.sm_count = sms; /* a measured device may differ from the table */
      if (iree_cuda)
        desc.kind = PRUNER_TARGET_IREE_CUDA;
      char got[96];
      prunerTargetKey(&desc, got, sizeof got);
      if (strcmp(got, key) == 0) {
        *out = desc;
        if (what && what_size)
          snprintf(what, what_size, "dataset target %s: the table's %s with %d SMs (table: %d)",
                   key, desc.device, desc.sm_count, table_sms);
        return prunerStatusOk();
      }
    }
  }
  return prunerStatusError("dataset target '%.96s' names no known target (expected "
                           "arch:name:NNsm, iree-cuda:arch:name:NNsm, host:<cpu>-<N>c-<isa> or "
                           "iree-cpu:<cpu>-<N>c-<isa>)",
                           key);
}

void prunerTargetFamily(const PrunerTargetDesc *target, char *buf, size_t size) {
  const char *isa = target->warp_size >= 16 ? "avx512" : target->warp_size >= 8 ? "avx2" : "sse";
  int n = 0;
  switch (target->kind) {
  case PRUNER_TARGET_HOST:
    n = snprintf(buf, size, "host-%s", isa);
    break;
  case PRUNER_TARGET_IREE_CPU:
    n = snprintf(buf, size, "iree-cpu-%s", isa);
    break;
  case PRUNER_TARGET_GPU:
    n = snprintf(buf, size, "gpu-%s", target->arch);
    break;
  case PRUNER_TARGET_IREE_CUDA:
    n = snprintf(buf, size, "iree-cuda-%s", target->arch);
    break;
  }
  if (size > 0 && (n < 0 || (size_t)n >= size))
    buf[0] = '\0';
}
