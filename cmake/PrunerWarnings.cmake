# Warnings: -Wall -Wextra clean is a project rule; PRUNER_WERROR turns them into errors.
option(PRUNER_WERROR "Treat warnings as errors" OFF)
add_compile_options(-Wall -Wextra)
if(PRUNER_WERROR)
  add_compile_options(-Werror)
endif()
if(PRUNER_SANITIZE)
  # float-cast-overflow is not part of -fsanitize=undefined: it catches a JSON number
  # like 1e300 converted to an integer (docs/hardening.md).
  add_compile_options(-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
endif()
