/* Private to lib/target: the table's layout (entries plus accepted aliases). */
#ifndef PRUNER_LIB_TARGET_TABLE_H
#define PRUNER_LIB_TARGET_TABLE_H

#include "pruner/target.h"

#define PRUNER_TARGET_MAX_ALIASES 6

typedef struct PrunerTargetEntry {
  PrunerTargetDesc desc;
  /* Further accepted names (lower case): short forms and the names drivers report. */
  const char *aliases[PRUNER_TARGET_MAX_ALIASES];
} PrunerTargetEntry;

typedef struct PrunerTargetArchDefault {
  const char *arch;
  const char *name;
} PrunerTargetArchDefault;

extern const PrunerTargetEntry prunerTargetTable[];
extern const size_t prunerTargetTableCount;
extern const PrunerTargetArchDefault prunerTargetArchDefaults[];
extern const size_t prunerTargetArchDefaultCount;

#endif
