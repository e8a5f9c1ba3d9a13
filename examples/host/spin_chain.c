/* Host for spin_chain.qd: a chained prefix sum where each position spins on its predecessor. */
#include "spin_chain.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 14), bad = 0;
    int32_t *x = host_alloc((size_t)n, 4), *out = host_alloc((size_t)n, 4), *flags = host_alloc((size_t)n, 4), s = 0;
    for (int i = 0; i < n; i++) x[i] = (int32_t)(host_rand() % 100);
    spin_chain_args a = {x, {n}, out, {n}, flags, {n}};
    if (!host_launch_ok(spin_chain(&a, nt))) return 2;
    for (int i = 0; i < n; i++) s += x[i], bad += out[i] != s;
    printf("%d positions: prefix sums %s (last %d)\n", n, bad ? "MISMATCH" : "exact", out[n - 1]);
    free(x), free(out), free(flags);
    return bad != 0;
}
