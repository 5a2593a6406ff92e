# Linking the MLIR C API against Debian's MLIR 22 (see docs/build.md):
# the C API exists only as static archives that libMLIR.so does not export, so we link
# the archive files themselves (not the imported targets, which would drag the static
# C++ component libraries in beside libMLIR.so), in a group, then libMLIR and libLLVM.

# pruner_link_mlir_capi(<target> <visibility> <CAPI component>...)
#   e.g. pruner_link_mlir_capi(pruner_ir PUBLIC IR Linalg)
function(pruner_link_mlir_capi target visibility)
  set(archives)
  foreach(component ${ARGN})
    list(APPEND archives "$<TARGET_FILE:MLIRCAPI${component}>")
  endforeach()
  target_include_directories(${target} SYSTEM ${visibility} ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  target_link_libraries(${target} ${visibility}
    -Wl,--start-group ${archives} -Wl,--end-group MLIR LLVM)
endfunction()

# For C++ shims that include MLIR's C++ headers.
function(pruner_use_mlir_cxx target)
  target_include_directories(${target} SYSTEM PRIVATE ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${LLVM_DEFINITIONS})
  target_link_libraries(${target} PRIVATE MLIR LLVM)
endfunction()
