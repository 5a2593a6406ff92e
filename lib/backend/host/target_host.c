/* lib/backend/host/target_host.c: the host CPU described from the machine itself (docs/host.md).
 *
 * Cores from the affinity mask (sched_getaffinity, else sysconf), the SIMD ISA from the
 * CPU's feature bits (__builtin_cpu_supports), caches from sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index*), the clock from cpufreq's cpuinfo_max_freq
 * or /proc/cpuinfo's "cpu MHz". Peak FP32 = cores x FMA pipes x 2 x lanes x clock.
 * Nothing here runs a timing loop: a lookup is cheap and deterministic per machine.
 * prunerHostDescribeIsa narrows the description to an ISA the CPU has (host:avx2 on an
 * AVX-512 machine), and prunerHostTargetFeatures gives the LLVM features that keep the
 * JIT's code within it. */
#define _GNU_SOURCE
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pruner/backend/host_rules.h"

/* Sustained DRAM bandwidth per core when nothing better is known: ~10 GB/s is the
 * single-core STREAM triad figure of current server cores (STREAM results pages, Xeon SP
 * and EPYC, 1 thread: 9-14 GB/s); the sum is capped at a dual-channel DDR5 socket's
 * 80 GB/s for small VMs and raised only by PRUNER_HOST_DRAM_GBPS (docs/host.md). */
#define DRAM_GBPS_PER_CORE 10.0
#define DRAM_GBPS_CAP 80.0
/* Clock when neither cpufreq nor /proc/cpuinfo has one. */
#define DEFAULT_CLOCK_MHZ 2000.0

static int64_t readCacheSize(int index, int *level, char *type, size_t type_size) {
  char path[96], buf[64];
  *level = 0;
  type[0] = '\0';
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  if (fgets(buf, sizeof buf, f))
    *level = atoi(buf);
  fclose(f);
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
  if ((f = fopen(path, "r"))) {
    if (fgets(buf, sizeof buf, f)) {
      buf[strcspn(buf, "\n")] = '\0';
      snprintf(type, type_size, "%.31s", buf);
    }
    fclose(f);
  }
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
  if (!(f = fopen(path, "r")))
    return 0;
  int64_t bytes = 0;
  if (fgets(buf, sizeof buf, f)) {
    char *end;
    bytes = strtoll(buf, &end, 10);
    if (*end == 'K')
      bytes *= 1024;
    else if (*end == 'M')
      bytes *= 1024 * 1024;
  }
  fclose(f);
  return bytes;
}

static void readCaches(PrunerHostInfo *h) {
  for (int i = 0; i < 8; ++i) {
    int level;
    char type[32];
    int64_t bytes = readCacheSize(i, &level, type, sizeof type);
    if (bytes < 0)
      break;
    if (level == 1 && strcmp(type, "Instruction") != 0)
      h->l1d_bytes = bytes;
    else if (level == 2)
      h->l2_bytes = bytes;
    else if (level == 3)
      h->l3_bytes = bytes;
  }
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", "r");
  char buf[32];
  if (f) {
    if (fgets(buf, sizeof buf, f))
      h->line_bytes = atoi(buf);
    fclose(f);
  }
  /* Typical values where sysfs is missing (containers): 32 KiB / 1 MiB / 32 MiB. */
  if (h->l1d_bytes <= 0)
    h->l1d_bytes = 32 * 1024;
  if (h->l2_bytes <= 0)
    h->l2_bytes = 1024 * 1024;
  if (h->l3_bytes <= 0)
    h->l3_bytes = h->l2_bytes * h->cores;
  if (h->line_bytes <= 0)
    h->line_bytes = 64;
}

static void readCpuinfo(PrunerHostInfo *h, double *mhz) {
  *mhz = 0;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon)
      continue;
    char *value = colon + 1;
    while (*value == ' ' || *value == '\t')
      ++value;
    value[strcspn(value, "\n")] = '\0';
    if (!h->model[0] && strncmp(line, "model name", 10) == 0)
      snprintf(h->model, sizeof h->model, "%s", value);
    else if (*mhz == 0 && strncmp(line, "cpu MHz", 7) == 0)
      *mhz = atof(value);
  }
  fclose(f);
}

static double readCpufreqMhz(void) {
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  if (!f)
    return 0;
  char buf[32];
  double khz = 0;
  if (fgets(buf, sizeof buf, f))
    khz = atof(buf);
  fclose(f);
  return khz / 1000.0;
}

static int countCores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* The SIMD ISAs a description can have, narrowest first (docs/host.md). */
enum { ISA_SSE, ISA_AVX2, ISA_AVX512, ISA_COUNT };
static const char *const kIsaNames[ISA_COUNT] = {"sse", "avx2", "avx512"};

/* Lanes, registers, FMA pipes and peak of ISA `rank` on this CPU. */
static void setIsa(PrunerHostInfo *h, int rank) {
  snprintf(h->isa, sizeof h->isa, "%s", kIsaNames[rank]);
  /* FMA pipes per core at full vector width: Intel Xeon SP (Skylake-SP and later, Gold and
   * Platinum) has two 512-bit FMA ports (Intel optimization manual, "Intel AVX-512");
   * AMD Zen 4 splits 512-bit ops over its two 256-bit FMA pipes, i.e. one 512-bit FMA
   * per cycle (AMD Zen 4 software optimization guide, 56665, section 2.11). AVX2 cores of
   * both vendors (Haswell+, Zen 2+) have two 256-bit FMA pipes, and so do AVX-512 cores
   * running AVX2 code (ports 0 and 1 on Intel, both pipes on Zen 4). */
  if (rank == ISA_AVX512) {
    h->f32_lanes = 16;
    h->vector_registers = 32;
    h->fma_pipes = __builtin_cpu_is("amd") ? 1 : 2;
  } else if (rank == ISA_AVX2) {
    h->f32_lanes = 8;
    h->vector_registers = 16;
    h->fma_pipes = 2;
  } else {
    h->f32_lanes = 4;
    h->vector_registers = 16;
    h->fma_pipes = 1; /* mul + add on separate ports, counted as one FMA equivalent */
  }
  h->peak_fp32_gflops = (double)h->cores * h->fma_pipes * 2.0 * h->f32_lanes * h->clock_mhz * 1e-3;
}

static int isaRank(const char *name) {
  for (int i = 0; i < ISA_COUNT; ++i)
    if (strcasecmp(name, kIsaNames[i]) == 0)
      return i;
  return -1;
}

int prunerHostCodegenVersionOf(const PrunerWorkload *w) {
  if (w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW)
    return 5; /* channels-last: transposes around a vectorized NHWC conv */
  /* The output tile hoisted across the reduction steps: vector kernels only (NCHW convs
   * were scalar, and their kernels did not change then). */
  if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC)
    return 4;
  for (int i = 0; i < w->body_len; ++i)
    switch (w->body[i].opcode) {
    case PRUNER_BODY_ERF:
    case PRUNER_BODY_EXP:
    case PRUNER_BODY_LOG:
    case PRUNER_BODY_TANH:
      return 3; /* vector math approximated (pruner-approximate-math) */
    default:
      break;
    }
  return 2; /* aligned operand buffers */
}

void prunerHostDescribe(PrunerHostInfo *h) {
  memset(h, 0, sizeof *h);
  h->cores = countCores();
  double cpuinfo_mhz;
  readCpuinfo(h, &cpuinfo_mhz);
  if (!h->model[0])
    snprintf(h->model, sizeof h->model, "unknown CPU");
  double freq = readCpufreqMhz();
  if (freq > 0) {
    h->clock_mhz = freq;
    snprintf(h->clock_source, sizeof h->clock_source, "cpufreq");
  } else if (cpuinfo_mhz > 0) {
    h->clock_mhz = cpuinfo_mhz;
    snprintf(h->clock_source, sizeof h->clock_source, "cpuinfo");
  } else {
    h->clock_mhz = DEFAULT_CLOCK_MHZ;
    snprintf(h->clock_source, sizeof h->clock_source, "default");
  }
  __builtin_cpu_init();
  int rank = __builtin_cpu_supports("avx512f")                                 ? ISA_AVX512
             : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? ISA_AVX2
                                                                               : ISA_SSE;
  snprintf(h->native_isa, sizeof h->native_isa, "%s", kIsaNames[rank]);
  setIsa(h, rank);
  readCaches(h);
  const char *env = getenv("PRUNER_HOST_DRAM_GBPS");
  double bw = env ? atof(env) : 0.0;
  if (!(bw > 0)) {
    bw = DRAM_GBPS_PER_CORE * h->cores;
    if (bw > DRAM_GBPS_CAP)
      bw = DRAM_GBPS_CAP;
  }
  h->dram_gbps = bw;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  h->memory_bytes = pages > 0 && page > 0 ? (int64_t)pages * page : 0;
}

PrunerStatus prunerHostDescribeIsa(const char *isa, PrunerHostInfo *h) {
  prunerHostDescribe(h);
  return prunerHostInfoNarrow(h, isa);
}

PrunerStatus prunerHostInfoNarrow(PrunerHostInfo *h, const char *isa) {
  if (!isa || !*isa || strcasecmp(isa, "native") == 0)
    return prunerStatusOk();
  int want = isaRank(isa), have = isaRank(h->native_isa);
  if (want < 0)
    return prunerStatusError("unknown host ISA '%.32s'; accepted: avx512, avx2, sse, native", isa);
  if (want > have)
    return prunerStatusError("host ISA %s: this CPU (%s) does not have %s; its widest is %s "
                             "(use host or host:%s)",
                             kIsaNames[want], h->model,
                             want == ISA_AVX512 ? "AVX-512F" : "AVX2 and FMA", h->native_isa,
                             h->native_isa);
  setIsa(h, want);
  return prunerStatusOk();
}

PrunerStatus prunerHostInfoAssume(PrunerHostInfo *h, int cores, const char *isa, bool amd,
                                  const PrunerMeasuredMachine *measured) {
  int rank = isa ? isaRank(isa) : -1;
  if (rank < 0)
    return prunerStatusError("unknown host ISA '%.32s'; accepted: avx512, avx2, sse",
                             isa ? isa : "");
  if (cores < 1 || cores > 4096)
    return prunerStatusError("host core count %d is out of range [1, 4096]", cores);
  h->cores = cores;
  /* The caches all three or none: a records file's reader keeps them together. */
  if (measured && measured->l1d_bytes > 0 && measured->l2_bytes > 0 && measured->l3_bytes > 0) {
    h->l1d_bytes = measured->l1d_bytes;
    h->l2_bytes = measured->l2_bytes;
    h->l3_bytes = measured->l3_bytes;
  }
  if (measured && measured->clock_mhz > 0)
    h->clock_mhz = measured->clock_mhz;
  setIsa(h, rank);
  if (rank == ISA_AVX512) /* setIsa asked this CPU; the key's vendor decides here */
    h->fma_pipes = amd ? 1 : 2;
  h->peak_fp32_gflops = (double)h->cores * h->fma_pipes * 2.0 * h->f32_lanes * h->clock_mhz * 1e-3;
  const char *env = getenv("PRUNER_HOST_DRAM_GBPS");
  double bw = env ? atof(env) : 0.0;
  if (!(bw > 0)) {
    bw = DRAM_GBPS_PER_CORE * h->cores;
    if (bw > DRAM_GBPS_CAP)
      bw = DRAM_GBPS_CAP;
  }
  h->dram_gbps = bw;
  return prunerStatusOk();
}

const char *prunerHostTargetFeatures(const PrunerTargetDesc *t) {
  __builtin_cpu_init();
  int native = __builtin_cpu_supports("avx512f")                                 ? 16
               : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 8
                                                                                 : 4;
  if (!t || prunerHostTargetSimdLanes(t) <= 0 || prunerHostTargetSimdLanes(t) >= native)
    return "";
  /* Clearing a feature clears every feature that implies it (AVX-512BW, VL, ... imply
   * AVX-512F; AVX2, FMA and F16C imply AVX), so one name per level is enough. */
  return prunerHostTargetSimdLanes(t) >= 8 ? "-avx512f" : "-avx,-avx512f";
}

/* "AMD EPYC 9654 96-Core Processor" -> "amd-epyc-9654": the first three words, lower
 * case, so that the target key names the CPU model and the core count. */
static void slug(const char *model, char *out, size_t size) {
  size_t n = 0;
  int words = 0;
  bool in_word = false;
  for (const char *p = model; *p && n + 1 < size; ++p) {
    if (isalnum((unsigned char)*p)) {
      if (!in_word && words == 3)
        break;
      if (!in_word && n > 0)
        out[n++] = '-';
      if (n + 1 >= size)
        break;
      out[n++] = (char)tolower((unsigned char)*p);
      if (!in_word)
        ++words;
      in_word = true;
    } else {
      in_word = false;
    }
  }
  out[n] = '\0';
}

void prunerHostTargetDesc(const PrunerHostInfo *h, PrunerTargetDesc *t) {
  memset(t, 0, sizeof *t);
  t->kind = PRUNER_TARGET_HOST;
  char model[16];
  slug(h->model, model, sizeof model);
  char name[96];
  snprintf(name, sizeof name, "%s-%dc-%s", model, h->cores, h->isa);
  snprintf(t->name, sizeof t->name, "%.31s", name);
  snprintf(t->arch, sizeof t->arch, "host");
  snprintf(t->device, sizeof t->device, "%.63s", h->model);
  t->sm_count = h->cores;
  t->boost_clock_mhz = h->clock_mhz;
  t->peak_fp32_gflops = h->peak_fp32_gflops;
  t->dram_gbps = h->dram_gbps;
  t->l2_bytes = h->l2_bytes;
  t->dram_bytes = h->memory_bytes;
  t->smem_per_sm = (int)h->l1d_bytes;
  t->smem_per_block = (int)(h->l3_bytes > 0x7fffffff ? 0x7fffffff : h->l3_bytes);
  t->regs_per_sm = h->vector_registers;
  t->warp_size = h->f32_lanes;
  t->l1_line_bytes = h->line_bytes;
  t->max_threads_per_block = 1;
  t->max_threads_per_sm = 1;
  t->max_blocks_per_sm = 1;
}

int prunerHostTargetCores(const PrunerTargetDesc *t) { return t->sm_count; }

int prunerHostTargetSimdLanes(const PrunerTargetDesc *t) { return t->warp_size; }

void prunerHostTargetMachine(const PrunerTargetDesc *t, PrunerMeasuredMachine *out) {
  out->l1d_bytes = t->smem_per_sm;
  out->l2_bytes = t->l2_bytes;
  out->l3_bytes = t->smem_per_block;
  out->clock_mhz = t->boost_clock_mhz;
}
