/* test/fuzz/fuzz_selftest.c: a harness with planted bugs, for the driver's own test
 * (driver-selftest.sh): an input starting with "boom" breaks a FUZZ_CHECK, "hang" never
 * returns, "oob!" reads past a heap block (an ASan report in a sanitizer build, a
 * SIGSEGV otherwise), anything else is fine. */
#include <signal.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SELFTEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SELFTEST_ASAN 1
#endif
#endif

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FUZZ_CHECK(!(size >= 4 && memcmp(data, "boom", 4) == 0), "planted bug");
  if (size >= 4 && memcmp(data, "hang", 4) == 0)
    for (;;)
      pause();
  if (size >= 4 && memcmp(data, "oob!", 4) == 0) {
#ifdef SELFTEST_ASAN
    char *p = calloc(4, 1);
    volatile size_t past = size; /* 4: one past the block, unknown to the compiler */
    int c = p ? p[past] : 0;     /* heap-buffer-overflow: the driver must keep the input */
    free(p);
    return c;
#else
    raise(SIGSEGV); /* the driver's signal handler must keep the input */
#endif
  }
  return 0;
}
