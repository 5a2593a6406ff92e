/* lib/ir/context.c: prunerIrContextCreate and prunerIrLookupSymbol (pruner/ir_context.h),
 * in their own library so that only pruner's programs, never the plugin, link MLIR's
 * RegisterEverything. */
#include <pthread.h>

#include <mlir-c/RegisterEverything.h>

#include "pruner/ir_context.h"

/* The pass registry is process-wide (the only static state here; it holds no data of
 * ours). */
static pthread_once_t passesOnce = PTHREAD_ONCE_INIT;
static void registerPasses(void) { mlirRegisterAllPasses(); }

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
