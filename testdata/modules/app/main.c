/* Host for testdata/modules/app/main.py (compiled with -I ../lib -D physics.dtype=qd.f32 -D N=5):
 * step's values come from three modules and a package; zero, a kernel of physics.integrate, is
 * an entry because setup() calls it. Every value exact. */
#include "main.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0, n = 16;
    float *v = host_alloc((size_t)n, 4);
    int32_t *p = host_alloc((size_t)n, 4);
    for (int i = 0; i < n; i++) v[i] = (float)i;
    step_args s = {v, {n}, p, {n}};
    if (!host_launch_ok(step(&s, nt))) return free(v), free(p), 2;
    for (int i = 0; i < n; i++) {
        /* accel with dtype f32: v + (G // KM) * 0.5; p: perimeter 4i + 1, G 10000, KM 1000, SCALE 2 * N 5 */
        float want_v = (float)i + 10.0f * 0.5f;
        int32_t want_p = 4 * i + 1 + 10000 + 1000 + 2 * 5;
        if (v[i] != want_v) bad++, printf("v[%d] = %g, want %g\n", i, (double)v[i], (double)want_v);
        if (p[i] != want_p) bad++, printf("p[%d] = %d, want %d\n", i, p[i], want_p);
    }
    zero_args z = {v, {n}};
    if (!host_launch_ok(zero(&z, nt))) return free(v), free(p), 2;
    for (int i = 0; i < n; i++) bad += v[i] != 0.0f;
    printf("modules: %d wrong\n", bad);
    free(v), free(p);
    return bad != 0;
}
