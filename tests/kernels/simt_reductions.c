/* Host for tests/kernels/simt_reductions.qd: Quadrants' generic tiled scan/reduce helpers with a
 * non-commutative operator on the CPU runtime (32-lane subgroups), checked exactly. */
#include "simt_reductions.h"
#include "common.h" /* examples/host/common.h */
#include "simt_reductions_check.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4096) / 64 * 64;
    if (n == 0) n = 64;
    uint32_t *a = host_alloc((size_t)n, 4), *out = host_alloc((size_t)n * SR_NC, 4);
    for (int i = 0; i < n; i++) a[i] = host_rand();
    int bad = 0;
    tiles_args ta = {a, {n}, out, {n * SR_NC}};
    if (!host_launch_ok(tiles(&ta, nt))) return 2;
    int b = sr_check_tiles(a, out, n);
    printf("reductions helpers, groups of 2 to 8 lanes: %s\n", b ? "WRONG" : "exact");
    bad += b;
    wide_args wa = {a, {n}, out, {n * SR_NC}};
    if (!host_launch_ok(wide(&wa, nt))) return 2;
    b = sr_check_wide(a, out, n);
    printf("reductions helpers, groups of 32 lanes: %s\n", b ? "WRONG" : "exact");
    bad += b;
    free(a), free(out);
    return bad != 0;
}
