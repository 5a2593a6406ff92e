/* lib/backend/iree/iree.c: candidates built, checked and timed by IREE's own tools
 * (pruner/backend/iree.h, docs/iree.md).
 *
 * Per workload, once: the module (prunerSchedulePayload: func.func @main on tensors),
 * random inputs written as raw files, IREE's default build (no spec) and its outputs on
 * those inputs (the reference). Per candidate: a one-config tuning spec; iree-compile up to
 * executable-configurations (the configured IR must show the spec's lowering_config, or
 * the spec did not apply), then from there to a .vmfb; iree-run-module's outputs compared
 * with the reference; iree-benchmark-module's repetitions as the samples. Each tool is a
 * separate process under a wall-clock limit (prunerProcessRun). */
#define _GNU_SOURCE /* mkdtemp */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pruner/backend/iree.h"
#include "pruner/backend/host_rules.h"
#include "pruner/clock.h"
#include "pruner/file.h"
#include "pruner/measure.h"
#include "pruner/process.h"
#include "pruner/random.h"
#include "pruner/schedule.h"
#include "pruner/text.h"

#ifndef PRUNER_IREE_DEFAULT_BIN
#define PRUNER_IREE_DEFAULT_BIN ""
#endif

#define PATH_SIZE 768

/* snprintf for paths and messages that may be cut short (vsnprintf: GCC does not warn
 * about a truncation the caller accepts). */
static void textf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void textf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}
#define LOG_SIZE 16384

static bool isFile(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *prunerIreeToolsDir(void) {
  static _Thread_local char dir[PATH_SIZE]; /* per thread: two threads' calls do not race */
  const char *env = getenv("PRUNER_IREE_DIR");
  char probe[PATH_SIZE + 32];
  if (env && *env) {
    textf(probe, sizeof probe, "%s/iree-compile", env);
    if (isFile(probe)) {
      textf(dir, sizeof dir, "%s", env);
      return dir;
    }
    textf(probe, sizeof probe, "%s/bin/iree-compile", env);
    if (isFile(probe)) {
      textf(dir, sizeof dir, "%s/bin", env);
      return dir;
    }
    /* Named but holding no IREE: the folder asked for, so that the tools' check fails
     * naming it (it fell back to the configured IREE without a word). */
    textf(dir, sizeof dir, "%s", env);
    return dir;
  }
  textf(dir, sizeof dir, "%s", PRUNER_IREE_DEFAULT_BIN);
  return dir;
}

static void toolPath(const char *tool, char *buf, size_t size) {
  const char *dir = prunerIreeToolsDir();
  if (dir[0])
    textf(buf, size, "%s/%s", dir, tool);
  else
    textf(buf, size, "%s", tool);
}

/* The last `keep` characters of a tool's log, on one line, for a record's message. */
static void logTail(const char *log, char *out, size_t size) {
  size_t n = strlen(log);
  /* IREE prints the first error first: prefer the first "error:" line. */
  const char *err = strstr(log, "error:");
  const char *start = err ? err : (n + 1 > size ? log + n - (size - 1) : log);
  size_t j = 0;
  for (const char *p = start; *p && j + 1 < size; ++p)
    out[j++] = (*p == '\n' || *p == '\t') ? ' ' : *p;
  out[j] = '\0';
}

/* Runs tool argv (argv[0] is the bare tool name) with a limit. *outcome: 0 ok, 1 failed
 * (exit status or signal), 2 timeout, 3 could not start. log receives its output. */
static int runTool(char **argv, double timeout_s, char *log, size_t log_size, double *seconds) {
  char path[PATH_SIZE + 32];
  toolPath(argv[0], path, sizeof path);
  char *saved = argv[0];
  argv[0] = path;
  int wait_status = 0;
  double t0 = prunerNowSeconds();
  PrunerStatus st = prunerProcessRun(argv, timeout_s, log, log_size, &wait_status);
  argv[0] = saved;
  if (seconds)
    *seconds = prunerNowSeconds() - t0;
  if (!st.ok) {
    textf(log, log_size, "%s", st.message);
    return strstr(st.message, "timeout") ? 2 : 3;
  }
  if (WIFSIGNALED(wait_status) || !WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0)
    return 1;
  return 0;
}

PrunerStatus prunerIreeCheckTools(char *version, size_t size) {
  char log[2048];
  char *argv[] = {"iree-compile", "--version", NULL};
  int r = runTool(argv, 60, log, sizeof log, NULL);
  const char *env = getenv("PRUNER_IREE_DIR");
  char from[PATH_SIZE + 32] = "";
  if (env && *env)
    textf(from, sizeof from, " (PRUNER_IREE_DIR=%s)", env);
  if (r != 0) {
    char path[PATH_SIZE + 32];
    toolPath("iree-compile", path, sizeof path);
    char *nl; /* one line: the tool's last newline is not the message's */
    while ((nl = strchr(log, '\n')) != NULL)
      *nl = nl[1] ? ' ' : '\0';
    return prunerStatusError("IREE: %s%s does not run (%s); install IREE with "
                             "PRUNER_WITH_IREE=1 scripts/setup.sh or point PRUNER_IREE_DIR at "
                             "a folder holding iree-compile, iree-run-module and "
                             "iree-benchmark-module (docs/iree.md)",
                             path, from, log[0] ? log : "no output");
  }
  /* The other two run each candidate: missing, every measurement would be recorded as an
   * invalid config, a verdict a rerun with the right tools never revisits. */
  const char *others[] = {"iree-run-module", "iree-benchmark-module"};
  for (size_t i = 0; prunerIreeToolsDir()[0] && i < 2; ++i) {
    char path[PATH_SIZE + 32];
    toolPath(others[i], path, sizeof path);
    if (access(path, X_OK) != 0)
      return prunerStatusError("IREE: %s%s: %s; the folder must hold iree-compile, "
                               "iree-run-module and iree-benchmark-module (docs/iree.md)",
                               path, from, strerror(errno));
  }
  if (version) {
    const char *line = strstr(log, "compiler version");
    if (!line)
      line = strstr(log, "IREE");
    textf(version, size, "%s", line ? line : log);
    char *nl = strchr(version, '\n');
    if (nl)
      *nl = '\0';
  }
  return prunerStatusOk();
}

PrunerStatus prunerIreeCudaDevice(char *device, size_t size) {
  if (device && size)
    device[0] = '\0';
  char log[4096];
  char *argv[] = {"iree-run-module", "--list_devices=cuda", NULL};
  int r = runTool(argv, 60, log, sizeof log, NULL);
  const char *uri = strstr(log, "cuda://");
  if (r != 0 || !uri) {
    /* The runtime's reason ("UNAVAILABLE; CUDA driver library ... not available"), without
     * its banner. */
    char tail[300];
    const char *why = strstr(log, "UNAVAILABLE");
    if (why) {
      textf(tail, sizeof tail, "%s", why);
      tail[strcspn(tail, "\r\n")] = '\0';
    } else {
      logTail(log, tail, sizeof tail);
    }
    return prunerStatusError("IREE's runtime sees no CUDA device (iree-run-module "
                             "--list_devices=cuda: %s): iree-cuda targets are measured on an "
                             "NVIDIA GPU; without one use --measure=none (the models choose, "
                             "the output still carries IREE's compilation_info)",
                             tail[0] ? tail : "no device listed");
  }
  if (device && size) {
    textf(device, size, "%s", uri);
    device[strcspn(device, " \r\n")] = '\0';
  }
  return prunerStatusOk();
}

PrunerIreeOptions prunerIreeDefaultOptions(void) {
  PrunerIreeOptions o;
  memset(&o, 0, sizeof o);
  o.threads = 1;
  o.timeout_seconds = 120;
  o.repetitions = 5;
  o.seed = 1;
  return o;
}

struct PrunerIreeImpl {
  PrunerTargetDesc t;
  PrunerIreeOptions o;
  char dir[PATH_SIZE];
  bool own_dir;
  /* The prepared workload (its module, inputs, default build and reference). */
  bool prepared;
  char key[PRUNER_WORKLOAD_KEY_SIZE];
  PrunerStatus prepare_status;
  int num_args;
  char input_flags[PRUNER_MAX_OPERANDS][PATH_SIZE + 64];
  int num_results;
  int64_t result_elems[PRUNER_MAX_OPERANDS];
  PrunerDType result_dtype[PRUNER_MAX_OPERANDS];
  int64_t reduction_points;
  int seq;            /* candidate counter, for file names */
  char cuda_flag[64]; /* --iree-cuda-target=<arch> for GPU-table targets */
  char function_flag[160]; /* --function=<name> of the module run and timed */
  /* The module check's two builds of the last (module, spec) pair: the module is built
   * whole, so the checks of its other functions run the same two .vmfb files. */
  struct {
    bool valid;
    char module[PATH_SIZE], spec[PATH_SIZE];
    uint64_t module_hash, spec_hash; /* the files' contents as they were built */
    PrunerStatus default_status;    /* the default build                             */
    int tuned_r;                    /* the tuned build: 0, 1 failed, 2 timed out      */
    char tuned_tail[300];           /* its log's tail when it failed                  */
    int applied, spec_configs;
    double seconds[2]; /* tuned, default */
  } builds;
};

PrunerStatus prunerIreeCreate(const PrunerTargetDesc *t, const PrunerIreeOptions *opts,
                              PrunerIree *out) {
  *out = NULL;
  PrunerIree s = calloc(1, sizeof *s);
  if (!s)
    return prunerStatusError("out of memory");
  s->t = *t;
  s->o = opts ? *opts : prunerIreeDefaultOptions();
  if (s->o.threads < 1)
    s->o.threads = 1;
  if (s->o.timeout_seconds <= 0)
    s->o.timeout_seconds = 120;
  if (s->o.repetitions < 1)
    s->o.repetitions = 5;
  if (s->o.repetitions > PRUNER_MAX_SAMPLES)
    s->o.repetitions = PRUNER_MAX_SAMPLES;
  if (s->o.work_dir) {
    textf(s->dir, sizeof s->dir, "%s", s->o.work_dir);
    if (mkdir(s->dir, 0755) != 0 && errno != EEXIST) {
      PrunerStatus st = prunerStatusError("IREE work folder %s: %s", s->dir, strerror(errno));
      free(s);
      return st;
    }
  } else {
    const char *tmp = getenv("TMPDIR");
    textf(s->dir, sizeof s->dir, "%s/pruner-iree-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir)) {
      PrunerStatus st = prunerStatusError("IREE work folder %s: %s", s->dir, strerror(errno));
      free(s);
      return st;
    }
    s->own_dir = true;
  }
  s->o.work_dir = NULL; /* the caller's string need not outlive this call */
  textf(s->cuda_flag, sizeof s->cuda_flag, "--iree-cuda-target=%s", prunerIreeCudaArch(&s->t));
  if (s->t.kind == PRUNER_TARGET_IREE_CUDA) {
    PrunerStatus st = prunerIreeCudaDevice(NULL, 0);
    if (!st.ok) {
      if (s->own_dir)
        prunerRemoveTree(s->dir);
      free(s);
      return st;
    }
  }
  textf(s->function_flag, sizeof s->function_flag, "--function=main");
  *out = s;
  return prunerStatusOk();
}

static void filePath(PrunerIree s, char *buf, size_t size, const char *fmt, int i);

void prunerIreeDestroy(PrunerIree s) {
  if (!s)
    return;
  char vmfb[PATH_SIZE];
  for (int i = 0; i < 2 && !s->own_dir; ++i) { /* the module check's builds */
    filePath(s, vmfb, sizeof vmfb, i ? "module_default.vmfb" : "module_tuned.vmfb", 0);
    unlink(vmfb);
  }
  if (s->own_dir)
    prunerRemoveTree(s->dir);
  free(s);
}

/* ---- inputs and outputs ------------------------------------------------------------ */

static uint16_t floatToHalf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (exp <= 0)
    return (uint16_t)sign; /* inputs are in [-1, 1]: tiny values flush to zero */
  if (exp >= 31)
    return (uint16_t)(sign | 0x7c00u);
  return (uint16_t)(sign | ((uint32_t)exp << 10) | (mant >> 13));
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0 && mant == 0)
    x = sign;
  else if (exp == 0) { /* subnormal */
    float f = ldexpf((float)mant, -24);
    return sign ? -f : f;
  } else if (exp == 31)
    x = sign | 0x7f800000u | (mant << 13);
  else
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static float bf16ToFloat(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static double readElement(const unsigned char *p, PrunerDType dt, int64_t i) {
  switch (dt) {
  case PRUNER_DTYPE_F32: {
    float f;
    memcpy(&f, p + 4 * i, 4);
    return f;
  }
  case PRUNER_DTYPE_F64: {
    double d;
    memcpy(&d, p + 8 * i, 8);
    return d;
  }
  case PRUNER_DTYPE_F16: {
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return halfToFloat(h);
  }
  case PRUNER_DTYPE_BF16: {
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return bf16ToFloat(h);
  }
  case PRUNER_DTYPE_I32: {
    int32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
  }
  case PRUNER_DTYPE_I8:
    return (int8_t)p[i];
  default:
    return 0;
  }
}

/* Writes `n` random elements of `dt` (floats in [-1, 1], integers in [-4, 4]). */
static PrunerStatus writeRandom(const char *path, PrunerDType dt, int64_t n, uint64_t *rng) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return prunerStatusError("cannot write %s: %s", path, strerror(errno));
  bool ok = true;
  for (int64_t i = 0; i < n && ok; ++i) {
    double u = prunerRandomUniform(rng) * 2.0 - 1.0;
    unsigned char b[8];
    size_t len = (size_t)prunerDTypeBytes(dt);
    switch (dt) {
    case PRUNER_DTYPE_F32: {
      float v = (float)u;
      memcpy(b, &v, 4);
      break;
    }
    case PRUNER_DTYPE_F64:
      memcpy(b, &u, 8);
      break;
    case PRUNER_DTYPE_F16: {
      uint16_t h = floatToHalf((float)u);
      memcpy(b, &h, 2);
      break;
    }
    case PRUNER_DTYPE_BF16: {
      float v = (float)u;
      uint32_t x;
      memcpy(&x, &v, 4);
      uint16_t h = (uint16_t)(x >> 16);
      memcpy(b, &h, 2);
      break;
    }
    case PRUNER_DTYPE_I32: {
      int32_t v = (int32_t)lround(u * 4);
      memcpy(b, &v, 4);
      break;
    }
    case PRUNER_DTYPE_I8:
      b[0] = (unsigned char)(int8_t)lround(u * 4);
      break;
    default:
      len = 0;
    }
    ok = len > 0 && fwrite(b, 1, len, f) == len;
  }
  if (fclose(f) != 0 || !ok)
    return prunerStatusError("cannot write %s", path);
  return prunerStatusOk();
}

static const char *ireeType(PrunerDType dt) {
  switch (dt) {
  case PRUNER_DTYPE_F32:
    return "f32";
  case PRUNER_DTYPE_F16:
    return "f16";
  case PRUNER_DTYPE_BF16:
    return "bf16";
  case PRUNER_DTYPE_F64:
    return "f64";
  case PRUNER_DTYPE_I8:
    return "i8";
  case PRUNER_DTYPE_I32:
    return "i32";
  default:
    return NULL;
  }
}

/* IREE's CUDA backend: a GPU-table target (compiled only, pruner-iree) or iree-cuda:<gpu>
 * (compiled, run and timed on the machine's GPU). */
static bool isCuda(PrunerIree s) {
  return s->t.kind == PRUNER_TARGET_GPU || s->t.kind == PRUNER_TARGET_IREE_CUDA;
}

/* Whether candidates run here: iree-cpu, and iree-cuda (prunerIreeCreate found a GPU). */
static bool runsHere(PrunerIree s) { return !isCuda(s) || s->t.kind == PRUNER_TARGET_IREE_CUDA; }

/* The runtime's device for iree-run-module (`timing`: iree-benchmark-module). */
static const char *runDevice(PrunerIree s, bool timing) {
  return isCuda(s) ? "--device=cuda" : timing ? "--device=local-task" : "--device=local-sync";
}

/* Target flags of iree-compile: iree-cpu, or CUDA for a GPU-table target. */
static int compileArgs(PrunerIree s, char **argv, int n) {
  if (isCuda(s)) {
    argv[n++] = "--iree-hal-target-device=cuda";
    argv[n++] = s->cuda_flag;
    return n;
  }
  argv[n++] = "--iree-hal-target-device=local";
  argv[n++] = "--iree-hal-local-target-device-backends=llvm-cpu";
  argv[n++] = "--iree-llvmcpu-target-cpu=host";
  return n;
}

static void loweringText(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *config,
                         char *buf, size_t size) {
  if (isCuda(s))
    prunerIreeGpuLoweringConfig(w, config, buf, size);
  else
    prunerIreeCpuLoweringConfig(w, config, buf, size);
}

static void filePath(PrunerIree s, char *buf, size_t size, const char *fmt, int i) {
  char name[96];
  textf(name, sizeof name, fmt, i);
  textf(buf, size, "%s/%s", s->dir, name);
}

/* Runs `vmfb` on the inputs, writing result r to <prefix>_r.bin. */
static int runModule(PrunerIree s, const char *vmfb, const char *prefix, char *log, size_t size) {
  char module_flag[PATH_SIZE + 16];
  textf(module_flag, sizeof module_flag, "--module=%s", vmfb);
  char outputs[PRUNER_MAX_OPERANDS][PATH_SIZE + 64];
  char *argv[8 + 2 * PRUNER_MAX_OPERANDS];
  int n = 0;
  argv[n++] = "iree-run-module";
  argv[n++] = module_flag;
  argv[n++] = (char *)runDevice(s, false);
  argv[n++] = s->function_flag;
  for (int i = 0; i < s->num_args; ++i)
    argv[n++] = s->input_flags[i];
  for (int r = 0; r < s->num_results; ++r) {
    char path[PATH_SIZE];
    textf(path, sizeof path, "%s_%d.bin", prefix, r);
    textf(outputs[r], sizeof outputs[r], "--output=@%s", path);
    argv[n++] = outputs[r];
  }
  argv[n] = NULL;
  return runTool(argv, s->o.timeout_seconds, log, size, NULL);
}

static PrunerStatus prepare(PrunerIree s, const PrunerWorkload *w) {
  if (s->prepared && strcmp(s->key, w->key) == 0)
    return s->prepare_status;
  s->prepared = true;
  textf(s->key, sizeof s->key, "%s", w->key);
  PrunerStatus st = prunerStatusOk();
  char *text = NULL;
  st = prunerSchedulePayload(w, "main", true, &text);
  char path[PATH_SIZE];
  if (st.ok) {
    filePath(s, path, sizeof path, "module.mlir", 0);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
      st = prunerStatusError("cannot write %s", path);
  }
  free(text);
  /* Inputs: every operand (outputs too: they are the function's init arguments). */
  uint64_t rng = s->o.seed ? s->o.seed : 1;
  int nops = w->num_inputs + w->num_outputs;
  s->num_args = 0;
  s->num_results = w->num_outputs;
  s->reduction_points = 1;
  for (int l = 0; l < w->num_loops; ++l)
    if (w->loop_kinds[l] == PRUNER_LOOP_REDUCTION)
      s->reduction_points *= w->bounds[l];
  for (int o = 0; o < nops && st.ok; ++o) {
    const PrunerOperand *op = &w->operands[o];
    const char *ty = ireeType(op->dtype);
    if (!ty) {
      st = prunerStatusError("IREE: operand %d of %s has a type this backend cannot feed", o,
                             w->key);
      break;
    }
    int64_t elems = 1;
    char shape[256] = "";
    size_t len = 0;
    for (int d = 0; d < op->rank; ++d) {
      elems *= op->shape[d];
      len += (size_t)snprintf(shape + len, sizeof shape - len, "%lldx", (long long)op->shape[d]);
      if (len >= sizeof shape)
        len = sizeof shape - 1;
    }
    filePath(s, path, sizeof path, "input_%d.bin", o);
    st = writeRandom(path, op->dtype, elems, &rng);
    textf(s->input_flags[s->num_args++], sizeof s->input_flags[0], "--input=%s%s=@%s", shape, ty,
          path);
    if (op->is_output) {
      s->result_elems[o - w->num_inputs] = elems;
      s->result_dtype[o - w->num_inputs] = op->dtype;
    }
  }
  /* IREE's default build and its outputs: the baseline and the reference. */
  char log[LOG_SIZE];
  if (st.ok) {
    char module[PATH_SIZE], vmfb[PATH_SIZE], out_flag[PATH_SIZE + 8];
    filePath(s, module, sizeof module, "module.mlir", 0);
    filePath(s, vmfb, sizeof vmfb, "default.vmfb", 0);
    textf(out_flag, sizeof out_flag, "-o=%s", vmfb);
    char *argv[12];
    int n = 0;
    argv[n++] = "iree-compile";
    argv[n++] = module;
    n = compileArgs(s, argv, n);
    argv[n++] = out_flag;
    argv[n] = NULL;
    int r = runTool(argv, s->o.timeout_seconds, log, sizeof log, NULL);
    if (r != 0) {
      char tail[300];
      logTail(log, tail, sizeof tail);
      st = prunerStatusError("IREE's default build of %s failed: %s", w->key, tail);
    }
  }
  if (st.ok && runsHere(s)) { /* pruner-iree's CUDA builds are compiled only */
    char vmfb[PATH_SIZE], prefix[PATH_SIZE];
    filePath(s, vmfb, sizeof vmfb, "default.vmfb", 0);
    filePath(s, prefix, sizeof prefix, "reference", 0);
    if (runModule(s, vmfb, prefix, log, sizeof log) != 0) {
      char tail[300];
      logTail(log, tail, sizeof tail);
      st = prunerStatusError("IREE's default build of %s does not run: %s", w->key, tail);
    }
  }
  s->prepare_status = st;
  return st;
}

/* Compares <prefix>_r.bin with the reference; fills *max_err; false with a message when
 * they differ beyond the tolerance: reassociated sums differ by about eps x points. */
static bool compareOutputs(PrunerIree s, const char *prefix, double *max_err, char *why,
                           size_t size) {
  *max_err = 0;
  for (int r = 0; r < s->num_results; ++r) {
    char a_path[PATH_SIZE], b_path[PATH_SIZE];
    textf(a_path, sizeof a_path, "%s_%d.bin", prefix, r);
    filePath(s, b_path, sizeof b_path, "reference_%d.bin", r);
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    PrunerStatus st = prunerReadFile(a_path, &a, &na);
    if (st.ok)
      st = prunerReadFile(b_path, &b, &nb);
    PrunerDType dt = s->result_dtype[r];
    size_t want = (size_t)s->result_elems[r] * (size_t)prunerDTypeBytes(dt);
    if (st.ok && (na != want || nb != want))
      st = prunerStatusError("result %d has %zu bytes, the reference %zu; expected %zu", r, na, nb,
                             want);
    if (!st.ok) {
      textf(why, size, "%s", st.message);
      free(a);
      free(b);
      return false;
    }
    double eps = dt == PRUNER_DTYPE_F64    ? 2.2e-16
                 : dt == PRUNER_DTYPE_F32  ? 1.2e-7
                 : dt == PRUNER_DTYPE_F16  ? 9.8e-4
                 : dt == PRUNER_DTYPE_BF16 ? 7.8e-3
                                           : 0;
    double tol_scale = 8.0 * eps * (double)(s->reduction_points > 1 ? s->reduction_points : 1);
    for (int64_t i = 0; i < s->result_elems[r]; ++i) {
      double x = readElement((unsigned char *)a, dt, i);
      double y = readElement((unsigned char *)b, dt, i);
      double err, tol = tol_scale * (1.0 + fabs(y));
      bool agrees = prunerMeasureAgrees(x, y, tol, &err);
      if (!(err <= *max_err))
        *max_err = err;
      if (!agrees) {
        textf(why, size,
              "result %d element %lld is %g, IREE's default build gives %g (tolerance %g%s)",
              r, (long long)i, x, y, tol, isfinite(x) && isfinite(y) ? "" : "; a NaN or "
              "infinity agrees only with the same");
        free(a);
        free(b);
        return false;
      }
    }
    free(a);
    free(b);
  }
  return true;
}

static int compareDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* iree-benchmark-module's repetitions of `vmfb` as samples (µs). */
static PrunerStatus benchmark(PrunerIree s, const char *vmfb, PrunerRecord *out) {
  char module_flag[PATH_SIZE + 16], json_path[PATH_SIZE], json_flag[PATH_SIZE + 32];
  char threads[64], reps[64];
  textf(module_flag, sizeof module_flag, "--module=%s", vmfb);
  filePath(s, json_path, sizeof json_path, "bench_%d.json", s->seq);
  textf(json_flag, sizeof json_flag, "--benchmark_out=%s", json_path);
  textf(threads, sizeof threads, "--task_topology_max_group_count=%d", s->o.threads);
  textf(reps, sizeof reps, "--benchmark_repetitions=%d", s->o.repetitions);
  char *argv[16 + PRUNER_MAX_OPERANDS];
  int n = 0;
  argv[n++] = "iree-benchmark-module";
  argv[n++] = module_flag;
  argv[n++] = (char *)runDevice(s, true);
  argv[n++] = s->function_flag;
  argv[n++] = threads;
  for (int i = 0; i < s->num_args; ++i)
    argv[n++] = s->input_flags[i];
  argv[n++] = reps;
  argv[n++] = "--benchmark_min_time=0.05s";
  argv[n++] = json_flag;
  argv[n++] = "--benchmark_out_format=json";
  argv[n] = NULL;
  char log[LOG_SIZE];
  int r = runTool(argv, s->o.timeout_seconds, log, sizeof log, NULL);
  if (r != 0) {
    char tail[300];
    logTail(log, tail, sizeof tail);
    out->status = r == 2 ? PRUNER_RECORD_TIMEOUT : PRUNER_RECORD_LAUNCH_ERROR;
    textf(out->error, sizeof out->error, "iree-benchmark-module: %s", tail);
    return prunerStatusOk();
  }
  char *text = NULL;
  size_t size = 0;
  PrunerStatus st = prunerReadFile(json_path, &text, &size);
  unlink(json_path);
  if (!st.ok)
    return st;
  cJSON *root = cJSON_Parse(text);
  free(text);
  const cJSON *list = root ? cJSON_GetObjectItemCaseSensitive(root, "benchmarks") : NULL;
  out->num_samples = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, list) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(item, "run_type");
    const cJSON *time = cJSON_GetObjectItemCaseSensitive(item, "real_time");
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(item, "time_unit");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "iteration") != 0 ||
        !cJSON_IsNumber(time) || out->num_samples >= PRUNER_MAX_SAMPLES)
      continue;
    double scale = 1.0; /* to µs */
    const char *u = cJSON_IsString(unit) ? unit->valuestring : "ns";
    if (strcmp(u, "ns") == 0)
      scale = 1e-3;
    else if (strcmp(u, "ms") == 0)
      scale = 1e3;
    else if (strcmp(u, "s") == 0)
      scale = 1e6;
    out->samples_us[out->num_samples++] = time->valuedouble * scale;
  }
  cJSON_Delete(root);
  if (out->num_samples == 0) {
    out->status = PRUNER_RECORD_LAUNCH_ERROR;
    textf(out->error, sizeof out->error, "iree-benchmark-module reported no repetitions");
    return prunerStatusOk();
  }
  double sorted[PRUNER_MAX_SAMPLES];
  memcpy(sorted, out->samples_us, (size_t)out->num_samples * sizeof *sorted);
  qsort(sorted, (size_t)out->num_samples, sizeof *sorted, compareDouble);
  int m = out->num_samples;
  out->median_us = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
  out->spread_us = sorted[m - 1] - sorted[0];
  out->status = PRUNER_RECORD_OK;
  return prunerStatusOk();
}

/* Writes the one-config spec of `config`; false with a message. */
static bool writeSpec(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *config,
                      const char *path, char *why, size_t size) {
  char *text = NULL;
  PrunerStatus st = prunerIreeSpecText(&s->t, &w, config, 1, &text, NULL);
  if (st.ok) {
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
      st = prunerStatusError("cannot write %s", path);
  }
  free(text);
  if (!st.ok)
    textf(why, size, "%s", st.message);
  return st.ok;
}

/* The payload function `func` of `w` with `config` as its op's compilation_info. */
static PrunerStatus annotatedText(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                  const PrunerConfig *config, const char *func, char **text) {
  *text = NULL;
  bool gpu = t->kind == PRUNER_TARGET_GPU || t->kind == PRUNER_TARGET_IREE_CUDA;
  PrunerStatus st = gpu ? prunerIreeGpuConfigCheck(w, t, config) : prunerConfigCheck(w, t, config);
  char *payload = NULL;
  if (st.ok)
    st = prunerSchedulePayload(w, func, true, &payload);
  if (!st.ok)
    return st;
  char info[2048];
  if (gpu)
    prunerIreeGpuCompilationInfo(w, t, config, info, sizeof info);
  else
    prunerIreeCpuCompilationInfo(w, config, info, sizeof info);
  const char *name = prunerSchedulePayloadOpName(w);
  char *at = strstr(payload, name);
  size_t name_len = strlen(name);
  /* The op's attribute dictionary: its own (a generic's maps, a conv's strides), or a new
   * one. */
  bool has_dict = at && strncmp(at + name_len, " {", 2) == 0;
  if (!at || (strcmp(name, "linalg.generic") == 0 && !has_dict)) {
    free(payload);
    return prunerStatusError("IREE module of %s: no %s op to annotate", w->key, name);
  }
  PrunerText b = {0};
  prunerTextAppendBytes(&b, payload, (size_t)(at - payload) + name_len);
  if (has_dict)
    prunerTextAppend(&b, " {compilation_info = %s,%s", info, at + name_len + 2);
  else
    prunerTextAppend(&b, " {compilation_info = %s}%s", info, at + name_len);
  free(payload);
  return prunerTextFinish(&b, "the annotated IREE module", text);
}

PrunerStatus prunerIreeAnnotatedModuleText(const PrunerWorkload *w, const PrunerTargetDesc *t,
                                           const PrunerConfig *config, char **text) {
  return annotatedText(w, t, config, "main", text);
}

/* The input of a candidate's compile: for iree-cpu the one-config spec (the module is
 * shared); for CUDA the module with the config as the op's compilation_info, because
 * IREE 3.13's CUDA pipeline does not load tuning specs (docs/iree.md, "CUDA"). */
static bool writeCandidateInput(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *config,
                                const char *spec, const char *annotated, char *module,
                                size_t module_size, bool *use_spec, char *why, size_t why_size) {
  if (!isCuda(s)) {
    filePath(s, module, module_size, "module.mlir", 0);
    *use_spec = true;
    return writeSpec(s, w, config, spec, why, why_size);
  }
  *use_spec = false;
  textf(module, module_size, "%s", annotated);
  char *text = NULL;
  PrunerStatus st = prunerIreeAnnotatedModuleText(w, &s->t, config, &text);
  if (st.ok) {
    FILE *f = fopen(annotated, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
      st = prunerStatusError("cannot write %s", annotated);
  }
  free(text);
  if (!st.ok)
    textf(why, why_size, "%s", st.message);
  return st.ok;
}

static int compileConfigs(PrunerIree s, const char *module, const char *spec, const char *out,
                          char *log, size_t size, double *seconds) {
  char spec_flag[PATH_SIZE + 48], out_flag[PATH_SIZE + 8];
  textf(out_flag, sizeof out_flag, "-o=%s", out);
  char *argv[16];
  int n = 0;
  argv[n++] = "iree-compile";
  argv[n++] = (char *)module;
  n = compileArgs(s, argv, n);
  if (spec) {
    textf(spec_flag, sizeof spec_flag, "--iree-codegen-tuning-spec-path=%s", spec);
    argv[n++] = spec_flag;
    /* IREE 3.13 can deadlock when two threads load the tuning spec for two executables
     * at once (a worker waits in IREECodegenDialect::getOrLoadTransformLibraryModule, the
     * main thread on the pool; seen under load, docs/iree.md "Pitfalls"). This phase
     * only configures (the code generation after it, without the spec, stays parallel),
     * so it runs on one thread. */
    argv[n++] = "--mlir-disable-threading";
  }
  argv[n++] = "--compile-to=executable-configurations";
  argv[n++] = out_flag;
  argv[n] = NULL;
  return runTool(argv, s->o.timeout_seconds, log, size, seconds);
}

/* iree-compile of configured IR (compileConfigs' output `cfg`) on to the .vmfb `out`:
 * the second half of a build whose configurations were looked at first. */
static int compileFromConfigs(PrunerIree s, const char *cfg, const char *out, char *log,
                              double *seconds) {
  char out_flag[PATH_SIZE + 8];
  textf(out_flag, sizeof out_flag, "-o=%s", out);
  char *argv[12];
  int n = 0;
  argv[n++] = "iree-compile";
  argv[n++] = (char *)cfg;
  n = compileArgs(s, argv, n);
  argv[n++] = "--compile-from=executable-configurations";
  argv[n++] = out_flag;
  argv[n] = NULL;
  return runTool(argv, s->o.timeout_seconds, log, LOG_SIZE, seconds);
}

PrunerStatus prunerIreeConfigsText(PrunerIree s, const PrunerWorkload *w,
                                   const PrunerConfig *config, char **text) {
  *text = NULL;
  PrunerStatus st = prepare(s, w);
  if (!st.ok)
    return st;
  char spec[PATH_SIZE], annotated[PATH_SIZE], module[PATH_SIZE], out[PATH_SIZE], why[512];
  filePath(s, spec, sizeof spec, "configs_spec.mlir", 0);
  filePath(s, annotated, sizeof annotated, "configs_module.mlir", 0);
  filePath(s, module, sizeof module, "module.mlir", 0);
  filePath(s, out, sizeof out, "configs.mlir", 0);
  bool use_spec = false;
  if (config && !writeCandidateInput(s, w, config, spec, annotated, module, sizeof module,
                                     &use_spec, why, sizeof why))
    return prunerStatusError("%s", why);
  char *log = malloc(LOG_SIZE);
  if (!log)
    return prunerStatusError("out of memory");
  int r = compileConfigs(s, module, use_spec ? spec : NULL, out, log, LOG_SIZE, NULL);
  if (r != 0) {
    char tail[400];
    logTail(log, tail, sizeof tail);
    free(log);
    return prunerStatusError("iree-compile --compile-to=executable-configurations: %s", tail);
  }
  free(log);
  size_t size;
  return prunerReadFile(out, text, &size);
}

static bool checkOutputs(PrunerIree s, const char *vmfb, const char *prefix, PrunerRecord *out);

/* Builds `config` into <cand_seq>.vmfb and checks its outputs: status OK with the vmfb
 * path, or the failure in out (status, error). */
static bool buildCandidate(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *config,
                           PrunerRecord *out, double *compile_seconds, char *vmfb,
                           size_t vmfb_size) {
  char spec[PATH_SIZE], cfg[PATH_SIZE], prefix[PATH_SIZE], annotated[PATH_SIZE], module[PATH_SIZE];
  ++s->seq;
  filePath(s, spec, sizeof spec, "cand_%d_spec.mlir", s->seq);
  filePath(s, annotated, sizeof annotated, "cand_%d_module.mlir", s->seq);
  filePath(s, cfg, sizeof cfg, "cand_%d_configs.mlir", s->seq);
  filePath(s, vmfb, vmfb_size, "cand_%d.vmfb", s->seq);
  filePath(s, prefix, sizeof prefix, "cand_%d_out", s->seq);
  char why[512];
  bool use_spec = false;
  if (!writeCandidateInput(s, w, config, spec, annotated, module, sizeof module, &use_spec, why,
                           sizeof why)) {
    out->status = PRUNER_RECORD_INVALID;
    textf(out->error, sizeof out->error, "%s", why);
    return false;
  }
  char *log = malloc(LOG_SIZE);
  if (!log) {
    out->status = PRUNER_RECORD_COMPILE_ERROR;
    textf(out->error, sizeof out->error, "out of memory");
    return false;
  }
  char tail[300];
  double t1 = 0, t2 = 0;
  int r = compileConfigs(s, module, use_spec ? spec : NULL, cfg, log, LOG_SIZE, &t1);
  unlink(spec);
  unlink(annotated);
  if (r == 0) {
    /* The spec applied only if the configured IR holds its lowering_config. */
    char want[2048];
    loweringText(s, w, config, want, sizeof want);
    char *text = NULL;
    size_t size = 0;
    if (!prunerReadFile(cfg, &text, &size).ok || !strstr(text, want)) {
      out->status = PRUNER_RECORD_INVALID;
      textf(out->error, sizeof out->error, "IREE did not apply the spec (no matcher matched %s)",
            w->key);
      free(text);
      free(log);
      unlink(cfg);
      return false;
    }
    free(text);
    r = compileFromConfigs(s, cfg, vmfb, log, &t2);
  }
  unlink(cfg);
  if (compile_seconds)
    *compile_seconds = t1 + t2;
  if (r != 0) {
    logTail(log, tail, sizeof tail);
    out->status = r == 2 ? PRUNER_RECORD_TIMEOUT : PRUNER_RECORD_COMPILE_ERROR;
    textf(out->error, sizeof out->error, "iree-compile: %s", tail);
    free(log);
    return false;
  }
  if (!runsHere(s)) { /* compiled and shown: all that can be checked without a GPU */
    free(log);
    out->status = PRUNER_RECORD_OK;
    return true;
  }
  free(log);
  return checkOutputs(s, vmfb, prefix, out);
}

/* Runs `vmfb` (the function of s->function_flag) and compares its outputs with the
 * reference: status OK, or the failure in out. */
static bool checkOutputs(PrunerIree s, const char *vmfb, const char *prefix, PrunerRecord *out) {
  char *log = malloc(LOG_SIZE), tail[300], why[512];
  if (!log) {
    out->status = PRUNER_RECORD_LAUNCH_ERROR;
    textf(out->error, sizeof out->error, "out of memory");
    return false;
  }
  int r = runModule(s, vmfb, prefix, log, LOG_SIZE);
  if (r != 0) {
    logTail(log, tail, sizeof tail);
    out->status = r == 2 ? PRUNER_RECORD_TIMEOUT : PRUNER_RECORD_LAUNCH_ERROR;
    textf(out->error, sizeof out->error, "iree-run-module: %s", tail);
    free(log);
    return false;
  }
  free(log);
  bool same = compareOutputs(s, prefix, &out->max_abs_error, why, sizeof why);
  for (int i = 0; i < s->num_results; ++i) {
    char p[PATH_SIZE + 16];
    textf(p, sizeof p, "%s_%d.bin", prefix, i);
    unlink(p);
  }
  if (!same) {
    out->status = PRUNER_RECORD_WRONG_RESULT;
    textf(out->error, sizeof out->error, "%s", why);
    return false;
  }
  out->status = PRUNER_RECORD_OK;
  return true;
}

static void fillRecord(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *config,
                       PrunerRecord *out) {
  prunerRecordInit(out);
  textf(out->workload_key, sizeof out->workload_key, "%s", w->key);
  out->workload = *w;
  out->has_workload = true;
  prunerTargetKey(&s->t, out->target_key, sizeof out->target_key);
  textf(out->device_name, sizeof out->device_name, "%s", s->t.device);
  if (isCuda(s))
    textf(out->toolchain_version, sizeof out->toolchain_version, "iree cuda %s",
          s->cuda_flag + strlen("--iree-cuda-target="));
  else {
    textf(out->toolchain_version, sizeof out->toolchain_version, "iree llvm-cpu %d thread(s)",
          s->o.threads);
    /* As host records: the machine's caches and clock, for a study elsewhere. */
    PrunerMeasuredMachine m;
    prunerHostTargetMachine(&s->t, &m);
    out->cache_bytes[0] = m.l1d_bytes;
    out->cache_bytes[1] = m.l2_bytes;
    out->cache_bytes[2] = m.l3_bytes;
    out->sm_clock_mhz = m.clock_mhz;
  }
  out->timestamp = (double)time(NULL);
  if (config) {
    out->config = *config;
    out->codegen_version = PRUNER_IREE_CODEGEN_VERSION;
  } else {
    out->is_baseline = true;
    textf(out->baseline_name, sizeof out->baseline_name, "iree-default");
  }
}

void prunerIreeMeasure(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *config,
                       PrunerRecord *out, double *compile_seconds) {
  fillRecord(s, w, config, out);
  if (compile_seconds)
    *compile_seconds = 0;
  PrunerStatus st = prepare(s, w);
  if (!st.ok) {
    out->status = PRUNER_RECORD_INVALID;
    textf(out->error, sizeof out->error, "%s", st.message);
    return;
  }
  char vmfb[PATH_SIZE];
  if (config) {
    if (!buildCandidate(s, w, config, out, compile_seconds, vmfb, sizeof vmfb))
      return;
    if (!runsHere(s)) {
      unlink(vmfb);
      return; /* built and checked; nothing runs it here */
    }
  } else {
    filePath(s, vmfb, sizeof vmfb, "default.vmfb", 0);
  }
  st = benchmark(s, vmfb, out);
  if (!st.ok) {
    out->status = PRUNER_RECORD_LAUNCH_ERROR;
    textf(out->error, sizeof out->error, "%s", st.message);
  }
  if (config)
    unlink(vmfb);
}

static double quantile(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, compareDouble);
  double pos = q * (n - 1);
  int lo = (int)pos;
  int hi = lo + 1 < n ? lo + 1 : lo;
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

void prunerIreeRemeasure(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *configs, int n,
                         bool baseline, int rounds, PrunerIreeRemeasured *out) {
  int m = n + (baseline ? 1 : 0);
  if (rounds < 1)
    rounds = 1;
  if (rounds > PRUNER_MAX_SAMPLES)
    rounds = PRUNER_MAX_SAMPLES;
  memset(out, 0, (size_t)m * sizeof *out);
  PrunerRecord *r = malloc(sizeof *r);
  char(*vmfb)[PATH_SIZE] = calloc((size_t)m, sizeof *vmfb);
  double *medians = calloc((size_t)m * (size_t)rounds, sizeof *medians);
  int *count = calloc((size_t)m, sizeof *count);
  PrunerStatus st = prepare(s, w);
  for (int i = 0; i < m; ++i) {
    if (!r || !vmfb || !medians || !count || !st.ok) {
      out[i].status = PRUNER_RECORD_LAUNCH_ERROR;
      textf(out[i].error, sizeof out[i].error, "%s", st.ok ? "out of memory" : st.message);
      continue;
    }
    out[i].status = PRUNER_RECORD_OK;
    if (i == n) {
      filePath(s, vmfb[i], sizeof vmfb[i], "default.vmfb", 0);
    } else if (!buildCandidate(s, w, &configs[i], r, NULL, vmfb[i], sizeof vmfb[i])) {
      out[i].status = r->status;
      textf(out[i].error, sizeof out[i].error, "%s", r->error);
    }
  }
  for (int round = 0; round < rounds && r && vmfb && medians && count; ++round)
    for (int i = 0; i < m; ++i) {
      if (out[i].status != PRUNER_RECORD_OK)
        continue;
      prunerRecordInit(r);
      st = benchmark(s, vmfb[i], r);
      if (!st.ok || r->status != PRUNER_RECORD_OK) {
        out[i].status = st.ok ? r->status : PRUNER_RECORD_LAUNCH_ERROR;
        textf(out[i].error, sizeof out[i].error, "%s", st.ok ? r->error : st.message);
        continue;
      }
      medians[(size_t)i * (size_t)rounds + (size_t)count[i]++] = r->median_us;
    }
  for (int i = 0; i < m && medians && count; ++i) {
    if (out[i].status != PRUNER_RECORD_OK || count[i] == 0)
      continue;
    double *v = medians + (size_t)i * (size_t)rounds;
    out[i].median_us = quantile(v, count[i], 0.5);
    out[i].p25_us = quantile(v, count[i], 0.25);
    out[i].p75_us = quantile(v, count[i], 0.75);
  }
  for (int i = 0; i < n && vmfb; ++i)
    if (vmfb[i][0])
      unlink(vmfb[i]);
  free(r);
  free(vmfb);
  free(medians);
  free(count);
}

/* Whole modules (several dispatches): the same build, check and timing as for one
 * workload's module, on the caller's module, function and argument types. The files use
 * the workload's names, so the prepared workload is forgotten (the next call prepares
 * again). */
static PrunerStatus prepareModule(PrunerIree s, const PrunerIreeTensor *args, int num_args,
                                  const PrunerIreeTensor *results, int num_results,
                                  int64_t reduction_points) {
  s->prepared = false;
  if (num_args < 0 || num_args > PRUNER_MAX_OPERANDS || num_results < 1 ||
      num_results > PRUNER_MAX_OPERANDS)
    return prunerStatusError("IREE module: %d arguments and %d results; 0-%d and 1-%d allowed",
                             num_args, num_results, PRUNER_MAX_OPERANDS, PRUNER_MAX_OPERANDS);
  uint64_t rng = s->o.seed ? s->o.seed : 1;
  s->num_args = 0;
  s->num_results = num_results;
  s->reduction_points = reduction_points > 1 ? reduction_points : 1;
  for (int i = 0; i < num_args + num_results; ++i) {
    const PrunerIreeTensor *a = i < num_args ? &args[i] : &results[i - num_args];
    const char *ty = ireeType(a->dtype);
    if (!ty || a->rank < 0 || a->rank > PRUNER_MAX_RANK)
      return prunerStatusError("IREE module: %s %d has a type this backend cannot feed",
                               i < num_args ? "argument" : "result",
                               i < num_args ? i : i - num_args);
    int64_t elems = 1;
    char shape[256] = "";
    size_t len = 0;
    for (int d = 0; d < a->rank; ++d) {
      elems *= a->shape[d];
      len += (size_t)snprintf(shape + len, sizeof shape - len, "%lldx", (long long)a->shape[d]);
      if (len >= sizeof shape)
        len = sizeof shape - 1;
    }
    if (i >= num_args) {
      s->result_elems[i - num_args] = elems;
      s->result_dtype[i - num_args] = a->dtype;
      continue;
    }
    char path[PATH_SIZE];
    filePath(s, path, sizeof path, "input_%d.bin", i);
    PrunerStatus st = writeRandom(path, a->dtype, elems, &rng);
    if (!st.ok)
      return st;
    textf(s->input_flags[s->num_args++], sizeof s->input_flags[0], "--input=%s%s=@%s", shape, ty,
          path);
  }
  return prunerStatusOk();
}

/* How many of the spec's lowering_config texts the configured IR `cfg` holds. */
static int appliedConfigs(const char *spec_path, const char *cfg, int *total) {
  *total = 0;
  char *spec = NULL, *ir = NULL;
  size_t n;
  int found = 0;
  if (prunerReadFile(spec_path, &spec, &n).ok && prunerReadFile(cfg, &ir, &n).ok) {
    for (char *p = strstr(spec, "lowering_config = "); p; p = strstr(p + 1, "lowering_config = ")) {
      char *start = p + strlen("lowering_config = ");
      char *end = strchr(start, '>'); /* #iree_cpu.lowering_config<...> has no nested '>' */
      if (!end)
        break;
      char want[2048];
      textf(want, sizeof want, "%.*s", (int)(end + 1 - start), start);
      ++*total;
      found += strstr(ir, want) != NULL;
    }
  }
  free(spec);
  free(ir);
  return found;
}

/* FNV-1a of a file's contents; false when it cannot be read. */
static bool fileHash(const char *path, uint64_t *hash) {
  char *text = NULL;
  size_t n = 0;
  if (!prunerReadFile(path, &text, &n).ok)
    return false;
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= (unsigned char)text[i];
    h *= 1099511628211ULL;
  }
  free(text);
  *hash = h;
  return true;
}

/* Whether the module check's builds in `s` are of these files as they are now (same
 * paths and contents; a path reused by another temporary file differs in content) and
 * both .vmfb files are still there. */
static bool sameBuilds(PrunerIree s, const char *module, const char *spec,
                       char vmfb[2][PATH_SIZE]) {
  uint64_t m, p;
  return s->builds.valid && strcmp(s->builds.module, module) == 0 &&
         strcmp(s->builds.spec, spec) == 0 && fileHash(module, &m) &&
         m == s->builds.module_hash && fileHash(spec, &p) && p == s->builds.spec_hash &&
         access(vmfb[1], R_OK) == 0 &&
         (s->builds.tuned_r != 0 || access(vmfb[0], R_OK) == 0);
}

/* The module check's two builds of `module`: IREE's default (vmfb[1]) and with `spec`
 * (configurations first, to count the spec's configs IREE applied; vmfb[0]). Kept in
 * s->builds for the module's other functions. */
static void buildModulePair(PrunerIree s, const char *module, const char *spec,
                            char vmfb[2][PATH_SIZE], char *log) {
  char cfg[PATH_SIZE], out_flag[PATH_SIZE + 8];
  s->builds.valid = false;
  unlink(vmfb[0]);
  unlink(vmfb[1]);
  s->builds.default_status = prunerStatusOk();
  s->builds.tuned_r = 0;
  s->builds.tuned_tail[0] = '\0';
  s->builds.applied = s->builds.spec_configs = 0;
  s->builds.seconds[0] = s->builds.seconds[1] = 0;
  if (!fileHash(module, &s->builds.module_hash) || !fileHash(spec, &s->builds.spec_hash)) {
    s->builds.default_status = prunerStatusError("IREE module check: %s: %s", module,
                                                 strerror(errno));
    return;
  }
  textf(out_flag, sizeof out_flag, "-o=%s", vmfb[1]);
  char *argv[12];
  int n = 0;
  argv[n++] = "iree-compile";
  argv[n++] = (char *)module;
  n = compileArgs(s, argv, n);
  argv[n++] = out_flag;
  argv[n] = NULL;
  char tail[300];
  if (runTool(argv, s->o.timeout_seconds, log, LOG_SIZE, &s->builds.seconds[1]) != 0) {
    logTail(log, tail, sizeof tail);
    s->builds.default_status =
        prunerStatusError("IREE's default build of %s failed: %s", module, tail);
  }
  filePath(s, cfg, sizeof cfg, "module_configs.mlir", 0);
  double t1 = 0, t2 = 0;
  int r = s->builds.default_status.ok ? compileConfigs(s, module, spec, cfg, log, LOG_SIZE, &t1)
                                      : 1;
  if (s->builds.default_status.ok && r == 0) {
    s->builds.applied = appliedConfigs(spec, cfg, &s->builds.spec_configs);
    r = compileFromConfigs(s, cfg, vmfb[0], log, &t2);
  }
  unlink(cfg);
  s->builds.seconds[0] = t1 + t2;
  s->builds.tuned_r = r;
  if (s->builds.default_status.ok && r != 0)
    logTail(log, s->builds.tuned_tail, sizeof s->builds.tuned_tail);
  textf(s->builds.module, sizeof s->builds.module, "%s", module);
  textf(s->builds.spec, sizeof s->builds.spec, "%s", spec);
  s->builds.valid = true;
}

PrunerStatus prunerIreeModuleRemeasure(PrunerIree s, const char *module, const char *function,
                                       const PrunerIreeTensor *args, int num_args,
                                       const PrunerIreeTensor *results, int num_results,
                                       int64_t reduction_points, const char *spec, int rounds,
                                       PrunerIreeModuleResult *out) {
  memset(out, 0, sizeof *out);
  if (isCuda(s))
    return prunerStatusError("IREE module timing needs the CPU target (iree-cpu)");
  if (!function || !*function || strlen(function) > 100)
    return prunerStatusError("IREE module: a function name of 1-100 characters is needed");
  if (!module || !spec)
    return prunerStatusError("IREE module: a module and a tuning spec are needed");
  char saved[sizeof s->function_flag];
  textf(saved, sizeof saved, "%s", s->function_flag);
  textf(s->function_flag, sizeof s->function_flag, "--function=%s", function);
  PrunerStatus st = prepareModule(s, args, num_args, results, num_results, reduction_points);
  char *log = malloc(LOG_SIZE);
  char vmfb[2][PATH_SIZE], prefix[PATH_SIZE];
  char tail[300];
  filePath(s, vmfb[0], sizeof vmfb[0], "module_tuned.vmfb", 0);
  filePath(s, vmfb[1], sizeof vmfb[1], "module_default.vmfb", 0);
  if (st.ok && !log)
    st = prunerStatusError("out of memory");
  if (st.ok) {
    out->builds_shared = sameBuilds(s, module, spec, vmfb);
    if (!out->builds_shared) {
      buildModulePair(s, module, spec, vmfb, log);
      out->compile_seconds[0] = s->builds.seconds[0];
      out->compile_seconds[1] = s->builds.seconds[1];
    }
    st = s->builds.default_status;
  }
  /* The default build's outputs: the reference. */
  if (st.ok) {
    filePath(s, prefix, sizeof prefix, "reference", 0);
    if (runModule(s, vmfb[1], prefix, log, LOG_SIZE) != 0) {
      logTail(log, tail, sizeof tail);
      st = prunerStatusError("IREE's default build of %s does not run: %s", module, tail);
    }
  }
  if (!st.ok) {
    free(log);
    textf(s->function_flag, sizeof s->function_flag, "%s", saved);
    return st;
  }
  /* The tuned build's outputs against the reference. */
  PrunerIreeRemeasured *tuned = &out->tuned, *base = &out->baseline;
  tuned->status = PRUNER_RECORD_OK;
  base->status = PRUNER_RECORD_OK;
  out->applied = s->builds.applied;
  out->spec_configs = s->builds.spec_configs;
  int r = s->builds.tuned_r;
  if (r != 0) {
    tuned->status = r == 2 ? PRUNER_RECORD_TIMEOUT : PRUNER_RECORD_COMPILE_ERROR;
    textf(tuned->error, sizeof tuned->error, "iree-compile: %s", s->builds.tuned_tail);
  } else {
    filePath(s, prefix, sizeof prefix, "module_out", 0);
    if ((r = runModule(s, vmfb[0], prefix, log, LOG_SIZE)) != 0) {
      logTail(log, tail, sizeof tail);
      tuned->status = r == 2 ? PRUNER_RECORD_TIMEOUT : PRUNER_RECORD_LAUNCH_ERROR;
      textf(tuned->error, sizeof tuned->error, "iree-run-module: %s", tail);
    } else {
      double max_err = 0;
      char why[200];
      if (!compareOutputs(s, prefix, &max_err, why, sizeof why)) {
        tuned->status = PRUNER_RECORD_WRONG_RESULT;
        textf(tuned->error, sizeof tuned->error, "%s", why);
      }
      for (int i = 0; i < s->num_results; ++i) {
        char p[PATH_SIZE + 16];
        textf(p, sizeof p, "%s_%d.bin", prefix, i);
        unlink(p);
      }
    }
  }
  free(log);
/* Back to back: one benchmark run of each build per round. */
  if (rounds < 1)
    rounds = 1;
  if (rounds > PRUNER_MAX_SAMPLES)
    rounds = PRUNER_MAX_SAMPLES;
  PrunerRecord *rec = malloc(sizeof *rec);
  double medians[2][PRUNER_MAX_SAMPLES];
  int count[2] = {0, 0};
  PrunerIreeRemeasured *o[2] = {tuned, base};
  for (int round = 0; round < rounds && rec; ++round)
    for (int i = 0; i < 2; ++i) {
      if (o[i]->status != PRUNER_RECORD_OK)
        continue;
      prunerRecordInit(rec);
      PrunerStatus b = benchmark(s, vmfb[i], rec);
      if (!b.ok || rec->status != PRUNER_RECORD_OK) {
        o[i]->status = b.ok ? rec->status : PRUNER_RECORD_LAUNCH_ERROR;
        textf(o[i]->error, sizeof o[i]->error, "%s", b.ok ? rec->error : b.message);
        continue;
      }
      medians[i][count[i]++] = rec->median_us;
    }
  for (int i = 0; i < 2; ++i) {
    if (!rec && o[i]->status == PRUNER_RECORD_OK) {
      o[i]->status = PRUNER_RECORD_LAUNCH_ERROR;
      textf(o[i]->error, sizeof o[i]->error, "out of memory");
    }
    if (o[i]->status != PRUNER_RECORD_OK || count[i] == 0)
      continue;
    o[i]->median_us = quantile(medians[i], count[i], 0.5);
    o[i]->p25_us = quantile(medians[i], count[i], 0.25);
    o[i]->p75_us = quantile(medians[i], count[i], 0.75);
  }
  free(rec);
  textf(s->function_flag, sizeof s->function_flag, "%s", saved);
  return prunerStatusOk();
}

/* Writes `text` to `path`. */
static PrunerStatus writeText(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  bool ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0)
    ok = false;
  return ok ? prunerStatusOk() : prunerStatusError("cannot write %s", path);
}

/* Compiles `module` (with `spec`, may be NULL) to configurations and then to a .vmfb,
 * adding the wall time to *seconds; the configured IR's text in *ir (malloc'ed) when it
 * got that far. */
static PrunerStatus compileTimed(PrunerIree s, const char *module, const char *spec, int i,
                                 double *seconds, char **ir) {
  *ir = NULL;
  char cfg[PATH_SIZE], vmfb[PATH_SIZE], tail[300];
  filePath(s, cfg, sizeof cfg, "cost_%d_configs.mlir", i);
  filePath(s, vmfb, sizeof vmfb, "cost_%d.vmfb", i);
  char *log = malloc(LOG_SIZE);
  if (!log)
    return prunerStatusError("out of memory");
  double t1 = 0, t2 = 0;
  int r = compileConfigs(s, module, spec, cfg, log, LOG_SIZE, &t1);
  if (r == 0) {
    size_t n;
    if (!prunerReadFile(cfg, ir, &n).ok)
      *ir = NULL;
    r = compileFromConfigs(s, cfg, vmfb, log, &t2);
  }
  *seconds += t1 + t2;
  unlink(cfg);
  unlink(vmfb);
  PrunerStatus st = prunerStatusOk();
  if (r != 0) {
    logTail(log, tail, sizeof tail);
    st = prunerStatusError("iree-compile: %s", tail);
  }
  free(log);
  return st;
}

/* One module of n functions, main_i holding the op with configs[i] as its
 * compilation_info. *out (the caller frees it) is NULL on error. */
static PrunerStatus candidatesModuleText(PrunerIree s, const PrunerWorkload *w,
                                         const PrunerConfig *configs, int n, char **out) {
  *out = NULL;
  PrunerStatus st = prunerStatusOk();
  PrunerText b = {0};
  prunerTextAppend(&b, "module {\n");
  for (int i = 0; i < n && st.ok; ++i) {
    char func[32], *text = NULL;
    textf(func, sizeof func, "main_%d", i);
    st = annotatedText(w, &s->t, &configs[i], func, &text);
    if (st.ok)
      prunerTextAppend(&b, "%s\n", text);
    free(text);
  }
  prunerTextAppend(&b, "}\n");
  if (st.ok)
    return prunerTextFinish(&b, "the candidates' module", out);
  free(b.data);
  return st;
}

PrunerStatus prunerIreeCompileCost(PrunerIree s, const PrunerWorkload *w,
                                   const PrunerConfig *configs, int n, bool one_module,
                                   double *seconds, int *applied) {
  *seconds = 0;
  *applied = 0;
  if (n < 1)
    return prunerStatusError("IREE compile cost: no configs");
  PrunerStatus st = prepare(s, w);
  if (!st.ok)
    return st;
  char path[PATH_SIZE], spec[PATH_SIZE], want[2048];
  if (!one_module) {
    filePath(s, path, sizeof path, "module.mlir", 0);
    for (int i = 0; i < n && st.ok; ++i) {
      char why[512];
      filePath(s, spec, sizeof spec, "cost_%d_spec.mlir", i);
      if (isCuda(s)) { /* CUDA takes the config on the op (no specs there) */
        char *text = NULL;
        filePath(s, path, sizeof path, "cost_%d_module.mlir", i);
        st = prunerIreeAnnotatedModuleText(w, &s->t, &configs[i], &text);
        if (st.ok)
          st = writeText(path, text);
        free(text);
      } else if (!writeSpec(s, w, &configs[i], spec, why, sizeof why)) {
        st = prunerStatusError("%s", why);
      }
      char *ir = NULL;
      if (st.ok)
        st = compileTimed(s, path, isCuda(s) ? NULL : spec, i, seconds, &ir);
      loweringText(s, w, &configs[i], want, sizeof want);
      *applied += ir && strstr(ir, want) != NULL;
      free(ir);
      unlink(spec);
      if (isCuda(s))
        unlink(path);
    }
    return st;
  }
  char *module = NULL;
  st = candidatesModuleText(s, w, configs, n, &module);
  filePath(s, path, sizeof path, "cost_module.mlir", 0);
  if (st.ok)
    st = writeText(path, module);
  free(module);
  char *ir = NULL;
  if (st.ok)
    st = compileTimed(s, path, NULL, 0, seconds, &ir);
  for (int i = 0; i < n && ir; ++i) {
    loweringText(s, w, &configs[i], want, sizeof want);
    *applied += strstr(ir, want) != NULL;
  }
  free(ir);
  unlink(path);
  return st;
}

/* Several candidates per compile (docs/iree.md, "Tuning cost"): one module of n functions
 * main_0.. each holding the op with its config as compilation_info, compiled once; each
 * function then run, compared and timed on its own. false (nothing measured) when the
 * module does not compile or a config does not show in the configured IR: the caller
 * then builds the candidates one by one, so one bad config cannot fail the others. */
static bool measureTogether(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *configs,
                            int n, PrunerRecord *out, double *compile_seconds) {
  char *module = NULL;
  PrunerStatus st = candidatesModuleText(s, w, configs, n, &module);
  char path[PATH_SIZE], cfg[PATH_SIZE], vmfb[PATH_SIZE], prefix[PATH_SIZE];
  ++s->seq;
  filePath(s, path, sizeof path, "batch_%d.mlir", s->seq);
  filePath(s, cfg, sizeof cfg, "batch_%d_configs.mlir", s->seq);
  filePath(s, vmfb, sizeof vmfb, "batch_%d.vmfb", s->seq);
  filePath(s, prefix, sizeof prefix, "batch_%d_out", s->seq);
  if (st.ok)
    st = writeText(path, module);
  free(module);
  char *log = st.ok ? malloc(LOG_SIZE) : NULL;
  double t1 = 0, t2 = 0;
  bool ok = log && compileConfigs(s, path, NULL, cfg, log, LOG_SIZE, &t1) == 0;
  unlink(path);
  if (ok) {
    char *ir = NULL, want[2048];
    size_t size;
    ok = prunerReadFile(cfg, &ir, &size).ok;
    for (int i = 0; i < n && ok; ++i) {
      loweringText(s, w, &configs[i], want, sizeof want);
      ok = strstr(ir, want) != NULL;
    }
    free(ir);
  }
  if (ok)
    ok = compileFromConfigs(s, cfg, vmfb, log, &t2) == 0;
  unlink(cfg);
  free(log);
  if (!ok) {
    unlink(vmfb);
    return false;
  }
  char saved[sizeof s->function_flag];
  textf(saved, sizeof saved, "%s", s->function_flag);
  for (int i = 0; i < n; ++i) {
    fillRecord(s, w, &configs[i], &out[i]);
    if (compile_seconds)
      compile_seconds[i] = (t1 + t2) / n;
    textf(s->function_flag, sizeof s->function_flag, "--function=main_%d", i);
    if (!checkOutputs(s, vmfb, prefix, &out[i]))
      continue;
    PrunerStatus b = benchmark(s, vmfb, &out[i]);
    if (!b.ok) {
      out[i].status = PRUNER_RECORD_LAUNCH_ERROR;
      textf(out[i].error, sizeof out[i].error, "%s", b.message);
    }
  }
  textf(s->function_flag, sizeof s->function_flag, "%s", saved);
  unlink(vmfb);
  return true;
}

PrunerStatus prunerIreePrepare(PrunerIree s, const PrunerWorkload *w) { return prepare(s, w); }

void prunerIreeMeasureBatch(PrunerIree s, const PrunerWorkload *w, const PrunerConfig *configs,
                            int n, PrunerRecord *out, double *compile_seconds) {
  PrunerStatus st = n > 1 && !isCuda(s) ? prepare(s, w) : prunerStatusOk();
  if (n > 1 && !isCuda(s) && st.ok && measureTogether(s, w, configs, n, out, compile_seconds))
    return;
  for (int i = 0; i < n; ++i)
    prunerIreeMeasure(s, w, &configs[i], &out[i], compile_seconds ? &compile_seconds[i] : NULL);
}
