#!/usr/bin/env python3
"""Where the host draft is wrong near the top, per knob (docs/quality.md, "The draft's
errors near the top").

    pruner-draft --eval data/F.jsonl --dataset-target=records --per-config=F.per-config.jsonl
    scripts/draft-residuals.py [--within=1.15] F.per-config.jsonl...

For the vectorized configs measured within WITHIN of the best, the residual of each is
log(measured / predicted) less the mean over those configs: a group with a negative mean
measures faster than the draft predicts relative to the others near the top (the draft
ranks it too low), a positive one slower. Groups: the reduction steps (the non-zero
entries of `reduction`), the register tile (rows x vectors: the product of the thread
tile's parallel entries but the vector loop's, and the vector loop's entry over the
vector width; the vector loop is the last parallel loop, as the host schedule
vectorizes it), and packing (promote_operands). Each group prints its mean in percent
and its count."""
import argparse
import collections
import json
import math
import re
import sys

CONFIG = re.compile(r'\{workgroup = \[([^\]]*)\], reduction = \[([^\]]*)\], '
                    r'thread = \[([^\]]*)\], promote_operands = \[([^\]]*)\], '
                    r'vector_width = (\d+)\}')


def ints(text):
    return [int(x) for x in text.split(',') if x.strip()]


def knobs(config):
    m = CONFIG.fullmatch(config) if isinstance(config, str) else None
    if not m:
        return None  # not a host config (a GPU one, or malformed): not grouped
    try:
        reduction, thread = ints(m[2]), ints(m[3])
    except ValueError:
        return None
    width = int(m[5])
    if width <= 1 or len(reduction) != len(thread):
        return None
    parallel = [i for i, r in enumerate(reduction) if r == 0 and thread[i] > 0]
    if not parallel:
        return None
    vector_loop = parallel[-1]
    rows = math.prod(thread[i] for i in parallel if i != vector_loop)
    vectors = thread[vector_loop] // width
    steps = 'x'.join(str(r) for r in reduction if r > 0) or '-'
    return {'reduction step': steps, 'rows x vectors': '%dx%d' % (rows, vectors),
            'packed': 'yes' if m[4].strip() else 'no', '_acc': rows * vectors}


def report(path, within):
    rows = []
    try:
        f = open(path)
    except OSError as e:
        sys.exit('draft-residuals: %s: %s' % (path, e.strerror))
    with f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit('draft-residuals: %s:%d: not a JSON line (%s)' % (path, n, e))
            if not isinstance(r, dict):
                sys.exit('draft-residuals: %s:%d: not a JSON object (pruner-draft --eval '
                         '--per-config writes one per line)' % (path, n))
            times = [r.get('measured_us'), r.get('predicted_us')]
            if not all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in times):
                sys.exit('draft-residuals: %s:%d: measured_us and predicted_us must be '
                         'numbers' % (path, n))
            k = knobs(r.get('config'))
            if k and times[0] > 0 and times[1] > 0:
                rows.append((times[0], times[1], k))
    if not rows:
        print('== %s: no vectorized configs' % path)
        return
    best = min(m for m, _, _ in rows)
    top = [(m, p, k) for m, p, k in rows if m <= within * best]
    mean = sum(math.log(m / p) for m, p, _ in top) / len(top)
    print('== %s: %d vectorized configs, %d within %.2fx of the best (%.2f us)' %
          (path, len(rows), len(top), within, best))
    for knob in ('reduction step', 'rows x vectors', 'packed'):
        groups = collections.defaultdict(list)
        order = {}
        for m, p, k in top:
            groups[k[knob]].append(math.log(m / p) - mean)
            order[k[knob]] = k['_acc'] if knob == 'rows x vectors' else k[knob]
        keys = sorted(groups, key=lambda g: (order[g] if knob == 'rows x vectors' else
                                             [int(x) if x.isdigit() else 0
                                              for x in g.split('x')], g))
        print('  %-15s %s' % (knob, '  '.join(
            '%s: %+.1f%% (%d)' % (g, 100 * sum(groups[g]) / len(groups[g]), len(groups[g]))
            for g in keys)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--within', type=float, default=1.15,
                    help='configs measured within this factor of the best (default 1.15)')
    ap.add_argument('files', nargs='+', help='pruner-draft --eval --per-config output')
    a = ap.parse_args()
    if not a.within >= 1.0:
        sys.exit('draft-residuals: --within must be at least 1')
    for path in a.files:
        report(path, a.within)


if __name__ == '__main__':
    main()
