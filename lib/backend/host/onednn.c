/* lib/backend/host/onednn.c: oneDNN's forward convolution, the conv library baseline of the
 * host's back-to-back runs (docs/host.md, "oneDNN: a conv library baseline").
 *
 * Only the measuring child calls this. libdnnl.so.2 is dlopen'ed, never linked: the build
 * takes the function types from oneDNN's header (libdnnl-dev) when it is installed and
 * the run needs the library only when a oneDNN entry is asked for. It is opened with
 * RTLD_LOCAL | RTLD_DEEPBIND for the reason BLIS is (host.c, blisStart): the kernels'
 * libomp is loaded into the global scope first and exports GOMP_* entry points too, and
 * oneDNN's OpenMP calls must reach its own libgomp. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "pruner/worker.h"

#if PRUNER_HOST_HAVE_ONEDNN_H
#include <oneapi/dnnl/dnnl.h>

/* The entry points used, typed from the header, resolved in the library's own handle. */
#define ONEDNN_FUNCTIONS(X)                                                                  \
  X(dnnl_engine_create) X(dnnl_engine_destroy) X(dnnl_stream_create) X(dnnl_stream_destroy)  \
  X(dnnl_stream_wait) X(dnnl_memory_desc_init_by_strides) X(dnnl_memory_desc_init_by_tag)    \
  X(dnnl_dilated_convolution_forward_desc_init) X(dnnl_primitive_attr_create)                \
  X(dnnl_primitive_attr_destroy) X(dnnl_post_ops_create) X(dnnl_post_ops_destroy)            \
  X(dnnl_post_ops_append_sum) X(dnnl_primitive_attr_set_post_ops)                            \
  X(dnnl_primitive_desc_create) X(dnnl_primitive_desc_destroy) X(dnnl_primitive_desc_query)  \
  X(dnnl_primitive_desc_query_md) X(dnnl_memory_create) X(dnnl_memory_destroy)               \
  X(dnnl_reorder_primitive_desc_create) X(dnnl_primitive_create) X(dnnl_primitive_destroy)   \
  X(dnnl_primitive_execute) X(dnnl_version) X(dnnl_set_max_cpu_isa) X(dnnl_memory_desc_equal)

struct HostOnednn {
  void *lib;
  void (*set_threads)(int); /* its libgomp's omp_set_num_threads */
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  char version[32];
#define ONEDNN_FIELD(f) __typeof__(f) *f;
  ONEDNN_FUNCTIONS(ONEDNN_FIELD)
#undef ONEDNN_FIELD
};

struct HostOnednnConv {
  HostOnednn *lib;
  dnnl_primitive_t conv;
  dnnl_memory_t src, weights, dst;
  /* An NCHW conv in the layouts oneDNN chose: the workload's src and dst, and the
   * reorders into and out of them that every run does (NULL when it runs on them). */
  dnnl_memory_t user_src, user_dst;
  dnnl_primitive_t src_in, dst_in, dst_out;
  char impl[48];
};

HostOnednn *hostOnednnOpen(int max_lanes, char *why, size_t size) {
  if (prunerBuiltWithAddressSanitizer()) {
    /* ASan ends the process on a dlopen with RTLD_DEEPBIND (google/sanitizers issue 611). */
    snprintf(why, size, "libdnnl.so.2 is not loaded in an AddressSanitizer build (ASan "
                        "refuses the RTLD_DEEPBIND that keeps its libgomp apart from libomp)");
    return NULL;
  }
  HostOnednn *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(why, size, "out of memory");
    return NULL;
  }
  d->lib = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!d->lib) {
    snprintf(why, size, "libdnnl.so.2 could not be loaded: %.100s", dlerror());
    free(d);
    return NULL;
  }
  const char *missing = NULL;
#define ONEDNN_RESOLVE(f)                                                                    \
  if (!(d->f = (__typeof__(f) *)dlsym(d->lib, #f)) && !missing)                              \
    missing = #f;
  ONEDNN_FUNCTIONS(ONEDNN_RESOLVE)
#undef ONEDNN_RESOLVE
  d->set_threads = (void (*)(int))dlsym(d->lib, "omp_set_num_threads");
  if (missing) {
    snprintf(why, size, "libdnnl.so.2 has no %s", missing);
    hostOnednnClose(d);
    return NULL;
  }
  /* A target narrower than the CPU (host:avx2 on an AVX-512 machine) gets oneDNN's kernels
   * of that ISA, as it gets OpenBLAS' (docs/host.md, "Baseline: OpenBLAS"); set before the
   * first kernel is generated, which is when oneDNN reads it. */
  if (max_lanes > 0 &&
      d->dnnl_set_max_cpu_isa(max_lanes >= 16  ? dnnl_cpu_isa_avx512_core
                              : max_lanes >= 8 ? dnnl_cpu_isa_avx2
                                               : dnnl_cpu_isa_sse41) != dnnl_success) {
    snprintf(why, size, "oneDNN refused the target's ISA cap (%d lanes)", max_lanes);
    hostOnednnClose(d);
    return NULL;
  }
  const dnnl_version_t *v = d->dnnl_version();
  snprintf(d->version, sizeof d->version, "%d.%d.%d", v->major, v->minor, v->patch);
  if (d->dnnl_engine_create(&d->engine, dnnl_cpu, 0) != dnnl_success ||
      d->dnnl_stream_create(&d->stream, d->engine, dnnl_stream_default_flags) != dnnl_success) {
    snprintf(why, size, "oneDNN %s: no CPU engine or stream", d->version);
    hostOnednnClose(d);
    return NULL;
  }
  return d;
}

void hostOnednnClose(HostOnednn *d) {
  if (!d)
    return;
  if (d->stream)
    d->dnnl_stream_destroy(d->stream);
  if (d->engine)
    d->dnnl_engine_destroy(d->engine);
  /* The library stays loaded: its OpenMP pool may still hold threads. */
  free(d);
}

const char *hostOnednnVersion(const HostOnednn *d) { return d ? d->version : ""; }

void hostOnednnSetThreads(HostOnednn *d, int threads) {
  if (d && d->set_threads)
    d->set_threads(threads > 0 ? threads : 1);
}

/* The logical dims oneDNN wants (src N C H W, weights F C KH KW, dst N F OH OW; a depthwise
 * conv's weights grouped, G 1 1 KH KW with G = C = F) and each one's stride in the
 * workload's own buffers; returns the weights' rank (4, or 5 when grouped). The src extent
 * is what the conv reads: an input with unused last rows or columns is described as the
 * part that is read. */
static int convGeometry(const PrunerWorkload *w, dnnl_dims_t src, dnnl_dims_t src_strides,
                        dnnl_dims_t wei, dnnl_dims_t wei_strides, dnnl_dims_t dst,
                        dnnl_dims_t dst_strides) {
  const int64_t *is = w->operands[0].shape, *fs = w->operands[1].shape;
  const int64_t *os = w->operands[w->num_inputs].shape;
  bool depthwise = w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC;
  bool nhwc = w->kind == PRUNER_OP_CONV_2D_NHWC_HWCF || depthwise;
  int64_t N = is[0], C = nhwc ? is[3] : is[1], H = nhwc ? is[1] : is[2], W = nhwc ? is[2] : is[3];
  int64_t F = depthwise ? C : nhwc ? fs[3] : fs[0], KH = nhwc ? fs[0] : fs[2];
  int64_t KW = nhwc ? fs[1] : fs[3];
  int64_t OH = nhwc ? os[1] : os[2], OW = nhwc ? os[2] : os[3];
  int64_t rows = (OH - 1) * w->strides[0] + (KH - 1) * w->dilations[0] + 1;
  int64_t cols = (OW - 1) * w->strides[1] + (KW - 1) * w->dilations[1] + 1;
  int64_t s[4] = {N, C, rows, cols}, f[4] = {F, C, KH, KW}, d[4] = {N, F, OH, OW};
  int64_t ss[4] = {H * W * C, 1, W * C, C}, fss[4] = {1, F, KW * C * F, C * F},
          dss[4] = {OH * OW * F, 1, OW * F, F};
  if (!nhwc) {
    int64_t ns[4] = {C * H * W, H * W, W, 1}, nf[4] = {C * KH * KW, KH * KW, KW, 1},
            nd[4] = {F * OH * OW, OH * OW, OW, 1};
    memcpy(ss, ns, sizeof ss);
    memcpy(fss, nf, sizeof fss);
    memcpy(dss, nd, sizeof dss);
  }
  for (int i = 0; i < 4; ++i) {
    src[i] = s[i];
    src_strides[i] = ss[i];
    wei[i] = f[i];
    wei_strides[i] = fss[i];
    dst[i] = d[i];
    dst_strides[i] = dss[i];
  }
  if (!depthwise)
    return 4;
  /* HWC filter [KH, KW, C] as goihw [C, 1, 1, KH, KW]: channel g at g, tap (kh, kw) at
   * (kh * KW + kw) * C; the unit dims' strides are any that keep the layout dense. */
  int64_t g[5] = {C, 1, 1, KH, KW}, gs[5] = {1, KH * KW * C, KH * KW * C, KW * C, C};
  for (int i = 0; i < 5; ++i) {
    wei[i] = g[i];
    wei_strides[i] = gs[i];
  }
  return 5;
}

/* A reorder primitive from `from` to `to`. */
static bool reorderCreate(HostOnednn *d, const dnnl_memory_desc_t *from,
                          const dnnl_memory_desc_t *to, dnnl_primitive_t *out) {
  dnnl_primitive_desc_t rpd = NULL;
  bool ok = d->dnnl_reorder_primitive_desc_create(&rpd, from, d->engine, to, d->engine, NULL) ==
                dnnl_success &&
            d->dnnl_primitive_create(out, rpd) == dnnl_success;
  if (rpd)
    d->dnnl_primitive_desc_destroy(rpd);
  return ok;
}

static bool reorderRun(HostOnednn *d, dnnl_primitive_t r, dnnl_memory_t from, dnnl_memory_t to) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  return d->dnnl_primitive_execute(r, d->stream, 2, args) == dnnl_success;
}

/* The workload's buffer `user` (`user_md`) as the primitive wants it (`want_md`): the user's
 * memory itself when the layouts are equal; else a buffer of oneDNN's layout and the
 * reorders into it (`in`) and, for the dst, back out of it (`out`), run with the conv. */
static bool bindLayout(HostOnednn *d, const dnnl_memory_desc_t *user_md, void *user,
                       const dnnl_memory_desc_t *want_md, bool write_back, dnnl_memory_t *mem,
                       dnnl_memory_t *user_mem, dnnl_primitive_t *in, dnnl_primitive_t *out) {
  if (d->dnnl_memory_desc_equal(user_md, want_md))
    return d->dnnl_memory_create(mem, user_md, d->engine, user) == dnnl_success;
  return d->dnnl_memory_create(user_mem, user_md, d->engine, user) == dnnl_success &&
         d->dnnl_memory_create(mem, want_md, d->engine, DNNL_MEMORY_ALLOCATE) == dnnl_success &&
         reorderCreate(d, user_md, want_md, in) &&
         (!write_back || reorderCreate(d, want_md, user_md, out));
}

/* The weights in the user's layout reordered into `conv_pd`'s (once, not timed: a
 * framework does it when it loads the model). */
static bool reorderWeights(HostOnednn *d, const dnnl_memory_desc_t *user_md, const float *filter,
                           const dnnl_memory_desc_t *want_md, dnnl_memory_t *out) {
  dnnl_memory_t user = NULL;
  dnnl_primitive_t r = NULL;
  bool ok = d->dnnl_memory_create(&user, user_md, d->engine, (void *)filter) == dnnl_success &&
            d->dnnl_memory_create(out, want_md, d->engine, DNNL_MEMORY_ALLOCATE) ==
                dnnl_success &&
            reorderCreate(d, user_md, want_md, &r) && reorderRun(d, r, user, *out) &&
            d->dnnl_stream_wait(d->stream) == dnnl_success;
  if (r)
    d->dnnl_primitive_destroy(r);
  if (user)
    d->dnnl_memory_destroy(user);
  return ok;
}

HostOnednnConv *hostOnednnConvCreate(HostOnednn *d, const PrunerWorkload *w, const float *src,
                                     const float *filter, float *dst, char *why, size_t size) {
  if (!prunerHostHasOnednnBaseline(w)) {
    snprintf(why, size,
             "no oneDNN convolution for %.100s (NHWC or NCHW 2-D convs and NHWC depthwise "
             "convs only)",
             w->key);
    return NULL;
  }
  for (int o = 0; o < w->num_inputs + w->num_outputs; ++o)
    if (w->operands[o].dtype != PRUNER_DTYPE_F32) {
      snprintf(why, size, "no oneDNN convolution for %.100s (f32 only)", w->key);
      return NULL;
    }
  /* The descriptions below take C from the input: the filter and the output must agree
   * (linalg's verifier makes them; a hand-built workload might not). */
  const int64_t *is = w->operands[0].shape, *fs = w->operands[1].shape;
  const int64_t *os = w->operands[w->num_inputs].shape;
  if (w->kind == PRUNER_OP_DEPTHWISE_CONV_2D_NHWC_HWC &&
      (fs[2] != is[3] || os[3] != is[3] || os[0] != is[0])) {
    snprintf(why, size, "no oneDNN convolution for %.100s (its channel counts differ)", w->key);
    return NULL;
  }
  HostOnednnConv *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(why, size, "out of memory");
    return NULL;
  }
  c->lib = d;
  dnnl_dims_t sd, ss, wd, ws, dd, ds;
  int wei_rank = convGeometry(w, sd, ss, wd, ws, dd, ds);
  dnnl_memory_desc_t src_md, user_wei_md, any_wei_md, dst_md, any_src_md, any_dst_md;
  dnnl_convolution_desc_t cd;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t ops = NULL;
  dnnl_primitive_desc_t pd = NULL;
  /* The weights' layout is the primitive's choice (dnnl_format_tag_any: blocked). */
  dnnl_dims_t strides = {w->strides[0], w->strides[1]};
  dnnl_dims_t dilates = {w->dilations[0] - 1, w->dilations[1] - 1}; /* 0: dense */
  dnnl_dims_t pad = {0, 0};
  bool ok = d->dnnl_memory_desc_init_by_strides(&src_md, 4, sd, dnnl_f32, ss) == dnnl_success &&
            d->dnnl_memory_desc_init_by_strides(&user_wei_md, wei_rank, wd, dnnl_f32, ws) ==
                dnnl_success &&
            d->dnnl_memory_desc_init_by_strides(&dst_md, 4, dd, dnnl_f32, ds) == dnnl_success;
  /* NCHW: src and dst in the layouts oneDNN chooses too (blocked), reordered into and out
   * of them on every run, as a framework calling it on plain NCHW tensors does: on the
   * NCHW buffers themselves oneDNN 2.6 runs a GEMM-based conv or, for a 3-channel stem,
   * its reference loops (5.7 s for ResNet's stem). NHWC keeps the workload's layouts, which
   * its brgemm kernels take as they are. */
  const bool nchw = w->kind == PRUNER_OP_CONV_2D_NCHW_FCHW;
  if (ok) {
    /* dst += conv(src, weights), as the linalg op accumulates into its output. */
    ok = d->dnnl_memory_desc_init_by_tag(&any_wei_md, wei_rank, wd, dnnl_f32,
                                         dnnl_format_tag_any) == dnnl_success &&
         d->dnnl_memory_desc_init_by_tag(&any_src_md, 4, sd, dnnl_f32, dnnl_format_tag_any) ==
             dnnl_success &&
         d->dnnl_memory_desc_init_by_tag(&any_dst_md, 4, dd, dnnl_f32, dnnl_format_tag_any) ==
             dnnl_success &&
         d->dnnl_dilated_convolution_forward_desc_init(
             &cd, dnnl_forward_inference, dnnl_convolution_direct, nchw ? &any_src_md : &src_md,
             &any_wei_md, NULL, nchw ? &any_dst_md : &dst_md, strides, dilates, pad,
             pad) == dnnl_success &&
         d->dnnl_post_ops_create(&ops) == dnnl_success &&
         d->dnnl_post_ops_append_sum(ops, 1.0f) == dnnl_success &&
         d->dnnl_primitive_attr_create(&attr) == dnnl_success &&
         d->dnnl_primitive_attr_set_post_ops(attr, ops) == dnnl_success &&
         d->dnnl_primitive_desc_create(&pd, &cd, attr, d->engine, NULL) == dnnl_success;
  }
  const char *impl = NULL;
  if (ok && d->dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) ==
                dnnl_success && impl)
    snprintf(c->impl, sizeof c->impl, "%s", impl);
  ok = ok &&
       reorderWeights(d, &user_wei_md, filter,
                      d->dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                      &c->weights) &&
       bindLayout(d, &src_md, (void *)src,
                  d->dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), false, &c->src,
                  &c->user_src, &c->src_in, NULL) &&
       bindLayout(d, &dst_md, dst, d->dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0),
                  true, &c->dst, &c->user_dst, &c->dst_in, &c->dst_out) &&
       d->dnnl_primitive_create(&c->conv, pd) == dnnl_success;
  if (ok && (c->src_in || c->dst_in)) /* "jit:avx512_core +reorders" */
    snprintf(c->impl + strlen(c->impl), sizeof c->impl - strlen(c->impl), " +reorders");
  if (pd)
    d->dnnl_primitive_desc_destroy(pd);
  if (attr)
    d->dnnl_primitive_attr_destroy(attr);
  if (ops)
    d->dnnl_post_ops_destroy(ops);
  if (!ok) {
    snprintf(why, size, "oneDNN %s refused the convolution of %.100s", d->version, w->key);
    hostOnednnConvDestroy(c);
    return NULL;
  }
  return c;
}

bool hostOnednnConvRun(HostOnednnConv *c) {
  HostOnednn *d = c->lib;
  dnnl_exec_arg_t args[3] = {
      {DNNL_ARG_SRC, c->src}, {DNNL_ARG_WEIGHTS, c->weights}, {DNNL_ARG_DST, c->dst}};
  return (!c->src_in || reorderRun(d, c->src_in, c->user_src, c->src)) &&
         (!c->dst_in || reorderRun(d, c->dst_in, c->user_dst, c->dst)) &&
         d->dnnl_primitive_execute(c->conv, d->stream, 3, args) == dnnl_success &&
         (!c->dst_out || reorderRun(d, c->dst_out, c->dst, c->user_dst)) &&
         d->dnnl_stream_wait(d->stream) == dnnl_success;
}

const char *hostOnednnConvImpl(const HostOnednnConv *c) { return c->impl; }

void hostOnednnConvDestroy(HostOnednnConv *c) {
  if (!c)
    return;
  HostOnednn *d = c->lib;
  if (c->conv)
    d->dnnl_primitive_destroy(c->conv);
  dnnl_primitive_t reorders[3] = {c->src_in, c->dst_in, c->dst_out};
  for (int i = 0; i < 3; ++i)
    if (reorders[i])
      d->dnnl_primitive_destroy(reorders[i]);
  if (c->user_src)
    d->dnnl_memory_destroy(c->user_src);
  if (c->user_dst)
    d->dnnl_memory_destroy(c->user_dst);
  if (c->src)
    d->dnnl_memory_destroy(c->src);
  if (c->weights)
    d->dnnl_memory_destroy(c->weights);
  if (c->dst)
    d->dnnl_memory_destroy(c->dst);
  free(c);
}

#else /* built without oneDNN's header */

struct HostOnednn {
  int unused;
};

HostOnednn *hostOnednnOpen(int max_lanes, char *why, size_t size) {
  (void)max_lanes;
  snprintf(why, size, "built without oneDNN's header (libdnnl-dev, scripts/setup.sh)");
  return NULL;
}
void hostOnednnClose(HostOnednn *d) { (void)d; }
const char *hostOnednnVersion(const HostOnednn *d) {
  (void)d;
  return "";
}
void hostOnednnSetThreads(HostOnednn *d, int threads) {
  (void)d;
  (void)threads;
}
HostOnednnConv *hostOnednnConvCreate(HostOnednn *d, const PrunerWorkload *w, const float *src,
                                     const float *filter, float *dst, char *why, size_t size) {
  (void)d, (void)w, (void)src, (void)filter, (void)dst;
  snprintf(why, size, "built without oneDNN's header (libdnnl-dev, scripts/setup.sh)");
  return NULL;
}
bool hostOnednnConvRun(HostOnednnConv *c) {
  (void)c;
  return false;
}
const char *hostOnednnConvImpl(const HostOnednnConv *c) {
  (void)c;
  return "";
}
void hostOnednnConvDestroy(HostOnednnConv *c) { (void)c; }

#endif
