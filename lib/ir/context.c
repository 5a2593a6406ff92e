/* lib/ir/context.c: prunerIrContextCreate and prunerIrLookupSymbol (pruner/ir_context.h),
 * in their own library so that only pruner's programs, never the plugin, link MLIR's
 * RegisterEverything. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mlir-c/Diagnostics.h>
#include <mlir-c/RegisterEverything.h>

#include "pruner/ir.h"
#include "pruner/ir_context.h"

/* The pass registry is process-wide (the only static state here; it holds no data of
 * ours). */
static pthread_once_t passesOnce = PTHREAD_ONCE_INIT;
static void registerPasses(void) {
  mlirRegisterAllPasses();
  prunerIrRegisterPasses();
}

MlirContext prunerIrContextCreate(void) {
  pthread_once(&passesOnce, registerPasses);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx);
  return ctx;
}

MlirOperation prunerIrLookupSymbol(MlirModule module, const char *name) {
  MlirSymbolTable table = mlirSymbolTableCreate(mlirModuleGetOperation(module));
  if (mlirSymbolTableIsNull(table))
    return (MlirOperation){NULL};
  MlirOperation op = mlirSymbolTableLookup(table, mlirStringRefCreateFromCString(name));
  mlirSymbolTableDestroy(table);
  return op;
}

/* Exit codes of the parsing child; anything else (a signal, a sanitizer's exit code) is a
 * crash of the parser. */
enum { PARSE_CHILD_OK = 0, PARSE_CHILD_ERROR = 3 };

/* The child's diagnostics are dropped: the caller's own parse prints them. */
static MlirLogicalResult swallow(MlirDiagnostic d, void *user) {
  (void)d, (void)user;
  return mlirLogicalResultSuccess();
}

PrunerStatus prunerIrCheckParseIsolated(const char *text, size_t size, const char *name) {
  pid_t pid = fork();
  if (pid < 0)
    return prunerStatusOk(); /* no child: the caller's parse is the only one */
  if (pid == 0) {
    MlirContext ctx = prunerIrContextCreate();
    mlirContextAttachDiagnosticHandler(ctx, swallow, NULL, NULL);
    MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, size));
    _exit(mlirModuleIsNull(m) ? PARSE_CHILD_ERROR : PARSE_CHILD_OK);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return prunerStatusOk();
  if (WIFEXITED(status) &&
      (WEXITSTATUS(status) == PARSE_CHILD_OK || WEXITSTATUS(status) == PARSE_CHILD_ERROR))
    return prunerStatusOk();
  char how[64];
  if (WIFSIGNALED(status))
    snprintf(how, sizeof how, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    snprintf(how, sizeof how, "exit code %d", WEXITSTATUS(status));
  return prunerStatusError("%s: MLIR's parser crashed on this input (%s in a checking "
                           "child): the input is malformed in a way MLIR 22 does not "
                           "diagnose (docs/hardening.md, \"MLIR parser crashes\")",
                           name, how);
}
