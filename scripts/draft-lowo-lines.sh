#!/usr/bin/env bash
# The host draft's fills of one-line tasks (lib/backend/host/draft_host.c,
# ONE_LINE_TASK_FILLS: lines an L1 fill brings per line used where a task's slice of an
# operand's contiguous dim is one line or less and the dim goes on), chosen
# leave-one-dataset-out over every host dataset in data/ (docs/quality.md, "One-line
# tasks"): 1 (no charge, the default compared with), 1.5, 2, 3. About two minutes.
#
#   scripts/draft-lowo-lines.sh [STUDY_BUILD]
exec "$(dirname "$0")/draft-lowo-constant.sh" ONE_LINE_TASK_FILLS 1.0 1.0 1.5 2.0 3.0 -- "$@"
