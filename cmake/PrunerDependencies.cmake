# Finds what the build needs. MLIR 22 is required except for PRUNER_RUNNER_ONLY builds;
# CUDA, XGBoost and Google Benchmark are optional and the summary says what was left out.

set(PRUNER_HAVE_MLIR OFF)
if(NOT PRUNER_RUNNER_ONLY)
  # Debian installs MLIR 22 under /usr/lib/llvm-22; the llvm-config on PATH is older.
  find_package(MLIR REQUIRED CONFIG
    HINTS /usr/lib/llvm-22/lib/cmake/mlir ${MLIR_DIR})
  set(PRUNER_HAVE_MLIR ON)
  set(PRUNER_LLVM_BIN "${MLIR_INSTALL_PREFIX}/bin")
  if(NOT EXISTS "${PRUNER_LLVM_BIN}/mlir-opt")
    set(PRUNER_LLVM_BIN "/usr/lib/llvm-22/bin")
  endif()
  include(PrunerMLIR)
endif()

find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND)
  set(PRUNER_HAVE_CUDA ON)
  find_program(PRUNER_PTXAS ptxas HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
  find_program(PRUNER_CUOBJDUMP cuobjdump HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
else()
  set(PRUNER_HAVE_CUDA OFF)
  message(STATUS "pruner: CUDA toolkit not found: pruner-run, cubin generation and "
                 "CUDA-dependent tests are left out")
endif()

find_path(PRUNER_CJSON_INCLUDE cjson/cJSON.h)
find_library(PRUNER_CJSON_LIB cjson)
if(PRUNER_CJSON_INCLUDE AND PRUNER_CJSON_LIB)
  set(PRUNER_HAVE_CJSON ON)
  add_library(pruner_cjson INTERFACE)
  target_include_directories(pruner_cjson INTERFACE ${PRUNER_CJSON_INCLUDE})
  target_link_libraries(pruner_cjson INTERFACE ${PRUNER_CJSON_LIB})
else()
  set(PRUNER_HAVE_CJSON OFF)
  message(FATAL_ERROR "pruner: cJSON not found (Debian: libcjson-dev; run scripts/setup.sh)")
endif()

find_path(PRUNER_XGBOOST_INCLUDE xgboost/c_api.h)
find_library(PRUNER_XGBOOST_LIB xgboost)
if(PRUNER_XGBOOST_INCLUDE AND PRUNER_XGBOOST_LIB)
  set(PRUNER_HAVE_XGBOOST ON)
else()
  set(PRUNER_HAVE_XGBOOST OFF)
endif()

find_package(benchmark QUIET)
if(benchmark_FOUND)
  set(PRUNER_HAVE_BENCHMARK ON)
else()
  set(PRUNER_HAVE_BENCHMARK OFF)
endif()
