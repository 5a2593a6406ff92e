/* pruner/checked.h: overflow-checked arithmetic on sizes, and checked float-to-integer
 * conversion.
 *
 * Bounds, shapes and tiles come from user IR, records and attributes and may hold any
 * 64-bit value; a product of them can pass INT64_MAX, and signed overflow is undefined
 * behaviour in C (C11 6.5p5), as is converting a double outside the target type's range
 * to an integer (6.3.1.4). Every product of bounds goes through these helpers instead of
 * a bare `*` (docs/hardening.md, "Sizes"). Header-only, no dependencies. */
#ifndef PRUNER_CHECKED_H
#define PRUNER_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* a * b into *out; false on overflow (*out is then unspecified). */
static inline bool prunerCheckedMul(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}

/* a + b into *out; false on overflow. */
static inline bool prunerCheckedAdd(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}

/* Saturating forms for sizes that are only compared against limits: a result past
 * INT64_MAX reads as INT64_MAX, which fails every limit it meets. For non-negative
 * operands. */
static inline int64_t prunerSatMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static inline int64_t prunerSatAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* The product of n values (n >= 0; 1 for none) into *out; false on overflow. */
static inline bool prunerCheckedProduct(const int64_t *v, int n, int64_t *out) {
  int64_t p = 1;
  for (int i = 0; i < n; ++i)
    if (__builtin_mul_overflow(p, v[i], &p))
      return false;
  *out = p;
  return true;
}

/* Converts a double to int64_t when it is finite and in range (truncating toward zero,
 * as a cast does); false for NaN, infinities and values outside [-2^63, 2^63).
 * -0x1p63 and 0x1p63 are exact doubles, so the comparison itself is exact. */
static inline bool prunerDoubleToInt64(double v, int64_t *out) {
  if (!(v >= -0x1p63 && v < 0x1p63))
    return false;
  *out = (int64_t)v;
  return true;
}

/* The same, saturating: NaN reads as 0, values past the range as INT64_MIN/INT64_MAX. */
static inline int64_t prunerDoubleToInt64Sat(double v) {
  if (v != v)
    return 0;
  if (v >= 0x1p63)
    return INT64_MAX;
  if (v < -0x1p63)
    return INT64_MIN;
  return (int64_t)v;
}

/* Converts a double to int when it is finite and in [INT_MIN, INT_MAX] after truncation;
 * false otherwise. */
static inline bool prunerDoubleToInt(double v, int *out) {
  if (!(v > -2147483649.0 && v < 2147483648.0))
    return false;
  *out = (int)v;
  return true;
}

/* The same, saturating at INT_MIN/INT_MAX; NaN reads as 0. */
static inline int prunerDoubleToIntSat(double v) {
  if (v != v)
    return 0;
  if (v >= 2147483647.0)
    return 2147483647;
  if (v <= -2147483648.0)
    return -2147483647 - 1;
  return (int)v;
}

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_CHECKED_H */
