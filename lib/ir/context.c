/* lib/ir/context.c: prunerIrContextCreate (pruner/ir_context.h), in its own library so
 * that only pruner's programs, never the plugin, link MLIR's RegisterEverything. */
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
