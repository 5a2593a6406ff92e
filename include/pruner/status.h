/* pruner/status.h: the error result every fallible pruner function returns.
 *
 * A PrunerStatus is a small value type: `ok` is true on success; otherwise `message`
 * holds a one-line, human-readable reason that names the op, key or file at fault. The
 * library never prints and never exits; callers decide what to do with the message. */
#ifndef PRUNER_STATUS_H
#define PRUNER_STATUS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PRUNER_STATUS_MESSAGE_SIZE 512

typedef struct PrunerStatus {
  bool ok;
  char message[PRUNER_STATUS_MESSAGE_SIZE];
} PrunerStatus;

/* A success value. */
PrunerStatus prunerStatusOk(void);

/* A failure with a printf-style message (truncated to fit). */
PrunerStatus prunerStatusError(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_STATUS_H */
