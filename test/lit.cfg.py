# lit configuration for pruner-mlir: runs the stock mlir-opt with the plugin loaded.
import os
import shutil
import subprocess

import lit.formats

config.name = "pruner"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pruner_obj_root, "test")

bin_dir = os.path.join(config.pruner_obj_root, "bin")
plugin = os.path.join(config.pruner_obj_root, "lib", "PrunerPlugin.so")
mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")

config.substitutions.append(("%pruner_opt", f"{mlir_opt} --load-pass-plugin={plugin}"))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%mlir_opt", mlir_opt))
config.substitutions.append(("%bin", bin_dir))
config.substitutions.append(("%src", config.pruner_src_root))
config.substitutions.append(("%examples", os.path.join(config.pruner_src_root, "examples")))

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
