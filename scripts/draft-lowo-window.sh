#!/usr/bin/env bash
# The host draft's overlap of short runs (lib/backend/host/draft_host.c, OOO_WINDOW_FMAS:
# independent accumulator chains of the register tiles that follow one another, when a
# tile's run over its reduction block is short), chosen leave-one-dataset-out over every
# host dataset in data/ (docs/quality.md, "Short runs overlap"): 0 (no overlap, the
# default compared with), 8, 16, 24, 32, 64, 128, 256 FMAs. About three minutes.
#
#   scripts/draft-lowo-window.sh [STUDY_BUILD]
exec "$(dirname "$0")/draft-lowo-constant.sh" OOO_WINDOW_FMAS 0 0 8 16 24 32 64 128 256 -- "$@"
