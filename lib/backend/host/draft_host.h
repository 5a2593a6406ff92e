/* lib/draft/draft_host.h: the host CPU's draft model (draft_host.c, docs/host.md). */
#ifndef PRUNER_DRAFT_HOST_H
#define PRUNER_DRAFT_HOST_H

#include "pruner/draft.h"
#include "pruner/backend/host.h"

/* Fails, naming the field, when the host description lacks what the model divides by. */
PrunerStatus draftHostCheckTarget(const PrunerWorkload *w, const PrunerTargetDesc *t);
/* Scores a valid host config (validity is the caller's: prunerConfigIsValid). */
bool draftHostScore(const PrunerWorkload *w, const PrunerTargetDesc *t, const PrunerConfig *c,
                    PrunerDraftSymbols *out);

#endif
