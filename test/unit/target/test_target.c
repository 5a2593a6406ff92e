/* Unit tests of the target table: lookups by table name, arch and device name, the
 * error that lists accepted names, keys, overrides and the table's own consistency; the
 * host CPU at a narrower ISA (host:avx2, host:sse, PRUNER_HOST_ISA). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pruner/backend/host.h"
#include "pruner/target.h"

static void lookupByName(void **state) {
  (void)state;
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("h200", &t).ok);
  assert_string_equal(t.name, "h200");
  assert_int_equal(t.sm_count, 132);
  assert_int_equal(t.compute_capability, 90);
  assert_true(prunerTargetLookup("H100-SXM", &t).ok); /* case-insensitive */
  assert_string_equal(t.name, "h100-sxm");
  assert_true(prunerTargetLookup("A100-80GB", &t).ok);
  assert_string_equal(t.name, "a100-80gb");
  assert_true(prunerTargetLookup("rtx4090", &t).ok);
  assert_string_equal(t.arch, "sm_89");
}

static void lookupByArch(void **state) {
  (void)state;
  const struct {
    const char *arch, *name;
  } expect[] = {{"sm_75", "t4"},  {"sm_80", "a100-40gb"}, {"sm_86", "a10"},
                {"sm_89", "l40s"}, {"sm_90", "h200"},     {"SM_90", "h200"}};
  for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); ++i) {
    PrunerTargetDesc t;
    PrunerStatus st = prunerTargetLookup(expect[i].arch, &t);
    assert_true(st.ok);
    assert_string_equal(t.name, expect[i].name);
  }
}

static void lookupByDevice(void **state) {
  (void)state;
  PrunerTargetDesc t;
  assert_true(prunerTargetLookup("NVIDIA H200", &t).ok);
  assert_string_equal(t.name, "h200");
  assert_true(prunerTargetLookup("NVIDIA A100-SXM4-40GB", &t).ok); /* as the driver says */
  assert_string_equal(t.name, "a100-40gb");
  assert_true(prunerTargetLookup("Tesla T4", &t).ok);
  assert_string_equal(t.name, "t4");
  assert_true(prunerTargetLookup("NVIDIA GeForce RTX 4090", &t).ok);
  assert_string_equal(t.name, "rtx4090");
}

static void lookupFailureListsNames(void **state) {
  (void)state;
  PrunerTargetDesc t;
  PrunerStatus st = prunerTargetLookup("sm_100", &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "sm_100"));
  for (size_t i = 0; i < prunerTargetTableSize(); ++i)
    assert_non_null(strstr(st.message, prunerTargetTableEntry(i)->name));
  const char *archs[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"};
  for (size_t i = 0; i < 5; ++i) assert_non_null(strstr(st.message, archs[i]));
  assert_false(prunerTargetLookup("", &t).ok);
  assert_false(prunerTargetLookup("h20", &t).ok);
}

static void listNames(void **state) {
  (void)state;
  char buf[1024];
  prunerTargetListNames(buf, sizeof(buf));
  assert_non_null(strstr(buf, "h200"));
  assert_non_null(strstr(buf, "sm_90"));
  assert_non_null(strstr(buf, "NVIDIA L40S"));
  char tiny[8];
  prunerTargetListNames(tiny, sizeof(tiny)); /* truncates, stays terminated */
  assert_true(strlen(tiny) < sizeof(tiny));
}

static void keys(void **state) {
  (void)state;
  PrunerTargetDesc t;
  char key[96];
  assert_true(prunerTargetLookup("h200", &t).ok);
  prunerTargetKey(&t, key, sizeof(key));
  assert_string_equal(key, "sm_90:h200:132sm");
  assert_true(prunerTargetLookup("t4", &t).ok);
  prunerTargetKey(&t, key, sizeof(key));
  assert_string_equal(key, "sm_75:t4:40sm");
}

static void override(void **state) {
  (void)state;
  PrunerTargetDesc t, measured;
  assert_true(prunerTargetLookup("h100-sxm", &t).ok);
  memset(&measured, 0, sizeof(measured));
  measured.sm_count = 114; /* an H100 PCIe reports 114 SMs */
  measured.boost_clock_mhz = 1755;
  prunerTargetOverride(&t, &measured);
  assert_int_equal(t.sm_count, 114);
  assert_true(t.boost_clock_mhz == 1755);
  assert_int_equal(t.max_threads_per_block, 1024); /* zero in measured: kept */
  assert_string_equal(t.name, "h100-sxm");
  char key[96];
  prunerTargetKey(&t, key, sizeof(key));
  assert_string_equal(key, "sm_90:h100-sxm:114sm");
}

/* Every entry is complete and agrees with the CUDA programming guide's per-CC limits;
 * peak FP32 is SMs x FP32 lanes x 2 x boost clock within 1%. */
static void tableConsistent(void **state) {
  (void)state;
  assert_int_equal(prunerTargetTableSize(), 8);
  assert_null(prunerTargetTableEntry(8));
  for (size_t i = 0; i < prunerTargetTableSize(); ++i) {
    const PrunerTargetDesc *t = prunerTargetTableEntry(i);
    assert_int_equal(t->kind, PRUNER_TARGET_GPU);
    assert_true(t->sm_count > 0 && t->boost_clock_mhz > 0 && t->dram_gbps > 0);
    assert_true(t->peak_tensor_gflops > t->peak_fp32_gflops);
    assert_true(t->l2_bytes > 0 && t->dram_bytes > t->l2_bytes);
    assert_int_equal(t->smem_per_block_static, 48 * 1024);
    assert_true(t->smem_per_block >= t->smem_per_block_static);
    assert_true(t->smem_per_sm >= t->smem_per_block);
    assert_int_equal(t->smem_reserved_per_block, t->compute_capability >= 80 ? 1024 : 0);
    assert_int_equal(t->regs_per_sm, 65536);
    assert_int_equal(t->max_regs_per_thread, 255);
    assert_int_equal(t->max_threads_per_block, 1024);
    assert_int_equal(t->warp_size, 32);
    int lanes = t->compute_capability == 75 || t->compute_capability == 80 ? 64 : 128;
    double peak = t->sm_count * lanes * 2.0 * t->boost_clock_mhz / 1000.0;
    assert_true(t->peak_fp32_gflops > 0.99 * peak && t->peak_fp32_gflops < 1.01 * peak);
    char arch[16];
    snprintf(arch, sizeof(arch), "sm_%d", t->compute_capability);
    assert_string_equal(arch, t->arch);
    /* Looking an entry up by its own name and device gives it back. */
    PrunerTargetDesc back;
    assert_true(prunerTargetLookup(t->name, &back).ok);
    assert_string_equal(back.name, t->name);
    assert_true(prunerTargetLookup(t->device, &back).ok);
    assert_string_equal(back.name, t->name);
  }
}

static bool endsWith(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

/* host:<isa> describes this CPU at a narrower ISA (docs/host.md); which checks apply
 * depends on what the CPU has, read from its description, never assumed. */
static void hostIsa(void **state) {
  (void)state;
  unsetenv("PRUNER_HOST_ISA");
  PrunerHostInfo native;
  prunerHostDescribe(&native);
  PrunerTargetDesc t;
  char key[96];
  assert_true(prunerTargetLookup("host:avx2", &t).ok); /* every x86-64 CI machine has it */
  assert_int_equal(t.kind, PRUNER_TARGET_HOST);
  assert_int_equal(t.warp_size, 8);
  assert_int_equal(t.regs_per_sm, 16);
  /* Two 256-bit FMA pipes at AVX2 on every vendor. */
  assert_true(fabs(t.peak_fp32_gflops - t.sm_count * 2 * 2.0 * 8 * t.boost_clock_mhz * 1e-3) <
              1e-6 * t.peak_fp32_gflops);
  prunerTargetKey(&t, key, sizeof key);
  assert_true(endsWith(key, "-avx2"));
  assert_true(strncmp(key, "host:", 5) == 0);
  assert_true(prunerTargetLookup("CPU:SSE", &t).ok);
  assert_int_equal(t.warp_size, 4);
  assert_string_equal(prunerHostTargetFeatures(&t), "-avx,-avx512f");
  assert_true(prunerTargetLookup("host:native", &t).ok);
  assert_int_equal(t.warp_size, native.f32_lanes);
  assert_string_equal(prunerHostTargetFeatures(&t), ""); /* nothing to switch off */
  PrunerStatus st = prunerTargetLookup("host:avx3", &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "unknown host ISA 'avx3'; accepted: avx512, avx2, sse"));
  st = prunerTargetLookup("host:avx512", &t);
  if (strcmp(native.native_isa, "avx512") == 0) {
    assert_true(st.ok);
    assert_int_equal(t.warp_size, 16);
    assert_int_equal(t.regs_per_sm, 32);
    assert_true(prunerTargetLookup("host:avx2", &t).ok);
    assert_string_equal(prunerHostTargetFeatures(&t), "-avx512f");
  } else {
    assert_false(st.ok);
    assert_non_null(strstr(st.message, "does not have AVX-512F; its widest is"));
  }
  /* What an AVX2-only CPU says, whatever this one has. */
  PrunerHostInfo zen3;
  memset(&zen3, 0, sizeof zen3);
  snprintf(zen3.model, sizeof zen3.model, "AMD EPYC 7B13");
  snprintf(zen3.native_isa, sizeof zen3.native_isa, "avx2");
  zen3.cores = 2;
  zen3.clock_mhz = 3000;
  st = prunerHostInfoNarrow(&zen3, "avx512");
  assert_false(st.ok);
  assert_string_equal(st.message, "host ISA avx512: this CPU (AMD EPYC 7B13) does not have "
                                  "AVX-512F; its widest is avx2 (use host or host:avx2)");
  assert_true(prunerHostInfoNarrow(&zen3, "avx2").ok);
  assert_int_equal(zen3.f32_lanes, 8);
  assert_int_equal(zen3.vector_registers, 16);
  assert_true(fabs(zen3.peak_fp32_gflops - 2 * 2 * 2.0 * 8 * 3.0) < 1e-9);
  assert_true(prunerHostInfoNarrow(&zen3, "sse").ok);
  assert_int_equal(zen3.f32_lanes, 4);
  assert_string_equal(zen3.isa, "sse");
  /* PRUNER_HOST_ISA narrows plain "host"; an explicit ISA wins over it. */
  setenv("PRUNER_HOST_ISA", "sse", 1);
  assert_true(prunerTargetLookup("host", &t).ok);
  assert_int_equal(t.warp_size, 4);
  assert_true(prunerTargetLookup("host:avx2", &t).ok);
  assert_int_equal(t.warp_size, 8);
  setenv("PRUNER_HOST_ISA", "neon", 1);
  st = prunerTargetLookup("host", &t);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "(PRUNER_HOST_ISA)"));
  unsetenv("PRUNER_HOST_ISA");
  /* Not a host name: "hostile" is an unknown target, not host + ISA. */
  assert_false(prunerTargetLookup("hostile", &t).ok);
}

/* A records key back to the machine it names (the study's --dataset-target): the key
 * round-trips, a host key sets cores and ISA whatever this CPU has (AVX-512 modelled on
 * an AVX2 machine too), and malformed keys are refused by name. */
static void fromKey(void **state) {
  (void)state;
  PrunerTargetDesc t;
  char key[96], what[512];
  assert_true(prunerTargetFromKey("sm_90:h200:132sm", NULL, &t, what, sizeof what).ok);
  prunerTargetKey(&t, key, sizeof key);
  assert_string_equal(key, "sm_90:h200:132sm");
  assert_non_null(strstr(what, "132 SMs"));
  assert_true(prunerTargetFromKey("sm_90:h200:100sm", NULL, &t, NULL, 0).ok);
  assert_int_equal(t.sm_count, 100);

  assert_true(prunerTargetFromKey("host:amd-epyc-1c-avx512", NULL, &t, what, sizeof what).ok);
  prunerTargetKey(&t, key, sizeof key);
  assert_string_equal(key, "host:amd-epyc-1c-avx512");
  assert_int_equal(t.kind, PRUNER_TARGET_HOST);
  assert_int_equal(t.sm_count, 1);
  assert_int_equal(t.warp_size, 16);   /* f32 lanes */
  assert_int_equal(t.regs_per_sm, 32); /* vector registers */
  assert_non_null(strstr(what, "1 core(s), avx512, 1 FMA pipe(s) (AMD)"));
  assert_non_null(strstr(what, "the records do not carry theirs"));
  /* The caches and clock the records carry replace this machine's: a Zen 4's 1 MiB L2
   * and 2596 MHz modelled on any machine (peak = 1 core x 1 pipe x 2 x 16 lanes x clock). */
  PrunerMeasuredMachine zen4 = {32 << 10, 1 << 20, 32 << 20, 2596.0};
  assert_true(prunerTargetFromKey("host:amd-epyc-1c-avx512", &zen4, &t, what, sizeof what).ok);
  PrunerMeasuredMachine got;
  prunerHostTargetMachine(&t, &got);
  assert_int_equal(got.l1d_bytes, 32 << 10);
  assert_int_equal(got.l2_bytes, 1 << 20);
  assert_int_equal(got.l3_bytes, 32 << 20);
  assert_true(fabs(got.clock_mhz - 2596.0) < 1e-9);
  assert_true(fabs(t.peak_fp32_gflops - 2 * 16 * 2.596) < 1e-9);
  assert_non_null(strstr(what, "L2 1024 KiB"));
  assert_null(strstr(what, "do not carry"));
  /* Caches come all three or not at all; a clock alone still applies. */
  PrunerMeasuredMachine partial = {32 << 10, 0, 32 << 20, 3000.0};
  assert_true(prunerTargetFromKey("host:amd-epyc-1c-avx512", &partial, &t, what, sizeof what).ok);
  assert_non_null(strstr(what, "clock 3000 MHz (the records')"));
  assert_non_null(strstr(what, "do not carry"));
  assert_true(prunerTargetFromKey("host:intel-xeon-gold-4c-avx2", NULL, &t, what, sizeof what).ok);
  assert_int_equal(t.sm_count, 4);
  assert_int_equal(t.warp_size, 8);
  assert_non_null(strstr(what, "4 core(s), avx2, 2 FMA pipe(s);"));
  /* IREE's CPU backend: the host's description under its own kind and arch. */
  assert_true(prunerTargetFromKey("iree-cpu:intel-r-xeon-2c-avx512", NULL, &t, what, sizeof what).ok);
  prunerTargetKey(&t, key, sizeof key);
  assert_string_equal(key, "iree-cpu:intel-r-xeon-2c-avx512");
  assert_int_equal(t.kind, PRUNER_TARGET_IREE_CPU);
  assert_int_equal(t.sm_count, 2);
  assert_int_equal(t.warp_size, 16);

  const char *bad[] = {"",
                       "host:",
                       "host:amd-epyc-avx512",
                       "host:amd-epyc-0c-avx512",
                       "host:1c-avx512",
                       "host:amd-epyc-1c-avx9",
                       "host:x-99999c-avx2",
                       "iree-cpu:",
                       "iree-cpu:amd-epyc-avx2",
                       "sm_90:nosuchgpu:132sm",
                       "nonsense"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    PrunerStatus st = prunerTargetFromKey(bad[i], NULL, &t, what, sizeof what);
    assert_false(st.ok);
    if (bad[i][0])
      assert_non_null(strstr(st.message, bad[i]));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fromKey),
      cmocka_unit_test(lookupByName),
      cmocka_unit_test(lookupByArch),
      cmocka_unit_test(lookupByDevice),
      cmocka_unit_test(lookupFailureListsNames),
      cmocka_unit_test(listNames),
      cmocka_unit_test(keys),
      cmocka_unit_test(override),
      cmocka_unit_test(tableConsistent),
      cmocka_unit_test(hostIsa),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
