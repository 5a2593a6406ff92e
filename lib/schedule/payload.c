/* lib/schedule/payload.c: a workload turned back into payload IR (func.func on tensors).
 *
 * Named ops are re-emitted by name (linalg.matmul, linalg.batch_matmul, the three
 * convolutions); contractions, elementwise ops and reductions become a linalg.generic
 * whose indexing maps come from the workload's index coefficients and whose body is the
 * workload's body program, so the payload computes exactly what the original op did. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pruner/checked.h"
#include "pruner/schedule.h"
#include "schedule_internal.h"
#include "pruner/text.h"

const char *prunerScheduleMlirType(PrunerDType dtype) {
  switch (dtype) {
  case PRUNER_DTYPE_F32: return "f32";
  case PRUNER_DTYPE_F16: return "f16";
  case PRUNER_DTYPE_BF16: return "bf16";
  case PRUNER_DTYPE_F64: return "f64";
  case PRUNER_DTYPE_I8: return "i8";
  case PRUNER_DTYPE_I32: return "i32";
  default: return NULL;
  }
}

bool prunerScheduleIsFloat(PrunerDType dtype) {
  return dtype == PRUNER_DTYPE_F32 || dtype == PRUNER_DTYPE_F16 ||
         dtype == PRUNER_DTYPE_BF16 || dtype == PRUNER_DTYPE_F64;
}

static int dtypeBits(PrunerDType dtype) {
  switch (dtype) {
  case PRUNER_DTYPE_F64: return 64;
  case PRUNER_DTYPE_F32: case PRUNER_DTYPE_I32: return 32;
  case PRUNER_DTYPE_F16: case PRUNER_DTYPE_BF16: return 16;
  default: return 8;
  }
}

const char *prunerSchedulePayloadOpName(const PrunerWorkload *w) {
  switch (w->kind) {
  case PRUNER_OP_MATMUL: return "linalg.matmul";
  case PRUNER_OP_BATCH_MATMUL: return "linalg.batch_matmul";
  case PRUNER_OP_CONV_2D_NHWC_HWCF: return "linalg.conv_2d_nhwc_hwcf";
  case PRUNER_OP_CONV_2D_NCHW_FCHW: return "linalg.conv_2d_nchw_fchw";
  case PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC: return "linalg.depthwise_conv_2d_nhwc_hwc";
  default: return "linalg.generic";
  }
}

bool prunerScheduleHasFill(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL ||
         w->kind == PRUNER_OP_CONTRACTION || w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF ||
         w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
         w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
}

void prunerScheduleAppendTensorType(PrunerText *t, const PrunerOperand *o) {
  prunerTextAppend(t, "tensor<");
  for (int d = 0; d < o->rank; ++d)
    prunerTextAppend(t, "%lldx", (long long)o->shape[d]);
  prunerTextAppend(t, "%s>", prunerScheduleMlirType(o->dtype));
}

/* The tensor types of operands [first, last), comma-separated. */
static void appendTensorTypes(PrunerText *t, const PrunerWorkload *w, int first, int last) {
  for (int o = first; o < last; ++o) {
    prunerTextAppend(t, "%s", o > first ? ", " : "");
    prunerScheduleAppendTensorType(t, &w->operands[o]);
  }
}

/* Value numbering of the body program (see workload.h). */
static PrunerDType valueDType(const PrunerWorkload *w, int v) {
  int nops = w->num_inputs + w->num_outputs;
  return v < nops ? w->operands[v].dtype : w->body[v - nops].dtype;
}

static void appendValue(PrunerText *t, const PrunerWorkload *w, int v) {
  int nops = w->num_inputs + w->num_outputs;
  if (v < nops)
    prunerTextAppend(t, "%%b%d", v);
  else
    prunerTextAppend(t, "%%v%d", v - nops);
}

/* A float constant that parses back to the same value in `type` (hex bits for the
 * non-finite values, which have no decimal spelling). */
static PrunerStatus appendFloatConstant(PrunerText *t, double value, PrunerDType dtype) {
  if (isfinite(value)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", value);
    if (!strpbrk(buf, ".e"))
      strcat(buf, ".0");
    prunerTextAppend(t, "%s", buf);
    return prunerStatusOk();
  }
  /* IEEE-754 bit patterns of +-inf and the canonical quiet NaN per type. */
  bool neg = signbit(value);
  bool nan = isnan(value);
  switch (dtype) {
  case PRUNER_DTYPE_F32: prunerTextAppend(t, "0x%08X", nan ? 0x7FC00000u : neg ? 0xFF800000u : 0x7F800000u); break;
  case PRUNER_DTYPE_F64:
    prunerTextAppend(t, "0x%016llX", nan ? 0x7FF8000000000000ull : neg ? 0xFFF0000000000000ull : 0x7FF0000000000000ull);
    break;
  case PRUNER_DTYPE_F16: prunerTextAppend(t, "0x%04X", nan ? 0x7E00u : neg ? 0xFC00u : 0x7C00u); break;
  case PRUNER_DTYPE_BF16: prunerTextAppend(t, "0x%04X", nan ? 0x7FC0u : neg ? 0xFF80u : 0x7F80u); break;
  default: return prunerStatusError("body constant %g is not finite but its type is integer", value);
  }
  return prunerStatusOk();
}

static const char *castOpName(PrunerDType from, PrunerDType to) {
  bool ff = prunerScheduleIsFloat(from), tf = prunerScheduleIsFloat(to);
  if (ff && tf) {
    if (dtypeBits(to) > dtypeBits(from)) return "arith.extf";
    if (dtypeBits(to) < dtypeBits(from)) return "arith.truncf";
    return NULL; /* f16 <-> bf16 has no single arith op */
  }
  if (!ff && tf) return "arith.sitofp";
  if (ff && !tf) return "arith.fptosi";
  if (dtypeBits(to) > dtypeBits(from)) return "arith.extsi";
  if (dtypeBits(to) < dtypeBits(from)) return "arith.trunci";
  return NULL;
}

/* The math op of a unary float body opcode (workload_from_op.c reads the same names). */
static const char *unaryMathName(PrunerBodyOpcode opcode) {
  switch (opcode) {
  case PRUNER_BODY_EXP: return "math.exp";
  case PRUNER_BODY_TANH: return "math.tanh";
  case PRUNER_BODY_LOG: return "math.log";
  case PRUNER_BODY_SQRT: return "math.sqrt";
  case PRUNER_BODY_RSQRT: return "math.rsqrt";
  case PRUNER_BODY_ERF: return "math.erf";
  case PRUNER_BODY_ABS: return "math.absf";
  default: return NULL;
  }
}

static PrunerStatus appendBodyOp(PrunerText *t, const PrunerWorkload *w, int i) {
  const PrunerBodyOp *op = &w->body[i];
  const char *ty = prunerScheduleMlirType(op->dtype);
  bool fl = prunerScheduleIsFloat(op->dtype);
  const char *name = NULL;
  int arity = 2;
  switch (op->opcode) {
  case PRUNER_BODY_ADD: name = fl ? "arith.addf" : "arith.addi"; break;
  case PRUNER_BODY_SUB: name = fl ? "arith.subf" : "arith.subi"; break;
  case PRUNER_BODY_MUL: name = fl ? "arith.mulf" : "arith.muli"; break;
  case PRUNER_BODY_DIV: name = fl ? "arith.divf" : "arith.divsi"; break;
  case PRUNER_BODY_MAX: name = fl ? "arith.maximumf" : "arith.maxsi"; break;
  case PRUNER_BODY_MIN: name = fl ? "arith.minimumf" : "arith.minsi"; break;
  case PRUNER_BODY_NEG:
    if (!fl) { /* no arith.negi: 0 - x */
      prunerTextAppend(t, "      %%z%d = arith.constant 0 : %s\n      %%v%d = arith.subi %%z%d, ", i, ty, i, i);
      appendValue(t, w, op->args[0]);
      prunerTextAppend(t, " : %s\n", ty);
      return prunerStatusOk();
    }
    name = "arith.negf";
    arity = 1;
    break;
  case PRUNER_BODY_EXP:
  case PRUNER_BODY_TANH:
  case PRUNER_BODY_LOG:
  case PRUNER_BODY_SQRT:
  case PRUNER_BODY_RSQRT:
  case PRUNER_BODY_ERF:
  case PRUNER_BODY_ABS:
    name = unaryMathName(op->opcode);
    if (!fl)
      return prunerStatusError("body op %d of %s: %s of integer type %s", i, w->op_name, name, ty);
    arity = 1;
    break;
  case PRUNER_BODY_CONST:
    prunerTextAppend(t, "      %%v%d = arith.constant ", i);
    if (fl) {
      PrunerStatus s = appendFloatConstant(t, op->constant, op->dtype);
      if (!s.ok)
        return s;
    } else {
      prunerTextAppend(t, "%lld", (long long)op->constant);
    }
    prunerTextAppend(t, " : %s\n", ty);
    return prunerStatusOk();
  case PRUNER_BODY_CAST: {
    PrunerDType from = valueDType(w, op->args[0]);
    const char *cast = castOpName(from, op->dtype);
    if (!cast)
      return prunerStatusError("body op %d of %s: no single cast from %s to %s", i, w->op_name,
                               prunerScheduleMlirType(from), ty);
    prunerTextAppend(t, "      %%v%d = %s ", i, cast);
    appendValue(t, w, op->args[0]);
    prunerTextAppend(t, " : %s to %s\n", prunerScheduleMlirType(from), ty);
    return prunerStatusOk();
  }
  default:
    return prunerStatusError("body op %d of %s: unknown opcode %d", i, w->op_name, (int)op->opcode);
  }
  prunerTextAppend(t, "      %%v%d = %s ", i, name);
  for (int a = 0; a < arity; ++a) {
    if (a)
      prunerTextAppend(t, ", ");
    appendValue(t, w, op->args[a]);
  }
  prunerTextAppend(t, " : %s\n", ty);
  return prunerStatusOk();
}

static void appendIndexingMap(PrunerText *t, const PrunerWorkload *w, const PrunerOperand *o) {
  prunerTextAppend(t, "affine_map<(");
  for (int l = 0; l < w->num_loops; ++l)
    prunerTextAppend(t, "%sd%d", l ? ", " : "", l);
  prunerTextAppend(t, ") -> (");
  for (int d = 0; d < o->rank; ++d) {
    prunerTextAppend(t, "%s", d ? ", " : "");
    bool any = false;
    for (int l = 0; l < w->num_loops; ++l) {
      int64_t c = o->index_coeff[d][l];
      if (!c)
        continue;
      prunerTextAppend(t, "%s", any ? " + " : "");
      if (c == 1)
        prunerTextAppend(t, "d%d", l);
      else
        prunerTextAppend(t, "d%d * %lld", l, (long long)c);
      any = true;
    }
    if (!any)
      prunerTextAppend(t, "0");
  }
  prunerTextAppend(t, ")>");
}

static PrunerStatus appendGeneric(PrunerText *t, const PrunerWorkload *w, int nops,
                                  const char *const *outs) {
  if (w->num_outputs > 1)
    prunerTextAppend(t, "  %%r:%d = linalg.generic {indexing_maps = [", w->num_outputs);
  else
    prunerTextAppend(t, "  %%r = linalg.generic {indexing_maps = [");
  for (int o = 0; o < nops; ++o) {
    prunerTextAppend(t, "%s", o ? ", " : "");
    appendIndexingMap(t, w, &w->operands[o]);
  }
  prunerTextAppend(t, "], iterator_types = [");
  for (int l = 0; l < w->num_loops; ++l)
    prunerTextAppend(t, "%s\"%s\"", l ? ", " : "",
                     w->loop_kinds[l] == PRUNER_LOOP_PARALLEL ? "parallel" : "reduction");
  prunerTextAppend(t, "]}\n      ");
  if (w->num_inputs > 0) { /* a generic may read its outputs only: no ins() at all */
    prunerTextAppend(t, "ins(");
    for (int o = 0; o < w->num_inputs; ++o)
      prunerTextAppend(t, "%s%%a%d", o ? ", " : "", o);
    prunerTextAppend(t, " : ");
    appendTensorTypes(t, w, 0, w->num_inputs);
    prunerTextAppend(t, ") ");
  }
  prunerTextAppend(t, "outs(");
  for (int o = w->num_inputs; o < nops; ++o)
    prunerTextAppend(t, "%s%s", o > w->num_inputs ? ", " : "", outs[o - w->num_inputs]);
  prunerTextAppend(t, " : ");
  appendTensorTypes(t, w, w->num_inputs, nops);
  prunerTextAppend(t, ") {\n    ^bb0(");
  for (int o = 0; o < nops; ++o)
    prunerTextAppend(t, "%s%%b%d: %s", o ? ", " : "", o,
                     prunerScheduleMlirType(w->operands[o].dtype));
  prunerTextAppend(t, "):\n");
  for (int i = 0; i < w->body_len; ++i) {
    PrunerStatus s = appendBodyOp(t, w, i);
    if (!s.ok)
      return s;
  }
  prunerTextAppend(t, "      linalg.yield ");
  for (int o = 0; o < w->num_outputs; ++o) {
    prunerTextAppend(t, "%s", o ? ", " : "");
    appendValue(t, w, w->body_yield[o]);
  }
  prunerTextAppend(t, " : ");
  for (int o = 0; o < w->num_outputs; ++o)
    prunerTextAppend(t, "%s%s", o ? ", " : "",
                     prunerScheduleMlirType(valueDType(w, w->body_yield[o])));
  prunerTextAppend(t, "\n  } -> ");
  return prunerStatusOk();
}

static void appendNamed(PrunerText *t, const PrunerWorkload *w, const char *out) {
  prunerTextAppend(t, "  %%r = %s ", prunerSchedulePayloadOpName(w));
  if (w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW ||
      w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC)
    prunerTextAppend(t,
                     "{dilations = dense<[%lld, %lld]> : tensor<2xi64>, "
                     "strides = dense<[%lld, %lld]> : tensor<2xi64>}\n      ",
                     (long long)w->dilations[0], (long long)w->dilations[1],
                     (long long)w->strides[0], (long long)w->strides[1]);
  prunerTextAppend(t, "ins(%%a0, %%a1 : ");
  prunerScheduleAppendTensorType(t, &w->operands[0]);
  prunerTextAppend(t, ", ");
  prunerScheduleAppendTensorType(t, &w->operands[1]);
  prunerTextAppend(t, ") outs(%s : ", out);
  prunerScheduleAppendTensorType(t, &w->operands[2]);
  prunerTextAppend(t, ") -> ");
}

PrunerStatus prunerSchedulePayload(const PrunerWorkload *w, const char *func_name,
                                   bool with_fill, char **text) {
  *text = NULL;
  int nops = w->num_inputs + w->num_outputs;
  if (w->num_outputs < 1 || nops > PRUNER_MAX_OPERANDS)
    return prunerStatusError("payload for %s: %d inputs and %d outputs are not supported",
                             w->op_name, w->num_inputs, w->num_outputs);
  for (int o = 0; o < nops; ++o)
    if (!prunerScheduleMlirType(w->operands[o].dtype))
      return prunerStatusError("payload for %s: operand %d has unknown dtype %d", w->op_name, o,
                               (int)w->operands[o].dtype);
  bool named = strcmp(prunerSchedulePayloadOpName(w), "linalg.generic") != 0;
  if (named && (w->num_inputs != 2 || w->num_outputs != 1))
    return prunerStatusError("payload for %s (%s): expected 2 inputs and 1 output", w->op_name,
                             prunerSchedulePayloadOpName(w));
  bool fill = with_fill && prunerScheduleHasFill(w) && w->num_outputs == 1;

  PrunerText t;
  prunerTextInit(&t);
  prunerTextAppend(&t, "func.func @%s(", func_name);
  for (int o = 0; o < nops; ++o) {
    prunerTextAppend(&t, "%s%%a%d: ", o ? ", " : "", o);
    prunerScheduleAppendTensorType(&t, &w->operands[o]);
  }
  prunerTextAppend(&t, ") -> (");
  appendTensorTypes(&t, w, w->num_inputs, nops);
  prunerTextAppend(&t, ") {\n");

  char outs[PRUNER_MAX_OPERANDS][16];
  for (int o = 0; o < w->num_outputs; ++o)
    snprintf(outs[o], sizeof outs[o], "%%a%d", w->num_inputs + o);
  if (fill) {
    const PrunerOperand *out = &w->operands[w->num_inputs];
    const char *ty = prunerScheduleMlirType(out->dtype);
    prunerTextAppend(&t, "  %%zero = arith.constant %s : %s\n",
                     prunerScheduleIsFloat(out->dtype) ? "0.0" : "0", ty);
    prunerTextAppend(&t, "  %%init = linalg.fill ins(%%zero : %s) outs(%s : ", ty, outs[0]);
    prunerScheduleAppendTensorType(&t, out);
    prunerTextAppend(&t, ") -> ");
    prunerScheduleAppendTensorType(&t, out);
    prunerTextAppend(&t, "\n");
    snprintf(outs[0], sizeof outs[0], "%%init");
  }

  if (named) {
    appendNamed(&t, w, outs[0]);
  } else {
    const char *out_names[PRUNER_MAX_OPERANDS];
    for (int o = 0; o < w->num_outputs; ++o)
      out_names[o] = outs[o];
    PrunerStatus s = appendGeneric(&t, w, nops, out_names);
    if (!s.ok) {
      prunerTextRelease(&t);
      return s;
    }
  }
  if (w->num_outputs > 1) /* several results: a parenthesized type list */
    prunerTextAppend(&t, "(");
  appendTensorTypes(&t, w, w->num_inputs, nops);
  prunerTextAppend(&t, "%s\n  return ", w->num_outputs > 1 ? ")" : "");
  if (w->num_outputs == 1)
    prunerTextAppend(&t, "%%r");
  for (int o = 0; o < w->num_outputs && w->num_outputs > 1; ++o)
    prunerTextAppend(&t, "%s%%r#%d", o ? ", " : "", o);
  prunerTextAppend(&t, " : ");
  appendTensorTypes(&t, w, w->num_inputs, nops);
  prunerTextAppend(&t, "\n}\n");
  return prunerTextFinish(&t, "payload", text);
}

void prunerScheduleMemrefDescriptor(PrunerMemrefDescriptor *d, void *data,
                                    const PrunerOperand *o) {
  d->allocated = d->aligned = data;
  d->offset = 0;
  int64_t stride = 1;
  for (int i = o->rank - 1; i >= 0; --i) {
    d->sizes_strides[i] = o->shape[i];
    d->sizes_strides[o->rank + i] = stride;
    stride = prunerSatMul(stride, o->shape[i]); /* the last product is unused */
  }
}
