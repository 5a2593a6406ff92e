/* Bundles (pruner/measure.h): manifest.json plus one cubin file per candidate; the format
 * is documented in docs/bundle.md. Workload and config JSON come from lib/records (one
 * implementation for records and manifests). */
#include "pruner/measure.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "pruner/file.h"
#include "pruner/records.h"

/* Seeds travel as JSON numbers (doubles): keep them exactly representable. */
#define MAX_EXACT_SEED ((uint64_t)1 << 53)

struct PrunerBundleImpl {
  char dir[4096];
  uint64_t seed;
  char target_name[32];
  char target_arch[16];
  char target_device[64];
  char target_key[96];
  int codegen_version; /* the kernels' generator (kernel.h); 0: an older manifest */
  PrunerWorkload *workloads;
  size_t num_workloads, cap_workloads;
  PrunerBundleCandidate *candidates;
  size_t num_candidates, cap_candidates;
};

static const char *const kArgKindNames[] = {"allocated", "aligned", "index"};
static const char *const kOutputInitNames[] = {"poison", "zero", "random"};

const char *prunerOutputInitName(PrunerOutputInit init) {
  return (unsigned)init < 3 ? kOutputInitNames[init] : "?";
}

PrunerOutputInit prunerOutputInitDefault(const PrunerWorkload *w) {
  switch (w->kind) {
  case PRUNER_OP_MATMUL:
  case PRUNER_OP_BATCH_MATMUL:
  case PRUNER_OP_CONTRACTION:
  case PRUNER_OP_CONV_2D_NHWC_HWCF:
  case PRUNER_OP_CONV_2D_NCHW_FCHW:
  case PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC:
    return PRUNER_OUTPUT_ZERO;
  default:
    break;
  }
  /* Values num_inputs .. num_inputs+num_outputs-1 are the outputs' block arguments. */
  int first = w->num_inputs, last = w->num_inputs + w->num_outputs;
  for (int i = 0; i < w->body_len; i++)
    for (int a = 0; a < 2; a++)
      if (w->body[i].args[a] >= first && w->body[i].args[a] < last)
        return PRUNER_OUTPUT_RANDOM;
  for (int o = 0; o < w->num_outputs; o++)
    if (w->body_yield[o] >= first && w->body_yield[o] < last)
      return PRUNER_OUTPUT_RANDOM;
  return PRUNER_OUTPUT_POISON;
}

/* ---------------------------------------------------------------------------------- */
/* Helpers                                                                            */

static void copyString(char *dst, size_t size, const char *src) {
  snprintf(dst, size, "%s", src ? src : "");
}

static PrunerStatus makeDirs(const char *dir) {
  char path[4096];
  copyString(path, sizeof(path), dir);
  for (char *p = path + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
      return prunerStatusError("bundle: cannot create folder '%s': %s", path, strerror(errno));
    *p = '/';
  }
  if (mkdir(path, 0777) != 0 && errno != EEXIST)
    return prunerStatusError("bundle: cannot create folder '%s': %s", path, strerror(errno));
  return prunerStatusOk();
}

/* A bundle's own file names: its manifest (and the temporary one it is renamed from) and
 * candidate cubins, c<6 digits>.cubin. */
static bool bundleFileName(const char *name) {
  if (!strcmp(name, "manifest.json") || !strcmp(name, "manifest.json.tmp"))
    return true;
  if (strlen(name) != 13 || name[0] != 'c' || strcmp(name + 7, ".cubin") != 0)
    return false;
  for (int i = 1; i < 7; ++i)
    if (name[i] < '0' || name[i] > '9')
      return false;
  return true;
}

/* The folder a bundle is written into is new, empty or an earlier bundle, whose files are
 * removed: the new manifest would otherwise sit beside the old cubins it does not name (a
 * folder of mixed runs). A folder holding anything else is refused, untouched. */
static PrunerStatus prepareFolder(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return prunerStatusError("bundle: cannot read folder '%s': %s", dir, strerror(errno));
  PrunerStatus st = prunerStatusOk();
  struct dirent *e;
  while (st.ok && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !bundleFileName(e->d_name))
      st = prunerStatusError("bundle: folder '%s' holds files that are not a bundle's (first: "
                             "'%s'); write a bundle into a new or empty folder, or over an "
                             "earlier bundle",
                             dir, e->d_name);
  if (st.ok) {
    rewinddir(d);
    char path[4096 + 300];
    while (st.ok && (e = readdir(d)))
      if (bundleFileName(e->d_name)) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
          st = prunerStatusError("bundle: cannot remove the earlier bundle's '%s': %s", path,
                                 strerror(errno));
      }
  }
  closedir(d);
  return st;
}

static PrunerStatus writeFile(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return prunerStatusError("bundle: cannot write '%s': %s", path, strerror(errno));
  size_t n = fwrite(data, 1, size, f);
  int closed = fclose(f);
  if (n != size || closed != 0)
    return prunerStatusError("bundle: short write to '%s'", path);
  return prunerStatusOk();
}

static cJSON *intArray(const int64_t *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
  return a;
}

static PrunerBundle bundleAlloc(void) { return calloc(1, sizeof(struct PrunerBundleImpl)); }

/* ---------------------------------------------------------------------------------- */
/* Writing                                                                            */

PrunerStatus prunerBundleCreate(const char *dir, const PrunerTargetDesc *target,
                                uint64_t seed, PrunerBundle *out) {
  *out = NULL; /* on failure too: Destroy(NULL) is a no-op */
  if (!dir || !*dir)
    return prunerStatusError("bundle: no folder given");
  if (!target)
    return prunerStatusError("bundle '%s': no target given", dir);
  if (seed >= MAX_EXACT_SEED)
    return prunerStatusError("bundle '%s': seed %" PRIu64 " must be below 2^53", dir, seed);
  PrunerStatus st = makeDirs(dir);
  if (st.ok)
    st = prepareFolder(dir);
  if (!st.ok)
    return st;
  PrunerBundle b = bundleAlloc();
  if (!b)
    return prunerStatusError("bundle '%s': out of memory", dir);
  copyString(b->dir, sizeof(b->dir), dir);
  b->seed = seed;
  copyString(b->target_name, sizeof(b->target_name), target->name);
  copyString(b->target_arch, sizeof(b->target_arch), target->arch);
  copyString(b->target_device, sizeof(b->target_device), target->device);
  prunerTargetKey(target, b->target_key, sizeof(b->target_key));
  b->codegen_version = PRUNER_GPU_CODEGEN_VERSION; /* its cubins are this build's */
  *out = b;
  return prunerStatusOk();
}

static int findWorkload(PrunerBundle b, const char *key) {
  for (size_t i = 0; i < b->num_workloads; i++)
    if (strcmp(b->workloads[i].key, key) == 0)
      return (int)i;
  return -1;
}

static PrunerStatus addWorkload(PrunerBundle b, const PrunerWorkload *w, int *index) {
  int found = findWorkload(b, w->key);
  if (found >= 0) {
    *index = found;
    return prunerStatusOk();
  }
  if (b->num_workloads == b->cap_workloads) {
    size_t cap = b->cap_workloads ? 2 * b->cap_workloads : 8;
    PrunerWorkload *grown = realloc(b->workloads, cap * sizeof(*grown));
    if (!grown)
      return prunerStatusError("bundle '%s': out of memory", b->dir);
    b->workloads = grown;
    b->cap_workloads = cap;
  }
  b->workloads[b->num_workloads] = *w;
  *index = (int)b->num_workloads++;
  return prunerStatusOk();
}

static PrunerStatus pushCandidate(PrunerBundle b, const PrunerBundleCandidate *c) {
  if (b->num_candidates == b->cap_candidates) {
    size_t cap = b->cap_candidates ? 2 * b->cap_candidates : 64;
    PrunerBundleCandidate *grown = realloc(b->candidates, cap * sizeof(*grown));
    if (!grown)
      return prunerStatusError("bundle '%s': out of memory", b->dir);
    b->candidates = grown;
    b->cap_candidates = cap;
  }
  b->candidates[b->num_candidates++] = *c;
  return prunerStatusOk();
}

PrunerStatus prunerBundleAddCandidate(PrunerBundle b, const PrunerWorkload *w,
                                      const PrunerConfig *config,
                                      const PrunerCompileResult *result,
                                      double draft_score_us, double verifier_score, int *id) {
  if (!result->status.ok)
    return prunerStatusError("bundle '%s': candidate of %s did not compile: %s", b->dir,
                             w->key, result->status.message);
  if (!result->binary || result->binary_size == 0)
    return prunerStatusError("bundle '%s': candidate of %s has no binary", b->dir, w->key);
  if (!result->launch.kernel_name[0])
    return prunerStatusError("bundle '%s': candidate of %s has no kernel name", b->dir,
                             w->key);
  if (result->launch.num_args < 0 || result->launch.num_args > PRUNER_MAX_KERNEL_ARGS)
    return prunerStatusError("bundle '%s': candidate of %s has %d kernel args (max %d)", b->dir,
                             w->key, result->launch.num_args, PRUNER_MAX_KERNEL_ARGS);
  PrunerBundleCandidate c;
  memset(&c, 0, sizeof(c));
  c.id = (int)b->num_candidates;
  PrunerStatus st = addWorkload(b, w, &c.workload);
  if (!st.ok)
    return st;
  copyString(c.workload_key, sizeof(c.workload_key), w->key);
  c.config = *config;
  snprintf(c.cubin_file, sizeof(c.cubin_file), "c%06d.cubin", c.id);
  c.launch = result->launch;
  c.extras = result->extras;
  if (c.extras.num_next < 0 || c.extras.num_next > PRUNER_MAX_LAUNCHES - 1 ||
      c.extras.num_workspaces < 0 || c.extras.num_workspaces > PRUNER_MAX_WORKSPACES)
    return prunerStatusError("bundle '%s': candidate of %s has %d follow-up kernels and %d "
                             "workspaces (max %d and %d)",
                             b->dir, w->key, c.extras.num_next, c.extras.num_workspaces,
                             PRUNER_MAX_LAUNCHES - 1, PRUNER_MAX_WORKSPACES);
  c.draft_score_us = draft_score_us;
  c.verifier_score = verifier_score;
  c.output_init = prunerOutputInitDefault(w);
  c.compile_s = result->mlir_seconds + result->ptxas_seconds;

  char path[4200];
  snprintf(path, sizeof(path), "%s/%s", b->dir, c.cubin_file);
  st = writeFile(path, result->binary, result->binary_size);
  if (!st.ok)
    return st;
  st = pushCandidate(b, &c);
  if (st.ok && id)
    *id = c.id;
  return st;
}

PrunerStatus prunerBundleSetOutputInit(PrunerBundle b, int id, PrunerOutputInit init) {
  for (size_t i = 0; i < b->num_candidates; i++)
    if (b->candidates[i].id == id) {
      b->candidates[i].output_init = init;
      return prunerStatusOk();
    }
  return prunerStatusError("bundle '%s': no candidate with id %d", b->dir, id);
}

/* A workload or config as a node of the manifest, from the records library's JSON text
 * (which is freed): NULL when out of memory. */
static cJSON *nodeFromText(char *text) {
  cJSON *node = text ? cJSON_Parse(text) : NULL;
  free(text);
  return node;
}

/* The launch fields of a candidate (or of a kernel after it) into object `o`. */
static void addLaunch(cJSON *o, const PrunerKernelLaunch *l) {
  cJSON_AddStringToObject(o, "kernel", l->kernel_name);
  cJSON_AddItemToObject(o, "grid", intArray(l->grid, 3));
  cJSON_AddItemToObject(o, "block", intArray(l->block, 3));
  cJSON_AddNumberToObject(o, "dynamic_smem", (double)l->dynamic_smem_bytes);
  cJSON *args = cJSON_AddArrayToObject(o, "args");
  for (int i = 0; i < l->num_args; i++) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "kind", kArgKindNames[l->args[i].kind]);
    cJSON_AddNumberToObject(a, "operand", l->args[i].operand);
    if (l->args[i].kind == PRUNER_ARG_INDEX)
      cJSON_AddNumberToObject(a, "value", (double)l->args[i].value);
    cJSON_AddItemToArray(args, a);
  }
  cJSON *r = cJSON_AddObjectToObject(o, "resources");
  cJSON_AddNumberToObject(r, "registers", l->resources.registers);
  cJSON_AddNumberToObject(r, "spill_store_bytes", l->resources.spill_store_bytes);
  cJSON_AddNumberToObject(r, "spill_load_bytes", l->resources.spill_load_bytes);
  cJSON_AddNumberToObject(r, "stack_bytes", l->resources.stack_bytes);
  cJSON_AddNumberToObject(r, "shared_bytes", l->resources.shared_bytes);
  cJSON_AddNumberToObject(r, "constant_bytes", l->resources.constant_bytes);
}

/* NULL when out of memory. */
static cJSON *candidateToJson(const PrunerBundle b, const PrunerBundleCandidate *c) {
  const PrunerWorkload *w = &b->workloads[c->workload];
  const PrunerKernelLaunch *l = &c->launch;
  cJSON *config = nodeFromText(prunerConfigToJsonText(&c->config, w->num_loops));
  cJSON *o = cJSON_CreateObject();
  if (!config || !o) {
    cJSON_Delete(config);
    cJSON_Delete(o);
    return NULL;
  }
  cJSON_AddNumberToObject(o, "id", c->id);
  cJSON_AddNumberToObject(o, "workload", c->workload);
  cJSON_AddStringToObject(o, "workload_key", c->workload_key);
  cJSON_AddItemToObject(o, "config", config);
  cJSON_AddStringToObject(o, "cubin", c->cubin_file);
  addLaunch(o, l);
  if (c->extras.num_next > 0) { /* only then, so that other manifests read as before */
    cJSON *next = cJSON_AddArrayToObject(o, "next");
    for (int i = 0; i < c->extras.num_next; ++i) {
      cJSON *n = cJSON_CreateObject();
      addLaunch(n, &c->extras.next[i]);
      cJSON_AddItemToArray(next, n);
    }
  }
  if (c->extras.num_workspaces > 0)
    cJSON_AddItemToObject(o, "workspaces",
                          intArray(c->extras.workspace_bytes, c->extras.num_workspaces));
  cJSON_AddNumberToObject(o, "draft_score_us", c->draft_score_us);
  cJSON_AddNumberToObject(o, "verifier_score", c->verifier_score);
  cJSON_AddStringToObject(o, "output_init", prunerOutputInitName(c->output_init));
  if (c->compile_s > 0)
    cJSON_AddNumberToObject(o, "compile_s", c->compile_s);
  return o;
}

PrunerStatus prunerBundleWrite(PrunerBundle b) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "format", "pruner-bundle");
  cJSON_AddNumberToObject(root, "version", PRUNER_BUNDLE_VERSION);
  cJSON *t = cJSON_AddObjectToObject(root, "target");
  cJSON_AddStringToObject(t, "name", b->target_name);
  cJSON_AddStringToObject(t, "arch", b->target_arch);
  cJSON_AddStringToObject(t, "device", b->target_device);
  cJSON_AddStringToObject(t, "key", b->target_key);
  cJSON_AddNumberToObject(t, "codegen", b->codegen_version);
  cJSON_AddNumberToObject(root, "seed", (double)b->seed);
  cJSON *ws = cJSON_AddArrayToObject(root, "workloads");
  bool complete = ws != NULL;
  for (size_t i = 0; complete && i < b->num_workloads; i++)
    complete = cJSON_AddItemToArray(ws, nodeFromText(prunerWorkloadToJsonText(&b->workloads[i])));
  cJSON *cs = cJSON_AddArrayToObject(root, "candidates");
  complete = complete && cs != NULL;
  for (size_t i = 0; complete && i < b->num_candidates; i++)
    complete = cJSON_AddItemToArray(cs, candidateToJson(b, &b->candidates[i]));
  char *text = complete ? cJSON_Print(root) : NULL;
  cJSON_Delete(root);
  if (!text)
    return prunerStatusError("bundle '%s': out of memory printing the manifest", b->dir);

  char tmp[4200], path[4200];
  snprintf(tmp, sizeof(tmp), "%s/%s.tmp", b->dir, PRUNER_BUNDLE_MANIFEST);
  snprintf(path, sizeof(path), "%s/%s", b->dir, PRUNER_BUNDLE_MANIFEST);
  PrunerStatus st = writeFile(tmp, text, strlen(text));
  cJSON_free(text);
  if (!st.ok)
    return st;
  if (rename(tmp, path) != 0)
    return prunerStatusError("bundle: cannot rename '%s' to '%s': %s", tmp, path,
                             strerror(errno));
  return prunerStatusOk();
}

/* ---------------------------------------------------------------------------------- */
/* Reading                                                                            */

/* A manifest node parsed by the records library, through its JSON text. */
static PrunerStatus configFromNode(const cJSON *node, PrunerConfig *out) {
  char *text = cJSON_PrintUnformatted(node);
  if (!text)
    return prunerStatusError("out of memory");
  PrunerStatus st = prunerConfigFromJsonText(text, out);
  cJSON_free(text);
  return st;
}

static PrunerStatus workloadFromNode(const cJSON *node, PrunerWorkload *out) {
  char *text = cJSON_PrintUnformatted(node);
  if (!text)
    return prunerStatusError("out of memory");
  PrunerStatus st = prunerWorkloadFromJsonText(text, out);
  cJSON_free(text);
  return st;
}

/* `where` names the manifest and the object ("manifest.json: candidate 3") in messages. */
static PrunerStatus getNumber(const cJSON *o, const char *key, const char *where, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v)
    return prunerStatusError("%s: missing field '%s'", where, key);
  if (!cJSON_IsNumber(v))
    return prunerStatusError("%s: field '%s' must be a number", where, key);
  *out = v->valuedouble;
  return prunerStatusOk();
}

static PrunerStatus getInt(const cJSON *o, const char *key, const char *where, int64_t lo,
                           int64_t hi, int64_t *out) {
  double d = 0;
  PrunerStatus st = getNumber(o, key, where, &d);
  if (!st.ok)
    return st;
  /* Range first: converting 1e300 (or a NaN) to int64_t is undefined behaviour. */
  if (!(d >= (double)lo && d <= (double)hi) || d != (double)(int64_t)d)
    return prunerStatusError("%s: field '%s' = %g is not an integer in [%" PRId64 ", %" PRId64
                             "]",
                             where, key, d, lo, hi);
  *out = (int64_t)d;
  return prunerStatusOk();
}

static PrunerStatus getString(const cJSON *o, const char *key, const char *where, char *out,
                              size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v)
    return prunerStatusError("%s: missing field '%s'", where, key);
  if (!cJSON_IsString(v) || !v->valuestring)
    return prunerStatusError("%s: field '%s' must be a string", where, key);
  if (strlen(v->valuestring) >= size)
    return prunerStatusError("%s: field '%s' is longer than %zu characters", where, key,
                             size - 1);
  copyString(out, size, v->valuestring);
  return prunerStatusOk();
}

static PrunerStatus getIntArray3(const cJSON *o, const char *key, const char *where,
                                 int64_t out[3]) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v)
    return prunerStatusError("%s: missing field '%s'", where, key);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
    return prunerStatusError("%s: field '%s' must be an array of 3 integers", where, key);
  for (int i = 0; i < 3; i++) {
    const cJSON *e = cJSON_GetArrayItem(v, i);
    if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 2147483647.0 ||
        e->valuedouble != (double)(int64_t)e->valuedouble)
      return prunerStatusError("%s: %s[%d] must be a positive integer", where, key, i);
    out[i] = (int64_t)e->valuedouble;
  }
  return prunerStatusOk();
}

static PrunerStatus parseArgs(const cJSON *o, const char *where, PrunerKernelLaunch *c,
                              const PrunerWorkload *w, int num_workspaces) {
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "args");
  if (!args)
    return prunerStatusError("%s: missing field 'args'", where);
  if (!cJSON_IsArray(args))
    return prunerStatusError("%s: field 'args' must be an array", where);
  int n = cJSON_GetArraySize(args);
  if (n > PRUNER_MAX_KERNEL_ARGS)
    return prunerStatusError("%s: %d kernel args, at most %d supported", where, n,
                             PRUNER_MAX_KERNEL_ARGS);
  c->num_args = n;
  /* Buffers past the workload's operands are the candidate's workspaces. */
  int operands = w->num_inputs + w->num_outputs + num_workspaces;
  for (int i = 0; i < n; i++) {
    const cJSON *a = cJSON_GetArrayItem(args, i);
    char at[4500], kind[16];
    snprintf(at, sizeof(at), "%s: args[%d]", where, i);
    if (!cJSON_IsObject(a))
      return prunerStatusError("%s must be an object", at);
    PrunerStatus st = getString(a, "kind", at, kind, sizeof(kind));
    if (!st.ok)
      return st;
    int k = -1;
    for (int j = 0; j < 3; j++)
      if (strcmp(kind, kArgKindNames[j]) == 0)
        k = j;
    if (k < 0)
      return prunerStatusError("%s: kind '%s' is not allocated, aligned or index", at, kind);
    c->args[i].kind = (PrunerKernelArgKind)k;
    int64_t operand;
    st = getInt(a, "operand", at, -1, operands - 1, &operand);
    if (!st.ok)
      return st;
    c->args[i].operand = (int)operand;
    if (k != PRUNER_ARG_INDEX && operand < 0)
      return prunerStatusError("%s: a buffer argument needs an operand index", at);
    c->args[i].value = 0;
    if (k == PRUNER_ARG_INDEX) {
      st = getInt(a, "value", at, INT64_MIN / 2, INT64_MAX / 2, &c->args[i].value);
      if (!st.ok)
        return st;
    }
  }
  return prunerStatusOk();
}

static PrunerStatus parseResources(const cJSON *o, const char *where, PrunerKernelResources *r) {
  const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "resources");
  if (!res)
    return prunerStatusError("%s: missing field 'resources'", where);
  if (!cJSON_IsObject(res))
    return prunerStatusError("%s: field 'resources' must be an object", where);
  char at[4500];
  snprintf(at, sizeof(at), "%s: resources", where);
  const char *keys[] = {"registers",    "spill_store_bytes", "spill_load_bytes",
                        "stack_bytes",  "shared_bytes",      "constant_bytes"};
  int *fields[] = {&r->registers,   &r->spill_store_bytes, &r->spill_load_bytes,
                   &r->stack_bytes, &r->shared_bytes,      &r->constant_bytes};
  for (int i = 0; i < 6; i++) {
    int64_t v;
    PrunerStatus st = getInt(res, keys[i], at, -1, 1 << 30, &v);
    if (!st.ok)
      return st;
    *fields[i] = (int)v;
  }
  return prunerStatusOk();
}

/* The launch fields of a candidate (or of a kernel after it). */
static PrunerStatus parseLaunch(const cJSON *o, const char *where, const PrunerWorkload *w,
                                int num_workspaces, PrunerKernelLaunch *l) {
  PrunerStatus st;
  if ((st = getString(o, "kernel", where, l->kernel_name, sizeof(l->kernel_name))).ok == false)
    return st;
  if ((st = getIntArray3(o, "grid", where, l->grid)).ok == false)
    return st;
  if ((st = getIntArray3(o, "block", where, l->block)).ok == false)
    return st;
  /* What no launch can take is refused here rather than failing on the device: CUDA's
   * block limits (1024 threads, z at most 64; CUDA C programming guide, "Compute
   * capabilities") and an empty kernel name. */
  if (!l->kernel_name[0])
    return prunerStatusError("%s: field 'kernel' is empty", where);
  if (l->block[0] > 1024 || l->block[1] > 1024 || l->block[2] > 64 ||
      l->block[0] * l->block[1] * l->block[2] > 1024)
    return prunerStatusError("%s: block [%lld, %lld, %lld] is more than a block can be (1024 "
                             "threads; z at most 64)",
                             where, (long long)l->block[0], (long long)l->block[1],
                             (long long)l->block[2]);
  if ((st = getInt(o, "dynamic_smem", where, 0, 1 << 30, &l->dynamic_smem_bytes)).ok == false)
    return st;
  if ((st = parseArgs(o, where, l, w, num_workspaces)).ok == false)
    return st;
  if ((st = parseResources(o, where, &l->resources)).ok == false)
    return st;
  return prunerStatusOk();
}

/* Optional "workspaces" (bytes each) and "next" (launches after the main one). */
static PrunerStatus parseExtras(const cJSON *o, const char *where, const PrunerWorkload *w,
                                PrunerKernelExtras *x) {
  memset(x, 0, sizeof *x);
  const cJSON *ws = cJSON_GetObjectItemCaseSensitive(o, "workspaces");
  if (ws) {
    if (!cJSON_IsArray(ws) || cJSON_GetArraySize(ws) > PRUNER_MAX_WORKSPACES)
      return prunerStatusError("%s: field 'workspaces' must be an array of at most %d sizes",
                               where, PRUNER_MAX_WORKSPACES);
    for (int i = 0; i < cJSON_GetArraySize(ws); ++i) {
      const cJSON *e = cJSON_GetArrayItem(ws, i);
      if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 1e12 ||
          e->valuedouble != (double)(int64_t)e->valuedouble)
        return prunerStatusError("%s: workspaces[%d] must be a positive byte count", where, i);
      x->workspace_bytes[x->num_workspaces++] = (int64_t)e->valuedouble;
    }
  }
  const cJSON *next = cJSON_GetObjectItemCaseSensitive(o, "next");
  if (!next)
    return prunerStatusOk();
  if (!cJSON_IsArray(next) || cJSON_GetArraySize(next) > PRUNER_MAX_LAUNCHES - 1)
    return prunerStatusError("%s: field 'next' must be an array of at most %d launches", where,
                             PRUNER_MAX_LAUNCHES - 1);
  for (int i = 0; i < cJSON_GetArraySize(next); ++i) {
    char at[4500];
    snprintf(at, sizeof(at), "%s: next[%d]", where, i);
    const cJSON *n = cJSON_GetArrayItem(next, i);
    if (!cJSON_IsObject(n))
      return prunerStatusError("%s must be an object", at);
    PrunerStatus st = parseLaunch(n, at, w, x->num_workspaces, &x->next[i]);
    if (!st.ok)
      return st;
    x->num_next = i + 1;
  }
  return prunerStatusOk();
}

static PrunerStatus parseCandidate(PrunerBundle b, const cJSON *o, int index,
                                   PrunerBundleCandidate *c) {
  char where[4400];
  snprintf(where, sizeof(where), "%s/%s: candidates[%d]", b->dir, PRUNER_BUNDLE_MANIFEST,
           index);
  if (!cJSON_IsObject(o))
    return prunerStatusError("%s must be an object", where);
  memset(c, 0, sizeof(*c));
  int64_t v;
  PrunerStatus st = getInt(o, "id", where, 0, INT32_MAX, &v);
  if (!st.ok)
    return st;
  c->id = (int)v;
  st = getInt(o, "workload", where, 0, (int64_t)b->num_workloads - 1, &v);
  if (!st.ok)
    return st;
  c->workload = (int)v;
  const PrunerWorkload *w = &b->workloads[c->workload];
  st = getString(o, "workload_key", where, c->workload_key, sizeof(c->workload_key));
  if (!st.ok)
    return st;
  if (strcmp(c->workload_key, w->key) != 0)
    return prunerStatusError("%s: workload_key '%s' differs from workloads[%d].key '%s'",
                             where, c->workload_key, c->workload, w->key);
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(o, "config");
  if (!config)
    return prunerStatusError("%s: missing field 'config'", where);
  st = configFromNode(config, &c->config);
  if (!st.ok)
    return prunerStatusError("%s: config: %s", where, st.message);
  if ((st = getString(o, "cubin", where, c->cubin_file, sizeof(c->cubin_file))).ok == false)
    return st;
  if (strchr(c->cubin_file, '/') || c->cubin_file[0] == '\0' || c->cubin_file[0] == '.')
    return prunerStatusError("%s: cubin '%s' must be a plain file name in the bundle", where,
                             c->cubin_file);
  if ((st = parseExtras(o, where, w, &c->extras)).ok == false)
    return st;
  if ((st = parseLaunch(o, where, w, c->extras.num_workspaces, &c->launch)).ok == false)
    return st;
  if ((st = getNumber(o, "draft_score_us", where, &c->draft_score_us)).ok == false)
    return st;
  if ((st = getNumber(o, "verifier_score", where, &c->verifier_score)).ok == false)
    return st;
  /* Optional (bundles before 2026-12-04 have none): the records' compile_s. */
  if (cJSON_GetObjectItemCaseSensitive(o, "compile_s")) {
    if ((st = getNumber(o, "compile_s", where, &c->compile_s)).ok == false)
      return st;
    if (!(c->compile_s >= 0 && c->compile_s < 1e6))
      return prunerStatusError("%s: compile_s %g is not a time in seconds", where, c->compile_s);
  }
  char init[16];
  if ((st = getString(o, "output_init", where, init, sizeof(init))).ok == false)
    return st;
  int k = -1;
  for (int j = 0; j < 3; j++)
    if (strcmp(init, kOutputInitNames[j]) == 0)
      k = j;
  if (k < 0)
    return prunerStatusError("%s: output_init '%s' is not poison, zero or random", where, init);
  c->output_init = (PrunerOutputInit)k;

  char path[4200];
  snprintf(path, sizeof(path), "%s/%s", b->dir, c->cubin_file);
  struct stat sb;
  if (stat(path, &sb) != 0)
    return prunerStatusError("%s: cubin file '%s' is missing: %s", where, path,
                             strerror(errno));
  if (!S_ISREG(sb.st_mode) || sb.st_size == 0)
    return prunerStatusError("%s: cubin file '%s' is empty or not a regular file", where,
                             path);
  return prunerStatusOk();
}

static PrunerStatus parseTarget(PrunerBundle b, const cJSON *root, const char *where) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "target");
  if (!t)
    return prunerStatusError("%s: missing field 'target'", where);
  if (!cJSON_IsObject(t))
    return prunerStatusError("%s: field 'target' must be an object", where);
  char at[4500];
  snprintf(at, sizeof(at), "%s: target", where);
  PrunerStatus st = getString(t, "name", at, b->target_name, sizeof(b->target_name));
  if (st.ok)
    st = getString(t, "arch", at, b->target_arch, sizeof(b->target_arch));
  if (st.ok)
    st = getString(t, "device", at, b->target_device, sizeof(b->target_device));
  if (st.ok)
    st = getString(t, "key", at, b->target_key, sizeof(b->target_key));
  /* Optional: manifests written before 2026-12-05 lack it (their records then say 0). */
  int64_t codegen = 0;
  if (st.ok && cJSON_GetObjectItemCaseSensitive(t, "codegen"))
    st = getInt(t, "codegen", at, 1, PRUNER_MAX_CODEGEN_VERSION, &codegen);
  b->codegen_version = (int)codegen;
  return st;
}

static PrunerStatus parseManifest(PrunerBundle b, const cJSON *root, const char *where) {
  if (!cJSON_IsObject(root))
    return prunerStatusError("%s: the manifest must be a JSON object", where);
  char format[32];
  PrunerStatus st = getString(root, "format", where, format, sizeof(format));
  if (!st.ok)
    return st;
  if (strcmp(format, "pruner-bundle") != 0)
    return prunerStatusError("%s: format '%s' is not 'pruner-bundle'", where, format);
  double version = 0;
  if ((st = getNumber(root, "version", where, &version)).ok == false)
    return st;
  if (version != PRUNER_BUNDLE_VERSION)
    return prunerStatusError("%s: format version %g is not supported (this runner reads "
                             "version %d)",
                             where, version, PRUNER_BUNDLE_VERSION);
  if ((st = parseTarget(b, root, where)).ok == false)
    return st;
  int64_t seed;
  if ((st = getInt(root, "seed", where, 0, (int64_t)MAX_EXACT_SEED - 1, &seed)).ok == false)
    return st;
  b->seed = (uint64_t)seed;

  const cJSON *ws = cJSON_GetObjectItemCaseSensitive(root, "workloads");
  if (!ws)
    return prunerStatusError("%s: missing field 'workloads'", where);
  if (!cJSON_IsArray(ws))
    return prunerStatusError("%s: field 'workloads' must be an array", where);
  size_t nw = (size_t)cJSON_GetArraySize(ws);
  b->workloads = calloc(nw ? nw : 1, sizeof(PrunerWorkload));
  if (!b->workloads)
    return prunerStatusError("%s: out of memory", where);
  b->cap_workloads = nw;
  for (size_t i = 0; i < nw; i++) {
    PrunerWorkload *w = &b->workloads[i];
    st = workloadFromNode(cJSON_GetArrayItem(ws, (int)i), w);
    if (!st.ok)
      return prunerStatusError("%s: workloads[%zu]: %s", where, i, st.message);
    st = prunerWorkloadVerify(w);
    if (!st.ok)
      return prunerStatusError("%s: workloads[%zu] (%s): %s", where, i, w->key, st.message);
    b->num_workloads++;
  }

  const cJSON *cs = cJSON_GetObjectItemCaseSensitive(root, "candidates");
  if (!cs)
    return prunerStatusError("%s: missing field 'candidates'", where);
  if (!cJSON_IsArray(cs))
    return prunerStatusError("%s: field 'candidates' must be an array", where);
  size_t nc = (size_t)cJSON_GetArraySize(cs);
  b->candidates = calloc(nc ? nc : 1, sizeof(PrunerBundleCandidate));
  if (!b->candidates)
    return prunerStatusError("%s: out of memory", where);
  b->cap_candidates = nc;
  const cJSON *item = cs->child;
  for (size_t i = 0; i < nc; i++, item = item->next) {
    PrunerBundleCandidate *c = &b->candidates[i];
    if ((st = parseCandidate(b, item, (int)i, c)).ok == false)
      return st;
    for (size_t j = 0; j < i; j++)
      if (b->candidates[j].id == c->id)
        return prunerStatusError("%s: candidates[%zu] repeats id %d", where, i, c->id);
    b->num_candidates++;
  }
  return prunerStatusOk();
}

PrunerStatus prunerBundleRead(const char *dir, PrunerBundle *out) {
  *out = NULL; /* on failure too: Destroy(NULL) is a no-op */
  if (!dir || !*dir)
    return prunerStatusError("bundle: no folder given");
  char path[4200];
  snprintf(path, sizeof(path), "%s/%s", dir, PRUNER_BUNDLE_MANIFEST);
  char *text = NULL;
  size_t size = 0;
  PrunerStatus st = prunerReadFile(path, &text, &size);
  if (!st.ok)
    return prunerStatusError("bundle: %s", st.message);
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts((const char *)text, &end, 1);
  if (!root) {
    size_t offset = end ? (size_t)(end - (const char *)text) : size;
    size_t rest = offset;
    while (rest < size && (text[rest] == ' ' || text[rest] == '\n' || text[rest] == '\t' ||
                           text[rest] == '\r'))
      rest++;
    /* A file cut inside a string ends early too: cJSON then points into the string (or
     * at its opening quote), and no quote closes it. */
    bool in_string = false;
    for (size_t i = 0; i < offset && i < size; ++i) {
      if (in_string && text[i] == '\\')
        ++i;
      else if (text[i] == '"')
        in_string = !in_string;
    }
    size_t from = offset < size ? offset + (text[offset] == '"') : size;
    bool open_string = (in_string || (offset < size && text[offset] == '"')) &&
                       !memchr(text + from, '"', size - from);
    free(text);
    if (size == 0)
      return prunerStatusError("bundle: %s is empty", path);
    if (rest >= size || open_string)
      return prunerStatusError("bundle: %s: invalid JSON: the file ends early (truncated "
                               "after %zu bytes)",
                               path, size);
    return prunerStatusError("bundle: %s: invalid JSON at byte %zu", path, offset);
  }
  free(text);
  PrunerBundle b = bundleAlloc();
  if (!b) {
    cJSON_Delete(root);
    return prunerStatusError("bundle: out of memory");
  }
  copyString(b->dir, sizeof(b->dir), dir);
  st = parseManifest(b, root, path);
  cJSON_Delete(root);
  if (!st.ok) {
    prunerBundleDestroy(b);
    return st;
  }
  *out = b;
  return prunerStatusOk();
}

void prunerBundleDestroy(PrunerBundle b) {
  if (!b)
    return;
  free(b->workloads);
  free(b->candidates);
  free(b);
}

const char *prunerBundleDir(PrunerBundle b) { return b->dir; }
uint64_t prunerBundleSeed(PrunerBundle b) { return b->seed; }
const char *prunerBundleTargetName(PrunerBundle b) { return b->target_name; }
const char *prunerBundleTargetArch(PrunerBundle b) { return b->target_arch; }
const char *prunerBundleTargetKey(PrunerBundle b) { return b->target_key; }
int prunerBundleCodegenVersion(PrunerBundle b) { return b->codegen_version; }
size_t prunerBundleNumWorkloads(PrunerBundle b) { return b->num_workloads; }
const PrunerWorkload *prunerBundleGetWorkload(PrunerBundle b, size_t i) {
  return i < b->num_workloads ? &b->workloads[i] : NULL;
}
size_t prunerBundleNumCandidates(PrunerBundle b) { return b->num_candidates; }
const PrunerBundleCandidate *prunerBundleGetCandidate(PrunerBundle b, size_t i) {
  return i < b->num_candidates ? &b->candidates[i] : NULL;
}

PrunerStatus prunerBundleLoadBinary(PrunerBundle b, size_t i, unsigned char **data,
                                    size_t *size) {
  if (i >= b->num_candidates)
    return prunerStatusError("bundle '%s': no candidate %zu", b->dir, i);
  char path[4200];
  snprintf(path, sizeof(path), "%s/%s", b->dir, b->candidates[i].cubin_file);
  PrunerStatus st = prunerReadFile(path, (char **)data, size);
  if (!st.ok)
    return prunerStatusError("bundle '%s': candidate %d: %s", b->dir, b->candidates[i].id,
                             st.message);
  return prunerStatusOk();
}
