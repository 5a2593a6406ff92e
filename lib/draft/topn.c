/* Bounded top-N scans of a space: a max-heap of the N fastest so far lives in the
 * caller's output array (worst at the root), so a scan allocates nothing per config and
 * its memory does not depend on the space size. Ordering is (predicted_us, index). */
#include <math.h>
#include <stdlib.h>

#include "draft_internal.h"
#include "pruner/random.h"

/* a is worse than b: slower, or as fast with a higher index. */
static int worse(const PrunerDraftCandidate *a, const PrunerDraftCandidate *b) {
  if (a->predicted_us != b->predicted_us) return a->predicted_us > b->predicted_us;
  return a->index > b->index;
}

static void siftDown(PrunerDraftCandidate *h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && worse(&h[l], &h[m])) m = l;
    if (r < n && worse(&h[r], &h[m])) m = r;
    if (m == i) return;
    PrunerDraftCandidate tmp = h[i];
    h[i] = h[m];
    h[m] = tmp;
    i = m;
  }
}

static void siftUp(PrunerDraftCandidate *h, size_t i) {
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!worse(&h[i], &h[p])) return;
    PrunerDraftCandidate tmp = h[i];
    h[i] = h[p];
    h[p] = tmp;
    i = p;
  }
}

typedef struct Heap {
  PrunerDraftCandidate *h;
  size_t cap, size;
} Heap;

/* Offers one scored config; copies the config only when it enters the heap. */
static void offer(Heap *heap, const PrunerConfig *config, double us, uint64_t index) {
  if (heap->cap == 0) return;
  if (heap->size < heap->cap) {
    PrunerDraftCandidate *c = &heap->h[heap->size];
    c->config = *config;
    c->predicted_us = us;
    c->index = index;
    siftUp(heap->h, heap->size++);
    return;
  }
  PrunerDraftCandidate *root = &heap->h[0];
  if (us > root->predicted_us || (us == root->predicted_us && index > root->index)) return;
  root->config = *config;
  root->predicted_us = us;
  root->index = index;
  siftDown(heap->h, heap->size, 0);
}

static bool inHeap(const Heap *heap, uint64_t index) {
  for (size_t i = 0; i < heap->size; ++i)
    if (heap->h[i].index == index) return true;
  return false;
}

/* In-place heap sort: the max-heap becomes ascending order (fastest first). */
static size_t finish(Heap *heap) {
  for (size_t n = heap->size; n > 1; --n) {
    PrunerDraftCandidate tmp = heap->h[0];
    heap->h[0] = heap->h[n - 1];
    heap->h[n - 1] = tmp;
    siftDown(heap->h, n - 1, 0);
  }
  return heap->size;
}

size_t prunerDraftTopN(PrunerDraft draft, PrunerSpace space, size_t n,
                       PrunerDraftCandidate *out) {
  PrunerDraftScanOptions all = {0, 0, 0, 0};
  return prunerDraftTopNScan(draft, space, &all, n, out, NULL);
}

size_t prunerDraftTopNScan(PrunerDraft draft, PrunerSpace space,
                           const PrunerDraftScanOptions *opts, size_t n,
                           PrunerDraftCandidate *out, uint64_t *scored) {
  Heap heap = {out, n, 0};
  uint64_t count_scored = 0;
  DraftWarpCache *cache = calloc(1, sizeof *cache); /* 64 KiB; NULL works, unmemoized */
  PrunerDraftSymbols s;
  PrunerConfig config;
  if (opts->sample == 0 && opts->begin == 0 && opts->end == 0) {
    /* Whole space: iterate without the dense-index structure. */
    uint64_t raw = 0, index = 0;
    while (prunerSpaceNext(space, &raw, &config)) {
      if (draftScoreCached(draft, &config, NULL, &s, cache)) {
        offer(&heap, &config, s.predicted_us, index);
        ++count_scored;
      }
      ++index;
    }
  } else {
    uint64_t count = prunerSpaceCount(space);
    uint64_t end = opts->end == 0 || opts->end > count ? count : opts->end;
    uint64_t begin = opts->begin;
    if (begin < end && opts->sample == 0) {
      uint64_t raw;
      if (prunerSpaceGetConfig(space, begin, &config).ok &&
          prunerSpaceEncodeRaw(space, &config, &raw)) {
        for (uint64_t index = begin; index < end && prunerSpaceNext(space, &raw, &config);
             ++index) {
          if (draftScoreCached(draft, &config, NULL, &s, cache)) {
            offer(&heap, &config, s.predicted_us, index);
            ++count_scored;
          }
        }
      }
    } else if (begin < end) {
      uint64_t state = opts->seed;
      uint64_t span = end - begin;
      for (uint64_t i = 0; i < opts->sample; ++i) {
        uint64_t index = begin + prunerRandomNext(&state) % span;
        if (!prunerSpaceGetConfig(space, index, &config).ok) continue;
        if (!draftScoreCached(draft, &config, NULL, &s, cache)) continue;
        ++count_scored;
        /* Drawn with replacement: a config already kept is not kept twice. */
        bool would_enter =
            heap.size < heap.cap ||
            s.predicted_us < heap.h[0].predicted_us ||
            (s.predicted_us == heap.h[0].predicted_us && index < heap.h[0].index);
        if (would_enter && !inHeap(&heap, index)) offer(&heap, &config, s.predicted_us, index);
      }
    }
  }
  free(cache);
  if (scored) *scored = count_scored;
  return finish(&heap);
}

/* ---- Spearman rank correlation ------------------------------------------------------ */

typedef struct Ranked {
  double value;
  size_t pos;
} Ranked;

static int cmpRanked(const void *a, const void *b) {
  const Ranked *x = a, *y = b;
  if (x->value < y->value) return -1;
  if (x->value > y->value) return 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Average (fractional) ranks, 1-based, ties share their mean rank. */
static void ranks(const double *v, size_t n, Ranked *tmp, double *rank) {
  for (size_t i = 0; i < n; ++i) tmp[i] = (Ranked){v[i], i};
  qsort(tmp, n, sizeof *tmp, cmpRanked);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && tmp[j + 1].value == tmp[i].value) ++j;
    double r = (double)(i + j) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k) rank[tmp[k].pos] = r;
    i = j + 1;
  }
}

double prunerDraftSpearman(const double *a, const double *b, size_t n) {
  if (n < 2) return NAN;
  Ranked *tmp = malloc(n * sizeof *tmp);
  double *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
  double result = NAN;
  if (tmp && ra && rb) {
    ranks(a, n, tmp, ra);
    ranks(b, n, tmp, rb);
    /* Pearson correlation of the ranks (exact with ties). */
    double ma = 0, mb = 0;
    for (size_t i = 0; i < n; ++i) {
      ma += ra[i];
      mb += rb[i];
    }
    ma /= n;
    mb /= n;
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; ++i) {
      sab += (ra[i] - ma) * (rb[i] - mb);
      saa += (ra[i] - ma) * (ra[i] - ma);
      sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    if (saa > 0 && sbb > 0) result = sab / sqrt(saa * sbb);
  }
  free(tmp);
  free(ra);
  free(rb);
  return result;
}
