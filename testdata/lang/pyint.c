/* Host for testdata/lang/pyint.py: the Python ints qdc computed in host code, stored by the
 * kernel k; every value exact (Python's own results, 64 bits and more than 32). */
#include "pyint.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    k_args a = {0};
    if (!host_launch_ok(k(&a, nt))) return 2;
    /* q = 10**10; 3**32; sum(i * q for i < 100); -q // 7; -q % 7; (q << 20) >> 3; q * 3 - p; and past
     * 64 bits, big = 2**100, n64 = 3**64: big >> 95; n64 % (10**9 + 7); big // 3**40; -((-big) >> 90);
     * (big | 5) & 0xFFFF; (big * big) >> 150; big < n64; -n64 // big (Python's values) */
    static const int64_t want[15] = {10000000000, 1853020188851841, 49500000000000, -1428571429, 3, 1310720000000000, 29999900000,
                                     32, 767713261, 104267600099, 1024, 5, 1125899906842624, 1, -3};
    for (int i = 0; i < 15; i++)
        if (qd_field_out[i] != want[i]) printf("out[%d] = %lld, want %lld\n", i, (long long)qd_field_out[i], (long long)want[i]), bad++;
    static const uint64_t fwant[4] = {(uint64_t)1 << 62, (uint64_t)1 << 63, 3, (uint64_t)1 << 56}; /* F.M62, F.M63, F.M0 | F.M1, F.M66 >> 10 */
    for (int i = 0; i < 4; i++)
        if (qd_field_flags[i] != fwant[i]) printf("flags[%d] = %llu, want %llu\n", i, (unsigned long long)qd_field_flags[i], (unsigned long long)fwant[i]), bad++;
    printf("pyint: %d wrong\n", bad);
    return bad != 0;
}
