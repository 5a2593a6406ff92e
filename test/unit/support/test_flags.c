/* test_flags.c: pruner/flags.h (numbers from flags: NaN, infinities, overflow, trailing
 * text and ranges are refused with a message naming the flag). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pruner/flags.h"

static void test_doubles(void **state) {
  (void)state;
  double v = -1;
  assert_true(prunerParseDouble("--epsilon", "0.25", 0, 1, &v).ok);
  assert_true(v == 0.25);
  assert_true(prunerParseDouble("--epsilon", "0", 0, 1, &v).ok);
  assert_true(prunerParseDouble("--epsilon", "1", 0, 1, &v).ok);
  assert_true(prunerParseDouble("--x", "1e-3", 0, 1, &v).ok);
  const char *bad[] = {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999", "-1e999",
                       "", " 0.5", "0.5 ", "0.5x", "x", "1.5", "-0.1", "nan(1)"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    v = 7;
    PrunerStatus st = prunerParseDouble("--epsilon", bad[i], 0, 1, &v);
    assert_false(st.ok);
    assert_true(v == 7); /* untouched on error */
    assert_non_null(strstr(st.message, "--epsilon"));
  }
  PrunerStatus st = prunerParseDouble("--epsilon", "nan", 0, 1, &v);
  assert_non_null(strstr(st.message, "not a finite number"));
  st = prunerParseDouble("--epsilon", "2", 0, 1, &v);
  assert_non_null(strstr(st.message, "out of range [0, 1]"));

  assert_true(prunerParsePositiveDouble("--time", "0.5", 1e9, &v).ok);
  assert_false(prunerParsePositiveDouble("--time", "0", 1e9, &v).ok);
  assert_false(prunerParsePositiveDouble("--time", "-0", 1e9, &v).ok);
  assert_false(prunerParsePositiveDouble("--time", "nan", 1e9, &v).ok);
  assert_false(prunerParsePositiveDouble("--time", "inf", 1e9, &v).ok);
  assert_false(prunerParsePositiveDouble("--time", "2e9", 1e9, &v).ok);
}

static void test_integers(void **state) {
  (void)state;
  int64_t v = -1;
  assert_true(prunerParseInt("--trials", "200", 0, 1000, &v).ok);
  assert_int_equal(v, 200);
  assert_true(prunerParseInt("--n", "-5", -10, 10, &v).ok);
  assert_int_equal(v, -5);
  const char *bad[] = {"", "abc", "12x", " 1", "1 ", "1.5", "1e3", "nan", "-1", "1001",
                       "99999999999999999999", "-99999999999999999999", "0x10"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    v = 7;
    PrunerStatus st = prunerParseInt("--trials", bad[i], 0, 1000, &v);
    assert_false(st.ok);
    assert_int_equal(v, 7);
    assert_non_null(strstr(st.message, "--trials"));
  }
  PrunerStatus st = prunerParseInt("--trials", "1001", 0, 1000, &v);
  assert_non_null(strstr(st.message, "out of range [0, 1000]"));
  st = prunerParseInt("--trials", "99999999999999999999", 0, INT64_MAX, &v);
  assert_false(st.ok);
  assert_non_null(strstr(st.message, "out of range"));

  uint64_t u = 0;
  assert_true(prunerParseUint64("--seed", "18446744073709551615", &u).ok);
  assert_true(u == UINT64_MAX);
  assert_true(prunerParseUint64("--seed", "0", &u).ok);
  assert_false(prunerParseUint64("--seed", "18446744073709551616", &u).ok);
  assert_false(prunerParseUint64("--seed", "-1", &u).ok);
  assert_false(prunerParseUint64("--seed", "+1", &u).ok);
  assert_false(prunerParseUint64("--seed", "", &u).ok);
  assert_false(prunerParseUint64("--seed", "1x", &u).ok);
}

/* Two words only, exactly; the value is left alone on an error. */
static void test_choices(void **state) {
  (void)state;
  bool on = false;
  assert_true(prunerParseChoice("--module-check", "on", "on", "off", &on).ok);
  assert_true(on);
  assert_true(prunerParseChoice("--module-check", "off", "on", "off", &on).ok);
  assert_false(on);
  const char *bad[] = {"", "On", "on ", "yes", "offf"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    on = true;
    PrunerStatus st = prunerParseChoice("--module-check", bad[i], "on", "off", &on);
    assert_false(st.ok);
    assert_true(on);
    assert_non_null(strstr(st.message, "expected on or off"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_doubles),
      cmocka_unit_test(test_integers),
      cmocka_unit_test(test_choices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
