# Warnings: -Wall -Wextra clean is a project rule; PRUNER_WERROR turns them into errors.
option(PRUNER_WERROR "Treat warnings as errors" OFF)
add_compile_options(-Wall -Wextra)
if(PRUNER_WERROR)
  add_compile_options(-Werror)
endif()
if(PRUNER_FUZZ)
  # libFuzzer ships with clang (Debian: libclang-rt-<version>-dev); every object gets the
  # coverage instrumentation (fuzzer-no-link), the harnesses link the fuzzer's main.
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  check_c_source_compiles([=[
    #include <stddef.h>
    #include <stdint.h>
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
  ]=] PRUNER_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT PRUNER_HAVE_LIBFUZZER)
    message(FATAL_ERROR "PRUNER_FUZZ needs a compiler with libFuzzer (-fsanitize=fuzzer): "
                        "configure with CC=clang CXX=clang++ and libclang-rt-dev installed")
  endif()
  set(PRUNER_SANITIZE ON CACHE BOOL "Build with AddressSanitizer and UBSan" FORCE)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(PRUNER_SANITIZE)
  # float-cast-overflow is not part of -fsanitize=undefined: it catches a JSON number
  # like 1e300 converted to an integer (docs/hardening.md). -fno-sanitize-recover makes
  # undefined behaviour abort, so a test that reaches it fails instead of printing a line.
  set(PRUNER_SANITIZE_FLAGS -fsanitize=address,undefined,float-cast-overflow
      -fno-sanitize-recover=all)
  add_compile_options(${PRUNER_SANITIZE_FLAGS} -fno-omit-frame-pointer)
  add_link_options(${PRUNER_SANITIZE_FLAGS})
  # The sanitized plugin needs the ASan runtime in the stock (unsanitized) mlir-opt that
  # loads it, as the process's first library: the tests that run mlir-opt with the plugin
  # preload PRUNER_ASAN_RUNTIME (docs/hardening.md).
  set(PRUNER_ASAN_RUNTIME "")
  foreach(name libasan.so libclang_rt.asan-x86_64.so)
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${name}
      OUTPUT_VARIABLE rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(IS_ABSOLUTE "${rt}" AND EXISTS "${rt}")
      set(PRUNER_ASAN_RUNTIME "${rt}")
      break()
    endif()
  endforeach()
  if(NOT PRUNER_ASAN_RUNTIME)
    message(WARNING "PRUNER_SANITIZE: no shared ASan runtime found; tests that load the "
                    "plugin into mlir-opt will fail")
  endif()
endif()
