/* lib/ir/conv_to_matmul.c: a 1x1, stride-1 linalg.conv_2d_nhwc_hwcf rewritten as the GEMM
 * it is (docs/plugin.md, "pruner-conv1x1-to-matmul").
 *
 * With a 1x1 filter and unit strides, output pixel (n, oh, ow) reads input pixel
 * (n, oh, ow) only, and NHWC keeps the channels of one pixel contiguous, so the input is
 * the row-major matrix (N*H*W) x C, the filter (1 x 1 x C x F) is C x F and the output is
 * (N*H*W) x F: three tensor.collapse_shape ops (pure reshapes, no copy), a linalg.matmul,
 * and a tensor.expand_shape back to the conv's result type. The conv's M = N*H*W then
 * tiles freely (a conv's M tile must stay inside one output row, docs/config.md rule 12),
 * which is what tensor-core tiles of 16 rows need on ResNet's widths (7, 14, 28, 56).
 *
 * A 1x1 stride-1 linalg.conv_2d_nchw_fchw of one image is a GEMM too, the other way round:
 * the filter (F x C x 1 x 1) is the F x C matrix A, the image (1 x C x H x W) the C x (H*W)
 * matrix B and the output (1 x F x H x W) F x (H*W). Several images would be one GEMM
 * each; such convs stay convs (the host runs them channels-last, docs/host.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Linalg.h>

#include "ir_internal.h"
#include "pruner/checked.h"
#include "pruner/ir.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* The module's conv_2d_nhwc_hwcf ops as the shared walk sees them (prunerWalkTunableOps:
 * the one walk the tuner and the passes agree on, so a conv of a nested module, which the
 * tuner leaves alone, is left alone here too), each with its workload's status. */
typedef struct Conv {
  MlirOperation op;
  PrunerStatus workload; /* ok, or why the conv is not tunable at all */
} Conv;

typedef struct ConvList {
  Conv *convs;
  int count, cap;
  bool out_of_memory;
} ConvList;

static MlirWalkResult collectConv(MlirOperation op, const PrunerWorkload *w,
                                  const PrunerStatus *why, void *user) {
  ConvList *list = user;
  char name[64];
  prunerIrOpName(op, name, sizeof name);
  if (strcmp(name, "linalg.conv_2d_nhwc_hwcf") != 0 &&
      strcmp(name, "linalg.conv_2d_nchw_fchw") != 0)
    return MlirWalkResultAdvance;
  if (list->count == list->cap) {
    int cap = list->cap ? 2 * list->cap : 16;
    Conv *grown = realloc(list->convs, (size_t)cap * sizeof *grown);
    if (!grown) {
      list->out_of_memory = true;
      return MlirWalkResultInterrupt;
    }
    list->convs = grown;
    list->cap = cap;
  }
  Conv *c = &list->convs[list->count++];
  c->op = op;
  c->workload = w ? prunerStatusOk() : *why;
  return MlirWalkResultAdvance;
}

/* Why `conv` is not rewritten (a remark's text), or NULL when it is a 1x1 stride-1 conv
 * on static tensors whose input and output have the same spatial size. */
static const char *whyNot(MlirOperation conv, const PrunerWorkload *w,
                          const PrunerStatus *workload, char *buf, size_t size) {
  if (!workload->ok) {
    snprintf(buf, size, "%s", workload->message);
    return buf;
  }
  if (!mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(conv, str(PRUNER_CONFIG_ATTR))))
    return "it carries a pruner.config, whose tiles are the conv's loops";
  if (mlirOperationGetNumResults(conv) != 1)
    return "it writes a memref (the rewrite reshapes tensors)";
  const PrunerOperand *in = &w->operands[0], *f = &w->operands[1], *out = &w->operands[2];
  /* Dims of the filter's taps and of the images' pixels: NHWC/HWCF (0, 1) and (1, 2);
   * NCHW/FCHW (2, 3) and (2, 3). */
  const bool nchw = w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW;
  const int tap = nchw ? 2 : 0, pixel = nchw ? 2 : 1;
  if (f->shape[tap] != 1 || f->shape[tap + 1] != 1) {
    snprintf(buf, size, "its filter is %lldx%lld, not 1x1", (long long)f->shape[tap],
             (long long)f->shape[tap + 1]);
    return buf;
  }
  if (w->strides[0] != 1 || w->strides[1] != 1) {
    snprintf(buf, size, "its strides are [%lld, %lld], not [1, 1]", (long long)w->strides[0],
             (long long)w->strides[1]);
    return buf;
  }
  if (nchw && in->shape[0] != 1) {
    snprintf(buf, size, "it is NCHW with %lld images: one GEMM per image, not one GEMM",
             (long long)in->shape[0]);
    return buf;
  }
  int64_t rows; /* the GEMM's pixel dim: N*H*W (NHWC), H*W (NCHW, one image) */
  if (!prunerCheckedProduct(out->shape + pixel - 1 + nchw, 3 - nchw, &rows)) {
    if (nchw)
      snprintf(buf, size, "its H*W = %lld*%lld does not fit in 64 bits",
               (long long)out->shape[pixel], (long long)out->shape[pixel + 1]);
    else
      snprintf(buf, size, "its N*H*W = %lld*%lld*%lld does not fit in 64 bits",
               (long long)out->shape[0], (long long)out->shape[pixel],
               (long long)out->shape[pixel + 1]);
    return buf;
  }
  if (in->shape[pixel] != out->shape[pixel] || in->shape[pixel + 1] != out->shape[pixel + 1]) {
    snprintf(buf, size,
             "its input is %lldx%lld pixels and its output %lldx%lld: only equal sizes "
             "make the input the matrix %s",
             (long long)in->shape[pixel], (long long)in->shape[pixel + 1],
             (long long)out->shape[pixel], (long long)out->shape[pixel + 1],
             nchw ? "C x (H*W)" : "(N*H*W) x C");
    return buf;
  }
  return NULL;
}

/* The reassociation of a rank-4 shape into two dims, the first `lead` dims and the rest. */
static MlirAttribute reassociation4to2(MlirContext ctx, int lead) {
  MlirAttribute dims[4] = {prunerIrI64(ctx, 0), prunerIrI64(ctx, 1), prunerIrI64(ctx, 2),
                           prunerIrI64(ctx, 3)};
  MlirAttribute groups[2] = {mlirArrayAttrGet(ctx, lead, dims),
                             mlirArrayAttrGet(ctx, 4 - lead, dims + lead)};
  return mlirArrayAttrGet(ctx, 2, groups);
}

/* `value` (a rank-4 tensor) collapsed to rows x cols, its first `lead` dims the rows,
 * inserted before `before`. */
static MlirValue collapse(MlirValue value, int lead, int64_t rows, int64_t cols,
                          MlirLocation loc, MlirOperation before) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType type = mlirValueGetType(value);
  int64_t shape[2] = {rows, cols};
  MlirType result = mlirRankedTensorTypeGet(2, shape, mlirShapedTypeGetElementType(type),
                                            mlirRankedTensorTypeGetEncoding(type));
  MlirNamedAttribute reassoc =
      prunerIrNamed(ctx, "reassociation", reassociation4to2(ctx, lead));
  MlirOperationState st = mlirOperationStateGet(str("tensor.collapse_shape"), loc);
  mlirOperationStateAddOperands(&st, 1, &value);
  mlirOperationStateAddResults(&st, 1, &result);
  mlirOperationStateAddAttributes(&st, 1, &reassoc);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return mlirOperationGetResult(op, 0);
}

/* A named linalg op (`name`: linalg.matmul, linalg.fill) over `ins` and one init, with the
 * body MLIR's own region builder gives it, inserted before `before`. */
static MlirOperation namedLinalg(const char *name, const MlirValue *ins, int num_ins,
                                 MlirValue init, MlirLocation loc, MlirOperation before) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirValue operands[3];
  for (int i = 0; i < num_ins; ++i)
    operands[i] = ins[i];
  operands[num_ins] = init;
  MlirType result = mlirValueGetType(init);
  int32_t segments[2] = {num_ins, 1};
  MlirNamedAttribute seg =
      prunerIrNamed(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments));
  MlirRegion body = mlirRegionCreate();
  MlirOperationState st = mlirOperationStateGet(str(name), loc);
  mlirOperationStateAddOperands(&st, num_ins + 1, operands);
  mlirOperationStateAddResults(&st, 1, &result);
  mlirOperationStateAddAttributes(&st, 1, &seg);
  mlirOperationStateAddOwnedRegions(&st, 1, &body);
  MlirOperation op = mlirOperationCreate(&st);
  mlirLinalgFillBuiltinNamedOpRegion(op);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return op;
}

/* The linalg.fill defining `value` when it is one on tensors, else a null op. */
static MlirOperation definingFill(MlirValue value) {
  if (!mlirValueIsAOpResult(value))
    return (MlirOperation){NULL};
  MlirOperation def = mlirOpResultGetOwner(value);
  char name[32];
  prunerIrOpName(def, name, sizeof name);
  if (strcmp(name, "linalg.fill") != 0 || mlirOperationGetNumResults(def) != 1)
    return (MlirOperation){NULL};
  return def;
}

static void rewriteOne(MlirOperation conv, const PrunerWorkload *w) {
  MlirContext ctx = mlirOperationGetContext(conv);
  MlirLocation loc = mlirOperationGetLocation(conv);
  const int64_t *in = w->operands[0].shape, *out = w->operands[2].shape;
  /* NHWC: A = the input (N*H*W) x C, B = the filter C x F, the output (N*H*W) x F, each
   * collapsed after its first 3 dims. NCHW: A = the filter F x C (after 1 dim), B = the
   * image C x (H*W) and the output F x (H*W) (after 2). */
  const bool nchw = w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW;
  const int out_lead = nchw ? 2 : 3;
  int64_t m, n, k;
  MlirValue a, b;
  if (nchw) {
    m = out[1], n = out[2] * out[3], k = in[1];
    a = collapse(mlirOperationGetOperand(conv, 1), 1, m, k, loc, conv);
    b = collapse(mlirOperationGetOperand(conv, 0), 2, k, n, loc, conv);
  } else {
    m = out[0] * out[1] * out[2], n = out[3], k = in[3];
    a = collapse(mlirOperationGetOperand(conv, 0), 3, m, k, loc, conv);
    b = collapse(mlirOperationGetOperand(conv, 1), 3, k, n, loc, conv);
  }
  /* A fill of the output moves past the reshape (a fill's producer-consumer fusion into
   * the GEMM's blocks needs the fill to be the matmul's init itself). */
  MlirValue init = mlirOperationGetOperand(conv, 2);
  MlirOperation fill = definingFill(init);
  MlirValue acc;
  if (!mlirOperationIsNull(fill)) {
    MlirValue value = mlirOperationGetOperand(fill, 0);
    MlirValue dest = collapse(mlirOperationGetOperand(fill, 1), out_lead, m, n, loc, conv);
    acc = mlirOperationGetResult(
        namedLinalg("linalg.fill", &value, 1, dest, mlirOperationGetLocation(fill), conv), 0);
  } else {
    acc = collapse(init, out_lead, m, n, loc, conv);
  }
  MlirValue ab[2] = {a, b};
  MlirOperation matmul = namedLinalg("linalg.matmul", ab, 2, acc, loc, conv);

  MlirValue product = mlirOperationGetResult(matmul, 0);
  MlirType result = mlirValueGetType(mlirOperationGetResult(conv, 0));
  MlirNamedAttribute attrs[2] = {
      prunerIrNamed(ctx, "reassociation", reassociation4to2(ctx, out_lead)),
      prunerIrNamed(ctx, "static_output_shape", mlirDenseI64ArrayGet(ctx, 4, out)),
  };
  MlirOperationState st = mlirOperationStateGet(str("tensor.expand_shape"), loc);
  mlirOperationStateAddOperands(&st, 1, &product);
  mlirOperationStateAddResults(&st, 1, &result);
  mlirOperationStateAddAttributes(&st, 2, attrs);
  MlirOperation expand = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(conv), conv, expand);

  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(conv, 0),
                                mlirOperationGetResult(expand, 0));
  mlirOperationDestroy(conv);
  if (!mlirOperationIsNull(fill) && mlirOpOperandIsNull(mlirValueGetFirstUse(init)))
    mlirOperationDestroy(fill);
}

/* Why list entry `c` stays a conv (NULL: it is rewritten); `w` receives its workload. */
static const char *convWhyNot(const Conv *c, PrunerWorkload *w, char *buf, size_t size) {
  PrunerStatus ws = c->workload.ok ? prunerWorkloadFromOperation(c->op, w) : c->workload;
  return whyNot(c->op, w, &ws, buf, size);
}

int prunerIrCountConv1x1AsMatmul(MlirOperation root) {
  ConvList list = {0};
  prunerWalkTunableOps(root, collectConv, &list);
  int count = 0;
  for (int i = 0; i < list.count; ++i) {
    PrunerWorkload w;
    char buf[PRUNER_STATUS_MESSAGE_SIZE];
    count += convWhyNot(&list.convs[i], &w, buf, sizeof buf) == NULL;
  }
  free(list.convs);
  return count;
}

PrunerStatus prunerIrConv1x1ToMatmul(MlirOperation root, int *rewritten) {
  if (rewritten)
    *rewritten = 0;
  ConvList list = {0};
  prunerWalkTunableOps(root, collectConv, &list);
  if (list.out_of_memory) {
    free(list.convs);
    return prunerStatusError("pruner-conv1x1-to-matmul: out of memory listing the convs");
  }
  /* The ops the rewrite creates must exist in the context (linalg loads tensor), or a
   * creation would fail halfway through a conv. */
  static const char *const kCreated[] = {"tensor.collapse_shape", "tensor.expand_shape",
                                         "linalg.matmul", "linalg.fill"};
  MlirContext ctx = mlirOperationGetContext(root);
  for (size_t i = 0; list.count > 0 && i < sizeof kCreated / sizeof *kCreated; ++i)
    if (!mlirContextIsRegisteredOperation(ctx, str(kCreated[i]))) {
      free(list.convs);
      return prunerStatusError("pruner-conv1x1-to-matmul: %s is not registered in the "
                               "context; nothing was rewritten",
                               kCreated[i]);
    }
  for (int i = 0; i < list.count; ++i) {
    PrunerWorkload w;
    char buf[PRUNER_STATUS_MESSAGE_SIZE], msg[PRUNER_STATUS_MESSAGE_SIZE + 64];
    const char *why = convWhyNot(&list.convs[i], &w, buf, sizeof buf);
    if (why) {
      snprintf(msg, sizeof msg, "pruner: conv kept as a conv, not a GEMM: %s", why);
      prunerEmitRemark(list.convs[i].op, msg);
      continue;
    }
    rewriteOne(list.convs[i].op, &w);
    if (rewritten)
      ++*rewritten;
  }
  free(list.convs);
  return prunerStatusOk();
}
