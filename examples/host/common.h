/* Shared bits of the example host programs: arguments `[threads [n]]` (threads 0 = all
 * cores), a deterministic generator, and the verdict. Each host prints one line of results
 * that does not depend on the thread count and exits 0 when every check holds. */
#ifndef QDC_EXAMPLE_HOST_H
#define QDC_EXAMPLE_HOST_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

static inline int host_threads(int argc, char **argv) { return argc > 1 ? atoi(argv[1]) : 0; }
static inline int host_n(int argc, char **argv, int dflt) { return argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : dflt; }

static inline uint32_t host_rand(void) { /* xorshift32: same sequence on every run */
    static uint32_t state = 12345u;
    uint32_t x = state;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return state = x;
}

static inline void *host_alloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
    return p;
}

static inline int host_launch_ok(int rc) {
    if (rc) fprintf(stderr, "launch failed: error %d\n", rc);
    return rc == 0;
}
#endif
