# Finds IREE's command-line tools for the IREE backend (docs/iree.md, "Set-up").
#   -DPRUNER_IREE_DIR=DIR   a folder holding iree-compile (or DIR/bin), e.g. another IREE
# Otherwise the venv scripts/setup.sh makes (PRUNER_WITH_IREE=1) is used when present:
# $XDG_CACHE_HOME/pruner-mlir/iree-3.13.0 (default ~/.cache/pruner-mlir/iree-3.13.0).
# The backend is always built (it runs the tools as processes and needs no IREE library);
# PRUNER_IREE_BIN is the folder it uses by default and what lit's `iree` feature checks.
set(PRUNER_IREE_VERSION 3.13.0)
if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_pruner_cache "$ENV{XDG_CACHE_HOME}")
else()
  set(_pruner_cache "$ENV{HOME}/.cache")
endif()
set(PRUNER_IREE_DIR "" CACHE PATH "Folder with iree-compile (or its bin/); empty: the setup venv")
set(_pruner_iree_hints)
if(PRUNER_IREE_DIR)
  list(APPEND _pruner_iree_hints "${PRUNER_IREE_DIR}" "${PRUNER_IREE_DIR}/bin")
else()
  # tools/: links to the real binaries (setup.sh); bin/: the wheels' Python wrappers.
  set(_pruner_venv "${_pruner_cache}/pruner-mlir/iree-${PRUNER_IREE_VERSION}")
  list(APPEND _pruner_iree_hints "${_pruner_venv}/tools" "${_pruner_venv}/bin")
endif()
unset(PRUNER_IREE_COMPILE CACHE)
find_program(PRUNER_IREE_COMPILE iree-compile HINTS ${_pruner_iree_hints} NO_CACHE
  NO_DEFAULT_PATH)
set(PRUNER_IREE_BIN "")
set(PRUNER_HAVE_IREE OFF)
if(PRUNER_IREE_COMPILE)
  get_filename_component(PRUNER_IREE_BIN "${PRUNER_IREE_COMPILE}" DIRECTORY)
  if(EXISTS "${PRUNER_IREE_BIN}/iree-run-module" AND EXISTS "${PRUNER_IREE_BIN}/iree-benchmark-module")
    set(PRUNER_HAVE_IREE ON)
  endif()
endif()
if(NOT PRUNER_HAVE_IREE)
  set(PRUNER_IREE_BIN "")
endif()
