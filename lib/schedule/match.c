/* lib/schedule/match.c: the structured-op matcher of tuning specs (pruner/schedule.h),
 * shared by the project's own spec (lib/tune/spec.c) and IREE's (lib/backend/iree). Built
 * from upstream transform match ops only; format in docs/tuning-spec.md. */
#include <stdio.h>
#include <string.h>

#include "pruner/schedule.h"

static void appendParamEq(PrunerText *b, const char *value, long long want, int *counter) {
  int c = (*counter)++;
  prunerTextAppend(b,
                   "      %%want%d = transform.param.constant %lld : i64 -> !transform.param<i64>\n"
                   "      transform.match.param.cmpi eq %s, %%want%d : !transform.param<i64>\n",
                   c, want, value, c);
}

static bool isFloat(PrunerDType t) {
  return t == PRUNER_DTYPE_F32 || t == PRUNER_DTYPE_F16 || t == PRUNER_DTYPE_BF16 ||
         t == PRUNER_DTYPE_F64;
}

void prunerScheduleAppendStructuredMatch(PrunerText *b, const char *op, const PrunerWorkload *w,
                                         bool generic_body) {
  int counter = 0;
  prunerTextAppend(b,
                   "    transform.match.structured %s : !transform.any_op {\n"
                   "    ^bb0(%%s: !transform.any_op):\n"
                   "      %%rank = transform.match.structured.rank %%s : (!transform.any_op) -> "
                   "!transform.param<i64>\n",
                   op);
  appendParamEq(b, "%rank", w->num_loops, &counter);
  /* The operand counts: without them a unary generic's matcher (a ReLU) also matches a
   * binary one of the same shape (a bias add), whose input 0 and init look the same. */
  prunerTextAppend(b, "      %%ninputs = transform.match.structured.num_inputs %%s : "
                      "(!transform.any_op) -> !transform.param<i64>\n");
  appendParamEq(b, "%ninputs", w->num_inputs, &counter);
  prunerTextAppend(b, "      %%ninits = transform.match.structured.num_inits %%s : "
                      "(!transform.any_op) -> !transform.param<i64>\n");
  appendParamEq(b, "%ninits", w->num_outputs, &counter);
  /* Each loop's size and kind: without the kind a config tuned for a reduction over a
   * shape also went onto an elementwise generic of that shape, whose apply then failed
   * (a workgroup tile on a reduction loop). */
  for (int l = 0; l < w->num_loops; ++l) {
    const char *kind = w->loop_kinds[l] == PRUNER_LOOP_REDUCTION ? "reduction" : "parallel";
    /* IREE's parser (strict properties) reads the kind only in the generic form. */
    if (generic_body)
      prunerTextAppend(b,
                       "      %%dim%d = \"transform.match.structured.dim\"(%%s) <{%s, "
                       "raw_dim_list = array<i64: %d>}> : (!transform.any_op) -> "
                       "!transform.param<i64>\n",
                       l, kind, l);
    else
      prunerTextAppend(b,
                       "      %%dim%d = transform.match.structured.dim %%s[%d] {%s} : "
                       "(!transform.any_op) -> !transform.param<i64>\n",
                       l, l, kind);
    char name[16];
    snprintf(name, sizeof name, "%%dim%d", l);
    appendParamEq(b, name, (long long)w->bounds[l], &counter);
  }
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o) {
    bool init = o >= w->num_inputs;
    int pos = init ? o - w->num_inputs : o;
    prunerTextAppend(b,
                     "      %%operand%d = transform.match.structured.%s %%s[%d] : "
                     "(!transform.any_op) -> !transform.any_value\n"
                     "      %%bits%d = transform.match.structured.elemental_bitwidth %%operand%d : "
                     "(!transform.any_value) -> !transform.param<i64>\n",
                     o, init ? "init" : "input", pos, o, o);
    char name[24]; /* "%bits" and any int: no truncation for the compiler to warn of */
    snprintf(name, sizeof name, "%%bits%d", o);
    appendParamEq(b, name, 8LL * prunerDTypeBytes(w->operands[o].dtype), &counter);
  }
  /* Bitwidths cannot tell f32 from i32: for contractions the body can. */
  if (w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL ||
      w->kind == PRUNER_OP_CONTRACTION) {
    bool fp = isFloat(w->operands[w->num_inputs].dtype);
    const char *mul = fp ? "arith.mulf" : "arith.muli", *add = fp ? "arith.addf" : "arith.addi";
    if (generic_body)
      prunerTextAppend(b,
                       "      \"transform.match.structured.body\"(%%s) <{contraction = [\"%s\", "
                       "\"%s\"]}> : (!transform.any_op) -> ()\n",
                       mul, add);
    else
      prunerTextAppend(b,
                       "      transform.match.structured.body %%s {contraction = [\"%s\", "
                       "\"%s\"]} : !transform.any_op\n",
                       mul, add);
  }
  prunerTextAppend(b, "      transform.match.structured.yield\n"
                      "    }\n");
}

int prunerScheduleMatcherOpNames(const PrunerWorkload *w, const char *names[2]) {
  if (w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL) {
    names[0] = w->kind == PRUNER_OP_MATMUL ? "linalg.matmul" : "linalg.batch_matmul";
    names[1] = "linalg.contract";
    return 2;
  }
  names[0] = w->op_name;
  return 1;
}

static bool isContraction(const PrunerWorkload *w) {
  return w->kind == PRUNER_OP_MATMUL || w->kind == PRUNER_OP_BATCH_MATMUL ||
         w->kind == PRUNER_OP_CONTRACTION;
}

bool prunerScheduleMatchersAlike(const PrunerWorkload *a, const PrunerWorkload *b) {
  const char *an[2], *bn[2];
  int na = prunerScheduleMatcherOpNames(a, an), nb = prunerScheduleMatcherOpNames(b, bn);
  bool common = false;
  for (int i = 0; i < na; ++i)
    for (int j = 0; j < nb; ++j)
      common |= strcmp(an[i], bn[j]) == 0;
  if (!common || a->num_loops != b->num_loops || a->num_inputs != b->num_inputs ||
      a->num_outputs != b->num_outputs)
    return false;
  for (int l = 0; l < a->num_loops; ++l)
    if (a->bounds[l] != b->bounds[l] || a->loop_kinds[l] != b->loop_kinds[l])
      return false;
  for (int o = 0; o < a->num_inputs + a->num_outputs; ++o)
    if (prunerDTypeBytes(a->operands[o].dtype) != prunerDTypeBytes(b->operands[o].dtype))
      return false;
  /* A contraction's matcher checks its body (mulf/addf or muli/addi): f32 and i32 apart,
   * and a contraction apart from another generic. Two contractions of one op name differ
   * only in their maps (a plain and a transposed linalg.matmul), which it does not see. */
  if (isContraction(a) != isContraction(b))
    return false;
  if (isContraction(a) &&
      isFloat(a->operands[a->num_inputs].dtype) != isFloat(b->operands[b->num_inputs].dtype))
    return false;
  return true;
}
