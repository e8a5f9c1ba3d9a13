/* Host for minmax.qd: signed, unsigned and float minimum and maximum. */
#include "minmax.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 19);
    int32_t *ia = host_alloc((size_t)n, 4), ires[2];
    uint32_t *ua = host_alloc((size_t)n, 4), ures[2];
    float *fa = host_alloc((size_t)n, 4), fres[2];
    int32_t imin = INT32_MAX, imax = INT32_MIN;
    uint32_t umin = UINT32_MAX, umax = 0;
    float fmin = 1e30f, fmax = -1e30f;
    for (int i = 0; i < n; i++) {
        ia[i] = (int32_t)host_rand(), ua[i] = host_rand(), fa[i] = (float)(int32_t)host_rand() / 1024.0f;
        if (ia[i] < imin) imin = ia[i];
        if (ia[i] > imax) imax = ia[i];
        if (ua[i] < umin) umin = ua[i];
        if (ua[i] > umax) umax = ua[i];
        if (fa[i] < fmin) fmin = fa[i];
        if (fa[i] > fmax) fmax = fa[i];
    }
    minmax_args a = {ia, {n}, ua, {n}, fa, {n}, ires, {2}, ures, {2}, fres, {2}};
    if (!host_launch_ok(minmax(&a, nt))) return 2;
    int ok = ires[0] == imin && ires[1] == imax && ures[0] == umin && ures[1] == umax && fres[0] == fmin && fres[1] == fmax;
    printf("%d each: i32 [%d, %d] u32 [%u, %u] f32 [%.3f, %.3f] %s\n", n, ires[0], ires[1], ures[0], ures[1],
           fres[0], fres[1], ok ? "exact" : "MISMATCH");
    free(ia), free(ua), free(fa);
    return !ok;
}
