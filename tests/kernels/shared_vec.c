/* Host for tests/kernels/shared_vec.qd: SharedArrays of vectors and matrices, checked exactly
 * against results computed here from the inputs alone (every lane of every 32-lane block). */
#include "shared_vec.h"
#include "common.h" /* examples/host/common.h */
#include "shared_vec_check.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4096) / BD * BD;
    if (n == 0) n = BD;
    int32_t *a = host_alloc((size_t)n, 4), *out = host_alloc((size_t)n * NC, 4);
    for (int i = 0; i < n; i++) a[i] = (int32_t)(host_rand() % 2001) - 1000;
    svec_args sa = {a, {n}, out, {n * NC}};
    if (!host_launch_ok(svec(&sa, nt))) return 2;
    int bad = shared_vec_check(a, out, n);
    printf("SharedArray of vectors and matrices, %d lanes: %s\n", n, bad ? "WRONG" : "exact");
    free(a), free(out);
    return bad != 0;
}
