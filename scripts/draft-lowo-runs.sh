#!/usr/bin/env bash
# The trip count up to which the host draft takes a loop's exit as predicted
# (lib/backend/host/draft_host.c, SHORT_LOOP_TRIPS; where a contraction's innermost loop is
# a parallel one, a depthwise conv's channel tiles), chosen leave-one-dataset-out over
# every host dataset in data/ (docs/quality.md, "Short loops and the depthwise conv's
# runs"): 1 (every exit charged, the default compared with), 2, 4, 8, 16, 32, 64. About
# three minutes.
#
#   scripts/draft-lowo-runs.sh [STUDY_BUILD]
exec "$(dirname "$0")/draft-lowo-constant.sh" SHORT_LOOP_TRIPS 1 1 2 4 8 16 32 64 -- "$@"
