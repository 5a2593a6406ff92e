/* test_random.c: pruner/random.h (splitmix64's reference stream, the test-input values). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "pruner/random.h"

/* splitmix64 seeded with 0: the first output of Vigna's reference splitmix64.c. */
static void test_reference_stream(void **state) {
  (void)state;
  uint64_t s = 0;
  assert_true(prunerRandomNext(&s) == 0xe220a8397b1dcdafull);
}

/* Floats: every multiple of 1/16 in [-1, 1] and nothing else; integers: [-4, 4]; the same
 * seed gives the same values. */
static void test_test_values(void **state) {
  (void)state;
  int seen[33] = {0};
  uint64_t s = 42, t = 42;
  for (int i = 0; i < 10000; ++i) {
    double v = prunerRandomTestValue(&s, true);
    assert_true(v == prunerRandomTestValue(&t, true));
    double k = v * 16.0;
    assert_true(k == floor(k) && k >= -16 && k <= 16);
    seen[(int)k + 16] = 1;
    double n = prunerRandomTestValue(&s, false);
    assert_true(n == prunerRandomTestValue(&t, false));
    assert_true(n == floor(n) && n >= -4 && n <= 4);
  }
  for (int k = 0; k < 33; ++k)
    assert_int_equal(seen[k], 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_stream),
      cmocka_unit_test(test_test_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
