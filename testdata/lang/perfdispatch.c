/* Host for testdata/lang/perfdispatch.py: both registered implementations of the dispatcher run
 * and give the same result (the choice between them is the host's). */
#include "perfdispatch.h"
#include "common.h"

enum { N = 64 };

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    static float a[N], b1[N], b2[N];
    for (int i = 0; i < N; i++) a[i] = (float)i * 0.75f - 3.0f;
    double_mul_args m = {.a = a, .a_shape = {N}, .b = b1, .b_shape = {N}};
    double_add__f32_1d__f32_1d_args d = {.a = a, .a_shape = {N}, .b = b2, .b_shape = {N}};
    if (!host_launch_ok(double_mul(&m, nt)) || !host_launch_ok(double_add__f32_1d__f32_1d(&d, nt))) return 2;
    for (int i = 0; i < N; i++) bad += b1[i] != a[i] * 2 || b2[i] != b1[i];
    printf("perfdispatch: %d wrong\n", bad);
    return bad != 0;
}
