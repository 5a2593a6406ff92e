/* The one definition of the NVVM lowering pipeline that turns a scheduled module (linalg
 * already tiled, vectorized, bufferized and mapped to a gpu.launch) into a gpu.binary.
 * Both prunerCompileOne and the plugin's `pruner-gpu-pipeline` use this text, so what
 * the tuner measures is what the pipeline produces.
 *
 * It is `gpu-lower-to-nvvm-pipeline` spelled out, with `convert-vector-to-llvm` moved
 * inside gpu.module before `convert-gpu-to-nvvm`: the register-accumulator schedules
 * leave n-D `vector.from_elements` that the stock pipeline cannot lower
 * (docs/schedule.md, G3). The leading
 * canonicalize/cse/canonicalize removes the self-copies bufferization leaves inside the
 * kernel, and `gpu-launch-sink-index-computations` keeps launch constants out of the
 * kernel parameters (48 -> 40 registers on the plain matmul; G1). `symbol-dce`
 * after outlining drops the host module's copies of the shared-memory globals of
 * promoted schedules (outlining clones them into the gpu.module; the host copies in
 * address space 3 would otherwise reach the host LLVM lowering). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pruner/compile.h"

/* PTX ISA version passed to nvvm-attach-target. MLIR's default (+ptx60) aborts LLVM for
 * sm_90 (MLIR 22.1 here; docs/compile.md). PTX ISA 8.0 (CUDA 12.0) covers sm_75 .. sm_90a;
 * sm_100 needs PTX ISA 8.6 (CUDA 12.8), per NVIDIA's PTX ISA release notes. CUDA 13's
 * ptxas accepts both. */
static const char *ptxFeatures(const PrunerTargetDesc *t) {
  return t->compute_capability >= 100 ? "+ptx86" : "+ptx80";
}

/* CUDA's libdevice (the __nv_erff, __nv_tanhf, ... that scalar math lowers to), linked
 * explicitly: MLIR links it on its own only when it finds the toolkit through CUDA_HOME /
 * CUDA_PATH / CUDA_ROOT, and without them (a test runner's clean environment) every such
 * kernel was "Unresolved extern function '__nv_erff'" at ptxas. The toolkit as those
 * variables name it, else /usr/local/cuda (where ptxas is looked for too); "" if absent. */
static void libdevicePath(char *buf, size_t size) {
  const char *vars[] = {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"};
  buf[0] = '\0';
  for (size_t i = 0; i <= sizeof vars / sizeof *vars && !buf[0]; ++i) {
    const char *root = i < sizeof vars / sizeof *vars ? getenv(vars[i]) : "/usr/local/cuda";
    if (!root || !*root || strpbrk(root, " ,{}"))
      continue; /* a path the pass option syntax cannot carry */
    snprintf(buf, size, "%s/nvvm/libdevice/libdevice.10.bc", root);
    if (access(buf, R_OK) != 0)
      buf[0] = '\0';
  }
}

int prunerCompileLoweringPipeline(const PrunerTargetDesc *t, PrunerBinaryFormat format, char *buf,
                                  size_t size) {
  /* gpu-module-to-binary format: isa = PTX text (no toolkit needed), bin = cubin (runs
   * the toolkit's ptxas inside MLIR). */
  const char *binaryFormat = format == PRUNER_BINARY_PTX ? "isa" : "bin";
  char libdevice[1100], link[1110] = "";
  libdevicePath(libdevice, sizeof libdevice);
  if (libdevice[0])
    snprintf(link, sizeof link, " l=%s", libdevice);
  return snprintf(buf, size,
                  "builtin.module(canonicalize,cse,canonicalize,"
                  "gpu-launch-sink-index-computations,"
                  "convert-nvgpu-to-nvvm,gpu-kernel-outlining,symbol-dce,convert-vector-to-scf,"
                  "convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,"
                  "expand-strided-metadata,"
                  "nvvm-attach-target{chip=%s features=%s O=3%s},"
                  "lower-affine,convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,"
                  "gpu.module(strip-debuginfo,convert-vector-to-llvm,convert-gpu-to-nvvm,"
                  "canonicalize,cse,reconcile-unrealized-casts),"
                  "gpu-to-llvm,gpu-module-to-binary{format=%s},convert-math-to-llvm,"
                  "canonicalize,cse,reconcile-unrealized-casts)",
                  t->arch, ptxFeatures(t), link, binaryFormat);
}
