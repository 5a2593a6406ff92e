#!/usr/bin/env python3
"""The leave-one-dataset-out choice of the draft's study scripts (draft-lowo-conv.sh,
draft-lowo-conv-hoisted.sh, draft-lowo-window.sh): reads their table and prints every
candidate's figures, then per held-out dataset the candidate chosen on the others and its
figures there.

  draft-study-lowo.py TABLE KNOBS DEFAULT [TITLE FILTER]...

TABLE: lines "KNOB... SET spearman regret@16 regret@64 first_2%" (draftStudyRows);
KNOBS: the knobs' names, comma-separated; DEFAULT: the candidate compared with (the draft
before the choice), comma-separated values. Each TITLE FILTER pair prints one choice among
the candidates whose knobs match FILTER ("name=value,..."; "" for all); without pairs,
one choice among all. The candidate chosen has the lowest mean log(regret@16) +
log(regret@64) over the other datasets; ties go to the higher mean Spearman."""
import math
import sys


def main(argv):
    if len(argv) < 4 or len(argv) % 2:
        sys.exit(__doc__)
    path, names, default = argv[1], argv[2].split(','), tuple(argv[3].split(','))
    n = len(names)
    rows = {}
    for line in open(path):
        f = line.split()
        key, s = tuple(f[:n]), f[n]
        sp, r16, r64, first = f[n + 1:n + 5]
        rows.setdefault(key, {})[s] = (float(sp), float(r16), float(r64), int(first))
    if default not in rows:
        sys.exit('draft-study-lowo.py: no rows of the default candidate %s' % '/'.join(default))
    sets = sorted({s for v in rows.values() for s in v})

    def score(key, among):
        v = rows[key]
        top = sum(math.log(v[s][1]) + math.log(v[s][2]) for s in among) / len(among)
        return (round(top, 4), -sum(v[s][0] for s in among) / len(among))

    print(' '.join('%-7s' % k for k in names) + '  ' +
          '  '.join('%s: r16 r64 first sp' % s for s in sets))
    for k in sorted(rows):
        print(' '.join('%-7s' % x for x in k) + '  ' + '  '.join(
            '%.3f %.3f %d %.3f' % (rows[k][s][1], rows[k][s][2], rows[k][s][3], rows[k][s][0])
            for s in sets))
    choices = list(zip(argv[4::2], argv[5::2])) or [('all candidates', '')]
    for title, flt in choices:
        want = dict(p.split('=') for p in flt.split(',') if p)
        cands = [k for k in rows if all(k[names.index(a)] == v for a, v in want.items())]
        print('\nleave one dataset out, %s (%s chosen on the others)' % (title, '/'.join(names)))
        print('%-30s %-22s %-15s %-15s %-11s %s' % ('held out', 'chose', 'regret@16',
                                                     'regret@64', 'first 2%', 'spearman'))
        for held in sets:
            chosen = min(cands, key=lambda k: score(k, [s for s in sets if s != held]))
            b, a = rows[default][held], rows[chosen][held]
            print('%-30s %-22s %.3f -> %.3f  %.3f -> %.3f  %4d -> %-4d %.3f -> %.3f' % (
                held, '/'.join(chosen), b[1], a[1], b[2], a[2], b[3], a[3], b[0], a[0]))


if __name__ == '__main__':
    main(sys.argv)
