#include "pruner/status.h"

#include <stdarg.h>
#include <stdio.h>

PrunerStatus prunerStatusOk(void) {
  PrunerStatus status;
  status.ok = true;
  status.message[0] = '\0';
  return status;
}

PrunerStatus prunerStatusError(const char *format, ...) {
  PrunerStatus status;
  status.ok = false;
  va_list args;
  va_start(args, format);
  vsnprintf(status.message, sizeof(status.message), format, args);
  va_end(args);
  return status;
}
