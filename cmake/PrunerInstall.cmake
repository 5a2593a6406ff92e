# `cmake --install <build> --prefix <prefix>` (docs/build.md, "Installing"): the tools,
# the pass plugin, the shipped verifier priors, the public headers and the stage
# libraries with a CMake package, so that a compiler links the tuner with
#   find_package(pruner-mlir CONFIG REQUIRED)
#   target_link_libraries(mycompiler PRIVATE pruner::tune pruner::apply)
# The libraries are static and some call each other both ways (the host and IREE rules
# beside lib/space and lib/target); the package's link interface lists them so that
# CMake repeats them as the linker needs.
set(PRUNER_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pruner-mlir)

# pruner-tune finds the priors in share/pruner-mlir/models beside its bin folder, and
# pruner-run beside itself.
if(NOT CMAKE_INSTALL_BINDIR STREQUAL "bin" OR NOT CMAKE_INSTALL_DATAROOTDIR STREQUAL "share")
  message(WARNING "pruner: CMAKE_INSTALL_BINDIR/DATAROOTDIR are not bin/share: an installed "
                  "pruner-tune will not find its shipped verifier priors (docs/build.md)")
endif()
foreach(tool pruner-tune pruner-run pruner-compile pruner-draft pruner-eval pruner-iree)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(DIRECTORY ${CMAKE_BINARY_DIR}/share/pruner-mlir/models
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/pruner-mlir)
if(TARGET PrunerPlugin)
  install(TARGETS PrunerPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pruner DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")

# Every stage library that this configuration builds, in the order of lib/CMakeLists.txt.
set(PRUNER_EXPORTED)
foreach(lib pruner_cjson pruner_support pruner_target pruner_host_rules pruner_iree_rules
    pruner_space pruner_ir pruner_ir_context pruner_draft pruner_records pruner_verifier
    pruner_schedule pruner_schedule_ir pruner_measure pruner_compile pruner_backend_gpu
    pruner_host_schedule pruner_host pruner_iree pruner_backends pruner_farm pruner_apply
    pruner_tune)
  if(TARGET ${lib})
    list(APPEND PRUNER_EXPORTED ${lib})
    # pruner::tune, pruner::apply, ...
    string(REGEX REPLACE "^pruner_" "" name ${lib})
    set_target_properties(${lib} PROPERTIES EXPORT_NAME ${name})
  endif()
endforeach()
install(TARGETS ${PRUNER_EXPORTED} EXPORT PrunerTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT PrunerTargets NAMESPACE pruner:: DESTINATION ${PRUNER_PACKAGE_DIR}
  FILE pruner-mlir-targets.cmake)

include(CMakePackageConfigHelpers)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/pruner-mlir-config.cmake.in
  ${CMAKE_BINARY_DIR}/pruner-mlir-config.cmake INSTALL_DESTINATION ${PRUNER_PACKAGE_DIR})
# 0.x: a minor version may change the C API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/pruner-mlir-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/pruner-mlir-config.cmake
  ${CMAKE_BINARY_DIR}/pruner-mlir-config-version.cmake DESTINATION ${PRUNER_PACKAGE_DIR})
