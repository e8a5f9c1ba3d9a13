/* Host for tests/kernels/reduce.qd: exact reductions through kernel-scope locals and kernel
 * return values, whatever the thread count. */
#include "reduce.h"
#include "common.h" /* examples/host/common.h */

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20);
    int32_t *a = host_alloc((size_t)n, 4), *b = host_alloc((size_t)n, 4);
    int32_t sum = 0, f = 0, orv = 0, andv = -1, xorv = 0, hi = -1000000, seen = 0, k = 3;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)(host_rand() % 20001) - 10000;
        sum += a[i], f += a[i] & 7, orv |= a[i] & 0xFFFF, andv &= a[i] | 0x10000, xorv ^= a[i];
        if (a[i] > hi) hi = a[i];
        if (a[i] == 3) seen = 1;
        total += (int64_t)a[i] * k * 2;
    }
    int32_t got_sum = 0;
    float got_f = 0;
    int64_t got_total = 0;
    isum_args ia = {a, {n}};
    fsum_args fa = {a, {n}};
    mixed_args ma = {a, {n}, b, {n}, k};
    if (!host_launch_ok(isum(&ia, nt, &got_sum)) || !host_launch_ok(fsum(&fa, nt, &got_f)) ||
        !host_launch_ok(mixed(&ma, nt, &got_total)))
        return 2;
    int ok = got_sum == sum && got_f == (float)f && got_total == total && qd_field_out[0] == -sum &&
             qd_field_out[1] == orv && qd_field_out[2] == (andv ^ xorv) && qd_field_out[3] == hi + seen;
    printf("i32 sum %s, f32 sum %s, -= |= &= ^= atomic_max %s, i64 return %s\n", got_sum == sum ? "exact" : "WRONG",
           got_f == (float)f ? "exact" : "WRONG", ok ? "exact" : "WRONG", got_total == total ? "exact" : "WRONG");
    free(a), free(b);
    return !ok;
}
