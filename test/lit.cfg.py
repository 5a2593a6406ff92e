# lit configuration for pruner-mlir: runs the stock mlir-opt with the plugin loaded.
import glob
import os
import shutil
import subprocess

import lit.formats

config.name = "pruner"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "register-study", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
# A run under another host ISA (`--param host_isa=...`, below) gets its own output
# folder, so that ctest can run it beside the plain run.
_isa_param = lit_config.params.get("host_isa")
config.test_exec_root = os.path.join(config.pruner_obj_root,
                                     "test" if not _isa_param else "test-" + _isa_param)

bin_dir = os.path.join(config.pruner_obj_root, "bin")
plugin = os.path.join(config.pruner_obj_root, "lib", "PrunerPlugin.so")
mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")

# Sanitizer build: the plugin is instrumented, mlir-opt is not. The ASan runtime is
# preloaded into mlir-opt (it must be the first library of the process), and the leak
# checker is off there: it would report LLVM's own allocations still held at exit, which
# are not ours to fix. pruner's tools and unit tests keep it on. docs/hardening.md.
# Findings abort (a signal), so that `not` in a RUN line cannot mistake a sanitizer's
# exit status 1 for the expected failure.
pruner_opt = f"{mlir_opt} --load-pass-plugin={plugin}"
if config.asan_runtime:
    pruner_opt = (f"env LD_PRELOAD={config.asan_runtime} "
                  f"ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 {pruner_opt}")
    config.available_features.add("asan")
    config.environment["ASAN_OPTIONS"] = "abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "abort_on_error=1:print_stacktrace=1"
config.substitutions.append(("%pruner_opt", pruner_opt))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%mlir_opt", mlir_opt))
config.substitutions.append(("%bin", bin_dir))
config.substitutions.append(("%src", config.pruner_src_root))
config.substitutions.append(("%examples", os.path.join(config.pruner_src_root, "examples")))

# The cpu-pipeline tests compile and link a C driver against the object the pipeline
# makes: the C compiler CMake found, OpenBLAS (the reference) and LLVM's libomp (the
# kernels' __kmpc_* calls; docs/host.md, "From a tuned module to an object").
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%llvm_lib", llvm_lib_dir))
config.substitutions.append(
    ("%host_link_flags", f"-lopenblas -L{llvm_lib_dir} -lomp -lmlir_c_runner_utils "
                        f"-Wl,-rpath,{llvm_lib_dir} -lm"))

# `REQUIRES: clang-rt-builtins`: LLVM's compiler-rt builtins (libclang-rt-22-dev), which
# define __truncsfbf2 for modules that round to bf16 (docs/host.md, "Linking").
builtins = sorted(glob.glob(os.path.join(
    llvm_lib_dir, "clang", "*", "lib", "linux", "libclang_rt.builtins-x86_64.a")))
if builtins:
    config.available_features.add("clang-rt-builtins")
    config.substitutions.append(("%clang_rt_builtins", builtins[-1]))

config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# Keep locale-independent output and let tests see whether a GPU exists.
config.environment["LC_ALL"] = "C"

# Features: `REQUIRES: ptxas` (CUDA toolkit, cubins can be produced), `REQUIRES: gpu`
# (a CUDA device answers), `REQUIRES: xgboost` when the verifier was built with it.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
# `REQUIRES: iree`: IREE's tools were found at configure time (cmake/PrunerIREE.cmake; the
# backend uses the same folder). %iree_bin is that folder.
if config.iree_bin and os.path.exists(os.path.join(config.iree_bin, "iree-compile")):
    config.available_features.add("iree")
    config.substitutions.append(("%iree_bin", config.iree_bin))
smi = shutil.which("nvidia-smi")
if smi:
    try:
        if subprocess.run([smi, "-L"], capture_output=True, timeout=20).returncode == 0:
            config.available_features.add("gpu")
    except Exception:
        pass

# The host target's ISA. `--param host_isa=avx2` (or PRUNER_HOST_ISA in the environment)
# runs every host test under that description, as on a CPU that has no more (the ctest
# entry lit-host-avx2 does so). Feature `cpu-avx512`: the host description says this CPU
# has AVX-512F (so host:avx512 is accepted and host:avx2 narrows the code).
host_isa = lit_config.params.get("host_isa") or os.environ.get("PRUNER_HOST_ISA")
if host_isa:
    config.environment["PRUNER_HOST_ISA"] = host_isa
host_tool = os.path.join(bin_dir, "pruner-host-tool")
if os.path.exists(host_tool):
    try:
        out = subprocess.run([host_tool, "--print=target", "--target=host:native"],
                             capture_output=True, text=True,
                             timeout=60, env=config.environment).stdout
        desc = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
        if desc.get("native_isa") == "avx512":
            config.available_features.add("cpu-avx512")
    except Exception as e:
        lit_config.warning(f"pruner-host-tool --print=target failed: {e}")
