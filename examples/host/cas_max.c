/* Host for cas_max.qd: the maximum |x| through a user-written compare-and-swap loop. */
#include "cas_max.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20);
    int32_t *cand = host_alloc((size_t)n, sizeof *cand), best = -1, want = 0;
    for (int i = 0; i < n; i++) {
        cand[i] = (int32_t)(host_rand() % 2000000001u) - 1000000000;
        int32_t v = cand[i] < 0 ? -cand[i] : cand[i];
        if (v > want) want = v;
    }
    cas_max_args a = {cand, {n}, &best, {1}};
    if (!host_launch_ok(cas_max(&a, nt))) return 2;
    printf("%d candidates: max |x| = %d %s\n", n, best, best == want ? "exact" : "MISMATCH");
    free(cand);
    return best != want;
}
