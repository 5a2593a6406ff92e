/* Unit tests of lib/backend/gpu: a small matmul to a cubin with the launch the config
 * implies, rejected configs with messages, the worker pool's timeout and crash paths,
 * ptxas log parsing and the shared pipeline text. Tests that need ptxas skip (77) when
 * it is absent. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "compile_internal.h"
#include "pruner/compile.h"
#include "pruner/schedule.h"
#include "pruner/space.h"
#include "pruner/target.h"
#include "pruner/worker.h"
#include "pruner/workload.h"

#define PTXAS "/usr/local/cuda/bin/ptxas"

static PrunerTargetDesc h200(void) {
  PrunerTargetDesc t;
  PrunerStatus s = prunerTargetLookup("sm_90", &t);
  assert_true(s.ok);
  return t;
}

/* 256^3 f32 matmul, block tile 64x32, K step 16, thread tile 4x2: grid (8, 4), block
 * (16, 16) by the launch-shape rule (innermost tiled loop n -> x). */
static void smallMatmul(PrunerWorkload *w, PrunerConfig *c) {
  prunerWorkloadMatmul(w, 256, 256, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  memset(c, 0, sizeof(*c));
  c->workgroup[0] = 64, c->workgroup[1] = 32;
  c->reduction[2] = 16;
  c->thread[0] = 4, c->thread[1] = 2;
  c->vector_width = 1;
}

static void checkMatmulResult(const PrunerWorkload *w, const PrunerConfig *c,
                              const PrunerCompileResult *r) {
  if (!r->status.ok)
    fail_msg("compile failed: %s", r->status.message);
  assert_non_null(r->binary);
  assert_true(r->binary_size > 4);
  assert_memory_equal(r->binary,
                      "\x7f"
                      "ELF",
                      4);
  PrunerLaunchShape shape;
  prunerConfigLaunchShape(w, c, &shape);
  for (int i = 0; i < 3; ++i) {
    assert_int_equal(r->launch.grid[i], shape.grid[i]);
    assert_int_equal(r->launch.block[i], shape.block[i]);
  }
  assert_int_equal(r->launch.grid[0], 8);
  assert_int_equal(r->launch.grid[1], 4);
  assert_int_equal(r->launch.block[0] * r->launch.block[1] * r->launch.block[2], 256);
  assert_true(strstr(r->launch.kernel_name, "matmul") != NULL);
  /* Three rank-2 memref descriptors: 2 pointers + offset + 2 sizes + 2 strides each. */
  assert_int_equal(r->launch.num_args, 3 * 7);
  int seen[3] = {0, 0, 0};
  for (int a = 0; a < r->launch.num_args; a += 7) {
    int op = r->launch.args[a].operand;
    assert_true(op >= 0 && op < 3);
    seen[op]++;
    assert_int_equal(r->launch.args[a].kind, PRUNER_ARG_BUFFER_ALLOCATED);
    assert_int_equal(r->launch.args[a + 1].kind, PRUNER_ARG_BUFFER_ALIGNED);
    for (int k = 2; k < 7; ++k) {
      assert_int_equal(r->launch.args[a + k].kind, PRUNER_ARG_INDEX);
      assert_int_equal(r->launch.args[a + k].operand, op);
    }
    const PrunerOperand *o = &w->operands[op];
    assert_int_equal(r->launch.args[a + 2].value, 0);           /* offset */
    assert_int_equal(r->launch.args[a + 3].value, o->shape[0]); /* sizes */
    assert_int_equal(r->launch.args[a + 4].value, o->shape[1]);
    assert_int_equal(r->launch.args[a + 5].value, o->shape[1]); /* row-major strides */
    assert_int_equal(r->launch.args[a + 6].value, 1);
  }
  assert_int_equal(seen[0], 1);
  assert_int_equal(seen[1], 1);
  assert_int_equal(seen[2], 1);
  assert_true(r->launch.resources.registers > 0 && r->launch.resources.registers <= 255);
  assert_true(r->mlir_seconds > 0);
  assert_true(r->ptxas_seconds > 0);
}

static void test_matmul_to_cubin(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c;
  smallMatmul(&w, &c);
  assert_true(prunerConfigIsValid(&w, &t, &c));
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  PrunerCompileResult r = prunerCompileOne(&w, &c, &t, &opts);
  checkMatmulResult(&w, &c, &r);
  prunerCompileResultRelease(&r);
  assert_null(r.binary);
}

static void test_matmul_to_ptx(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c;
  smallMatmul(&w, &c);
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.format = PRUNER_BINARY_PTX;
  PrunerCompileResult r = prunerCompileOne(&w, &c, &t, &opts);
  if (!r.status.ok)
    fail_msg("compile failed: %s", r.status.message);
  assert_non_null(strstr((const char *)r.binary, ".target sm_90"));
  assert_non_null(strstr((const char *)r.binary, r.launch.kernel_name));
  assert_int_equal(r.ptxas_seconds, 0);
  prunerCompileResultRelease(&r);
}

/* Checks `c` on `w` and compiles it to PTX, failing the test on either error. */
static PrunerCompileResult compileCheckedToPtx(const PrunerWorkload *w, const PrunerConfig *c,
                                               const PrunerTargetDesc *t) {
  PrunerStatus st = prunerConfigCheck(w, t, c);
  if (!st.ok)
    fail_msg("%s", st.message);
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.format = PRUNER_BINARY_PTX;
  PrunerCompileResult r = prunerCompileOne(w, c, t, &opts);
  if (!r.status.ok)
    fail_msg("compile failed: %s", r.status.message);
  return r;
}

/* Split-K (docs/schedule.md): two kernels in one PTX module (the outlined modules merged),
 * the partial kernel first with the slices on grid y, the combining kernel after it, and
 * the partials' workspace (split_k x the output, f32) as a buffer both take. */
static void test_split_k_two_launches(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 1, 256, 1024, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = c.thread[0] = 1;
  c.workgroup[1] = 128;
  c.thread[1] = 4;
  c.reduction[2] = 16;
  c.vector_width = 4;
  c.split_k = 8;
  PrunerCompileResult r = compileCheckedToPtx(&w, &c, &t);
  assert_int_equal(r.launch.grid[0], 2);
  assert_int_equal(r.launch.grid[1], 8);
  assert_int_equal(r.extras.num_next, 1);
  const PrunerKernelLaunch *comb = &r.extras.next[0];
  assert_int_equal(comb->grid[0], 2);
  assert_int_equal(comb->grid[1], 1);
  assert_int_equal(comb->block[0], 32);
  assert_string_not_equal(comb->kernel_name, r.launch.kernel_name);
  assert_non_null(strstr((const char *)r.binary, r.launch.kernel_name));
  assert_non_null(strstr((const char *)r.binary, comb->kernel_name));
  assert_int_equal(r.extras.num_workspaces, 1);
  assert_int_equal(r.extras.workspace_bytes[0], prunerConfigWorkspaceBytes(&w, &c));
  assert_int_equal(r.extras.workspace_bytes[0], 8 * 256 * 4);
  /* Both kernels take the workspace (operand 3: past A, B, C); the partial kernel does
   * not take C, the combine does not take A or B. */
  bool main_ws = false, main_c = false, comb_ws = false, comb_a = false;
  for (int a = 0; a < r.launch.num_args; ++a) {
    main_ws |= r.launch.args[a].operand == 3;
    main_c |= r.launch.args[a].operand == 2;
  }
  for (int a = 0; a < comb->num_args; ++a) {
    comb_ws |= comb->args[a].operand == 3;
    comb_a |= comb->args[a].operand == 0 || comb->args[a].operand == 1;
  }
  assert_true(main_ws && !main_c && comb_ws && !comb_a);
  prunerCompileResultRelease(&r);
}

static void test_invalid_config_is_an_error(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c;
  smallMatmul(&w, &c);
  c.thread[0] = 3; /* does not divide the block tile 64 */
  PrunerCompileResult r = prunerCompileOne(&w, &c, &t, NULL);
  assert_false(r.status.ok);
  assert_non_null(strstr(r.status.message, "thread"));
  assert_null(r.binary);
}

static void test_host_target_is_an_error(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  t.kind = PRUNER_TARGET_HOST;
  PrunerWorkload w;
  PrunerConfig c;
  smallMatmul(&w, &c);
  PrunerCompileResult r = prunerCompileOne(&w, &c, &t, NULL);
  assert_false(r.status.ok);
  assert_non_null(strstr(r.status.message, "is not a GPU"));
}

/* A schedule MLIR rejects: the compiler's own diagnostic comes back. */
static void test_mlir_diagnostic_is_returned(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  const char *payload =
      "func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> "
      "tensor<8x8xf32> {\n"
      "  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : "
      "tensor<8x8xf32>) -> tensor<8x8xf32>\n"
      "  return %0 : tensor<8x8xf32>\n}\n";
  const char *schedule =
      "module attributes {transform.with_named_sequence} {\n"
      "  transform.named_sequence @__transform_main(%root: !transform.any_op "
      "{transform.readonly}) {\n"
      "    %m = transform.structured.match ops{[\"linalg.matmul\"]} in %root : "
      "(!transform.any_op) -> !transform.any_op\n"
      "    %t, %l:4 = transform.structured.tile_using_for %m tile_sizes [2, 2, 2, 2] : "
      "(!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, "
      "!transform.any_op, !transform.any_op)\n"
      "    transform.yield\n  }\n}\n";
  const char *noop = "module attributes {transform.with_named_sequence} {\n"
                     "  transform.named_sequence @__transform_main(%root: !transform.any_op "
                     "{transform.readonly}) {\n    transform.yield\n  }\n}\n";
  PrunerCompileResult r;
  memset(&r, 0, sizeof(r));
  char *ptx = NULL;
  PrunerStatus s =
      prunerCompileMlirToPtx((MlirContext){NULL}, payload, schedule, 3, &t, NULL, &r, &ptx);
  assert_false(s.ok);
  assert_null(ptx);
  assert_non_null(strstr(s.message, "schedule failed"));
  assert_non_null(strstr(s.message, "too many tiles provided, expected at most 3 found 4"));

  /* A schedule that maps nothing to the GPU: no kernel to describe. */
  s = prunerCompileMlirToPtx((MlirContext){NULL}, payload, noop, 3, &t, NULL, &r, &ptx);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "0 gpu.launch_func"));

  /* Padded rows asked of a schedule that is not lib/schedule's: refused, not ignored. */
  s = prunerCompileMlirToPtx((MlirContext){NULL}, payload, noop, 3, &t, "pruner.promote", &r, &ptx);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "padded staged rows need lib/schedule's named sequences"));

  /* A syntax error in the schedule: the parser's message is returned. */
  s = prunerCompileMlirToPtx((MlirContext){NULL}, payload, "module { transform.bogus_op }", 3, &t,
                             NULL, &r, &ptx);
  assert_false(s.ok);
  assert_non_null(strstr(s.message, "schedule does not parse"));
  assert_non_null(strstr(s.message, "transform.bogus_op"));
}

/* Writes an executable shell script into `dir`; returns its path (static buffer). */
static const char *writeScript(const char *dir, const char *name, const char *body) {
  static char path[600];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "#!/bin/sh\n%s\n", body);
  fclose(f);
  chmod(path, 0755);
  return path;
}

static char *makeTempDir(void) {
  char *dir = strdup("/tmp/pruner-compile-test-XXXXXX");
  assert_non_null(mkdtemp(dir));
  return dir;
}

static void removeTempDir(char *dir) {
  char cmd[700];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
  free(dir);
}

/* A ptxas that hangs on its first run only: that candidate times out, its worker is
 * killed and replaced, and the remaining candidates still compile. */
static void test_pool_timeout_goes_on(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c[3];
  smallMatmul(&w, &c[0]);
  c[1] = c[0], c[2] = c[0];
  char *dir = makeTempDir();
  char body[1400];
  snprintf(body, sizeof(body),
           "if mkdir '%s/hung' 2>/dev/null; then exec sleep 60; fi\nexec %s \"$@\"", dir, PTXAS);
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.ptxas_path = writeScript(dir, "hanging-ptxas", body);
  opts.jobs = 1;
  opts.timeout_seconds = 6.0; /* MLIR takes well under a second per candidate here */
  PrunerCompileResult r[3];
  double start = prunerNowSeconds();
  prunerCompileMany(&w, c, 3, &t, &opts, r);
  double elapsed = prunerNowSeconds() - start;
  /* The inner ptxas deadline is the time left of the 6 s, so the pool's kill or
   * ptxas' own timeout fires; both say "timeout after". */
  assert_false(r[0].status.ok);
  assert_non_null(strstr(r[0].status.message, "timeout after"));
  checkMatmulResult(&w, &c[1], &r[1]);
  checkMatmulResult(&w, &c[2], &r[2]);
  assert_true(elapsed < 20.0);
  for (int i = 0; i < 3; ++i)
    prunerCompileResultRelease(&r[i]);
  removeTempDir(dir);
}

static volatile sig_atomic_t pool_stop;
static void onPoolAlarm(int sig) {
  (void)sig;
  pool_stop = 1;
}

/* Ctrl-C (the stop flag) during a batch whose ptxas hangs: the candidate in flight is
 * killed and the others never start; every result is `interrupted`, none a compile error
 * (so the tuner records none of them). Flag set while waiting, and before the call. */
static void test_pool_stop_flag(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c[3];
  smallMatmul(&w, &c[0]);
  c[1] = c[0], c[2] = c[0];
  char *dir = makeTempDir();
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.ptxas_path = writeScript(dir, "hung-ptxas", "exec sleep 600");
  opts.jobs = 1;
  opts.stop = &pool_stop;
  struct sigaction sa = {0};
  sa.sa_handler = onPoolAlarm;
  sigaction(SIGALRM, &sa, NULL);
  for (int preset = 0; preset < 2; ++preset) {
    pool_stop = preset;
    if (!preset) {
      struct itimerval it = {{0, 0}, {2, 0}}; /* MLIR is done well before; ptxas hangs */
      setitimer(ITIMER_REAL, &it, NULL);
    }
    PrunerCompileResult r[3];
    prunerCompileMany(&w, c, 3, &t, &opts, r);
    for (int i = 0; i < 3; ++i) {
      assert_true(r[i].interrupted);
      assert_false(r[i].status.ok);
      assert_null(r[i].binary);
      prunerCompileResultRelease(&r[i]);
    }
  }
  removeTempDir(dir);
}

/* The pool's own timeout: far shorter than any compile. */
static void test_pool_tiny_timeout(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c[2];
  smallMatmul(&w, &c[0]);
  c[1] = c[0];
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.jobs = 2;
  opts.timeout_seconds = 0.001;
  PrunerCompileResult r[2];
  prunerCompileMany(&w, c, 2, &t, &opts, r);
  for (int i = 0; i < 2; ++i) {
    assert_false(r[i].status.ok);
    assert_non_null(strstr(r[i].status.message, "timeout after 0.001s"));
    assert_null(r[i].binary);
  }
}

/* A ptxas that kills its parent (the worker) with SIGSEGV on its first run: that
 * candidate is a crash, the others compile in a fresh worker. */
static void test_pool_crash_goes_on(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c[3];
  smallMatmul(&w, &c[0]);
  c[1] = c[0], c[2] = c[0];
  char *dir = makeTempDir();
  char body[1400];
  snprintf(body, sizeof(body),
           "if mkdir '%s/crashed' 2>/dev/null; then kill -SEGV $PPID; exec sleep 60; fi\n"
           "exec %s \"$@\"",
           dir, PTXAS);
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.ptxas_path = writeScript(dir, "crashing-ptxas", body);
  opts.jobs = 2;
  opts.timeout_seconds = 30.0;
  PrunerCompileResult r[3];
  prunerCompileMany(&w, c, 3, &t, &opts, r);
  int crashed = 0;
  for (int i = 0; i < 3; ++i) {
    if (r[i].status.ok) {
      checkMatmulResult(&w, &c[i], &r[i]);
    } else {
      assert_non_null(strstr(r[i].status.message, "compiler crashed: worker killed by signal 11"));
      crashed++;
    }
    prunerCompileResultRelease(&r[i]);
  }
  assert_int_equal(crashed, 1);
  removeTempDir(dir);
}

/* A worker whose address space is too small for MLIR dies (LLVM's allocation failures end
 * in a signal); the candidate says so and the call returns. */
static void test_pool_memory_limit(void **state) {
  (void)state;
  if (!prunerAddressSpaceLimitSupported())
    skip(); /* ASan build: no RLIMIT_AS (pruner/worker.h) */
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c[2];
  smallMatmul(&w, &c[0]);
  c[1] = c[0];
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.jobs = 1;
  opts.memory_limit_mb = 100; /* libMLIR + libLLVM alone map more than this */
  opts.timeout_seconds = 30.0;
  PrunerCompileResult r[2];
  prunerCompileMany(&w, c, 2, &t, &opts, r);
  for (int i = 0; i < 2; ++i) {
    assert_false(r[i].status.ok);
    assert_null(r[i].binary);
    assert_true(strstr(r[i].status.message, "compiler crashed") != NULL ||
                strstr(r[i].status.message, "memory") != NULL);
  }
}

/* Results come back in candidate order, invalid ones as errors, valid ones compiled. */
static void test_pool_mixed_order(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c[4];
  smallMatmul(&w, &c[0]);
  c[1] = c[0], c[2] = c[0], c[3] = c[0];
  c[1].thread[1] = 5;                         /* invalid */
  c[2].workgroup[0] = 32, c[2].thread[0] = 2; /* valid, grid (8, 8) */
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.jobs = 2;
  PrunerCompileResult r[4];
  prunerCompileMany(&w, c, 4, &t, &opts, r);
  checkMatmulResult(&w, &c[0], &r[0]);
  assert_false(r[1].status.ok);
  assert_non_null(strstr(r[1].status.message, "thread"));
  if (!r[2].status.ok)
    fail_msg("%s", r[2].status.message);
  assert_int_equal(r[2].launch.grid[0], 8);
  assert_int_equal(r[2].launch.grid[1], 8);
  checkMatmulResult(&w, &c[3], &r[3]);
  for (int i = 0; i < 4; ++i)
    prunerCompileResultRelease(&r[i]);
}

/* A worker reuses its MLIR context across candidates: what it produces must be exactly
 * what a fresh context produces (no state carried from one candidate to the next). */
static void test_context_reuse_is_invisible(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c[3];
  smallMatmul(&w, &c[0]);
  c[1] = c[0], c[2] = c[0];
  c[1].workgroup[0] = 32, c[1].thread[0] = 2;
  c[2].reduction[2] = 32, c[2].vector_width = 2;
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.format = PRUNER_BINARY_PTX;
  opts.jobs = 1; /* one worker, one context for all three */
  PrunerCompileResult pooled[3];
  prunerCompileMany(&w, c, 3, &t, &opts, pooled);
  for (int i = 0; i < 3; ++i) {
    PrunerCompileResult fresh = prunerCompileOne(&w, &c[i], &t, &opts);
    if (!fresh.status.ok || !pooled[i].status.ok)
      fail_msg("candidate %d: %s / %s", i, fresh.status.message, pooled[i].status.message);
    assert_int_equal(fresh.binary_size, pooled[i].binary_size);
    assert_memory_equal(fresh.binary, pooled[i].binary, fresh.binary_size);
    assert_string_equal(fresh.launch.kernel_name, pooled[i].launch.kernel_name);
    assert_int_equal(fresh.launch.num_args, pooled[i].launch.num_args);
    prunerCompileResultRelease(&fresh);
    prunerCompileResultRelease(&pooled[i]);
  }
}

/* Reads all of a command's stdout (malloc'ed, NUL-terminated). */
static char *runCommand(const char *cmd) {
  FILE *pipe = popen(cmd, "r");
  assert_non_null(pipe);
  size_t len = 0, cap = 1 << 16;
  char *out = malloc(cap);
  assert_non_null(out);
  size_t n;
  while ((n = fread(out + len, 1, cap - len - 1, pipe)) > 0) {
    len += n;
    if (cap - len < 4096) {
      cap *= 2;
      out = realloc(out, cap);
      assert_non_null(out);
    }
  }
  out[len] = '\0';
  assert_int_equal(pclose(pipe), 0);
  return out;
}

/* The PTX in the first `assembly = "..."` of printed IR, MLIR's escapes (\\, \XX) undone. */
static char *printedAssembly(const char *ir) {
  const char *p = strstr(ir, "assembly = \"");
  assert_non_null(p);
  p += strlen("assembly = \"");
  char *out = malloc(strlen(p) + 1);
  assert_non_null(out);
  size_t k = 0;
  for (; *p && *p != '"'; ++p) {
    if (*p == '\\' && p[1] == '\\') {
      out[k++] = '\\';
      ++p;
    } else if (*p == '\\' && p[1] && p[2]) {
      char hex[3] = {p[1], p[2], 0};
      out[k++] = (char)strtol(hex, NULL, 16);
      p += 2;
    } else {
      out[k++] = *p;
    }
  }
  out[k] = '\0';
  return out;
}

/* A pipelined tensor-core config (stages = 3) in the tuner's compile path: each K step
 * commits two cp.async groups (A, B), so the steady-state wait lets four stay pending
 * (two steps in flight) and the epilogue drains with 4, 2, 0; the pipeliner alone wrote
 * 2, 1, 0 (prunerSchedulePipelineWaits, docs/schedule.md). The fragments are read with
 * ldmatrix, no scalar shared load left (prunerScheduleSharedSpaceAsNumber). */
static void test_pipelined_waits_count_groups(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 128, 128, 256, PRUNER_DTYPE_F16, PRUNER_DTYPE_F32);
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = 64;
  c.workgroup[1] = 32;
  c.reduction[2] = 32;
  c.thread[0] = 32;
  c.thread[1] = 16;
  c.promote_operands = 3;
  c.vector_width = 1;
  c.mma = 1;
  c.stages = 3;
  PrunerCompileResult r = compileCheckedToPtx(&w, &c, &t);
  const char *ptx = (const char *)r.binary;
  assert_non_null(strstr(ptx, "cp.async.wait_group \t4;"));
  assert_non_null(strstr(ptx, "cp.async.wait_group \t2;"));
  assert_null(strstr(ptx, "cp.async.wait_group \t1;"));
  assert_non_null(strstr(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  assert_non_null(strstr(ptx, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"));
  assert_null(strstr(ptx, "ld.shared"));
  prunerCompileResultRelease(&r);
}

/* The tuner's compile path fuses a scalar config's multiply-adds into FMAs
 * (prunerScheduleContractMulAdd), as pruner-apply-config does: no mul.rn + add.rn pair. */
static void test_scalar_multiply_adds_are_fma(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  prunerWorkloadMatmul(&w, 256, 256, 256, PRUNER_DTYPE_F32, PRUNER_DTYPE_F32);
  PrunerConfig c;
  memset(&c, 0, sizeof c);
  c.workgroup[0] = c.workgroup[1] = 32;
  c.thread[0] = c.thread[1] = 4;
  c.reduction[2] = 8;
  c.vector_width = 1;
  PrunerCompileResult r = compileCheckedToPtx(&w, &c, &t);
  const char *ptx = (const char *)r.binary;
  assert_non_null(strstr(ptx, "fma.rn.f32"));
  assert_null(strstr(ptx, "mul.rn.f32"));
  assert_null(strstr(ptx, "add.rn.f32"));
  prunerCompileResultRelease(&r);
}

/* The tuner compiles what the plugin's pruner-gpu-pipeline produces: the same payload
 * with the config as a `pruner.config` attribute, run through mlir-opt with the plugin,
 * gives byte-identical PTX. Skipped when the plugin is not built. */
static void test_same_ptx_as_gpu_pipeline(void **state) {
  (void)state;
  const char *binaryDir = getenv("PRUNER_BINARY_DIR");
  char plugin[600];
  snprintf(plugin, sizeof(plugin), "%s/lib/PrunerPlugin.so", binaryDir ? binaryDir : ".");
  if (!binaryDir || access(plugin, R_OK) != 0 ||
      access("/usr/lib/llvm-22/bin/mlir-opt", X_OK) != 0) {
    printf("skipped: %s or mlir-opt not found\n", plugin);
    skip();
  }
  PrunerTargetDesc t = h200();
  PrunerWorkload w;
  PrunerConfig c;
  smallMatmul(&w, &c);
  c.vector_width = 2;
  PrunerCompileOptions opts = prunerCompileDefaultOptions();
  opts.format = PRUNER_BINARY_PTX;
  PrunerCompileResult r = prunerCompileOne(&w, &c, &t, &opts);
  if (!r.status.ok)
    fail_msg("%s", r.status.message);

  char *payload = NULL;
  assert_true(prunerSchedulePayload(&w, "pruner_matmul", true, &payload).ok);
  char config[400];
  prunerConfigFormat(&w, &c, config, sizeof(config));
  const char *op = strstr(payload, "linalg.matmul");
  assert_non_null(op);
  op += strlen("linalg.matmul");
  char *dir = makeTempDir();
  char path[700];
  snprintf(path, sizeof(path), "%s/annotated.mlir", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "%.*s {pruner.config = %s}%s", (int)(op - payload), payload, config, op);
  fclose(f);
  /* A sanitizer build's plugin needs the ASan runtime preloaded into the stock mlir-opt;
   * ctest names it (docs/hardening.md). */
  const char *asan = getenv("PRUNER_ASAN_RUNTIME");
  char preload[600] = "";
  if (asan && *asan)
    snprintf(preload, sizeof(preload), "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 ", asan);
  char cmd[2600];
  snprintf(cmd, sizeof(cmd),
           "%s/usr/lib/llvm-22/bin/mlir-opt --load-pass-plugin=%s -p "
           "'builtin.module(pruner-gpu-pipeline{chip=sm_90 format=isa})' %s",
           preload, plugin, path);
  char *ir = runCommand(cmd);
  char *ptx = printedAssembly(ir);
  assert_string_equal(ptx, (const char *)r.binary);
  free(ptx);
  free(ir);
  free(payload);
  removeTempDir(dir);
  prunerCompileResultRelease(&r);
}

static void test_parse_ptxas_log(void **state) {
  (void)state;
  const char *log = "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Compiling entry function 'k_kernel' for 'sm_90'\n"
                    "ptxas info    : Function properties for k_kernel\n"
                    "    256 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads\n"
                    "ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, "
                    "380 bytes cmem[0], 8 bytes cmem[2]\n"
                    "ptxas info    : Compile time = 17.621 ms\n";
  PrunerKernelResources res;
  assert_true(prunerCompileParsePtxasLog(log, "k_kernel", &res));
  assert_int_equal(res.registers, 255);
  assert_int_equal(res.stack_bytes, 256);
  assert_int_equal(res.spill_store_bytes, 40);
  assert_int_equal(res.spill_load_bytes, 36);
  assert_int_equal(res.shared_bytes, 4096);
  assert_int_equal(res.constant_bytes, 388);
  assert_false(
      prunerCompileParsePtxasLog("ptxas fatal : Unresolved extern function\n", "k_kernel", &res));
}

static void test_pipeline_text(void **state) {
  (void)state;
  PrunerTargetDesc t = h200();
  char buf[2048];
  int n = prunerCompileLoweringPipeline(&t, PRUNER_BINARY_CUBIN, buf, sizeof(buf));
  assert_true(n > 0 && (size_t)n < sizeof(buf));
  assert_non_null(strstr(buf, "chip=sm_90 features=+ptx80"));
  assert_non_null(strstr(buf, "gpu-module-to-binary{format=bin}"));
  assert_non_null(
      strstr(buf, "gpu.module(strip-debuginfo,convert-vector-to-llvm,convert-gpu-to-nvvm"));
  prunerCompileLoweringPipeline(&t, PRUNER_BINARY_PTX, buf, sizeof(buf));
  assert_non_null(strstr(buf, "format=isa"));
}

int main(void) {
  const struct CMUnitTest always[] = {
      cmocka_unit_test(test_parse_ptxas_log),
      cmocka_unit_test(test_pipeline_text),
      cmocka_unit_test(test_invalid_config_is_an_error),
      cmocka_unit_test(test_host_target_is_an_error),
      cmocka_unit_test(test_mlir_diagnostic_is_returned),
      cmocka_unit_test(test_matmul_to_ptx),
      cmocka_unit_test(test_split_k_two_launches),
      cmocka_unit_test(test_pipelined_waits_count_groups),
      cmocka_unit_test(test_scalar_multiply_adds_are_fma),
      cmocka_unit_test(test_context_reuse_is_invisible),
      cmocka_unit_test(test_same_ptx_as_gpu_pipeline),
      cmocka_unit_test(test_pool_stop_flag),
  };
  int failed = cmocka_run_group_tests_name("compile (no ptxas needed)", always, NULL, NULL);
  if (access(PTXAS, X_OK) != 0) {
    printf("skipped: %s not found; the cubin, timeout and crash tests need it\n", PTXAS);
    return failed ? failed : 77;
  }
  const struct CMUnitTest withPtxas[] = {
      cmocka_unit_test(test_matmul_to_cubin),    cmocka_unit_test(test_pool_mixed_order),
      cmocka_unit_test(test_pool_tiny_timeout),  cmocka_unit_test(test_pool_timeout_goes_on),
      cmocka_unit_test(test_pool_crash_goes_on), cmocka_unit_test(test_pool_memory_limit),
  };
  return failed + cmocka_run_group_tests_name("compile (ptxas)", withPtxas, NULL, NULL);
}
