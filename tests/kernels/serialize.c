/* Host for tests/kernels/serialize.qd: results that only a serial, in-order loop gives. */
#include "serialize.h"
#include "common.h" /* examples/host/common.h */

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20);
    int32_t *a = host_alloc((size_t)n, 4), *b = host_alloc((size_t)n, 4), *ea = host_alloc((size_t)n, 4), *eb = host_alloc((size_t)n, 4);
    for (int i = 0; i < n; i++) a[i] = ea[i] = (int32_t)(host_rand() % 7) - 3, b[i] = eb[i] = (int32_t)(host_rand() % 5);
    for (int i = 1; i < n; i++) ea[i] += ea[i - 1], eb[i] = (int32_t)((uint32_t)eb[i] * 3u + (uint32_t)eb[i - 1]);
    serialize_args args = {a, {n}, b, {n}};
    if (!host_launch_ok(serialize(&args, nt))) return 2;
    int bad_a = 0, bad_b = 0;
    for (int i = 0; i < n; i++) bad_a += a[i] != ea[i], bad_b += b[i] != eb[i];
    printf("prefix sum %s, break total %d, parallelize=1 recurrence %s\n", bad_a ? "WRONG" : "exact", qd_field_total,
           bad_b ? "WRONG" : "exact");
    free(a), free(b), free(ea), free(eb);
    return bad_a || bad_b || qd_field_total != 55;
}
