/* Host for examples/cmake-dispatch: both families' headers in one translation unit (their
 * symbols and include guards carry the family), the family chosen at run time from the CPU
 * (`host baseline` forces x86_64). */
#include "x86_64/scale.h"
#include "x86_64-v3/scale.h"
#include <stdio.h>
#include <string.h>

enum { N = 1000 };

int main(int argc, char **argv) {
    static float a[N];
    for (int i = 0; i < N; i++) a[i] = (float)i;
    __builtin_cpu_init();
    int v3 = !(argc > 1 && !strcmp(argv[1], "baseline")) && __builtin_cpu_supports("avx2") &&
             __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
    int rc;
    if (v3) {
        scale_x86_64_v3_scale_f32_args args = {a, {N}};
        rc = scale_x86_64_v3_scale_f32(&args, 2);
    } else {
        scale_x86_64_scale_f32_args args = {a, {N}};
        rc = scale_x86_64_scale_f32(&args, 2);
    }
    printf("%s: a[999]=%g\n", v3 ? "x86_64-v3" : "x86_64", a[N - 1]);
    return rc != 0 || a[N - 1] != 2997.0f;
}
