/* JSON forms of workloads, configs and records (docs/records.md), through cJSON. */
#include "pruner/records.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------------- */

static const char *const kStatusNames[PRUNER_RECORD_STATUS_COUNT] = {
    "ok", "compile_error", "launch_error", "timeout", "wrong_result", "invalid"};

/* Body opcodes have no name function in workload.h; these are the JSON spellings. */
static const char *const kBodyOpNames[PRUNER_BODY_OPCODE_COUNT] = {
    "add", "sub", "mul",  "div",   "max", "min", "neg", "exp",
    "const", "cast", "tanh", "log", "sqrt", "rsqrt", "erf", "abs"};

const char *prunerRecordStatusName(PrunerRecordStatus status) {
  if ((int)status < 0 || status >= PRUNER_RECORD_STATUS_COUNT)
    return "unknown";
  return kStatusNames[status];
}

bool prunerRecordStatusParse(const char *name, PrunerRecordStatus *out) {
  for (int i = 0; i < PRUNER_RECORD_STATUS_COUNT; ++i) {
    if (strcmp(name, kStatusNames[i]) == 0) {
      *out = (PrunerRecordStatus)i;
      return true;
    }
  }
  return false;
}

void prunerRecordInit(PrunerRecord *record) {
  memset(record, 0, sizeof(*record));
  record->version = PRUNER_RECORDS_VERSION;
  record->status = PRUNER_RECORD_INVALID;
  record->median_us = NAN;
  record->spread_us = NAN;
  record->max_abs_error = NAN;
  record->registers = -1;
  record->spill_bytes = -1;
  record->shared_bytes = -1;
}

/* ---- small helpers ------------------------------------------------------------------ */

/* JSON numbers are doubles: integers are exact below 2^53 (IEEE 754 binary64), so larger
 * magnitudes, fractions, infinities ("1e999") and NaN are refused before any conversion
 * (a double -> int64 cast out of range is undefined behaviour). */
#define MAX_EXACT_INT 9007199254740992.0 /* 2^53 */

static bool exactInteger(const cJSON *item, int64_t lo, int64_t hi, int64_t *out) {
  if (!cJSON_IsNumber(item))
    return false;
  double v = item->valuedouble;
  if (!(v > -MAX_EXACT_INT && v < MAX_EXACT_INT) || v != floor(v))
    return false;
  int64_t i = (int64_t)v;
  if (i < lo || i > hi)
    return false;
  *out = i;
  return true;
}

static cJSON *intArray(const int64_t *values, int n) {
  cJSON *array = cJSON_CreateArray();
  for (int i = 0; i < n; ++i)
    cJSON_AddItemToArray(array, cJSON_CreateNumber((double)values[i]));
  return array;
}

/* Reads an integer array of at most `max` entries into out (zero-filled); *n gets the
 * length. */
static PrunerStatus readIntArray(const cJSON *parent, const char *key, int64_t *out, int max,
                                 int *n) {
  const cJSON *array = cJSON_GetObjectItemCaseSensitive(parent, key);
  if (!cJSON_IsArray(array))
    return prunerStatusError("key '%s': expected an array of integers", key);
  int count = cJSON_GetArraySize(array);
  if (count > max)
    return prunerStatusError("key '%s': %d entries, at most %d allowed", key, count, max);
  for (int i = 0; i < max; ++i)
    out[i] = 0;
  int i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, array) {
    if (!exactInteger(item, INT64_MIN, INT64_MAX, &out[i]))
      return prunerStatusError("key '%s': entry %d is not an integer of at most 2^53", key, i);
    ++i;
  }
  if (n)
    *n = count;
  return prunerStatusOk();
}

/* An integer in [lo, hi]. */
static PrunerStatus readInt(const cJSON *parent, const char *key, int64_t lo, int64_t hi,
                            int64_t *out) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(parent, key);
  if (!exactInteger(item, lo, hi, out))
    return prunerStatusError("key '%s': expected an integer in [%" PRId64 ", %" PRId64 "]",
                             key, lo, hi);
  return prunerStatusOk();
}

/* Optional integer in [lo, hi] (absent or null: fallback). */
static PrunerStatus readIntOr(const cJSON *parent, const char *key, int lo, int hi,
                              int fallback, int *out) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(parent, key);
  int64_t v = fallback;
  if (item && !cJSON_IsNull(item) && !exactInteger(item, lo, hi, &v))
    return prunerStatusError("key '%s': expected an integer in [%d, %d]", key, lo, hi);
  *out = (int)v;
  return prunerStatusOk();
}

/* A number, or NaN for null/absent (cJSON writes NaN as null). */
static double readNumberOr(const cJSON *parent, const char *key, double fallback) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(parent, key);
  if (cJSON_IsNumber(item))
    return item->valuedouble;
  if (cJSON_IsNull(item))
    return NAN;
  return fallback;
}

/* An optional array of at most `max` times under `key` into out[0..*n): finite only (an
 * infinity would be written back as null and the line would no longer read: found by
 * fuzzing the reader), non-negative, or positive when `positive`. Absent: *n stays 0. */
static PrunerStatus readTimes(const cJSON *parent, const char *key, int max, bool positive,
                              double *out, int *n) {
  const cJSON *array = cJSON_GetObjectItemCaseSensitive(parent, key);
  if (!array)
    return prunerStatusOk();
  if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) > max)
    return prunerStatusError("key '%s': expected at most %d numbers", key, max);
  const cJSON *item;
  cJSON_ArrayForEach(item, array) {
    double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (!isfinite(v) || v < 0 || (positive && v == 0))
      return prunerStatusError("key '%s': entry %d is not a finite, %s number", key, *n,
                               positive ? "positive" : "non-negative");
    if (v > PRUNER_RECORD_MAX_US)
      return prunerStatusError("key '%s': entry %d, %g us, is longer than a day (the "
                               "longest watchdog): not a measurement",
                               key, *n, v);
    out[(*n)++] = v;
  }
  return prunerStatusOk();
}

static PrunerStatus readString(const cJSON *parent, const char *key, char *out, size_t size,
                               bool required) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(parent, key);
  if (!item) {
    if (required)
      return prunerStatusError("missing key '%s'", key);
    out[0] = '\0';
    return prunerStatusOk();
  }
  if (!cJSON_IsString(item))
    return prunerStatusError("key '%s': expected a string", key);
  if (strlen(item->valuestring) >= size)
    return prunerStatusError("key '%s': string longer than %zu bytes", key, size - 1);
  strcpy(out, item->valuestring);
  return prunerStatusOk();
}

#define TRY(expr)                                                                          \
  do {                                                                                     \
    PrunerStatus try_status_ = (expr);                                                     \
    if (!try_status_.ok)                                                                   \
      return try_status_;                                                                  \
  } while (0)

/* Prefixes a failed status with where it happened. */
static PrunerStatus within(const char *where, PrunerStatus status) {
  if (status.ok)
    return status;
  char message[PRUNER_STATUS_MESSAGE_SIZE];
  snprintf(message, sizeof(message), "%s", status.message);
  return prunerStatusError("%s: %s", where, message);
}

/* ---- configs ------------------------------------------------------------------------ */

static cJSON *configToJson(const PrunerConfig *config, int num_loops) {
  if (num_loops < 0 || num_loops > PRUNER_MAX_LOOPS)
    num_loops = PRUNER_MAX_LOOPS;
  cJSON *json = cJSON_CreateObject();
  cJSON_AddItemToObject(json, "workgroup", intArray(config->workgroup, num_loops));
  cJSON_AddItemToObject(json, "reduction", intArray(config->reduction, num_loops));
  cJSON_AddItemToObject(json, "thread", intArray(config->thread, num_loops));
  cJSON *promote = cJSON_CreateArray();
  for (int i = 0; i < 32; ++i) {
    if (config->promote_operands & (1u << i))
      cJSON_AddItemToArray(promote, cJSON_CreateNumber(i));
  }
  cJSON_AddItemToObject(json, "promote_operands", promote);
  cJSON_AddNumberToObject(json, "vector_width", config->vector_width);
  /* Written only when > 1, so records of every other config stay byte-identical. */
  if (prunerConfigReductionThreads(config) > 1)
    cJSON_AddNumberToObject(json, "reduction_threads", config->reduction_threads);
  /* iree-cpu's cache tiles, only when set (PrunerConfig.cache). */
  if (prunerConfigHasCache(config))
    cJSON_AddItemToObject(json, "cache", intArray(config->cache, num_loops));
  if (config->mma) /* likewise only when set */
    cJSON_AddNumberToObject(json, "mma", config->mma);
  if (prunerConfigStages(config) > 1) /* likewise */
    cJSON_AddNumberToObject(json, "stages", config->stages);
  if (prunerConfigSplitK(config) > 1) /* likewise */
    cJSON_AddNumberToObject(json, "split_k", config->split_k);
  return json;
}

static PrunerStatus configFromJson(const cJSON *json, PrunerConfig *out) {
  memset(out, 0, sizeof(*out));
  if (!cJSON_IsObject(json))
    return prunerStatusError("config: expected an object");
  int n_wg = 0, n_red = 0, n_thr = 0;
  TRY(within("config", readIntArray(json, "workgroup", out->workgroup, PRUNER_MAX_LOOPS,
                                    &n_wg)));
  TRY(within("config", readIntArray(json, "reduction", out->reduction, PRUNER_MAX_LOOPS,
                                    &n_red)));
  TRY(within("config",
             readIntArray(json, "thread", out->thread, PRUNER_MAX_LOOPS, &n_thr)));
  if (n_wg != n_red || n_wg != n_thr)
    return prunerStatusError("config: workgroup, reduction and thread have %d, %d and %d "
                             "entries; they must have one per loop",
                             n_wg, n_red, n_thr);
  if (n_wg < 1)
    return prunerStatusError("config: workgroup, reduction and thread are empty; they must "
                             "have one entry per loop");
  /* Tiles and steps are sizes (0: not tiled at that level); whether they fit the
   * workload is for prunerConfigCheck, where the target is known. */
  const struct {
    const char *key;
    const int64_t *values;
  } arrays[] = {
      {"workgroup", out->workgroup}, {"reduction", out->reduction}, {"thread", out->thread}};
  for (int a = 0; a < 3; ++a)
    for (int l = 0; l < n_wg; ++l)
      if (arrays[a].values[l] < 0)
        return prunerStatusError("config: key '%s': entry %d is %" PRId64 "; tiles and steps "
                                 "are >= 0",
                                 arrays[a].key, l, arrays[a].values[l]);
  int64_t promote[32];
  int n_promote = 0;
  TRY(within("config", readIntArray(json, "promote_operands", promote, 32, &n_promote)));
  for (int i = 0; i < n_promote; ++i) {
    if (promote[i] < 0 || promote[i] >= 32)
      return prunerStatusError("config: key 'promote_operands': operand %" PRId64
                               " out of range",
                               promote[i]);
    out->promote_operands |= 1u << promote[i];
  }
  int64_t width = 0;
  /* 1 (scalar) up to 64 lanes (a 512-bit vector of bytes); the target decides which. */
  TRY(within("config", readInt(json, "vector_width", 1, 64, &width)));
  out->vector_width = (int32_t)width;
  /* Absent in records written before the knob: 1, one thread per output, kept as 0 like a
   * config the space decodes (PrunerConfig.reduction_threads). */
  int threads = 1;
  TRY(within("config", readIntOr(json, "reduction_threads", 1, 1024, 1, &threads)));
  out->reduction_threads = threads > 1 ? threads : 0;
  if (cJSON_GetObjectItemCaseSensitive(json, "cache")) {
    int n_cache = 0;
    TRY(within("config", readIntArray(json, "cache", out->cache, PRUNER_MAX_LOOPS, &n_cache)));
    if (n_cache != n_wg)
      return prunerStatusError("config: cache has %d entries; it must have one per loop (%d)",
                               n_cache, n_wg);
    for (int l = 0; l < n_cache; ++l)
      if (out->cache[l] < 0)
        return prunerStatusError("config: key 'cache': entry %d is %" PRId64 "; tiles are >= 0", l,
                                 out->cache[l]);
  }
  /* Absent: 0, FMA (records written before the tensor-core knob). Whether the kind fits
   * the workload is prunerConfigCheck's. */
  int mma = 0;
  TRY(within("config", readIntOr(json, "mma", 0, 1, 0, &mma)));
  out->mma = mma;
  /* Absent: one stage (records written before the knob). */
  int stages = 0;
  TRY(within("config", readIntOr(json, "stages", 0, PRUNER_MAX_STAGES, 0, &stages)));
  out->stages = stages > 1 ? stages : 0;
  /* Absent: no split (records written before the knob). */
  int split_k = 0;
  TRY(within("config", readIntOr(json, "split_k", 0, PRUNER_MAX_SPLIT_K, 0, &split_k)));
  out->split_k = split_k > 1 ? split_k : 0;
  return prunerStatusOk();
}

/* ---- workloads ---------------------------------------------------------------------- */

static cJSON *operandToJson(const PrunerOperand *op, int num_loops) {
  cJSON *json = cJSON_CreateObject();
  cJSON_AddItemToObject(json, "shape", intArray(op->shape, op->rank));
  cJSON_AddStringToObject(json, "dtype", prunerDTypeName(op->dtype));
  cJSON_AddBoolToObject(json, "is_output", op->is_output != 0);
  cJSON *coeff = cJSON_CreateArray();
  for (int d = 0; d < op->rank; ++d)
    cJSON_AddItemToArray(coeff, intArray(op->index_coeff[d], num_loops));
  cJSON_AddItemToObject(json, "index_coeff", coeff);
  return json;
}

static cJSON *workloadToJson(const PrunerWorkload *w) {
  cJSON *json = cJSON_CreateObject();
  cJSON_AddStringToObject(json, "kind", prunerOpKindName(w->kind));
  cJSON_AddStringToObject(json, "op_name", w->op_name);
  cJSON_AddItemToObject(json, "bounds", intArray(w->bounds, w->num_loops));
  cJSON *kinds = cJSON_CreateArray();
  cJSON *roles = cJSON_CreateArray();
  for (int l = 0; l < w->num_loops; ++l) {
    cJSON_AddItemToArray(kinds, cJSON_CreateString(w->loop_kinds[l] == PRUNER_LOOP_REDUCTION
                                                       ? "reduction"
                                                       : "parallel"));
    cJSON_AddItemToArray(roles, cJSON_CreateString(prunerLoopRoleName(w->loop_roles[l])));
  }
  cJSON_AddItemToObject(json, "loop_kinds", kinds);
  cJSON_AddItemToObject(json, "loop_roles", roles);
  cJSON_AddNumberToObject(json, "num_inputs", w->num_inputs);
  cJSON_AddNumberToObject(json, "num_outputs", w->num_outputs);
  cJSON *operands = cJSON_CreateArray();
  for (int i = 0; i < w->num_inputs + w->num_outputs && i < PRUNER_MAX_OPERANDS; ++i)
    cJSON_AddItemToArray(operands, operandToJson(&w->operands[i], w->num_loops));
  cJSON_AddItemToObject(json, "operands", operands);
  cJSON_AddItemToObject(json, "strides", intArray(w->strides, 2));
  cJSON_AddItemToObject(json, "dilations", intArray(w->dilations, 2));
  cJSON *body = cJSON_CreateArray();
  for (int i = 0; i < w->body_len && i < PRUNER_MAX_BODY_OPS; ++i) {
    const PrunerBodyOp *op = &w->body[i];
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "op",
                            (int)op->opcode >= 0 && op->opcode < PRUNER_BODY_OPCODE_COUNT
                                ? kBodyOpNames[op->opcode]
                                : "unknown");
    int64_t args[2] = {op->args[0], op->args[1]};
    cJSON_AddItemToObject(item, "args", intArray(args, 2));
    if (op->opcode == PRUNER_BODY_CONST)
      cJSON_AddNumberToObject(item, "constant", op->constant);
    cJSON_AddStringToObject(item, "dtype", prunerDTypeName(op->dtype));
    cJSON_AddItemToArray(body, item);
  }
  cJSON_AddItemToObject(json, "body", body);
  int64_t yield[PRUNER_MAX_OPERANDS];
  for (int i = 0; i < PRUNER_MAX_OPERANDS; ++i)
    yield[i] = w->body_yield[i];
  cJSON_AddItemToObject(json, "body_yield", intArray(yield, w->num_outputs));
  cJSON_AddNumberToObject(json, "body_ops", w->body_ops);
  /* 64-bit hash as hex: JSON numbers are doubles and would lose bits. */
  char hash[24];
  snprintf(hash, sizeof(hash), "%016" PRIx64, w->body_hash);
  cJSON_AddStringToObject(json, "body_hash", hash);
  cJSON_AddStringToObject(json, "key", w->key);
  return json;
}

static PrunerStatus parseDType(const cJSON *parent, const char *key, PrunerDType *out) {
  char name[16];
  TRY(readString(parent, key, name, sizeof(name), true));
  if (!prunerDTypeParse(name, out))
    return prunerStatusError("key '%s': unknown dtype '%s'", key, name);
  return prunerStatusOk();
}

static PrunerStatus operandFromJson(const cJSON *json, int num_loops, PrunerOperand *op) {
  if (!cJSON_IsObject(json))
    return prunerStatusError("expected an object");
  TRY(readIntArray(json, "shape", op->shape, PRUNER_MAX_RANK, &op->rank));
  TRY(parseDType(json, "dtype", &op->dtype));
  const cJSON *is_output = cJSON_GetObjectItemCaseSensitive(json, "is_output");
  if (!cJSON_IsBool(is_output))
    return prunerStatusError("key 'is_output': expected true or false");
  op->is_output = cJSON_IsTrue(is_output) ? 1 : 0;
  const cJSON *coeff = cJSON_GetObjectItemCaseSensitive(json, "index_coeff");
  if (!cJSON_IsArray(coeff) || cJSON_GetArraySize(coeff) != op->rank)
    return prunerStatusError("key 'index_coeff': expected %d rows (one per dimension)",
                             op->rank);
  int d = 0;
  const cJSON *row;
  cJSON_ArrayForEach(row, coeff) {
    int n = 0;
    /* readIntArray wants a parent object; wrap the row check inline instead. */
    if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != num_loops)
      return prunerStatusError("key 'index_coeff': row %d must have %d entries", d,
                               num_loops);
    const cJSON *item;
    cJSON_ArrayForEach(item, row) {
      if (!exactInteger(item, INT64_MIN, INT64_MAX, &op->index_coeff[d][n]))
        return prunerStatusError("key 'index_coeff': row %d entry %d is not an integer of "
                                 "at most 2^53",
                                 d, n);
      ++n;
    }
    ++d;
  }
  return prunerStatusOk();
}

static PrunerStatus bodyFromJson(const cJSON *json, PrunerWorkload *w) {
  const cJSON *body = cJSON_GetObjectItemCaseSensitive(json, "body");
  if (!cJSON_IsArray(body))
    return prunerStatusError("key 'body': expected an array");
  int n = cJSON_GetArraySize(body);
  if (n > PRUNER_MAX_BODY_OPS)
    return prunerStatusError("key 'body': %d ops, at most %d allowed", n,
                             PRUNER_MAX_BODY_OPS);
  w->body_len = n;
  int i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, body) {
    PrunerBodyOp *op = &w->body[i];
    char name[16];
    char where[32];
    snprintf(where, sizeof(where), "body[%d]", i);
    TRY(within(where, readString(item, "op", name, sizeof(name), true)));
    int opcode = -1;
    for (int k = 0; k < PRUNER_BODY_OPCODE_COUNT; ++k) {
      if (strcmp(name, kBodyOpNames[k]) == 0)
        opcode = k;
    }
    if (opcode < 0)
      return prunerStatusError("%s: unknown op '%s'", where, name);
    op->opcode = (PrunerBodyOpcode)opcode;
    int64_t args[2];
    int nargs = 0;
    TRY(within(where, readIntArray(item, "args", args, 2, &nargs)));
    for (int a = 0; a < nargs; ++a)
      if (args[a] < -1 || args[a] > INT32_MAX)
        return prunerStatusError("%s: key 'args': value %" PRId64 " out of range", where,
                                 args[a]);
    op->args[0] = nargs > 0 ? (int)args[0] : -1;
    op->args[1] = nargs > 1 ? (int)args[1] : -1;
    op->constant = readNumberOr(item, "constant", 0.0);
    TRY(within(where, parseDType(item, "dtype", &op->dtype)));
    ++i;
  }
  return prunerStatusOk();
}

static PrunerStatus workloadFieldsFromJson(const cJSON *json, PrunerWorkload *w) {
  memset(w, 0, sizeof(*w));
  if (!cJSON_IsObject(json))
    return prunerStatusError("expected an object");
  char name[48];
  TRY(readString(json, "kind", name, sizeof(name), true));
  int kind = -1;
  for (int k = 0; k < PRUNER_OP_KIND_COUNT; ++k) {
    if (strcmp(name, prunerOpKindName((PrunerOpKind)k)) == 0)
      kind = k;
  }
  if (kind < 0)
    return prunerStatusError("key 'kind': unknown op kind '%s'", name);
  w->kind = (PrunerOpKind)kind;
  TRY(readString(json, "op_name", w->op_name, sizeof(w->op_name), true));
  TRY(readIntArray(json, "bounds", w->bounds, PRUNER_MAX_LOOPS, &w->num_loops));
  const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(json, "loop_kinds");
  const cJSON *roles = cJSON_GetObjectItemCaseSensitive(json, "loop_roles");
  if (!cJSON_IsArray(kinds) || cJSON_GetArraySize(kinds) != w->num_loops)
    return prunerStatusError("key 'loop_kinds': expected %d names", w->num_loops);
  if (!cJSON_IsArray(roles) || cJSON_GetArraySize(roles) != w->num_loops)
    return prunerStatusError("key 'loop_roles': expected %d names", w->num_loops);
  for (int l = 0; l < w->num_loops; ++l) {
    const cJSON *k = cJSON_GetArrayItem(kinds, l);
    const cJSON *r = cJSON_GetArrayItem(roles, l);
    if (!cJSON_IsString(k) || (strcmp(k->valuestring, "parallel") != 0 &&
                               strcmp(k->valuestring, "reduction") != 0))
      return prunerStatusError("key 'loop_kinds': entry %d is not parallel or reduction", l);
    w->loop_kinds[l] =
        strcmp(k->valuestring, "reduction") == 0 ? PRUNER_LOOP_REDUCTION : PRUNER_LOOP_PARALLEL;
    int role = -1;
    for (int q = 0; cJSON_IsString(r) && q < PRUNER_ROLE_COUNT; ++q) {
      if (strcmp(r->valuestring, prunerLoopRoleName((PrunerLoopRole)q)) == 0)
        role = q;
    }
    if (role < 0)
      return prunerStatusError("key 'loop_roles': entry %d is not a known role", l);
    w->loop_roles[l] = (PrunerLoopRole)role;
  }
  int64_t value = 0;
  TRY(readInt(json, "num_inputs", 0, PRUNER_MAX_OPERANDS, &value));
  w->num_inputs = (int)value;
  TRY(readInt(json, "num_outputs", 0, PRUNER_MAX_OPERANDS, &value));
  w->num_outputs = (int)value;
  if (w->num_inputs < 0 || w->num_outputs < 1 ||
      w->num_inputs + w->num_outputs > PRUNER_MAX_OPERANDS)
    return prunerStatusError("keys 'num_inputs'/'num_outputs': %d + %d operands (1 to %d "
                             "allowed, at least one output)",
                             w->num_inputs, w->num_outputs, PRUNER_MAX_OPERANDS);
  const cJSON *operands = cJSON_GetObjectItemCaseSensitive(json, "operands");
  if (!cJSON_IsArray(operands) ||
      cJSON_GetArraySize(operands) != w->num_inputs + w->num_outputs)
    return prunerStatusError("key 'operands': expected %d operands",
                             w->num_inputs + w->num_outputs);
  for (int i = 0; i < w->num_inputs + w->num_outputs; ++i) {
    char where[32];
    snprintf(where, sizeof(where), "operands[%d]", i);
    TRY(within(where, operandFromJson(cJSON_GetArrayItem(operands, i), w->num_loops,
                                      &w->operands[i])));
  }
  TRY(readIntArray(json, "strides", w->strides, 2, NULL));
  TRY(readIntArray(json, "dilations", w->dilations, 2, NULL));
  TRY(bodyFromJson(json, w));
  int64_t yield[PRUNER_MAX_OPERANDS];
  int n_yield = 0;
  TRY(readIntArray(json, "body_yield", yield, PRUNER_MAX_OPERANDS, &n_yield));
  if (n_yield != w->num_outputs)
    return prunerStatusError("key 'body_yield': %d entries for %d outputs", n_yield,
                             w->num_outputs);
  for (int i = 0; i < PRUNER_MAX_OPERANDS; ++i) {
    if (yield[i] < -1 || yield[i] > INT32_MAX)
      return prunerStatusError("key 'body_yield': value %" PRId64 " out of range", yield[i]);
    w->body_yield[i] = (int)yield[i];
  }
  TRY(readInt(json, "body_ops", 0, INT32_MAX, &value));
  w->body_ops = (int)value;
  char hash[24];
  TRY(readString(json, "body_hash", hash, sizeof(hash), true));
  char *end = NULL;
  w->body_hash = (uint64_t)strtoull(hash, &end, 16);
  if (!end || *end != '\0' || hash[0] == '\0')
    return prunerStatusError("key 'body_hash': '%s' is not a hexadecimal number", hash);
  TRY(readString(json, "key", w->key, sizeof(w->key), true));
  return prunerStatusOk();
}

/* Verified too: everything downstream (space, draft, runner reference) trusts bounds,
 * shapes and body value numbers, so a record or manifest must not smuggle in a workload
 * that a builder could not have made. */
static PrunerStatus workloadFromJson(const cJSON *json, PrunerWorkload *out) {
  PrunerStatus status = workloadFieldsFromJson(json, out);
  if (status.ok)
    status = prunerWorkloadVerify(out);
  return within("workload", status);
}

/* ---- the text forms (pruner/records.h): cJSON stays inside this library ------------- */

/* Compact text of `json`, which is deleted; NULL when out of memory. */
static char *printAndDelete(cJSON *json) {
  char *text = json ? cJSON_PrintUnformatted(json) : NULL;
  cJSON_Delete(json);
  return text;
}

/* Parses `text` as exactly one JSON value; the message names `what`. */
static PrunerStatus parseValue(const char *what, const char *text, cJSON **out) {
  const char *end = NULL;
  *out = text ? cJSON_ParseWithOpts(text, &end, 1) : NULL;
  if (*out)
    return prunerStatusOk();
  long offset = text && end && end >= text ? (long)(end - text) : -1;
  return prunerStatusError("%s: invalid JSON near byte %ld", what, offset);
}

char *prunerConfigToJsonText(const PrunerConfig *config, int num_loops) {
  return printAndDelete(configToJson(config, num_loops));
}

PrunerStatus prunerConfigFromJsonText(const char *text, PrunerConfig *out) {
  cJSON *json;
  PrunerStatus status = parseValue("config", text, &json);
  if (!status.ok) {
    memset(out, 0, sizeof(*out));
    return status;
  }
  status = configFromJson(json, out);
  cJSON_Delete(json);
  return status;
}

char *prunerWorkloadToJsonText(const PrunerWorkload *w) {
  return printAndDelete(workloadToJson(w));
}

PrunerStatus prunerWorkloadFromJsonText(const char *text, PrunerWorkload *out) {
  cJSON *json;
  PrunerStatus status = parseValue("workload", text, &json);
  if (!status.ok)
    return status;
  status = workloadFromJson(json, out);
  cJSON_Delete(json);
  return status;
}

/* ---- records ------------------------------------------------------------------------ */

char *prunerRecordToJson(const PrunerRecord *r) {
  cJSON *json = cJSON_CreateObject();
  cJSON_AddNumberToObject(json, "version", r->version);
  cJSON_AddStringToObject(json, "workload_key", r->workload_key);
  if (r->has_workload)
    cJSON_AddItemToObject(json, "workload", workloadToJson(&r->workload));
  cJSON *target = cJSON_CreateObject();
  cJSON_AddStringToObject(target, "key", r->target_key);
  cJSON_AddStringToObject(target, "device", r->device_name);
  cJSON_AddStringToObject(target, "driver", r->driver_version);
  cJSON_AddStringToObject(target, "toolchain", r->toolchain_version);
  if (r->codegen_version > 0) /* only then, so that lines without it read as before */
    cJSON_AddNumberToObject(target, "codegen", r->codegen_version);
  /* All three or none: the reader refuses a partial list. */
  if (r->cache_bytes[0] > 0 && r->cache_bytes[1] > 0 && r->cache_bytes[2] > 0)
    cJSON_AddItemToObject(target, "caches", intArray(r->cache_bytes, 3));
  cJSON_AddItemToObject(json, "target", target);
  if (r->is_baseline) {
    cJSON_AddStringToObject(json, "baseline", r->baseline_name);
  } else {
    int loops = r->has_workload ? r->workload.num_loops : PRUNER_MAX_LOOPS;
    if (!r->has_workload) {
      /* Without the workload, trim trailing all-zero loops (configs have >= 1 loop). */
      while (loops > 1 && r->config.workgroup[loops - 1] == 0 &&
             r->config.reduction[loops - 1] == 0 && r->config.thread[loops - 1] == 0)
        --loops;
    }
    cJSON_AddItemToObject(json, "config", configToJson(&r->config, loops));
  }
  cJSON_AddStringToObject(json, "status", prunerRecordStatusName(r->status));
  if (r->error[0])
    cJSON_AddStringToObject(json, "error", r->error);
  cJSON *samples = cJSON_CreateArray();
  for (int i = 0; i < r->num_samples && i < PRUNER_MAX_SAMPLES; ++i)
    cJSON_AddItemToArray(samples, cJSON_CreateNumber(r->samples_us[i]));
  cJSON_AddItemToObject(json, "samples_us", samples);
  cJSON_AddNumberToObject(json, "median_us", r->median_us);
  cJSON_AddNumberToObject(json, "spread_us", r->spread_us);
  cJSON_AddNumberToObject(json, "max_abs_error", r->max_abs_error);
  cJSON_AddNumberToObject(json, "sm_clock_mhz", r->sm_clock_mhz);
  cJSON_AddNumberToObject(json, "draft_score_us", r->draft_score_us);
  cJSON_AddNumberToObject(json, "verifier_score", r->verifier_score);
  cJSON *ptxas = cJSON_CreateObject();
  cJSON_AddNumberToObject(ptxas, "registers", r->registers);
  cJSON_AddNumberToObject(ptxas, "spill_bytes", r->spill_bytes);
  cJSON_AddNumberToObject(ptxas, "shared_bytes", r->shared_bytes);
  cJSON_AddItemToObject(json, "ptxas", ptxas);
  cJSON_AddNumberToObject(json, "timestamp", r->timestamp);
  if (r->compile_s > 0)
    cJSON_AddNumberToObject(json, "compile_s", r->compile_s);
  if (r->measure_s > 0)
    cJSON_AddNumberToObject(json, "measure_s", r->measure_s);
  if (r->num_passes > 0) {
    cJSON *passes = cJSON_CreateArray();
    for (int i = 0; i < r->num_passes && i < PRUNER_MAX_PASSES; ++i)
      cJSON_AddItemToArray(passes, cJSON_CreateNumber(r->passes_us[i]));
    cJSON_AddItemToObject(json, "passes_us", passes);
  }
  char *text = cJSON_PrintUnformatted(json);
  cJSON_Delete(json);
  return text;
}

static PrunerStatus recordFromJson(const cJSON *json, PrunerRecord *out) {
  if (!cJSON_IsObject(json))
    return prunerStatusError("not a JSON object");
  int64_t version = 0;
  if (!cJSON_GetObjectItemCaseSensitive(json, "version"))
    return prunerStatusError("missing key 'version' (not a records line?)");
  TRY(readInt(json, "version", INT64_MIN, INT64_MAX, &version));
  if (version < 1 || version > PRUNER_RECORDS_VERSION)
    return prunerStatusError("key 'version': %" PRId64 " is not supported (this reader "
                             "knows 1 to %d)",
                             version, PRUNER_RECORDS_VERSION);
  out->version = (int)version;
  TRY(readString(json, "workload_key", out->workload_key, sizeof(out->workload_key), true));
  if (out->workload_key[0] == '\0')
    return prunerStatusError("key 'workload_key': empty");
  const cJSON *workload = cJSON_GetObjectItemCaseSensitive(json, "workload");
  if (workload) {
    TRY(workloadFromJson(workload, &out->workload));
    if (strcmp(out->workload.key, out->workload_key) != 0)
      return prunerStatusError("key 'workload_key': '%s' differs from the workload's key "
                               "'%s'",
                               out->workload_key, out->workload.key);
    out->has_workload = true;
  }
  const cJSON *target = cJSON_GetObjectItemCaseSensitive(json, "target");
  if (!cJSON_IsObject(target))
    return prunerStatusError("key 'target': expected an object");
  TRY(within("target", readString(target, "key", out->target_key, sizeof(out->target_key),
                                  true)));
  if (out->target_key[0] == '\0')
    return prunerStatusError("target: key 'key': empty");
  TRY(within("target", readString(target, "device", out->device_name,
                                  sizeof(out->device_name), false)));
  TRY(within("target", readString(target, "driver", out->driver_version,
                                  sizeof(out->driver_version), false)));
  TRY(within("target", readString(target, "toolchain", out->toolchain_version,
                                  sizeof(out->toolchain_version), false)));
  TRY(within("target", readIntOr(target, "codegen", 1, PRUNER_MAX_CODEGEN_VERSION, 0,
                                 &out->codegen_version)));
  if (cJSON_GetObjectItemCaseSensitive(target, "caches")) {
    int n = 0;
    TRY(within("target", readIntArray(target, "caches", out->cache_bytes, 3, &n)));
    /* Up to 1 TiB each: a byte count, not a typo's 2^53. */
    for (int i = 0; i < 3; ++i)
      if (n != 3 || out->cache_bytes[i] < 1 || out->cache_bytes[i] > ((int64_t)1 << 40))
        return prunerStatusError("target: key 'caches': expected 3 byte counts (L1d, L2, "
                                 "L3) in [1, 2^40]");
  }
  const cJSON *baseline = cJSON_GetObjectItemCaseSensitive(json, "baseline");
  if (baseline) {
    TRY(readString(json, "baseline", out->baseline_name, sizeof(out->baseline_name), true));
    /* The name goes into pruner.tuning as a string attribute: a name, nothing to escape. */
    bool name_ok = out->baseline_name[0] != '\0';
    for (const char *c = out->baseline_name; *c && name_ok; ++c)
      name_ok = isalnum((unsigned char)*c) || strchr("._+-", *c);
    if (!name_ok)
      return prunerStatusError("key 'baseline': '%s' is not a baseline name (letters, digits "
                               "and . _ + -, as cublas, openblas, iree-default)",
                               out->baseline_name);
    if (cJSON_GetObjectItemCaseSensitive(json, "config"))
      return prunerStatusError("key 'baseline' with a 'config': a baseline record measures "
                               "the library, not a config");
    out->is_baseline = true;
  } else {
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(json, "config");
    if (!config)
      return prunerStatusError("missing key 'config' (and not a baseline)");
    TRY(configFromJson(config, &out->config));
    const cJSON *wg = cJSON_GetObjectItemCaseSensitive(config, "workgroup");
    if (out->has_workload && cJSON_GetArraySize(wg) != out->workload.num_loops)
      return prunerStatusError("config: %d entries per array for a workload of %d loops",
                               cJSON_GetArraySize(wg), out->workload.num_loops);
  }
  char status[32];
  TRY(readString(json, "status", status, sizeof(status), true));
  if (!prunerRecordStatusParse(status, &out->status))
    return prunerStatusError("key 'status': unknown status '%s'", status);
  TRY(readString(json, "error", out->error, sizeof(out->error), false));
  TRY(readTimes(json, "samples_us", PRUNER_MAX_SAMPLES, false, out->samples_us,
                &out->num_samples));
  TRY(readTimes(json, "passes_us", PRUNER_MAX_PASSES, true, out->passes_us, &out->num_passes));
  out->median_us = readNumberOr(json, "median_us", NAN);
  if (out->status == PRUNER_RECORD_OK && !(out->median_us > 0.0 && isfinite(out->median_us)))
    return prunerStatusError("key 'median_us': an ok record needs a positive, finite latency");
  if (out->median_us > PRUNER_RECORD_MAX_US)
    return prunerStatusError("key 'median_us': %g us is longer than a day (the longest "
                             "watchdog): not a measurement",
                             out->median_us);
  /* The median of its own samples lies among them: 5e-324 or 0.01 beside samples of
   * 1.1-1.3 us would become the best config unmeasured. */
  if (out->status == PRUNER_RECORD_OK && out->num_samples > 0) {
    double lo = out->samples_us[0], hi = out->samples_us[0];
    for (int i = 1; i < out->num_samples; ++i) {
      lo = out->samples_us[i] < lo ? out->samples_us[i] : lo;
      hi = out->samples_us[i] > hi ? out->samples_us[i] : hi;
    }
    if (out->median_us < lo * (1 - 1e-9) || out->median_us > hi * (1 + 1e-9))
      return prunerStatusError("key 'median_us': %g lies outside its own samples (%g-%g)",
                               out->median_us, lo, hi);
  }
  out->spread_us = readNumberOr(json, "spread_us", NAN);
  out->max_abs_error = readNumberOr(json, "max_abs_error", NAN);
  out->sm_clock_mhz = readNumberOr(json, "sm_clock_mhz", 0.0);
  out->draft_score_us = readNumberOr(json, "draft_score_us", 0.0);
  out->verifier_score = readNumberOr(json, "verifier_score", 0.0);
  out->compile_s = readNumberOr(json, "compile_s", 0.0);
  out->measure_s = readNumberOr(json, "measure_s", 0.0);
  /* Unknown is null (NaN); a known value is finite (cJSON reads 1e999 as an infinity,
   * which would be written back as null), and times, errors and clocks are not negative. */
  const struct {
    const char *key;
    double value;
    bool signed_ok;
  } numbers[] = {{"median_us", out->median_us, false},
                 {"spread_us", out->spread_us, false},
                 {"max_abs_error", out->max_abs_error, false},
                 {"sm_clock_mhz", out->sm_clock_mhz, false},
                 {"draft_score_us", out->draft_score_us, false},
                 {"verifier_score", out->verifier_score, true},
                 {"compile_s", out->compile_s, false},
                 {"measure_s", out->measure_s, false}};
  for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); ++i) {
    double v = numbers[i].value;
    if (isinf(v) || (!numbers[i].signed_ok && v < 0))
      return prunerStatusError("key '%s': %g is not a %s number or null", numbers[i].key, v,
                               numbers[i].signed_ok ? "finite" : "finite, non-negative");
  }
  /* A clock in MHz: 1e300 would scale every modelled time of a study to nothing. */
  if (out->sm_clock_mhz > 100000)
    return prunerStatusError("key 'sm_clock_mhz': %g MHz is not a clock (at most 100000)",
                             out->sm_clock_mhz);
  const cJSON *ptxas = cJSON_GetObjectItemCaseSensitive(json, "ptxas");
  if (cJSON_IsObject(ptxas)) {
    TRY(within("ptxas", readIntOr(ptxas, "registers", -1, INT32_MAX, -1, &out->registers)));
    TRY(within("ptxas",
               readIntOr(ptxas, "spill_bytes", -1, INT32_MAX, -1, &out->spill_bytes)));
    TRY(within("ptxas",
               readIntOr(ptxas, "shared_bytes", -1, INT32_MAX, -1, &out->shared_bytes)));
  }
  out->timestamp = readNumberOr(json, "timestamp", 0.0);
  if (isinf(out->timestamp))
    return prunerStatusError("key 'timestamp': not a finite number");
  return prunerStatusOk();
}

/* Whether `s` is well-formed UTF-8 (no overlong forms or surrogates checked beyond the
 * lead and continuation bytes' shapes: enough that other JSON readers accept the line). */
static bool validUtf8(const unsigned char *s) {
  while (*s) {
    int extra = *s < 0x80           ? 0
                : (*s >> 5) == 0x6  ? 1
                : (*s >> 4) == 0xe  ? 2
                : (*s >> 3) == 0x1e ? 3
                                    : -1;
    if (extra < 0)
      return false;
    ++s;
    for (int i = 0; i < extra; ++i, ++s)
      if ((*s & 0xc0) != 0x80)
        return false;
  }
  return true;
}

/* A line other JSON readers would read differently is refused: a key given twice (cJSON
 * takes the first, Python's json the last) or a string that is not UTF-8 (Python's json
 * refuses the whole file), in any object of the record. */
static PrunerStatus checkPortable(const cJSON *node) {
  if (cJSON_IsString(node) && node->valuestring &&
      !validUtf8((const unsigned char *)node->valuestring))
    return prunerStatusError("a string that is not UTF-8");
  for (const cJSON *c = node->child; c; c = c->next) {
    if (cJSON_IsObject(node) && c->string) {
      for (const cJSON *d = c->next; d; d = d->next)
        if (d->string && strcmp(c->string, d->string) == 0)
          return prunerStatusError("key '%s' given twice", c->string);
      if (!validUtf8((const unsigned char *)c->string))
        return prunerStatusError("a key that is not UTF-8");
    }
    PrunerStatus st = checkPortable(c);
    if (!st.ok)
      return st;
  }
  return prunerStatusOk();
}

PrunerStatus prunerRecordFromJson(const char *line, PrunerRecord *out) {
  prunerRecordInit(out);
  const char *end = NULL;
  /* Null-terminated: two objects glued on one line (a torn line followed by a whole
   * one) are rejected rather than half-read. */
  cJSON *json = cJSON_ParseWithOpts(line, &end, 1);
  if (!json) {
    long offset = end && end >= line ? (long)(end - line) : -1;
    return prunerStatusError("invalid JSON near byte %ld (torn or corrupt line)", offset);
  }
  PrunerStatus status = checkPortable(json);
  if (status.ok)
    status = recordFromJson(json, out);
  cJSON_Delete(json);
  return status;
}
